/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Litmus tests in herd7's x86 syntax, and the operational x86-TSO model
 * that decides them (Owens, Sarkar, Sewell, TPHOLs 2009).
 */
#ifndef KCOLLIDER_LITMUS_H
#define KCOLLIDER_LITMUS_H

#include <stdbool.h>
#include <stdio.h>

#define LIT_MAX_THREADS 4
#define LIT_MAX_INSNS 8
#define LIT_MAX_LOCS 6
#define LIT_MAX_REGS 6
#define LIT_MAX_TERMS 8
/* Generated tests are named "func+func": two kernel symbol names. */
#define LIT_NAME_LEN (2 * 512 + 2)

enum lit_op {
	LIT_STORE,	/* MOV [x],$v | MOV [x],REG */
	LIT_LOAD,	/* MOV REG,[x] */
	LIT_MOVI,	/* MOV REG,$v */
	LIT_MFENCE,
	LIT_XCHG,	/* XCHG [x],REG: implicitly locked */
	LIT_LOCK_ADD,	/* LOCK ADD [x],$v: locked, drains the buffer */
};

struct lit_insn {
	enum lit_op op;
	int loc, reg;
	int val;
	bool from_reg;	/* LIT_STORE of a register */
};

struct lit_thread {
	int n;
	struct lit_insn insn[LIT_MAX_INSNS];
};

/* "T:REG=v" (thread >= 0) or "[x]=v" / "x=v" (thread -1, final memory). */
struct lit_term {
	int thread, reg, loc, val;
};

struct litmus {
	char name[LIT_NAME_LEN];
	char doc[256];
	const char *note;	/* printed as the doc string when set; not owned */
	int nthreads, nlocs, nregs;
	char locs[LIT_MAX_LOCS][16];
	char regs[LIT_MAX_REGS][8];
	int init_mem[LIT_MAX_LOCS];
	int init_reg[LIT_MAX_THREADS][LIT_MAX_REGS];
	struct lit_thread t[LIT_MAX_THREADS];
	int nterms;	/* exists (t0 /\ t1 /\ ...) */
	struct lit_term terms[LIT_MAX_TERMS];
};

enum lit_model {
	LIT_SC,
	LIT_TSO,
};

struct lit_result {
	bool reachable;			/* the exists clause holds in some run */
	unsigned long finals;		/* distinct final states */
	unsigned long positive;		/* of which satisfy the clause */
	unsigned long states;		/* states explored */
};

/* Parse herd7 x86 syntax. 0, or -1 with a message in @err. */
int lit_parse(const char *text, struct litmus *t, char *err, size_t errlen);
int lit_parse_file(FILE *f, struct litmus *t, char *err, size_t errlen);
void lit_print(FILE *out, const struct litmus *t);
int lit_loc(struct litmus *t, const char *name);	/* find or add */
int lit_reg(struct litmus *t, const char *name);	/* find or add */

/* Exhaustive exploration of every interleaving (and buffer flush). */
int lit_check(const struct litmus *t, enum lit_model m, struct lit_result *r);

#endif /* KCOLLIDER_LITMUS_H */
