/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opcode attribute tables of kcollider's x86-64 decoder, included by
 * lib/x86_decode.c only.
 *
 * One u32 per opcode says how long the instruction is (ModRM, immediate)
 * and what its ModRM memory operand means (direction, size, operation).
 * Opcodes whose meaning depends on ModRM.reg point into grp_attr[], whose
 * entries are merged into the opcode's own attributes. Everything not
 * listed is invalid in 64-bit mode: the decoder reports it, never guesses.
 */
#ifndef KCOLLIDER_X86_OPCODE_TABLES_H
#define KCOLLIDER_X86_OPCODE_TABLES_H

/* Immediate kinds (AT_IMM field). */
enum {
	IMM_NONE,
	IMM_B,		/* 1 byte */
	IMM_W,		/* 2 bytes */
	IMM_Z,		/* 2 with a 66 prefix, else 4 */
	IMM_V,		/* 2, 4 or 8 (mov r, imm64) */
	IMM_D,		/* 4: rel32 of jmp/call/jcc in 64-bit mode */
	IMM_WB,		/* 2 then 1 (enter) */
	IMM_MOFFS,	/* 8-byte absolute address, 4 with a 67 prefix */
};

/* Memory operand sizes (AT_SZ field); SZ_UNK means unknown. */
enum {
	SZ_UNK, SZ_V, SZ_B, SZ_W, SZ_D, SZ_Q,
};

/* Opcode groups: grp_attr[] row numbers (AT_GRP field). */
enum {
	GRP_NONE,
	GRP_1,		/* 80-83: add ... cmp */
	GRP_1A,		/* 8f: pop */
	GRP_2,		/* c0 c1 d0-d3: shifts */
	GRP_3B,		/* f6: test/not/neg/mul/div */
	GRP_3V,		/* f7 */
	GRP_4,		/* fe: inc/dec byte */
	GRP_5,		/* ff: inc/dec/call/jmp/push */
	GRP_11,		/* c6 c7: mov imm, xabort/xbegin */
	GRP_6,		/* 0f 00: sldt ... verw */
	GRP_7,		/* 0f 01: sgdt ... invlpg, system insns */
	GRP_8,		/* 0f ba: bt* imm */
	GRP_9,		/* 0f c7: cmpxchg8b/16b, vmx, rdrand */
	GRP_15,		/* 0f ae: fxsave ... clflush, fences */
	GRP_16,		/* 0f 18: prefetch, hint nops */
	GRP_P,		/* 0f 0d: prefetch/prefetchw */
	GRP_PL6,	/* 0f a6: VIA PadLock montmul, xsha1, xsha256 */
	GRP_PL7,	/* 0f a7: VIA PadLock xstore, xcrypt* */
	GRP_NR,
};

#define AT_MODRM	(1u << 0)
#define AT_INV		(1u << 1)	/* invalid in 64-bit mode */
#define AT_IMM(x)	((u32)(x) << 2)	/* IMM_* */
#define AT_IMM_OF(a)	(((a) >> 2) & 7)
#define AT_D64		(1u << 5)	/* operand size defaults to 64 bits */
#define AT_BYTE		(1u << 6)	/* byte operand size */
#define AT_R		(1u << 7)	/* the memory operand is read */
#define AT_W		(1u << 8)	/* ... written */
#define AT_KNOWN	(1u << 9)	/* size and direction are exact */
#define AT_NOTACC	(1u << 10)	/* memory form touches no data */
#define AT_SZ(x)	((u32)(x) << 11) /* SZ_* */
#define AT_SZ_OF(a)	(((a) >> 11) & 7)
#define AT_GIMM		(1u << 14)	/* group entry adds Ib/Iz (f6/f7) */
#define AT_STR		(1u << 15)	/* string instruction */
#define AT_SSE		(1u << 16)	/* SSE/MMX: see sse_move() */
#define AT_STACK	(1u << 17)	/* implicit stack access */
#define AT_BITREG	(1u << 18)	/* bit offset in a register (bt*) */
#define AT_SERIAL	(1u << 19)	/* serializing */
#define AT_OP(x)	((u32)(x) << 20)	/* enum kc_op, < 64 */
#define AT_OP_OF(a)	(((a) >> 20) & 0x3f)
#define AT_GRP(x)	((u32)(x) << 26)	/* GRP_*, < 32 */
#define AT_GRP_OF(a)	(((a) >> 26) & 0x1f)

