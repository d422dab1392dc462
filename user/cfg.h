/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions disassembled with capstone, their instructions classified for
 * the TSO analysis, and their control-flow graph as predecessor lists.
 */
#ifndef KCOLLIDER_CFG_H
#define KCOLLIDER_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "code.h"

/* kc_dinsn.flags */
#define DI_STORE	0x0001	/* writes memory (not via %rsp) */
#define DI_STACK_STORE	0x0002	/* writes memory relative to %rsp */
#define DI_LOAD		0x0004	/* reads memory */
#define DI_LOCKED	0x0008	/* LOCK prefix or XCHG with memory */
#define DI_BARRIER	0x0010	/* drains the store buffer */
#define DI_CALL		0x0020
#define DI_JUMP		0x0040	/* jmp/jcc inside or out of the function */
#define DI_COND		0x0080	/* conditional: falls through too */
#define DI_RET		0x0100	/* ret, or jmp __x86_return_thunk */
#define DI_INDIRECT	0x0200	/* target not known statically */
#define DI_TAIL		0x0400	/* jump out of the function: a tail call */
#define DI_STOP		0x0800	/* no fall through: ud2, int3, hlt... */

struct kc_dinsn {
	uint64_t addr;
	uint64_t target;	/* direct call/jump target */
	uint16_t flags;
	uint8_t len;
	char text[96];		/* "mnemonic operands" */
};

struct kc_func {
	const struct kc_sym *sym;
	int n;
	struct kc_dinsn *insn;
	int *pred_start;	/* preds of i: pred[pred_start[i] .. [i+1]) */
	int *pred;
	bool decode_failed;
	uint64_t fail_addr;
	bool indirect_jump;	/* jump table: predecessors incomplete */
	/* callee summary memo, filled by the analysis */
	int sum_state;
	void *summary;
};

/* Disassemble and build the CFG of the function at @sym (cached). */
struct kc_func *cfg_get(const struct code_src *c, const struct kc_sym *sym);
void cfg_cache_free(void);
/* Index of the instruction at @addr, or ending at @addr if @end; -1. */
int cfg_index(const struct kc_func *f, uint64_t addr, bool end);
/* Classify one instruction (exported for tests). */
int cfg_decode_one(const struct code_src *c, const uint8_t *code, size_t len,
		   uint64_t addr, struct kc_dinsn *out);

#endif /* KCOLLIDER_CFG_H */
