// SPDX-License-Identifier: GPL-2.0
/*
 * Hits the int3 handler carries out itself, so that a breakpoint stays in
 * the text for a later execution of its site. A loop over the CPUs reads
 * CPU 0's copy first: a sample of its first pass watches that copy and no
 * other, and catches a race only when the writer runs on CPU 0. With a
 * random number of passes carried out here, the sample falls on a random
 * pass of the loop, and so on any CPU's copy.
 *
 * The instructions are lib/x86_emulate.c's (a load into a general
 * register, an add from memory); the load is one access of the
 * instruction's size, made with copy_from_kernel_nofault(): a fault leaves
 * the instruction to run where it is, with its own fixup. That load may
 * trip a watch a sample on another CPU set: the #DB handler asks
 * kc_emulating() who made it, and names the instruction, not this file.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/log2.h>
#include <linux/uaccess.h>
#include <kcollider/x86_emulate.h>

#include "kcollider.h"

/*
 * The instruction this CPU carries out, while it does: a watch its load
 * trips (a sample elsewhere watches that copy) is raced by that
 * instruction, in the context the int3 interrupted, not by this file's
 * load in the handler.
 */
struct kc_emul_at {
	struct pt_regs *regs;		/* the int3's frame */
	unsigned long ip;
	unsigned int len;
};

static DEFINE_PER_CPU(struct kc_emul_at, kc_emul_at);

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

/*
 * For a power-of-two size up to 8, copy_from_kernel_nofault() makes one
 * load of that size on x86, as the instruction would; the low bytes of
 * @val are the value (little-endian).
 */
static bool kc_emul_read(u64 addr, unsigned int size, u64 *val)
{
	u64 q = 0;

	if (size > sizeof(q) || !is_power_of_2(size) ||
	    copy_from_kernel_nofault(&q, (void *)addr, size))
		return false;
	*val = q;
	return true;
}
NOKPROBE_SYMBOL(kc_emul_read);

/*
 * int3, NMI-like: carry out @insn, the instruction at @ip, on @regs and
 * resume after it; false (nothing changed) when it cannot be.
 */
bool kc_emulate(const struct kc_insn *insn, unsigned long ip,
		struct pt_regs *regs)
{
	unsigned long *reg = kc_emul_gpr(regs, insn->reg);
	u64 flags = regs->flags, result;
	struct kc_regs r;

	/* a single-stepping debugger expects its trap after the insn */
	if (!reg || (regs->flags & X86_EFLAGS_TF))
		return false;
	kc_regs_from_pt(regs, &r);
	r.ip = ip;
	this_cpu_write(kc_emul_at.ip, ip);
	this_cpu_write(kc_emul_at.len, insn->length);
	this_cpu_write(kc_emul_at.regs, regs);
	barrier();
	if (kc_emulate_insn(insn, &r, &flags, kc_emul_read, &result)) {
		this_cpu_write(kc_emul_at.regs, NULL);
		return false;
	}
	barrier();
	this_cpu_write(kc_emul_at.regs, NULL);
	*reg = result;
	regs->flags = flags;
	regs->ip = ip + insn->length;
	return true;
}
NOKPROBE_SYMBOL(kc_emulate);

/*
 * #DB, NMI-like: while this CPU carries out an instruction, @fixed becomes
 * the registers that instruction would trap with (the int3's frame, its
 * ip past the instruction, as a watchpoint reports it) and true is
 * returned: the racer is that instruction.
 */
bool kc_emulating(struct pt_regs *fixed)
{
	struct pt_regs *regs = this_cpu_read(kc_emul_at.regs);

	if (!regs)
		return false;
	*fixed = *regs;
	fixed->ip = this_cpu_read(kc_emul_at.ip) +
		    this_cpu_read(kc_emul_at.len);
	return true;
}
NOKPROBE_SYMBOL(kc_emulating);