/* Attributes a group entry takes from its opcode rather than from itself. */
#define AT_FROM_OPCODE	(AT_MODRM | AT_IMM(7) | AT_BYTE | AT_SZ(7) | AT_D64)

#define M	AT_MODRM
#define IB	AT_IMM(IMM_B)
#define IW	AT_IMM(IMM_W)
#define IZ	AT_IMM(IMM_Z)
#define INV	AT_INV
#define RD	AT_R
#define WR	AT_W
#define RW	(AT_R | AT_W)
#define K	AT_KNOWN
#define D64	AT_D64
#define EB	(AT_BYTE | AT_SZ(SZ_B))
#define EV	AT_SZ(SZ_V)
#define OP(x)	AT_OP(KC_OP_##x)
#define G(x)	(M | AT_GRP(GRP_##x))

/* The six encodings of add/or/adc/sbb/and/sub/xor/cmp. */
#define ALU_EB(op, acc)	(M | EB | K | OP(op) | (acc))	/* Eb, Gb */
#define ALU_EV(op, acc)	(M | EV | K | OP(op) | (acc))	/* Ev, Gv */
#define ALU_GB(op)	(M | EB | K | OP(op) | RD)	/* Gb, Eb */
#define ALU_GV(op)	(M | EV | K | OP(op) | RD)	/* Gv, Ev */
#define ALU_AL(op)	(AT_BYTE | IB | OP(op))		/* al, Ib */
#define ALU_AX(op)	(IZ | OP(op))			/* eax, Iz */

#define PFX	0	/* prefix or escape: consumed before the lookup */
#define STR	(AT_STR | OP(STRING))

