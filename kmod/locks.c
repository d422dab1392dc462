// SPDX-License-Identifier: GPL-2.0
/*
 * The locks each side of a race held, from lockdep's per-task stack of
 * held locks, on kernels built with it. A race is often a lock one side
 * takes and the other does not (a remote sum of per-CPU counters under a
 * lock the adders never take): the report names the locks held by one
 * side only.
 *
 * Captured in the int3 handler's stall and in the #DB handler, from the
 * task that made the access: its own held_locks[], read with no lock.
 * An interrupt may have come in the middle of lockdep updating that
 * array, so nothing captured is followed as a pointer later without a
 * fault-safe read: the lock's map is kept as an identity to compare, its
 * name pointer read fault-safely, the name itself copied by the report
 * worker fault-safely.
 */
#include <linux/lockdep.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kcollider.h"

#ifdef CONFIG_LOCKDEP

/* The innermost locks are the ones the racing code took: keep those. */
void kc_locks_capture(struct kc_side *a)
{
	struct task_struct *t = current;
	int depth = READ_ONCE(t->lockdep_depth);
	int first, i;

	if (depth < 0 || depth > MAX_LOCK_DEPTH)
		depth = 0;
	a->nr_held_total = min(depth, 255);
	first = max(0, depth - KC_MAX_HELD);
	a->nr_held = 0;
	for (i = first; i < depth; i++) {
		struct held_lock *h = &t->held_locks[i];
		struct kc_held_lock *k = &a->held[a->nr_held];
		struct lockdep_map *map = READ_ONCE(h->instance);

		k->map = (unsigned long)map;
		k->read = h->read;
		if (!map || copy_from_kernel_nofault(&k->name, &map->name,
						     sizeof(k->name)))
			k->name = 0;
		a->nr_held++;
	}
}
NOKPROBE_SYMBOL(kc_locks_capture);

bool kc_locks_known(void)
{
	return true;
}

#else

void kc_locks_capture(struct kc_side *a)
{
}
NOKPROBE_SYMBOL(kc_locks_capture);

bool kc_locks_known(void)
{
	return false;
}

#endif

/*
 * A lock's name as one word of a tool line: lockdep names are C
 * expressions ("&fbc->lock", "(wq_completion)events"), read from memory
 * that may be gone by now.
 */
void kc_locks_name(const struct kc_held_lock *k, char *buf, size_t size)
{
	const char *src = (const char *)k->name;
	size_t i;
	char c;

	/* byte by byte: a name may end just before an unmapped page */
	for (i = 0; src && i + 1 < size; i++) {
		if (copy_from_kernel_nofault(&c, src + i, 1) || !c)
			break;
		buf[i] = c <= ' ' || c == ',' || c == '=' || c > '~' ? '_' : c;
	}
	buf[i] = '\0';
	if (!i)
		snprintf(buf, size, "0x%lx", k->map);
}

/* Whether @b holds the lock @k, the same instance. */
bool kc_locks_held_by(const struct kc_side *b, const struct kc_held_lock *k)
{
	unsigned int i;

	for (i = 0; i < b->nr_held; i++)
		if (b->held[i].map == k->map)
			return true;
	return false;
}
