/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory operand of one instruction, as the TSO analysis needs it to
 * tell whether two accesses provably touch the same location: its address
 * when it is known statically (RIP-relative or absolute), otherwise its
 * base + index * scale + displacement, and the registers the instruction
 * writes.
 */
#ifndef KCOLLIDER_TSO_MEM_H
#define KCOLLIDER_TSO_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "code.h"

#define TSO_NO_REG	(-1)
/* Caller-saved registers (x86-64 SysV ABI, as the kernel uses it). */
#define TSO_CALL_CLOBBERS	0x0fc7	/* rax rcx rdx rsi rdi r8-r11 */

struct tso_mem {
	bool valid;		/* the instruction has a memory operand */
	bool abs;		/* @addr is the address, whatever the registers */
	bool seg;		/* %fs/%gs-relative: per CPU or per task */
	uint64_t addr;
	int size;
	int base, index;	/* 0-15 (rax..r15), or TSO_NO_REG */
	int scale;
	int64_t disp;
	uint16_t writes;	/* general registers written, bit per number */
};

/* Decode the instruction at @ip (cached); false when it cannot be read. */
bool tso_mem_at(const struct code_src *c, uint64_t ip, struct tso_mem *m);
/* Provably the same address (and @st covers @ld), registers unchanged. */
bool tso_mem_same(const struct tso_mem *st, const struct tso_mem *ld);
/* Both statically known and overlapping: the same variable. */
bool tso_mem_alias(const struct tso_mem *a, const struct tso_mem *b);
/* Registers @m's address depends on, as a mask. */
uint16_t tso_mem_regs(const struct tso_mem *m);
void tso_mem_cache_free(void);

#endif /* KCOLLIDER_TSO_MEM_H */