static const u32 map0_attr[256] = {
	ALU_EB(ADD, RW), ALU_EV(ADD, RW), ALU_GB(ADD), ALU_GV(ADD),
	ALU_AL(ADD), ALU_AX(ADD), INV, INV,				/* 00 */
	ALU_EB(OR, RW), ALU_EV(OR, RW), ALU_GB(OR), ALU_GV(OR),
	ALU_AL(OR), ALU_AX(OR), INV, PFX,				/* 08 */
	ALU_EB(ADC, RW), ALU_EV(ADC, RW), ALU_GB(ADC), ALU_GV(ADC),
	ALU_AL(ADC), ALU_AX(ADC), INV, INV,				/* 10 */
	ALU_EB(SBB, RW), ALU_EV(SBB, RW), ALU_GB(SBB), ALU_GV(SBB),
	ALU_AL(SBB), ALU_AX(SBB), INV, INV,				/* 18 */
	ALU_EB(AND, RW), ALU_EV(AND, RW), ALU_GB(AND), ALU_GV(AND),
	ALU_AL(AND), ALU_AX(AND), PFX, INV,				/* 20 */
	ALU_EB(SUB, RW), ALU_EV(SUB, RW), ALU_GB(SUB), ALU_GV(SUB),
	ALU_AL(SUB), ALU_AX(SUB), PFX, INV,				/* 28 */
	ALU_EB(XOR, RW), ALU_EV(XOR, RW), ALU_GB(XOR), ALU_GV(XOR),
	ALU_AL(XOR), ALU_AX(XOR), PFX, INV,				/* 30 */
	ALU_EB(CMP, RD), ALU_EV(CMP, RD), ALU_GB(CMP), ALU_GV(CMP),
	ALU_AL(CMP), ALU_AX(CMP), PFX, INV,				/* 38 */
	[0x40 ... 0x4f] = PFX,				/* REX */
	[0x50 ... 0x57] = D64 | AT_STACK | OP(PUSH),
	[0x58 ... 0x5f] = D64 | AT_STACK | OP(POP),
	[0x60] = INV, [0x61] = INV, [0x62] = PFX,	/* 62: EVEX */
	[0x63] = M | RD | K | AT_SZ(SZ_D) | OP(MOV),	/* movsxd */
	[0x64 ... 0x67] = PFX,
	[0x68] = IZ | D64 | AT_STACK | OP(PUSH),
	[0x69] = M | IZ | EV | RD | K,			/* imul */
	[0x6a] = IB | D64 | AT_STACK | OP(PUSH),
	[0x6b] = M | IB | EV | RD | K,
	[0x6c] = AT_BYTE | STR, [0x6d] = STR,		/* ins */
	[0x6e] = AT_BYTE | STR, [0x6f] = STR,		/* outs */
	[0x70 ... 0x7f] = IB | OP(JCC),
	[0x80] = G(1) | EB | IB, [0x81] = G(1) | EV | IZ,
	[0x82] = INV, [0x83] = G(1) | EV | IB,
	[0x84] = M | EB | RD | K | OP(TEST),
	[0x85] = M | EV | RD | K | OP(TEST),
	[0x86] = M | EB | RW | K | OP(XCHG),
	[0x87] = M | EV | RW | K | OP(XCHG),
	[0x88] = M | EB | WR | K | OP(MOV),
	[0x89] = M | EV | WR | K | OP(MOV),
	[0x8a] = M | EB | RD | K | OP(MOV),
	[0x8b] = M | EV | RD | K | OP(MOV),
	[0x8c] = M | AT_SZ(SZ_W) | WR | K | OP(MOV),	/* mov Ew, Sw */
	[0x8d] = M | AT_NOTACC | OP(LEA),
	[0x8e] = M | AT_SZ(SZ_W) | RD | K | OP(MOV),	/* mov Sw, Ew */
	[0x8f] = G(1A) | EV | D64,
	[0x90 ... 0x97] = OP(XCHG),
	[0x98] = 0, [0x99] = 0,				/* cbw, cwd */
	[0x9a] = INV, [0x9b] = 0,			/* fwait */
	[0x9c] = D64 | AT_STACK | OP(PUSH),		/* pushf */
	[0x9d] = D64 | AT_STACK | OP(POP),		/* popf */
	[0x9e] = 0, [0x9f] = 0,				/* sahf, lahf */
	[0xa0] = AT_IMM(IMM_MOFFS) | EB | RD | K | OP(MOV),
	[0xa1] = AT_IMM(IMM_MOFFS) | EV | RD | K | OP(MOV),
	[0xa2] = AT_IMM(IMM_MOFFS) | EB | WR | K | OP(MOV),
	[0xa3] = AT_IMM(IMM_MOFFS) | EV | WR | K | OP(MOV),
	[0xa4] = AT_BYTE | STR, [0xa5] = STR,		/* movs */
	[0xa6] = AT_BYTE | STR, [0xa7] = STR,		/* cmps */
	[0xa8] = AT_BYTE | IB | OP(TEST), [0xa9] = IZ | OP(TEST),
	[0xaa] = AT_BYTE | STR, [0xab] = STR,		/* stos */
	[0xac] = AT_BYTE | STR, [0xad] = STR,		/* lods */
	[0xae] = AT_BYTE | STR, [0xaf] = STR,		/* scas */
	[0xb0 ... 0xb7] = AT_BYTE | IB | OP(MOV),
	[0xb8 ... 0xbf] = AT_IMM(IMM_V) | OP(MOV),
	[0xc0] = G(2) | EB | IB, [0xc1] = G(2) | EV | IB,
	[0xc2] = IW | AT_STACK | OP(RET), [0xc3] = AT_STACK | OP(RET),
	[0xc4] = PFX, [0xc5] = PFX,			/* VEX */
	[0xc6] = G(11) | EB | IB, [0xc7] = G(11) | EV | IZ,
	[0xc8] = AT_IMM(IMM_WB) | AT_STACK,		/* enter */
	[0xc9] = AT_STACK,				/* leave */
	[0xca] = IW | AT_STACK | OP(RET), [0xcb] = AT_STACK | OP(RET),
	[0xcc] = OP(INT3), [0xcd] = IB, [0xce] = INV,
	[0xcf] = AT_STACK | AT_SERIAL | OP(IRET),
	[0xd0] = G(2) | EB, [0xd1] = G(2) | EV,
	[0xd2] = G(2) | EB, [0xd3] = G(2) | EV,
	[0xd4 ... 0xd6] = INV, [0xd7] = 0,		/* xlat */
	[0xd8 ... 0xdf] = M,				/* x87: see x87_mem() */
	[0xe0 ... 0xe3] = IB | OP(JCC),			/* loop*, jrcxz */
	[0xe4 ... 0xe7] = IB,				/* in, out */
	[0xe8] = AT_IMM(IMM_D) | AT_STACK | OP(CALL),
	[0xe9] = AT_IMM(IMM_D) | OP(JMP),
	[0xea] = INV, [0xeb] = IB | OP(JMP),
	[0xec ... 0xef] = 0,				/* in, out dx */
	[0xf0] = PFX, [0xf1] = 0, [0xf2] = PFX, [0xf3] = PFX,
	[0xf4] = 0, [0xf5] = 0,				/* hlt, cmc */
	[0xf6] = G(3B) | EB, [0xf7] = G(3V) | EV,
	[0xf8 ... 0xfd] = 0,				/* clc ... std */
	[0xfe] = G(4) | EB, [0xff] = G(5) | EV,
};

