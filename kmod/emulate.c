// SPDX-License-Identifier: GPL-2.0
/*
 * Loads the int3 handler carries out itself, so that a breakpoint stays
 * in the text for a later execution of its site. A loop over the CPUs
 * reads CPU 0's copy first: a sample of its first pass watches that copy
 * and no other, and catches a race only when the writer runs on CPU 0.
 * With a random number of passes carried out here, the sample falls on a
 * random pass of the loop, and so on any CPU's copy.
 *
 * Only what such a site usually is: a load into a general register (mov,
 * movzx, movsx, movsxd) or an add from memory, through a plain pointer
 * (no segment override, no LOCK). The load is one access of the same
 * size as the instruction's, made with copy_from_kernel_nofault(): a
 * fault leaves the instruction to run where it is, with its own fixup.
 * Anything else is sampled on its first pass.
 */
#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>

#include "kcollider.h"

enum kc_emul {
	KC_EMUL_NONE,
	KC_EMUL_ZERO_EXTEND,	/* mov, movzx */
	KC_EMUL_SIGN_EXTEND,	/* movsx, movsxd */
	KC_EMUL_ADD,		/* add reg, mem */
};

#define KC_EMUL_FLAGS	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF)

static bool kc_emul_operands_plain(const struct kc_insn *insn)
{
	const struct kc_mem_operand *m = &insn->mem[0];
	u32 refused = KC_INSN_STORE | KC_INSN_LOCK | KC_INSN_VEX |
		      KC_INSN_EVEX | KC_INSN_STRING | KC_INSN_MOFFS |
		      KC_INSN_NOT_ACCESS | KC_INSN_IMPLICIT_STACK;

	return insn->nmem == 1 && insn->has_modrm && !insn->prefix &&
	       (insn->flags & KC_INSN_LOAD) && !(insn->flags & refused) &&
	       m->seg == KC_SEG_NONE && m->addr_size == 8 &&
	       m->access == KC_ACC_READ && insn->reg <= KC_REG_R15 &&
	       insn->reg != KC_REG_RSP &&
	       (insn->opsize == 4 || insn->opsize == 8);
}
NOKPROBE_SYMBOL(kc_emul_operands_plain);

static enum kc_emul kc_emul_kind(const struct kc_insn *insn)
{
	unsigned int size = insn->mem[0].size;
	u8 op = insn->opcode;

	if (!kc_emul_operands_plain(insn))
		return KC_EMUL_NONE;
	if (insn->map == 0 && op == 0x8b && size == insn->opsize)
		return KC_EMUL_ZERO_EXTEND;
	if (insn->map == 0 && op == 0x03 && size == insn->opsize)
		return KC_EMUL_ADD;
	if (insn->map == 0 && op == 0x63 && size == 4 && insn->opsize == 8)
		return KC_EMUL_SIGN_EXTEND;
	if (insn->map == 1 && (op == 0xb6 || op == 0xb7) && size <= 2)
		return KC_EMUL_ZERO_EXTEND;
	if (insn->map == 1 && (op == 0xbe || op == 0xbf) && size <= 2)
		return KC_EMUL_SIGN_EXTEND;
	return KC_EMUL_NONE;
}
NOKPROBE_SYMBOL(kc_emul_kind);

/* Whether kc_emulate() can carry out @insn. */
bool kc_emulate_possible(const struct kc_insn *insn)
{
	return kc_emul_kind(insn) != KC_EMUL_NONE;
}

static unsigned long *kc_emul_gpr(struct pt_regs *regs, unsigned int reg)
{
	switch (reg) {
	case KC_REG_RAX: return &regs->ax;
	case KC_REG_RCX: return &regs->cx;
	case KC_REG_RDX: return &regs->dx;
	case KC_REG_RBX: return &regs->bx;
	case KC_REG_RBP: return &regs->bp;
	case KC_REG_RSI: return &regs->si;
	case KC_REG_RDI: return &regs->di;
	case KC_REG_R8: return &regs->r8;
	case KC_REG_R9: return &regs->r9;
	case KC_REG_R10: return &regs->r10;
	case KC_REG_R11: return &regs->r11;
	case KC_REG_R12: return &regs->r12;
	case KC_REG_R13: return &regs->r13;
	case KC_REG_R14: return &regs->r14;
	case KC_REG_R15: return &regs->r15;
	}
	return NULL;
}
NOKPROBE_SYMBOL(kc_emul_gpr);

