/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the analysed code comes from: an ELF file with a symbol table
 * (vmlinux, or any x86-64 executable: that is how fixtures are fed) or the
 * running kernel (/proc/kallsyms for symbols, /proc/kcore for bytes).
 */
#ifndef KCOLLIDER_CODE_H
#define KCOLLIDER_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symtab.h"

struct code_seg {
	uint64_t addr, len;
	uint64_t off;		/* file offset of addr */
};

struct kc_module;		/* modules.c */
struct kc_modset;		/* modules.c */

struct code_src {
	char *path;
	int fd;
	struct kc_symtab image;	/* the image's functions */
	struct code_seg *segs;
	size_t nsegs;
	void *elf;		/* Elf * of path, kept for libdw */
	void *dwfl;		/* Dwfl * when DWARF line info was found */
	bool live;
	struct kc_modset *ms;	/* --modules, and /lib/modules when live */
};

/* --vmlinux ELF: 0 or -errno, message in @err. */
int code_open_elf(struct code_src *c, const char *path, char *err, size_t len);
/* Live kernel (root): /proc/kallsyms and /proc/kcore. */
int code_open_live(struct code_src *c, char *err, size_t len);
void code_close(struct code_src *c);
/*
 * --modules DIR: every .ko of @dir, relocated. Offline they are placed
 * after each other at KC_MODULES_BASE; live each section goes where
 * /proc/kallsyms says the loaded module has it (modules not loaded are
 * skipped), and modules named by a frame but not in @dir are looked up in
 * /lib/modules/$(uname -r). 0 or -errno, message in @err.
 */
int code_add_modules(struct code_src *c, const char *dir, char *err, size_t len);
/* The loaded module @name (lazily from /lib/modules when live), or NULL. */
const struct kc_module *code_module(const struct code_src *c, const char *name);

/*
 * The function symbol @name (in module @mod, NULL or "" for the image);
 * among duplicates (static functions) the one of size @size if nonzero.
 */
const struct kc_sym *code_find_name(const struct code_src *c, const char *name,
				    const char *mod, uint64_t size);
/* The symbol that contains @addr. */
const struct kc_sym *code_find_addr(const struct code_src *c, uint64_t addr);
/* Bytes of code at @addr: number read (short at a segment end), or -1. */
long code_read(const struct code_src *c, uint64_t addr, void *buf, size_t len);
/* "func+0xoff" into @buf; "0x..." if no symbol. */
/* "func+0xoff" (or "0xaddr"), allocated: free() it; NULL without memory. */
char *code_sym(const struct code_src *c, uint64_t addr);
void code_symbolize(const struct code_src *c, uint64_t addr, char *buf, size_t len);
/* "file:line" from DWARF, false when there is none. */
bool code_source_line(const struct code_src *c, uint64_t addr, char *buf,
		      size_t len);

#endif /* KCOLLIDER_CODE_H */