#define SSE	(M | AT_SSE)
#define BITREG(op)	(M | EV | K | AT_BITREG | OP(op))

static const u32 map1_attr[256] = {
	[0x00] = G(6), [0x01] = G(7),
	[0x02] = M | AT_SZ(SZ_W) | RD, [0x03] = M | AT_SZ(SZ_W) | RD, /* lar, lsl */
	[0x04] = INV,
	[0x05 ... 0x07] = 0,				/* syscall clts sysret */
	[0x08] = AT_SERIAL, [0x09] = AT_SERIAL,		/* invd, wbinvd */
	[0x0a] = INV, [0x0b] = OP(UD), [0x0c] = INV,
	[0x0d] = G(P), [0x0e] = INV, [0x0f] = INV,	/* 0e 0f: 3DNow! */
	[0x10 ... 0x17] = SSE,
	[0x18] = G(16),
	[0x19] = M | AT_NOTACC | OP(NOP),
	[0x1a] = M | RW, [0x1b] = M | RW,		/* MPX */
	[0x1c ... 0x1f] = M | AT_NOTACC | OP(NOP),	/* hint nops, endbr */
	[0x20 ... 0x23] = M,				/* mov cr/dr */
	[0x24 ... 0x27] = INV,
	[0x28 ... 0x2f] = SSE,
	[0x30] = AT_SERIAL,				/* wrmsr */
	[0x31 ... 0x35] = 0,
	[0x36] = INV, [0x37] = 0, [0x38] = PFX, [0x39] = INV, [0x3a] = PFX,
	[0x3b ... 0x3f] = INV,
	[0x40 ... 0x4f] = M | EV | RD | K | OP(CMOV),
	[0x50 ... 0x6f] = SSE,
	[0x70 ... 0x73] = SSE | IB,
	[0x74 ... 0x76] = SSE,
	[0x77] = 0,					/* emms */
	[0x78] = M | AT_SZ(SZ_Q) | WR,			/* vmread */
	[0x79] = M | AT_SZ(SZ_Q) | RD,			/* vmwrite */
	[0x7a] = INV, [0x7b] = INV,
	[0x7c ... 0x7f] = SSE,
	[0x80 ... 0x8f] = AT_IMM(IMM_D) | OP(JCC),
	[0x90 ... 0x9f] = M | EB | WR | K | OP(SETCC),
	[0xa0] = D64 | AT_STACK | OP(PUSH), [0xa1] = D64 | AT_STACK | OP(POP),
	[0xa2] = AT_SERIAL,				/* cpuid */
	[0xa3] = BITREG(BT) | RD,
	[0xa4] = M | IB | EV | RW | K | OP(SHIFT),	/* shld */
	[0xa5] = M | EV | RW | K | OP(SHIFT),
	[0xa6] = G(PL6), [0xa7] = G(PL7),		/* VIA PadLock */
	[0xa8] = D64 | AT_STACK | OP(PUSH), [0xa9] = D64 | AT_STACK | OP(POP),
	[0xaa] = AT_SERIAL,				/* rsm */
	[0xab] = BITREG(BTS) | RW,
	[0xac] = M | IB | EV | RW | K | OP(SHIFT),	/* shrd */
	[0xad] = M | EV | RW | K | OP(SHIFT),
	[0xae] = G(15),
	[0xaf] = M | EV | RD | K,			/* imul */
	[0xb0] = M | EB | RW | K | OP(CMPXCHG),
	[0xb1] = M | EV | RW | K | OP(CMPXCHG),
	[0xb2] = M | RD,				/* lss */
	[0xb3] = BITREG(BTR) | RW,
	[0xb4] = M | RD, [0xb5] = M | RD,		/* lfs, lgs */
	[0xb6] = M | AT_SZ(SZ_B) | RD | K | OP(MOV),	/* movzx */
	[0xb7] = M | AT_SZ(SZ_W) | RD | K | OP(MOV),
	[0xb8] = M | EV | RD | K,			/* popcnt (f3 only) */
	[0xb9] = M | AT_NOTACC | OP(UD),		/* ud1 */
	[0xba] = G(8) | EV | IB,
	[0xbb] = BITREG(BTC) | RW,
	[0xbc] = M | EV | RD | K, [0xbd] = M | EV | RD | K, /* bsf/tzcnt, bsr */
	[0xbe] = M | AT_SZ(SZ_B) | RD | K | OP(MOV),	/* movsx */
	[0xbf] = M | AT_SZ(SZ_W) | RD | K | OP(MOV),
	[0xc0] = M | EB | RW | K | OP(XADD),
	[0xc1] = M | EV | RW | K | OP(XADD),
	[0xc2] = SSE | IB,
	[0xc3] = M | EV | WR | K | OP(MOV),		/* movnti */
	[0xc4 ... 0xc6] = SSE | IB,
	[0xc7] = G(9),
	[0xc8 ... 0xcf] = 0,				/* bswap */
	[0xd0 ... 0xfe] = SSE,
	[0xff] = M | AT_NOTACC | OP(UD),		/* ud0 */
};

