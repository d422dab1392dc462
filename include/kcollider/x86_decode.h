/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcollider's x86-64 instruction decoder: one freestanding source
 * (lib/x86_decode.c) compiled into kcollider.ko and into the host tools and
 * tests, so the code the kernel runs is the code the tests check.
 *
 * It answers what the detector needs for code it has never seen: the
 * length of every instruction a kernel build emits, and for memory
 * operands the address expression, the access size and direction, LOCK
 * semantics; plus the classification the TSO analysis uses (barrier,
 * store, branch target).
 */
#ifndef KCOLLIDER_X86_DECODE_H
#define KCOLLIDER_X86_DECODE_H

#include "types.h"

/* Longest legal x86 instruction. */
#define KC_INSN_MAX_LEN 15

/* Register numbers in hardware encoding order (REX.B/X/R extend to 8-15). */
enum kc_reg {
	KC_REG_RAX, KC_REG_RCX, KC_REG_RDX, KC_REG_RBX,
	KC_REG_RSP, KC_REG_RBP, KC_REG_RSI, KC_REG_RDI,
	KC_REG_R8, KC_REG_R9, KC_REG_R10, KC_REG_R11,
	KC_REG_R12, KC_REG_R13, KC_REG_R14, KC_REG_R15,
	KC_REG_RIP,		/* base of a RIP-relative operand */
	KC_REG_NONE = 0xff,
};

enum kc_seg {
	KC_SEG_NONE, KC_SEG_ES, KC_SEG_CS, KC_SEG_SS, KC_SEG_DS,
	KC_SEG_FS, KC_SEG_GS,
};

/* Direction of a memory access (bit mask). */
enum kc_access {
	KC_ACC_NONE = 0,
	KC_ACC_READ = 1,
	KC_ACC_WRITE = 2,
	KC_ACC_RW = 3,
};

/*
 * What the instruction does, coarsely, for the filters that reason about
 * values (lossy counters, other-bit updates). KC_OP_OTHER for the rest.
 */
enum kc_op {
	KC_OP_OTHER,
	KC_OP_MOV,		/* mov, movzx, movsx, movsxd, SSE/AVX moves */
	KC_OP_ADD, KC_OP_SUB, KC_OP_ADC, KC_OP_SBB,
	KC_OP_INC, KC_OP_DEC, KC_OP_NEG, KC_OP_NOT,
	KC_OP_AND, KC_OP_OR, KC_OP_XOR,
	KC_OP_CMP, KC_OP_TEST,
	KC_OP_BT, KC_OP_BTS, KC_OP_BTR, KC_OP_BTC,
	KC_OP_SHIFT,		/* shl/shr/sar/rol/ror/rcl/rcr, shld/shrd */
	KC_OP_SETCC, KC_OP_CMOV,
	KC_OP_XCHG, KC_OP_CMPXCHG, KC_OP_XADD,
	KC_OP_PUSH, KC_OP_POP,
	KC_OP_STRING,		/* movs, cmps, stos, lods, scas, ins, outs */
	KC_OP_LEA, KC_OP_NOP, KC_OP_PREFETCH, KC_OP_CLFLUSH,
	KC_OP_CALL, KC_OP_JMP, KC_OP_JCC, KC_OP_RET, KC_OP_IRET,
	KC_OP_MFENCE, KC_OP_LFENCE, KC_OP_SFENCE,
	KC_OP_INT3, KC_OP_UD,
	KC_OP_NR,		/* number of ops, not an op */
};

/* kc_insn.flags */
#define KC_INSN_MEM		(1u << 0)  /* accesses memory (mem[] valid) */
#define KC_INSN_SEM_KNOWN	(1u << 1)  /* mem[] size/direction exact */
#define KC_INSN_LOCK		(1u << 2)  /* LOCK prefix present */
#define KC_INSN_ATOMIC		(1u << 3)  /* LOCK'd or XCHG with memory */
#define KC_INSN_REP		(1u << 4)  /* F3 on a string insn */
#define KC_INSN_REPNE		(1u << 5)  /* F2 on a string insn */
#define KC_INSN_STRING		(1u << 6)
#define KC_INSN_BARRIER		(1u << 7)  /* drains the store buffer */
#define KC_INSN_SERIALIZING	(1u << 8)
#define KC_INSN_STORE		(1u << 9)  /* writes memory */
#define KC_INSN_LOAD		(1u << 10) /* reads memory */
#define KC_INSN_BRANCH		(1u << 11) /* jmp/jcc/call/ret/iret/loop */
#define KC_INSN_CALL		(1u << 12)
#define KC_INSN_RET		(1u << 13)
#define KC_INSN_COND		(1u << 14) /* conditional branch */
#define KC_INSN_INDIRECT	(1u << 15) /* target from register/memory */
#define KC_INSN_REL_TARGET	(1u << 16) /* rel_target valid */
#define KC_INSN_NOT_ACCESS	(1u << 17) /* has a ModRM memory form that
					    * touches no data: lea, nop,
					    * prefetch, clflush
					    */
