/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's symbols, from /proc/kallsyms: the one reader every
 * command that needs them uses.
 */
#ifndef KCOLLIDER_KALLSYMS_H
#define KCOLLIDER_KALLSYMS_H

#include <stdint.h>

#define KC_KALLSYMS "/proc/kallsyms"

/* One line: "ADDR TYPE NAME", then "\t[MODULE]" for a module's symbol. */
struct kc_ksym {
	uint64_t addr;
	char type;		/* 't'/'T': text; see nm(1) */
	const char *name;	/* valid during the callback only */
	const char *mod;	/* NULL for the kernel image */
};

/* Called for each symbol; a nonzero return stops the walk. */
typedef int (*kc_ksym_cb)(const struct kc_ksym *s, void *data);

/*
 * Every symbol of @path (KC_KALLSYMS, or a saved copy of it), names of
 * any length, in file order. Returns 0, the callback's nonzero value, or
 * -errno (the file cannot be opened or read).
 */
int kc_kallsyms_each(const char *path, kc_ksym_cb cb, void *data);

/*
 * The address of @name in the kernel image (module symbols never match).
 * 0, -ENOENT when there is no such symbol, -EPERM when kallsyms shows it
 * at zero (kptr_restrict: not root), or -errno.
 */
int kc_kallsyms_lookup(const char *path, const char *name, uint64_t *addr);

#endif /* KCOLLIDER_KALLSYMS_H */
