/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stall trampoline.
 *
 * The kprobe pre-handler leaves the interrupted stack holding a 5-word IRET
 * frame {ip = probe address, cs, flags, sp, ss} and IRETs here with the
 * interrupted context's flags and preempt count. We complete a pt_regs on
 * top of that frame, run the stall in that context, and leave with iretq,
 * which restores RIP and RFLAGS atomically: the original instruction then
 * executes as if nothing had happened. The hints let ORC unwind through
 * here from the stall (and from any interrupt taken during it).
 */
#include <linux/linkage.h>
#include <asm/unwind_hints.h>

	.text
SYM_CODE_START(kc_trampoline)
	UNWIND_HINT_IRET_REGS
	pushq	$-1			/* pt_regs->orig_ax */
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	UNWIND_HINT_REGS
	movq	%rsp, %rdi
	call	kc_stall
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	UNWIND_HINT_IRET_REGS offset=8
	addq	$8, %rsp
	iretq
SYM_CODE_END(kc_trampoline)
