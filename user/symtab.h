/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table of function symbols, sorted by address and by name: the image's
 * (vmlinux or /proc/kallsyms) and each loaded module's.
 */
#ifndef KCOLLIDER_SYMTAB_H
#define KCOLLIDER_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct kc_sym {
	const char *name;
	const char *mod;	/* NULL for the kernel image */
	uint64_t addr, size;
};

struct kc_symtab {
	struct kc_sym *syms;	/* sorted by address once indexed */
	size_t nsyms, cap;
	struct kc_sym **by_name;	/* sorted by name */
};

/* A copy of @name and @mod (NULL or "" for the image): 0 or -ENOMEM. */
int symtab_add(struct kc_symtab *t, const char *name, const char *mod,
	       uint64_t addr, uint64_t size);
/* Address order; at one address the largest symbol first. */
void symtab_sort(struct kc_symtab *t);
/*
 * Sorted both ways; a symbol without a size ends where the next one
 * begins. 0 or -ENOMEM.
 */
int symtab_index(struct kc_symtab *t);
/*
 * @name in module @mod (NULL or "" for the image); among namesakes (static
 * functions) the one of size @size if nonzero.
 */
const struct kc_sym *symtab_find_name(const struct kc_symtab *t,
				      const char *name, const char *mod,
				      uint64_t size);
/* The symbol that contains @addr. */
const struct kc_sym *symtab_find_addr(const struct kc_symtab *t, uint64_t addr);
void symtab_free(struct kc_symtab *t);

#endif /* KCOLLIDER_SYMTAB_H */
