/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loaded .ko files, internal to the code source (code.c): code.c asks
 * here first for addresses, names and bytes that belong to a module.
 */
#ifndef KCOLLIDER_MODULES_H
#define KCOLLIDER_MODULES_H

#include "code.h"

/* Offline, modules are placed one after the other from here. */
#define KC_MODULES_BASE		0xffffffffc0000000ULL
#define KC_MODULES_STRIDE	0x1000000ULL
/* Symbols no code source defines get a placeholder address from here. */
#define KC_UNDEF_BASE		0xfffffffffe000000ULL
#define KC_UNDEF_STEP		16

/* The image's (or kallsyms') own table only, never the modules. */
const struct kc_sym *code_find_main(const struct code_src *c, const char *name,
				    const char *mod, uint64_t size);

/* Live: a non-text symbol of a module, from /proc/kallsyms. */
int modset_live_data(struct code_src *c, const char *name, const char *mod,
		     uint64_t addr);
const struct kc_sym *modset_find_addr(const struct code_src *c, uint64_t addr);
const struct kc_sym *modset_find_name(const struct code_src *c, const char *name,
				      const char *mod, uint64_t size);
/* Bytes from a module's sections; -2 when @addr is in none of them. */
long modset_read(const struct code_src *c, uint64_t addr, void *buf, size_t len);
void modset_free(struct code_src *c);

#endif /* KCOLLIDER_MODULES_H */
