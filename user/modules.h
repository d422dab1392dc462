/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loaded .ko files, the code source's modules (modules.c): the code
 * source (code.c) asks here first for addresses, names and bytes that
 * belong to a module. Symbols a module does not define resolve in the
 * image's table, which the set is given when it is made.
 */
#ifndef KCOLLIDER_MODULES_H
#define KCOLLIDER_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symtab.h"

/* Offline, modules are placed one after the other from here. */
#define KC_MODULES_BASE		0xffffffffc0000000ULL
#define KC_MODULES_STRIDE	0x1000000ULL
/* Symbols no code source defines get a placeholder address from here. */
#define KC_UNDEF_BASE		0xfffffffffe000000ULL
#define KC_UNDEF_STEP		16

struct kc_module;
struct kc_modset;

/*
 * Live (@live), sections go where /proc/kallsyms has them and modules are
 * found in /lib/modules on demand. @image outlives the set.
 */
struct kc_modset *modset_new(const struct kc_symtab *image, bool live);
/* Live: a non-text symbol of a module, from /proc/kallsyms. */
int modset_live_data(struct kc_modset *ms, const char *name, const char *mod,
		     uint64_t addr);
/* Every .ko of @dir (see code_add_modules()): 0 or -errno, message in @err. */
int modset_add_dir(struct kc_modset *ms, const char *dir, char *err,
		   size_t len);
/* The module @name, loaded lazily from /lib/modules when live, or NULL. */
const struct kc_module *modset_module(struct kc_modset *ms, const char *name);
const struct kc_sym *modset_find_addr(const struct kc_modset *ms, uint64_t addr);
const struct kc_sym *modset_find_name(struct kc_modset *ms, const char *name,
				      const char *mod, uint64_t size);
/* Bytes from a module's sections; -2 when @addr is in none of them. */
long modset_read(const struct kc_modset *ms, uint64_t addr, void *buf,
		 size_t len);
void modset_free(struct kc_modset *ms);

#endif /* KCOLLIDER_MODULES_H */