#define KC_INSN_VEX		(1u << 18)
#define KC_INSN_EVEX		(1u << 19)
#define KC_INSN_IMPLICIT_STACK	(1u << 20) /* push/pop/call/ret/enter/leave
					    * stack slot (not listed in
					    * mem[]; STORE/LOAD include it)
					    */
#define KC_INSN_MOFFS		(1u << 21) /* mov al/ax/eax/rax <-> moffs:
					    * the absolute address is in
					    * imm, not in mem[0].disp
					    */
#define KC_INSN_BITOFF_REG	(1u << 22) /* bt/bts/btr/btc m, reg: the
					    * word accessed is mem[0]'s
					    * address plus the register's
					    * signed bit offset / 8, which
					    * kc_effective_address() adds
					    */
#define KC_INSN_VSIB		(1u << 23) /* gather/scatter: the index is
					    * a vector register; no single
					    * effective address
					    */

struct kc_mem_operand {
	u8 base;		/* enum kc_reg, KC_REG_RIP or KC_REG_NONE */
	u8 index;		/* enum kc_reg or KC_REG_NONE */
	u8 scale;		/* 1, 2, 4, 8 */
	u8 seg;			/* enum kc_seg (override prefix; NONE = DS/SS) */
	u8 access;		/* enum kc_access */
	u8 addr_size;		/* 8, or 4 with a 67 prefix */
	u16 size;		/* bytes accessed (per element for strings);
				 * 0 = unknown
				 */
	s32 disp;
};

struct kc_insn {
	u8 length;
	u8 map;			/* 0 = one-byte, 1 = 0F, 2 = 0F38, 3 = 0F3A;
				 * VEX/EVEX: their mmmmm map number
				 */
	u8 opcode;		/* the last opcode byte */
	u8 modrm;		/* valid if has_modrm */
	u8 has_modrm;
	u8 rex;			/* 0 if none */
	u8 opsize;		/* operand size in bytes: 1, 2, 4, 8 (or 16+) */
	u8 nmem;		/* entries used in mem[] (0, 1 or 2) */
	u16 op;			/* enum kc_op */
	u32 flags;		/* KC_INSN_* */
	s64 imm;		/* first immediate, sign-extended */
	u8 has_imm;
	u8 reg;			/* ModRM.reg with REX.R (register operand) */
	s64 rel_target;		/* branch target relative to the next insn */
	struct kc_mem_operand mem[2];	/* mem[0]: the explicit (ModRM)
					 * operand, or the destination of
					 * a two-memory instruction
					 * (string insns: mem[0] is the
					 * rdi operand, mem[1] the rsi one).
					 * With KC_INSN_NOT_ACCESS, mem[0]
					 * holds the address expression
					 * but nmem is 0.
					 */
	u8 prefix;		/* mandatory prefix: 0, 0x66, 0xf2, 0xf3
				 * (VEX/EVEX: from pp)
				 */
	u8 vex_l;		/* VEX.L / EVEX.L'L: 0 = 128, 1 = 256,
				 * 2 = 512 bits
				 */
};

/*
 * Decode one instruction at @code, of which @avail bytes are readable.
 * Returns 0, -EINVAL for bytes that are not a valid 64-bit-mode instruction
 * (or one the decoder does not know: never guessed), -ENODATA if @avail
 * ends inside the instruction.
 */
int kc_decode(const u8 *code, size_t avail, struct kc_insn *insn);

/* Register state an effective address is computed from (pt_regs-shaped). */
struct kc_regs {
	u64 gpr[16];		/* indexed by enum kc_reg */
	u64 ip;			/* address of the instruction */
	u64 fs_base;
	u64 gs_base;
};

/*
 * Linear address of memory operand @n of @insn executed at @regs->ip.
 * Returns 0 and stores it in @addr, or -EINVAL if @n is not a memory
 * operand (or a VSIB one). The fs/gs base is added for an fs/gs override;
 * 67-prefixed addresses wrap at 4 GiB; the register bit offset of
 * bt/bts/btr/btc is applied (KC_INSN_BITOFF_REG).
 */
int kc_effective_address(const struct kc_insn *insn, unsigned int n,
			 const struct kc_regs *regs, u64 *addr);

/* Absolute target of a direct branch at @ip; false if not direct. */
bool kc_branch_target(const struct kc_insn *insn, u64 ip, u64 *target);

/* Short mnemonic-class name of insn->op, for messages ("add", "mov"). */
const char *kc_op_name(unsigned int op);

#endif /* KCOLLIDER_X86_DECODE_H */
