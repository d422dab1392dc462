/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instructions emulate_test runs on this CPU, assembled here: each a
 * function taking a struct cpu_state, its one instruction between labels
 * whose bytes the test decodes.
 */
#ifndef KC_EMULATE_FORMS_H
#define KC_EMULATE_FORMS_H

#include <kcollider/types.h>

/* What a form reads and writes; offsets fixed by the assembly below. */
struct cpu_state {
	u64 rax, rbx, rdx, rsi, r12, flags;
};

/*
 * A form: loads the state from %rdi, runs one instruction (between the
 * NAME_insn and NAME_end labels), stores %rax, %r12 and the flags back.
 */
#define FORM(name, text)						\
	void name(struct cpu_state *s);					\
	void name##_insn(void);						\
	void name##_end(void);						\
	asm(".pushsection .text\n"					\
	    ".globl " #name "\n.globl " #name "_insn\n"			\
	    ".globl " #name "_end\n"					\
	    #name ":\n"							\
	    "push %rbx\n\tpush %r12\n"					\
	    "mov 0(%rdi), %rax\n\tmov 8(%rdi), %rbx\n"			\
	    "mov 16(%rdi), %rdx\n\tmov 24(%rdi), %rsi\n"		\
	    "mov 32(%rdi), %r12\n\tpushq 40(%rdi)\n\tpopfq\n"		\
	    #name "_insn:\n\t" text "\n" #name "_end:\n"		\
	    "pushfq\n\tpopq 40(%rdi)\n"					\
	    "mov %rax, 0(%rdi)\n\tmov %r12, 32(%rdi)\n"			\
	    "pop %r12\n\tpop %rbx\n\tret\n"				\
	    ".popsection\n")

FORM(form_add64, "addq (%rsi), %rax");
FORM(form_add32, "addl (%rsi), %eax");
FORM(form_add_sib_r12, "addq (%rdx,%rbx,1), %r12");
FORM(form_movslq, "movslq (%rsi), %rax");
FORM(form_movslq_sib_r12, "movslq (%rdx,%rbx,1), %r12");
FORM(form_mov32, "movl (%rsi), %eax");
FORM(form_mov64, "movq (%rsi), %rax");
FORM(form_movzbl, "movzbl (%rsi), %eax");
FORM(form_movzwq, "movzwq (%rsi), %rax");
FORM(form_movsbl, "movsbl (%rsi), %eax");
FORM(form_movswq, "movswq (%rsi), %rax");
FORM(form_mov_disp, "movq 8(%rsi), %rax");

#endif /* KC_EMULATE_FORMS_H */