/* One load of @size bytes, as the instruction makes it. */
static bool kc_emul_read(unsigned long addr, unsigned int size, u64 *val)
{
	u8 b;
	u16 w;
	u32 d;
	u64 q;

	switch (size) {
	case 1:
		if (copy_from_kernel_nofault(&b, (void *)addr, 1))
			return false;
		*val = b;
		return true;
	case 2:
		if (copy_from_kernel_nofault(&w, (void *)addr, 2))
			return false;
		*val = w;
		return true;
	case 4:
		if (copy_from_kernel_nofault(&d, (void *)addr, 4))
			return false;
		*val = d;
		return true;
	case 8:
		if (copy_from_kernel_nofault(&q, (void *)addr, 8))
			return false;
		*val = q;
		return true;
	}
	return false;
}
NOKPROBE_SYMBOL(kc_emul_read);

static u64 kc_emul_sign_extend(u64 val, unsigned int size)
{
	switch (size) {
	case 1:
		return (u64)(s64)(s8)val;
	case 2:
		return (u64)(s64)(s16)val;
	case 4:
		return (u64)(s64)(s32)val;
	}
	return val;
}
NOKPROBE_SYMBOL(kc_emul_sign_extend);

/* @a + @b in @size bytes; the arithmetic flags as add sets them. */
static u64 kc_emul_add(u64 a, u64 b, unsigned int size, unsigned long *flags)
{
	u64 mask = size == 8 ? ~0ULL : (1ULL << (size * 8)) - 1;
	u64 sign = 1ULL << (size * 8 - 1);
	u64 r = (a + b) & mask;
	unsigned long f = 0;

	a &= mask;
	b &= mask;
	if (r < a)
		f |= X86_EFLAGS_CF;
	if (!(hweight8(r & 0xff) & 1))
		f |= X86_EFLAGS_PF;
	if ((a ^ b ^ r) & 0x10)
		f |= X86_EFLAGS_AF;
	if (!r)
		f |= X86_EFLAGS_ZF;
	if (r & sign)
		f |= X86_EFLAGS_SF;
	if ((a ^ r) & (b ^ r) & sign)
		f |= X86_EFLAGS_OF;
	*flags = (*flags & ~KC_EMUL_FLAGS) | f;
	return r;
}
NOKPROBE_SYMBOL(kc_emul_add);

/*
 * int3, NMI-like: carry out @insn, the instruction at @ip, on @regs and
 * resume after it; false (nothing changed) when it cannot be.
 */
bool kc_emulate(const struct kc_insn *insn, unsigned long ip,
		struct pt_regs *regs)
{
	enum kc_emul kind = kc_emul_kind(insn);
	unsigned long *reg = kc_emul_gpr(regs, insn->reg);
	struct kc_regs r;
	u64 addr, val;

	/* a single-stepping debugger expects its trap after the insn */
	if (kind == KC_EMUL_NONE || !reg || (regs->flags & X86_EFLAGS_TF))
		return false;
	kc_regs_from_pt(regs, &r);
	r.ip = ip;
	if (kc_effective_address(insn, 0, &r, &addr) ||
	    !kc_emul_read(addr, insn->mem[0].size, &val))
		return false;
	if (kind == KC_EMUL_SIGN_EXTEND)
		val = kc_emul_sign_extend(val, insn->mem[0].size);
	else if (kind == KC_EMUL_ADD)
		val = kc_emul_add(*reg, val, insn->opsize, &regs->flags);
	/* a 32-bit destination is zero-extended into the whole register */
	*reg = insn->opsize == 4 ? (u32)val : val;
	regs->ip = ip + insn->length;
	return true;
}
NOKPROBE_SYMBOL(kc_emulate);
