// SPDX-License-Identifier: GPL-2.0
/*
 * The type an access goes through: decode the access instruction (the
 * module's decoder, lib/x86_decode.c), take its base register, and find
 * the variable DWARF places in that register at that address, innermost
 * scope first (an inlined helper's parameter before its caller's local).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcollider/x86_decode.h>
#include "pointee.h"

/* DWARF's x86-64 register numbers, indexed by enum kc_reg. */
static const unsigned char dwarf_regno[16] = {
	0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15,
};

/* The base register of the access at @addr, and its displacement. */
static bool base_register(Dwfl_Module *mod, GElf_Addr addr,
			  unsigned int *regno, int32_t *disp)
{
	GElf_Addr off = addr, bias;
	Elf_Scn *scn = dwfl_module_address_section(mod, &off, &bias);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	const struct kc_mem_operand *mem;
	struct kc_insn insn;

	if (!data || !data->d_buf || off >= data->d_size ||
	    kc_decode((const u8 *)data->d_buf + off, data->d_size - off, &insn) ||
	    insn.nmem != 1)
		return false;
	mem = &insn.mem[0];
	/*
	 * An index is an array's element. %gs is this CPU's copy of per-CPU
	 * data, and the register still the pointer to it (this_cpu_inc(
	 * p->count)); no other segment is data.
	 */
	if (mem->base >= 16 || mem->index != KC_REG_NONE ||
	    (mem->seg != KC_SEG_NONE && mem->seg != KC_SEG_GS) ||
	    mem->base == KC_REG_RSP)
		return false;
	*regno = dwarf_regno[mem->base];
	*disp = mem->disp;
	return true;
}

static bool in_register(Dwarf_Die *var, Dwarf_Addr pc, unsigned int regno)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &expr, &len, 1) != 1 || len != 1)
		return false;
	if (expr[0].atom == DW_OP_regx)
		return expr[0].number == regno;
	return expr[0].atom == DW_OP_reg0 + regno;
}

/* @die's type with typedefs and qualifiers peeled off. */
static bool peeled_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die cur = *die;

	for (;;) {
		if (!dwarf_formref_die(dwarf_attr_integrate(&cur, DW_AT_type,
							    &attr), out))
			return false;
		switch (dwarf_tag(out)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			cur = *out;
			continue;
		default:
			return true;
		}
	}
}

/* @var, when a pointer to a named struct or union, into @out. */
static bool points_to_struct(Dwarf_Die *var, struct kc_pointee *out)
{
	Dwarf_Die ptr, to;
	const char *tag, *name;
	int kind;

	if (!peeled_type(var, &ptr) || dwarf_tag(&ptr) != DW_TAG_pointer_type ||
	    !peeled_type(&ptr, &to))
		return false;
	kind = dwarf_tag(&to);
	tag = dwarf_diename(&to);
	if ((kind != DW_TAG_structure_type && kind != DW_TAG_union_type) ||
	    !tag)
		return false;
	name = dwarf_diename(var);
	snprintf(out->type, sizeof(out->type), "%s", tag);
	snprintf(out->var, sizeof(out->var), "%s", name ? name : "?");
	out->is_union = kind == DW_TAG_union_type;
	return true;
}

/* A variable or parameter declared in @scope held in @regno at @pc. */
static bool scope_pointer(Dwarf_Die *scope, Dwarf_Addr pc, unsigned int regno,
			  struct kc_pointee *out)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child))
		return false;
	do {
		int tag = dwarf_tag(&child);

		if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
		    in_register(&child, pc, regno) &&
		    points_to_struct(&child, out))
			return true;
	} while (!dwarf_siblingof(&child, &child));
	return false;
}

bool kc_pointee_at(Dwfl_Module *mod, GElf_Addr addr, struct kc_pointee *out)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias), *scopes = NULL;
	unsigned int regno;
	bool found = false;
	int i, n;

	memset(out, 0, sizeof(*out));
	if (!cu || !base_register(mod, addr, &regno, &out->disp))
		return false;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (i = 0; i < n && !found; i++)
		found = scope_pointer(&scopes[i], addr - bias, regno, out);
	free(scopes);
	return found;
}
