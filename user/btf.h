/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Field names for the objects of race reports, from BTF: the type of a
 * slab object (a dedicated cache is named after its struct; in a kmalloc
 * cache, the pointer the access goes through, or the racing functions'
 * pointer arguments, suggest it), then the member at the reported offset.
 */
#ifndef KCOLLIDER_BTF_H
#define KCOLLIDER_BTF_H

#include <stdbool.h>

#include "report_parse.h"

struct kc_btf;

/* The field an access hit; strings allocated, see kc_btf_field_free(). */
struct kc_btf_field {
	char *type;		/* "struct pipe_inode_info" */
	char *field;		/* "head", "wait.lock", "bufs[2].len"; "" in padding */
	unsigned int field_offset, field_size;
	bool bitfield;		/* the member is a bitfield; its bytes' span */
	unsigned int offset;	/* of the access in the object */
	unsigned int type_offset;	/* where @type starts in the object */
	char *cache;
	const char *by;		/* "cache-name", "dwarf" or "arguments" */
};

/*
 * What the code says an access goes through (see pointee.h): a pointer to
 * struct or union @name, the access @disp bytes into it.
 */
struct kc_btf_hint {
	const char *name;
	bool is_union;
	int disp;
};

/*
 * Add a BTF source: a directory like /sys/kernel/btf (its vmlinux is the
 * base, the other files module BTF split on it, read when a report names
 * the module), or one file (raw BTF or an ELF object with .BTF), split on
 * the base when one was added before. 0 or -errno.
 */
int kc_btf_add(struct kc_btf **b, const char *path);
void kc_btf_free(struct kc_btf *b);
/*
 * Resolve the slab object of @r, trying @hints (one per access DWARF
 * typed, may be none) after a dedicated cache's name and before the
 * racing functions' arguments; false when no type fits.
 */
bool kc_btf_resolve(struct kc_btf *b, const struct kc_report *r,
		    const struct kc_btf_hint *hints, int nhints,
		    struct kc_btf_field *out);
void kc_btf_field_free(struct kc_btf_field *f);

#endif /* KCOLLIDER_BTF_H */
