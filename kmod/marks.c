// SPDX-License-Identifier: GPL-2.0
/*
 * Marked code ranges, learnt from the source. A debug register sees a
 * mov, whatever the C said: READ_ONCE() and a plain load are the same
 * instruction. "kcollider mark" reads DWARF and the source of the modules
 * under test and writes here the ranges of the accesses the source marks;
 * the "marked" filter then applies KCSAN's rule (no race when both sides
 * are marked, or either is in data_race()). It also writes the code the
 * kernel builds without KCSAN, for the "exempt" filter, and the functions
 * it read, where an access no range marks is plain: the report says so.
 *
 * Looked up from the report worker only (process context): a mutex, and
 * two sorted arrays (the analysed functions overlap the ranges in them),
 * each replaced whole on every change.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include <kcollider/marks.h>
#include "kcollider.h"

struct kc_marks_table {
	struct kc_marks_range *r;
	unsigned int nr;
};

static struct kc_marks_table kc_marks;		/* marked, data_race, exempt */
static struct kc_marks_table kc_analysed;
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
 * Merges the sorted ranges @t holds and the sorted ranges @add into @out,
 * one range per start: a range written again replaces itself. A write is
 * a page of lines and an image's marks are many pages, so a write costs one
 * pass over what is held, not a sort of it.
 */
static unsigned int kc_marks_merge(const struct kc_marks_table *t,
				   const struct kc_marks_range *add,
				   unsigned int n, struct kc_marks_range *out)
{
	unsigned int i = 0, j = 0, o = 0;

	while (i < t->nr || j < n) {
		const struct kc_marks_range *next;

		if (j == n || (i < t->nr && t->r[i].start <= add[j].start))
			next = &t->r[i++];
		else
			next = &add[j++];
		if (o && out[o - 1].start == next->start)
			o--;
		out[o++] = *next;
	}
	return o;
}

static void kc_marks_replace(struct kc_marks_table *t,
			     struct kc_marks_range *m, unsigned int n)
{
	struct kc_marks_range *old;

	old = t->r;
	t->r = m;
	t->nr = n;
	kvfree(old);
}

/* The new arrays of both tables, or none: a write that fails changes nothing. */
static int kc_marks_merge_into(struct kc_marks_table *t,
			       const struct kc_marks_range *add, unsigned int n,
			       struct kc_marks_range **out, unsigned int *nr)
{
	*out = NULL;
	*nr = t->nr;
	if (!n)
		return 0;
	if (t->nr + n > KC_MARKS_MAX)
		return -ENOSPC;
	*out = kvmalloc_array(t->nr + n, sizeof(**out), GFP_KERNEL);
	if (!*out)
		return -ENOMEM;
	*nr = kc_marks_merge(t, add, n, *out);
	return 0;
}

/* The analysed functions last in @r, the other ranges' count returned. */
static unsigned int kc_marks_split(struct kc_marks_range *r, unsigned int n)
{
	unsigned int i, o = 0;

	for (i = 0; i < n; i++) {
		if (r[i].kind == KC_MARKS_ANALYSED)
			continue;
		swap(r[i], r[o]);
		o++;
	}
	return o;
}

static int kc_marks_add(const char *buf, size_t len, unsigned int n)
{
	struct kc_marks_range *add, *m, *a;
	unsigned int nm, nm_out, na_out;
	int ret;

	add = kvmalloc_array(n, sizeof(*add), GFP_KERNEL);
	if (!add)
		return -ENOMEM;
	ret = kc_marks_parse(buf, len, add, &n);
	if (ret)
		goto out;
	nm = kc_marks_split(add, n);
	sort(add, nm, sizeof(*add), kc_marks_cmp, NULL);
	sort(add + nm, n - nm, sizeof(*add), kc_marks_cmp, NULL);
	mutex_lock(&kc_marks_lock);
	ret = kc_marks_merge_into(&kc_marks, add, nm, &m, &nm_out);
	if (ret)
		goto unlock;
	ret = kc_marks_merge_into(&kc_analysed, add + nm, n - nm, &a, &na_out);
	if (ret) {
		kvfree(m);
		goto unlock;
	}
	if (m)
		kc_marks_replace(&kc_marks, m, nm_out);
	if (a)
		kc_marks_replace(&kc_analysed, a, na_out);
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
		kc_marks_replace(&kc_marks, NULL, 0);
		kc_marks_replace(&kc_analysed, NULL, 0);
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
	for (i = 0; i < kc_marks.nr; i++)
		count[kc_marks.r[i].kind]++;
	count[KC_MARKS_ANALYSED] = kc_analysed.nr;
	mutex_unlock(&kc_marks_lock);
	return scnprintf(buf, size, "ranges %u\nmarked %u\ndata_race %u\n"
			 "exempt %u\nanalysed %u\n", i,
			 count[KC_MARKS_MARKED], count[KC_MARKS_DATA_RACE],
			 count[KC_MARKS_EXEMPT], count[KC_MARKS_ANALYSED]);
}

/* The range of @t holding @ip, or NULL; under kc_marks_lock. */
static const struct kc_marks_range *
kc_marks_find(const struct kc_marks_table *t, unsigned long ip)
{
	unsigned int lo = 0, hi = t->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t->r[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ip < t->r[lo - 1].start + t->r[lo - 1].len)
		return &t->r[lo - 1];
	return NULL;
}

/* The kind of the range holding @ip (KC_MARKS_*), KC_MARKS_NONE if none. */
int kc_marks_kind_at(unsigned long ip)
{
	const struct kc_marks_range *r;
	int kind;

	mutex_lock(&kc_marks_lock);
	r = kc_marks_find(&kc_marks, ip);
	kind = r ? r->kind : KC_MARKS_NONE;
	mutex_unlock(&kc_marks_lock);
	return kind;
}

/*
 * What the source says of the access at @ip: its range's kind, or
 * KC_MARKS_NONE (plain) in an analysed function; -ENOENT where nothing
 * was read.
 */
int kc_marks_known_at(unsigned long ip)
{
	const struct kc_marks_range *r;
	int kind = -ENOENT;

	mutex_lock(&kc_marks_lock);
	r = kc_marks_find(&kc_marks, ip);
	if (r)
		kind = r->kind;
	else if (kc_marks_find(&kc_analysed, ip))
		kind = KC_MARKS_NONE;
	mutex_unlock(&kc_marks_lock);
	return kind;
}

static void kc_marks_drop_module(struct kc_marks_table *t, struct module *mod)
{
	unsigned int i, o = 0;

	for (i = 0; i < t->nr; i++)
		if (!within_module(t->r[i].start, mod))
			t->r[o++] = t->r[i];
	t->nr = o;
}

/* A module's ranges go with it: its addresses will be another's. */
static int kc_marks_module_event(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	struct module *mod = data;

	if (action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kc_marks_lock);
	kc_marks_drop_module(&kc_marks, mod);
	kc_marks_drop_module(&kc_analysed, mod);
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
	kc_marks_replace(&kc_marks, NULL, 0);
	kc_marks_replace(&kc_analysed, NULL, 0);
}