/* Group entries, indexed by ModRM.reg, for memory (mod != 3) forms. */
static const u32 grp_attr[GRP_NR][8] = {
	[GRP_1] = {
		K | RW | OP(ADD), K | RW | OP(OR), K | RW | OP(ADC),
		K | RW | OP(SBB), K | RW | OP(AND), K | RW | OP(SUB),
		K | RW | OP(XOR), K | RD | OP(CMP),
	},
	[GRP_1A] = { K | WR | AT_STACK | OP(POP), INV, INV, INV, INV, INV,
		     INV, INV },
	[GRP_2] = {
		[0 ... 7] = K | RW | OP(SHIFT),
	},
	[GRP_3B] = {
		K | RD | AT_GIMM | OP(TEST), K | RD | AT_GIMM | OP(TEST),
		K | RW | OP(NOT), K | RW | OP(NEG),
		K | RD, K | RD, K | RD, K | RD,		/* mul imul div idiv */
	},
	[GRP_3V] = {
		K | RD | AT_GIMM | OP(TEST), K | RD | AT_GIMM | OP(TEST),
		K | RW | OP(NOT), K | RW | OP(NEG),
		K | RD, K | RD, K | RD, K | RD,
	},
	[GRP_4] = { K | RW | OP(INC), K | RW | OP(DEC), INV, INV, INV, INV,
		    INV, INV },
	[GRP_5] = {
		K | RW | OP(INC), K | RW | OP(DEC),
		K | RD | D64 | AT_STACK | OP(CALL), RD | AT_STACK | OP(CALL),
		K | RD | D64 | OP(JMP), RD | OP(JMP),
		K | RD | D64 | AT_STACK | OP(PUSH), INV,
	},
	[GRP_11] = { K | WR | OP(MOV), INV, INV, INV, INV, INV, INV, INV },
	[GRP_6] = {
		AT_SZ(SZ_W) | WR, AT_SZ(SZ_W) | WR,	/* sldt, str */
		AT_SZ(SZ_W) | RD | AT_SERIAL,		/* lldt */
		AT_SZ(SZ_W) | RD | AT_SERIAL,		/* ltr */
		AT_SZ(SZ_W) | RD, AT_SZ(SZ_W) | RD,	/* verr, verw */
		INV, INV,
	},
	[GRP_7] = {
		WR, WR,					/* sgdt, sidt */
		RD | AT_SERIAL, RD | AT_SERIAL,		/* lgdt, lidt */
		AT_SZ(SZ_W) | WR, INV,			/* smsw */
		AT_SZ(SZ_W) | RD,			/* lmsw */
		AT_NOTACC | AT_SERIAL,			/* invlpg */
	},
	[GRP_8] = {
		INV, INV, INV, INV,
		K | RD | OP(BT), K | RW | OP(BTS), K | RW | OP(BTR),
		K | RW | OP(BTC),
	},
	[GRP_9] = {
		INV, RW | OP(CMPXCHG), INV, RD,		/* cmpxchg8b, xrstors */
		WR, WR,					/* xsavec, xsaves */
		AT_SZ(SZ_Q) | RD,			/* vmptrld vmclear vmxon */
		AT_SZ(SZ_Q) | WR,			/* vmptrst */
	},
	[GRP_15] = {
		WR, RD,					/* fxsave, fxrstor */
		AT_SZ(SZ_D) | RD, AT_SZ(SZ_D) | WR,	/* ldmxcsr, stmxcsr */
		WR, RD, WR,				/* xsave xrstor xsaveopt */
		AT_NOTACC | OP(CLFLUSH),		/* clflush */
	},
	[GRP_16] = {
		[0 ... 3] = AT_NOTACC | OP(PREFETCH),
		[4 ... 7] = AT_NOTACC | OP(NOP),
	},
	[GRP_P] = {
		[0 ... 7] = AT_NOTACC | OP(PREFETCH),
	},
	/* register forms only: see grp_reg_valid() */
	[GRP_PL6] = { [0 ... 7] = INV },
	[GRP_PL7] = { [0 ... 7] = INV },
};

