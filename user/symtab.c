// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbol tables. A report names a function by name (and module
 * and size), an address needs its function: one table serves both, for
 * the image and for every module alike.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symtab.h"

int symtab_add(struct kc_symtab *t, const char *name, const char *mod,
	       uint64_t addr, uint64_t size)
{
	struct kc_sym *s;

	if (t->nsyms == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;

		s = realloc(t->syms, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->syms = s;
		t->cap = cap;
	}
	s = &t->syms[t->nsyms];
	s->name = strdup(name);
	s->mod = mod && *mod ? strdup(mod) : NULL;
	s->addr = addr;
	s->size = size;
	if (!s->name || (mod && *mod && !s->mod)) {
		free((char *)s->name);
		free((char *)s->mod);
		return -ENOMEM;
	}
	t->nsyms++;
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct kc_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct kc_sym *x = *(struct kc_sym * const *)a;
	const struct kc_sym *y = *(struct kc_sym * const *)b;

	return strcmp(x->name, y->name);
}

void symtab_sort(struct kc_symtab *t)
{
	qsort(t->syms, t->nsyms, sizeof(*t->syms), cmp_addr);
}

int symtab_index(struct kc_symtab *t)
{
	size_t i;

	symtab_sort(t);
	/*
	 * Symbols without a size (added to a stripped vmlinux from a
	 * System.map or /proc/kallsyms) end where the next one begins.
	 */
	for (i = 0; i + 1 < t->nsyms; i++) {
		size_t j = i + 1;

		while (j < t->nsyms && t->syms[j].addr == t->syms[i].addr)
			j++;
		if (!t->syms[i].size && j < t->nsyms)
			t->syms[i].size = t->syms[j].addr - t->syms[i].addr;
	}
	free(t->by_name);
	t->by_name = malloc((t->nsyms + 1) * sizeof(*t->by_name));
	if (!t->by_name)
		return -ENOMEM;
	for (i = 0; i < t->nsyms; i++)
		t->by_name[i] = &t->syms[i];
	qsort(t->by_name, t->nsyms, sizeof(*t->by_name), cmp_name);
	return 0;
}

static bool mod_matches(const struct kc_sym *s, const char *mod)
{
	if (!mod || !*mod)
		return !s->mod;
	return s->mod && !strcmp(s->mod, mod);
}

const struct kc_sym *symtab_find_name(const struct kc_symtab *t,
				      const char *name, const char *mod,
				      uint64_t size)
{
	struct kc_sym key = { .name = name }, *kp = &key, **hit;
	const struct kc_sym *best = NULL;
	size_t lo, hi;

	if (!t->by_name)
		return NULL;
	hit = bsearch(&kp, t->by_name, t->nsyms, sizeof(*t->by_name), cmp_name);
	if (!hit)
		return NULL;
	/* Walk to the first of the namesakes, then take the best match. */
	lo = hit - t->by_name;
	while (lo && !strcmp(t->by_name[lo - 1]->name, name))
		lo--;
	for (hi = lo; hi < t->nsyms && !strcmp(t->by_name[hi]->name, name); hi++) {
		const struct kc_sym *s = t->by_name[hi];

		if (!mod_matches(s, mod))
			continue;
		if (!best || (size && s->size == size && best->size != size))
			best = s;
	}
	return best;
}

const struct kc_sym *symtab_find_addr(const struct kc_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The last symbol starting at or before addr that covers it. */
	while (lo--) {
		const struct kc_sym *s = &t->syms[lo];

		if (addr < s->addr + (s->size ? s->size : 1))
			return s;
		if (addr - s->addr > (1 << 20))
			break;
	}
	return NULL;
}

void symtab_free(struct kc_symtab *t)
{
	size_t i;

	for (i = 0; i < t->nsyms; i++) {
		free((char *)t->syms[i].name);
		free((char *)t->syms[i].mod);
	}
	free(t->syms);
	free(t->by_name);
	memset(t, 0, sizeof(*t));
}
