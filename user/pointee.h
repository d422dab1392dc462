/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The object an access goes through, from DWARF: at the access, the
 * instruction's base register holds a variable; when that variable is a
 * pointer to a struct or union, the access is that type's member at the
 * instruction's displacement. A heap object's type is not recorded in a
 * kmalloc cache, nor a per-CPU allocation's anywhere, and this is what
 * the code itself says of it.
 */
#ifndef KCOLLIDER_POINTEE_H
#define KCOLLIDER_POINTEE_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

struct kc_pointee {
	char type[128];		/* the struct's or union's tag: "journal_s" */
	bool is_union;
	char var[64];		/* the pointer variable: "journal" */
	int32_t disp;		/* the access's offset into the type */
};

/*
 * What the access instruction at @addr (an address in @mod's Dwfl space)
 * goes through; false when its operand is not [register + displacement]
 * or no variable of pointer-to-struct type lives in that register there.
 */
bool kc_pointee_at(Dwfl_Module *mod, GElf_Addr addr, struct kc_pointee *out);

#endif /* KCOLLIDER_POINTEE_H */
