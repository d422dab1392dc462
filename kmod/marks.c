// SPDX-License-Identifier: GPL-2.0
/*
 * Marked code ranges, learnt from the source. A debug register sees a
 * mov, whatever the C said: READ_ONCE() and a plain load are the same
 * instruction. "kcollider mark" reads DWARF and the source of the modules
 * under test and writes here the ranges of the accesses the source marks;
 * the "marked" filter then applies KCSAN's rule (no race when both sides
 * are marked, or either is in data_race()). It also writes the code the
 * kernel builds without KCSAN, for the "exempt" filter.
 *
 * Looked up from the report worker only (process context): a mutex, and a
 * sorted array replaced whole on every change.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include <kcollider/marks.h>
#include "kcollider.h"

static struct kc_marks_range *kc_marks;
static unsigned int kc_nr_marks;
static DEFINE_MUTEX(kc_marks_lock);

static int kc_marks_cmp(const void *a, const void *b)
{
	const struct kc_marks_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * A range inside one function: DWARF's rows never cross one, and an
 * address nothing is at (a module since unloaded), which kallsyms prints
 * bare, without "+0xoff/0xsize", is refused.
 */
static bool kc_marks_range_ok(const struct kc_marks_range *r)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long off, size;
	char *plus;

	sprint_symbol(sym, r->start);
	plus = strrchr(sym, '+');
	return plus && sscanf(plus, "+%lx/%lx", &off, &size) == 2 &&
	       r->len && off + r->len <= size;
}

/* Parses and checks every line of @buf into @out (NULL: count only). */
static int kc_marks_parse(const char *buf, size_t len,
			  struct kc_marks_range *out, unsigned int *n)
{
	const char *line;
	size_t pos = 0, llen;
	int err = 0;

	*n = 0;
	while (kc_marks_next_line(buf, len, &pos, &line, &llen, &err)) {
		struct kc_marks_range r;

		if (err || kc_marks_parse_line(line, llen, &r))
			return -EINVAL;
		if (out) {
			if (!kc_marks_range_ok(&r))
				return -EINVAL;
			out[*n] = r;
		}
		(*n)++;
	}
	return *n ? 0 : -EINVAL;
}

/*
 * Merges the sorted ranges held and the sorted ranges @add into @out, one
 * range per start: a range written again replaces itself. A write is a
 * page of lines and an image's marks are many pages, so a write costs one
 * pass over what is held, not a sort of it.
 */
static unsigned int kc_marks_merge(const struct kc_marks_range *add,
				   unsigned int n, struct kc_marks_range *out)
{
	unsigned int i = 0, j = 0, o = 0;

	while (i < kc_nr_marks || j < n) {
		const struct kc_marks_range *next;

		if (j == n || (i < kc_nr_marks &&
			       kc_marks[i].start <= add[j].start))
			next = &kc_marks[i++];
		else
			next = &add[j++];
		if (o && out[o - 1].start == next->start)
			o--;
		out[o++] = *next;
	}
	return o;
}

static void kc_marks_replace(struct kc_marks_range *m, unsigned int n)
{
	struct kc_marks_range *old;

	old = kc_marks;
	kc_marks = m;
	kc_nr_marks = n;
	kvfree(old);
}

static int kc_marks_add(const char *buf, size_t len, unsigned int n)
{
	struct kc_marks_range *add, *m;
	int ret;

	add = kvmalloc_array(n, sizeof(*add), GFP_KERNEL);
	if (!add)
		return -ENOMEM;
	ret = kc_marks_parse(buf, len, add, &n);
	if (ret)
		goto out;
	sort(add, n, sizeof(*add), kc_marks_cmp, NULL);
	mutex_lock(&kc_marks_lock);
	ret = -ENOSPC;
	if (kc_nr_marks + n > KC_MARKS_MAX)
		goto unlock;
	ret = -ENOMEM;
	m = kvmalloc_array(kc_nr_marks + n, sizeof(*m), GFP_KERNEL);
	if (!m)
		goto unlock;
	kc_marks_replace(m, kc_marks_merge(add, n, m));
	ret = 0;
unlock:
	mutex_unlock(&kc_marks_lock);
out:
	kvfree(add);
	return ret;
}

int kc_marks_write(const char *buf, size_t len)
{
	unsigned int n;
	int ret;

	if (kc_parse_word_is(buf, kc_parse_strip_len(buf, len), "clear")) {
		mutex_lock(&kc_marks_lock);
		kc_marks_replace(NULL, 0);
		mutex_unlock(&kc_marks_lock);
		return 0;
	}
	ret = kc_marks_parse(buf, len, NULL, &n);
	return ret ? ret : kc_marks_add(buf, len, n);
}

ssize_t kc_marks_show(char *buf, size_t size)
{
	unsigned int i, count[KC_MARKS_NR_KINDS] = {};

	mutex_lock(&kc_marks_lock);
	for (i = 0; i < kc_nr_marks; i++)
		count[kc_marks[i].kind]++;
	mutex_unlock(&kc_marks_lock);
	return scnprintf(buf, size, "ranges %u\nmarked %u\ndata_race %u\n"
			 "exempt %u\n", i, count[KC_MARKS_MARKED],
			 count[KC_MARKS_DATA_RACE], count[KC_MARKS_EXEMPT]);
}

/* The kind of the range holding @ip (KC_MARKS_*), KC_MARKS_NONE if none. */
int kc_marks_kind_at(unsigned long ip)
{
	unsigned int lo = 0, hi;
	int kind = KC_MARKS_NONE;

	mutex_lock(&kc_marks_lock);
	hi = kc_nr_marks;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (kc_marks[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ip < kc_marks[lo - 1].start + kc_marks[lo - 1].len)
		kind = kc_marks[lo - 1].kind;
	mutex_unlock(&kc_marks_lock);
	return kind;
}

/* A module's ranges go with it: its addresses will be another's. */
static int kc_marks_module_event(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	struct module *mod = data;
	unsigned int i, o = 0;

	if (action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kc_marks_lock);
	for (i = 0; i < kc_nr_marks; i++)
		if (!within_module(kc_marks[i].start, mod))
			kc_marks[o++] = kc_marks[i];
	kc_nr_marks = o;
	mutex_unlock(&kc_marks_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kc_marks_module_nb = {
	.notifier_call = kc_marks_module_event,
};

int kc_marks_init(void)
{
	return register_module_notifier(&kc_marks_module_nb);
}

void kc_marks_exit(void)
{
	unregister_module_notifier(&kc_marks_module_nb);
	kc_marks_replace(NULL, 0);
}