/*
 * Opcodes that exist in the three-byte maps, as inclusive ranges, legacy
 * (SSE) and VEX encoded. EVEX accepts every opcode of maps 1-3: its
 * length rules do not vary.
 */
struct kc_range {
	u8 lo, hi;
};

#define RANGE_END	{ 1, 0 }

static const struct kc_range map2_legacy[] = {
	{ 0x00, 0x0b }, { 0x10, 0x10 }, { 0x14, 0x15 }, { 0x17, 0x17 },
	{ 0x1c, 0x1e }, { 0x20, 0x25 }, { 0x28, 0x2b }, { 0x30, 0x35 },
	{ 0x37, 0x41 }, { 0x80, 0x82 }, { 0xc8, 0xcd }, { 0xcf, 0xcf },
	{ 0xdb, 0xdf }, { 0xf0, 0xf6 }, { 0xf8, 0xf9 },
	RANGE_END,
};

static const struct kc_range map3_legacy[] = {
	{ 0x08, 0x0f }, { 0x14, 0x17 }, { 0x20, 0x22 }, { 0x40, 0x42 },
	{ 0x44, 0x44 }, { 0x60, 0x63 }, { 0xcc, 0xcc }, { 0xce, 0xcf },
	{ 0xdf, 0xdf },
	RANGE_END,
};

static const struct kc_range map1_vex[] = {
	{ 0x10, 0x17 }, { 0x28, 0x2f }, { 0x41, 0x42 }, { 0x44, 0x47 },
	{ 0x4a, 0x4b }, { 0x50, 0x7f }, { 0x90, 0x93 }, { 0x98, 0x99 },
	{ 0xae, 0xae }, { 0xc2, 0xc2 }, { 0xc4, 0xc6 }, { 0xd0, 0xfe },
	RANGE_END,
};

static const struct kc_range map2_vex[] = {
	{ 0x00, 0x0f }, { 0x13, 0x13 }, { 0x16, 0x1a }, { 0x1c, 0x1e },
	{ 0x20, 0x25 }, { 0x28, 0x2f }, { 0x30, 0x47 }, { 0x49, 0x49 },
	{ 0x4b, 0x4b }, { 0x50, 0x53 }, { 0x58, 0x5a }, { 0x5c, 0x5e },
	{ 0x78, 0x79 }, { 0x8c, 0x8c }, { 0x8e, 0x8e }, { 0x90, 0x9f },
	{ 0xa6, 0xaf }, { 0xb0, 0xb1 }, { 0xb4, 0xbf }, { 0xcf, 0xcf },
	{ 0xdb, 0xdf }, { 0xf2, 0xf3 }, { 0xf5, 0xf7 },
	RANGE_END,
};

static const struct kc_range map3_vex[] = {
	{ 0x00, 0x02 }, { 0x04, 0x06 }, { 0x08, 0x0f }, { 0x14, 0x19 },
	{ 0x1d, 0x1d }, { 0x20, 0x22 }, { 0x30, 0x33 }, { 0x38, 0x39 },
	{ 0x40, 0x42 }, { 0x44, 0x44 }, { 0x46, 0x46 }, { 0x48, 0x4c },
	{ 0x60, 0x63 }, { 0xce, 0xcf }, { 0xdf, 0xdf }, { 0xf0, 0xf0 },
	RANGE_END,
};

#undef M
#undef IB
#undef IW
#undef IZ
#undef INV
#undef RD
#undef WR
#undef RW
#undef K
#undef D64
#undef EB
#undef EV
#undef OP
#undef G
#undef ALU_EB
#undef ALU_EV
#undef ALU_GB
#undef ALU_GV
#undef ALU_AL
#undef ALU_AX
#undef PFX
#undef STR
#undef SSE
#undef BITREG

#endif /* KCOLLIDER_X86_OPCODE_TABLES_H */
