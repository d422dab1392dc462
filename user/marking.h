/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Marking from the source: was an access READ_ONCE(), WRITE_ONCE(),
 * smp_load_acquire(), atomic_read() ... or inside data_race()? The
 * binary cannot say (a marked access is the same mov as a plain one);
 * DWARF and the source beside it can.
 */
#ifndef KCOLLIDER_MARKING_H
#define KCOLLIDER_MARKING_H

#include <stdbool.h>
#include <stdint.h>

#include "pointee.h"
#include "report_parse.h"

enum kc_mark_kind {
	KC_MARK_UNKNOWN,	/* no DWARF, or no source line: see why */
	KC_MARK_PLAIN,
	KC_MARK_MARKED,
	KC_MARK_DATA_RACE,
	KC_MARK_EXEMPT,		/* built without KCSAN: see exempt.h */
	KC_MARK_ANALYSED,	/* a range: a function whose source was read */
};

struct kc_mark {
	enum kc_mark_kind kind;
	char marker[32];	/* "READ_ONCE", "atomic_read", ... or "plain" */
	char where[128];	/* "mydrv.c:1012", innermost (inlined) line */
	char why[160];		/* KC_MARK_UNKNOWN: what was missing */
};

struct kc_marking;

struct kc_marking *kc_marking_new(void);
void kc_marking_free(struct kc_marking *m);
/* -M DIR: the .ko files under @dir (with DWARF). 0 or -errno. */
int kc_marking_add_modules(struct kc_marking *m, const char *dir);
/* -V ELF: vmlinux with DWARF (the -dbg package's). 0 or -errno. */
int kc_marking_set_vmlinux(struct kc_marking *m, const char *path);
/* -S DIR: a source tree for paths DWARF names that do not exist here. */
int kc_marking_add_source(struct kc_marking *m, const char *dir);

/*
 * The marking of the access at @f ("func+0xoff/0xsize [mod]"); @after
 * when @f is the instruction after the access (a stack's top frame).
 */
void kc_marking_of(struct kc_marking *m, const struct kc_frame *f,
		   bool after, struct kc_mark *out);
/*
 * The struct the access at @f (the instruction itself, not the one after)
 * goes through, from its DWARF: see pointee.h.
 */
bool kc_marking_pointee(struct kc_marking *m, const struct kc_frame *f,
			struct kc_pointee *out);

/*
 * KCSAN's rule: no data race when either access is in data_race() or
 * both are marked. False when either marking is unknown.
 */
bool kc_marking_silent(const struct kc_mark *a, const struct kc_mark *b);
const char *kc_mark_kind_name(enum kc_mark_kind k);

/*
 * Every code range of module @name (its .ko from -M) whose accesses the
 * source marks, section-relative; adjacent ranges of one kind merged.
 * Returns 0, -ENOENT when there is no .ko of that name, -ENODATA when it
 * has no DWARF, or what @cb returned when nonzero.
 */
typedef int (*kc_mark_range_cb)(const char *section, uint64_t off,
				uint64_t len, enum kc_mark_kind kind,
				void *data);
int kc_marking_module_ranges(struct kc_marking *m, const char *name,
			     kc_mark_range_cb cb, void *data);
/*
 * The same for the kernel image (-V), in the functions @want takes by
 * name: @cb gets section "" and link-time addresses (KASLR not applied).
 * -ENOENT: no -V; -ENODATA: no DWARF; -ESRCH: no function taken.
 */
typedef bool (*kc_mark_func_cb)(const char *func, void *data);
int kc_marking_vmlinux_ranges(struct kc_marking *m, kc_mark_func_cb want,
			      void *want_data, kc_mark_range_cb cb, void *data);
/* A symbol's link-time address in the -V image; -ESRCH when absent. */
int kc_marking_vmlinux_symbol(struct kc_marking *m, const char *name,
			      uint64_t *addr);
/* The -V image's GNU build ID: its length, or -errno. */
int kc_marking_vmlinux_build_id(struct kc_marking *m,
				const unsigned char **id);
/* The module names of the .ko files -M found, @i from 0; NULL past them. */
const char *kc_marking_module_name(const struct kc_marking *m, size_t i);

#endif /* KCOLLIDER_MARKING_H */
