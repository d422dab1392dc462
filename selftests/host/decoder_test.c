// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the x86-64 decoder (lib/x86_decode.c, the source the module
 * links) on hand-picked encodings: every class the detector relies on and
 * the tricky cases. Bytes and expected values come from the Intel SDM and
 * objdump; the oracle test checks the rest against a whole kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <kcollider/x86_decode.h>

/* Decode the listed bytes into @k; they must be exactly one instruction. */
#define DECODE(k, ...) do {						\
	static const u8 _code[] = { __VA_ARGS__ };			\
	ASSERT_EQ(0, kc_decode(_code, sizeof(_code), (k)));		\
	ASSERT_EQ(sizeof(_code), (k)->length);				\
} while (0)

#define REJECT(err, ...) do {						\
	static const u8 _code[] = { __VA_ARGS__ };			\
	struct kc_insn _k;						\
	ASSERT_EQ(err, kc_decode(_code, sizeof(_code), &_k));		\
} while (0)

#define HAS(k, f)	(((k)->flags & (f)) == (f))
#define HASNT(k, f)	(((k)->flags & (f)) == 0)

/* Expect mem[n] to be [base + index * scale + disp], @size bytes, @acc. */
#define MEM(k, n, b, i, s, d, sz, acc) do {				\
	ASSERT_LT(n, (k)->nmem);					\
	EXPECT_EQ(b, (k)->mem[n].base);					\
	EXPECT_EQ(i, (k)->mem[n].index);				\
	EXPECT_EQ(s, (k)->mem[n].scale);				\
	EXPECT_EQ(d, (k)->mem[n].disp);					\
	EXPECT_EQ(sz, (k)->mem[n].size);				\
	EXPECT_EQ(acc, (k)->mem[n].access);				\
} while (0)

#define NONE	KC_REG_NONE
#define R	KC_ACC_READ
#define W	KC_ACC_WRITE
#define RW	KC_ACC_RW
#define EXACT	(KC_INSN_MEM | KC_INSN_SEM_KNOWN)

TEST(lock_cmpxchg)
{
	struct kc_insn k;

	DECODE(&k, 0xf0, 0x0f, 0xb1, 0x0a);	/* lock cmpxchg %ecx,(%rdx) */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_LOCK | KC_INSN_ATOMIC |
			KC_INSN_BARRIER | KC_INSN_LOAD | KC_INSN_STORE));
	EXPECT_EQ(KC_OP_CMPXCHG, k.op);
	MEM(&k, 0, KC_REG_RDX, NONE, 1, 0, 4, RW);
	/* lock cmpxchg16b (%rdi) */
	DECODE(&k, 0xf0, 0x48, 0x0f, 0xc7, 0x0f);
	ASSERT_TRUE(HAS(&k, KC_INSN_MEM | KC_INSN_LOCK | KC_INSN_ATOMIC));
	EXPECT_EQ(16, k.mem[0].size);
}

TEST(xchg_is_implicitly_locked)
{
	struct kc_insn k;

	DECODE(&k, 0x48, 0x87, 0x07);		/* xchg %rax,(%rdi) */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_ATOMIC | KC_INSN_BARRIER));
	ASSERT_TRUE(HASNT(&k, KC_INSN_LOCK));
	EXPECT_EQ(KC_OP_XCHG, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, RW);
	DECODE(&k, 0x48, 0x87, 0xc7);		/* xchg %rax,%rdi: no memory */
	ASSERT_TRUE(HASNT(&k, KC_INSN_MEM | KC_INSN_ATOMIC |
			  KC_INSN_BARRIER));
}

TEST(rep_movsb_has_two_operands)
{
	struct kc_insn k;

	DECODE(&k, 0xf3, 0xa4);
	ASSERT_TRUE(HAS(&k, KC_INSN_MEM | KC_INSN_STRING | KC_INSN_REP |
			KC_INSN_LOAD | KC_INSN_STORE));
	ASSERT_TRUE(HASNT(&k, KC_INSN_SEM_KNOWN | KC_INSN_REPNE));
	EXPECT_EQ(KC_OP_STRING, k.op);
	ASSERT_EQ(2, k.nmem);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 1, W);
	MEM(&k, 1, KC_REG_RSI, NONE, 1, 0, 1, R);
	DECODE(&k, 0x48, 0xa7);			/* cmpsq: both read */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, R);
	MEM(&k, 1, KC_REG_RSI, NONE, 1, 0, 8, R);
	DECODE(&k, 0xf3, 0x48, 0xab);		/* rep stosq */
	ASSERT_EQ(1, k.nmem);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, W);
	DECODE(&k, 0xf2, 0xae);			/* repnz scasb */
	ASSERT_TRUE(HAS(&k, KC_INSN_REPNE));
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 1, R);
	DECODE(&k, 0x65, 0xac);			/* lods %gs:(%rsi) */
	EXPECT_EQ(KC_SEG_GS, k.mem[0].seg);
	MEM(&k, 0, KC_REG_RSI, NONE, 1, 0, 1, R);
}

TEST(addq_rip_relative)
{
	struct kc_regs regs = { .ip = 0xffffffff81000000ull };
	struct kc_insn k;
	u64 addr;

	/* addq $0x1,0x10(%rip) */
	DECODE(&k, 0x48, 0x83, 0x05, 0x10, 0x00, 0x00, 0x00, 0x01);
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_LOAD | KC_INSN_STORE));
	EXPECT_EQ(KC_OP_ADD, k.op);
	MEM(&k, 0, KC_REG_RIP, NONE, 1, 0x10, 8, RW);
	ASSERT_TRUE(k.has_imm);
	EXPECT_EQ(1, k.imm);
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(regs.ip + 8 + 0x10, addr);
	/* negative displacement: incl -0x10(%rip) */
	DECODE(&k, 0xff, 0x05, 0xf0, 0xff, 0xff, 0xff);
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(regs.ip + 6 - 0x10, addr);
}

TEST(gs_segment_override)
{
	struct kc_regs regs = { .gs_base = 0xffff888000000000ull,
				.fs_base = 0x7f0000000000ull };
	struct kc_insn k;
	u64 addr;

	/* mov %gs:0x10,%rax */
	DECODE(&k, 0x65, 0x48, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00);
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_LOAD));
	ASSERT_TRUE(HASNT(&k, KC_INSN_STORE));
	EXPECT_EQ(KC_SEG_GS, k.mem[0].seg);
	MEM(&k, 0, NONE, NONE, 1, 0x10, 8, R);
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(regs.gs_base + 0x10, addr);
	/* mov %eax,%fs:(%rbx) */
	DECODE(&k, 0x64, 0x89, 0x03);
	regs.gpr[KC_REG_RBX] = 0x100;
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(regs.fs_base + 0x100, addr);
	/* ds/cs overrides have no base in 64-bit mode */
	DECODE(&k, 0x3e, 0x89, 0x03);
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(0x100, addr);
}

TEST(not_accesses)
{
	struct kc_insn k;

	DECODE(&k, 0x0f, 0x1f, 0x44, 0x00, 0x00); /* nopl 0x0(%rax,%rax,1) */
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	ASSERT_TRUE(HASNT(&k, KC_INSN_MEM | KC_INSN_LOAD | KC_INSN_STORE));
	EXPECT_EQ(KC_OP_NOP, k.op);
	EXPECT_EQ(0, k.nmem);
	EXPECT_EQ(KC_REG_RAX, k.mem[0].index);	/* expression still there */
	/* nopw 0x0(%rax,%rax,1), the fentry-site nopl 0x0(%rax) */
	DECODE(&k, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00);
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	DECODE(&k, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00);
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	DECODE(&k, 0x48, 0x8d, 0x44, 0x24, 0x08);	/* lea 0x8(%rsp),%rax */
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	ASSERT_TRUE(HASNT(&k, KC_INSN_MEM));
	EXPECT_EQ(KC_OP_LEA, k.op);
	DECODE(&k, 0x0f, 0x18, 0x08);		/* prefetcht0 (%rax) */
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	EXPECT_EQ(KC_OP_PREFETCH, k.op);
	DECODE(&k, 0x0f, 0x0d, 0x08);		/* prefetchw (%rax) */
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	DECODE(&k, 0x0f, 0xae, 0x38);		/* clflush (%rax) */
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	EXPECT_EQ(KC_OP_CLFLUSH, k.op);
	DECODE(&k, 0x66, 0x0f, 0xae, 0x38);	/* clflushopt (%rax) */
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	DECODE(&k, 0x66, 0x0f, 0xae, 0x30);	/* clwb (%rax) */
	ASSERT_TRUE(HAS(&k, KC_INSN_NOT_ACCESS));
	DECODE(&k, 0x0f, 0xae, 0x30);		/* xsaveopt (%rax): a store */
	ASSERT_TRUE(HAS(&k, KC_INSN_MEM | KC_INSN_STORE));
	ASSERT_TRUE(HASNT(&k, KC_INSN_NOT_ACCESS | KC_INSN_SEM_KNOWN));
	DECODE(&k, 0xf3, 0x0f, 0x1e, 0xfa);	/* endbr64 */
	ASSERT_TRUE(HASNT(&k, KC_INSN_MEM));
	DECODE(&k, 0x90);
	EXPECT_EQ(KC_OP_NOP, k.op);
}

TEST(avx_and_sse_moves)
{
	struct kc_insn k;

	DECODE(&k, 0xc5, 0xfe, 0x6f, 0x06);	/* vmovdqu (%rsi),%ymm0 */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_VEX | KC_INSN_LOAD));
	EXPECT_EQ(KC_OP_MOV, k.op);
	MEM(&k, 0, KC_REG_RSI, NONE, 1, 0, 32, R);
	DECODE(&k, 0xc5, 0xfa, 0x7f, 0x07);	/* vmovdqu %xmm0,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 16, W);
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_STORE));
	/* vmovdqu 0x20(%r11),%ymm3 (3-byte VEX, REX.B) */
	DECODE(&k, 0xc4, 0xc1, 0x7e, 0x6f, 0x5b, 0x20);
	MEM(&k, 0, KC_REG_R11, NONE, 1, 0x20, 32, R);
	DECODE(&k, 0x0f, 0x11, 0x07);		/* movups %xmm0,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 16, W);
	DECODE(&k, 0xf3, 0x0f, 0x10, 0x07);	/* movss (%rdi),%xmm0 */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, R);
	DECODE(&k, 0xf2, 0x0f, 0x11, 0x07);	/* movsd %xmm0,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, W);
	DECODE(&k, 0x66, 0x0f, 0xd6, 0x07);	/* movq %xmm0,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, W);
	DECODE(&k, 0x66, 0x48, 0x0f, 0x7e, 0x07); /* movq %xmm0,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, W);
	DECODE(&k, 0x66, 0x0f, 0x6e, 0x07);	/* movd (%rdi),%xmm0 */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, R);
	/* vmovdqu64 %zmm0,(%rsi) and vmovdqa64 %zmm0,0x40(%rbp): disp8*64 */
	DECODE(&k, 0x62, 0xf1, 0xfe, 0x48, 0x7f, 0x06);
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_EVEX));
	MEM(&k, 0, KC_REG_RSI, NONE, 1, 0, 64, W);
	DECODE(&k, 0x62, 0xf1, 0xfd, 0x48, 0x7f, 0x45, 0x01);
	MEM(&k, 0, KC_REG_RBP, NONE, 1, 0x40, 64, W);
	/* masked: vmovdqu64 %zmm0,(%rsi){%k1} touches only some bytes */
	DECODE(&k, 0x62, 0xf1, 0xfe, 0x49, 0x7f, 0x06);
	ASSERT_TRUE(HAS(&k, KC_INSN_MEM | KC_INSN_STORE));
	ASSERT_TRUE(HASNT(&k, KC_INSN_SEM_KNOWN));
	/* paddd (%rdi),%xmm0: a memory operand, semantics not claimed */
	DECODE(&k, 0x66, 0x0f, 0xfe, 0x07);
	ASSERT_TRUE(HAS(&k, KC_INSN_MEM | KC_INSN_LOAD));
	ASSERT_TRUE(HASNT(&k, KC_INSN_SEM_KNOWN));
	/* vextracti128 $1,%ymm0,(%rdi): VEX map 3 with imm8, a store */
	DECODE(&k, 0xc4, 0xe3, 0x7d, 0x39, 0x07, 0x01);
	ASSERT_TRUE(HAS(&k, KC_INSN_MEM | KC_INSN_STORE));
	DECODE(&k, 0xc5, 0xf8, 0x77);		/* vzeroupper: no ModRM */
	ASSERT_TRUE(HASNT(&k, KC_INSN_MEM));
}

TEST(bit_tests_with_memory)
{
	struct kc_regs regs = { 0 };
	struct kc_insn k;
	u64 addr;

	DECODE(&k, 0x48, 0x0f, 0xa3, 0x07);	/* bt %rax,(%rdi) */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_BITOFF_REG | KC_INSN_LOAD));
	ASSERT_TRUE(HASNT(&k, KC_INSN_STORE));
	EXPECT_EQ(KC_OP_BT, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, R);
	regs.gpr[KC_REG_RDI] = 0x1000;
	regs.gpr[KC_REG_RAX] = 130;		/* bit 2 of the third qword */
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(0x1010, addr);
	regs.gpr[KC_REG_RAX] = (u64)-1;		/* bit 63 of the qword below */
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(0xff8, addr);
	DECODE(&k, 0xf0, 0x0f, 0xab, 0x07);	/* lock bts %eax,(%rdi) */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_LOCK | KC_INSN_BITOFF_REG));
	EXPECT_EQ(KC_OP_BTS, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, RW);
	regs.gpr[KC_REG_RAX] = 40;		/* second dword */
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(0x1004, addr);
	DECODE(&k, 0x0f, 0xba, 0x2f, 0x05);	/* bts $5,(%rdi) */
	ASSERT_TRUE(HAS(&k, EXACT));
	ASSERT_TRUE(HASNT(&k, KC_INSN_BITOFF_REG));
	EXPECT_EQ(5, k.imm);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, RW);
	DECODE(&k, 0x48, 0x0f, 0xba, 0x37, 0x3f); /* btrq $63,(%rdi) */
	EXPECT_EQ(KC_OP_BTR, k.op);
	DECODE(&k, 0x48, 0x0f, 0xbb, 0x07);	/* btc %rax,(%rdi) */
	EXPECT_EQ(KC_OP_BTC, k.op);
	REJECT(-EINVAL, 0x0f, 0xba, 0x07, 0x01);	/* 0f ba /0 */
}

TEST(byte_and_word_operands)
{
	struct kc_insn k;

	DECODE(&k, 0xc6, 0x07, 0x05);		/* movb $5,(%rdi) */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_STORE));
	EXPECT_EQ(KC_OP_MOV, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 1, W);
	DECODE(&k, 0x40, 0x88, 0x37);		/* mov %sil,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 1, W);
	EXPECT_EQ(0x40, k.rex);
	DECODE(&k, 0x8a, 0x47, 0x01);		/* mov 0x1(%rdi),%al */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 1, 1, R);
	DECODE(&k, 0x66, 0x89, 0x07);		/* mov %ax,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 2, W);
	EXPECT_EQ(2, k.opsize);
	DECODE(&k, 0x66, 0xc7, 0x07, 0x34, 0x12); /* movw $0x1234,(%rdi) */
	EXPECT_EQ(0x1234, k.imm);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 2, W);
	DECODE(&k, 0x66, 0x83, 0x07, 0x01);	/* addw $1,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 2, RW);
	DECODE(&k, 0x66, 0x41, 0x81, 0x00, 0x00, 0x80); /* addw $-0x8000,(%r8) */
	EXPECT_EQ(-0x8000, k.imm);
	MEM(&k, 0, KC_REG_R8, NONE, 1, 0, 2, RW);
	DECODE(&k, 0x48, 0xc7, 0x07, 0xff, 0xff, 0xff, 0xff); /* movq $-1 */
	EXPECT_EQ(-1, k.imm);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, W);
}

TEST(integer_classes_exact)
{
	struct kc_insn k;

	DECODE(&k, 0x01, 0x07);			/* add %eax,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, RW);
	DECODE(&k, 0x03, 0x07);			/* add (%rdi),%eax */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, R);
	DECODE(&k, 0x48, 0x39, 0x07);		/* cmp %rax,(%rdi) */
	EXPECT_EQ(KC_OP_CMP, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, R);
	DECODE(&k, 0xf6, 0x07, 0x01);		/* testb $1,(%rdi) */
	EXPECT_EQ(KC_OP_TEST, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 1, R);
	DECODE(&k, 0xf7, 0x07, 0x00, 0x01, 0x00, 0x00); /* testl $0x100 */
	EXPECT_EQ(0x100, k.imm);
	DECODE(&k, 0xf7, 0x1f);			/* negl (%rdi) */
	EXPECT_EQ(KC_OP_NEG, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, RW);
	DECODE(&k, 0xfe, 0x07);			/* incb (%rdi) */
	EXPECT_EQ(KC_OP_INC, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 1, RW);
	DECODE(&k, 0x48, 0xff, 0x0f);		/* decq (%rdi) */
	EXPECT_EQ(KC_OP_DEC, k.op);
	DECODE(&k, 0xd1, 0x27);			/* shll (%rdi) */
	EXPECT_EQ(KC_OP_SHIFT, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, RW);
	DECODE(&k, 0x48, 0xc1, 0x2f, 0x03);	/* shrq $3,(%rdi) */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, RW);
	DECODE(&k, 0x0f, 0x94, 0x07);		/* sete (%rdi) */
	EXPECT_EQ(KC_OP_SETCC, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 1, W);
	DECODE(&k, 0x48, 0x0f, 0x44, 0x07);	/* cmove (%rdi),%rax */
	EXPECT_EQ(KC_OP_CMOV, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, R);
	DECODE(&k, 0x0f, 0xb6, 0x07);		/* movzbl (%rdi),%eax */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 1, R);
	DECODE(&k, 0x48, 0x0f, 0xbf, 0x07);	/* movswq (%rdi),%rax */
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 2, R);
	DECODE(&k, 0x48, 0x63, 0x07);		/* movslq (%rdi),%rax */
	EXPECT_EQ(KC_OP_MOV, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 4, R);
	DECODE(&k, 0xf0, 0x48, 0x0f, 0xc1, 0x07); /* lock xadd %rax,(%rdi) */
	EXPECT_EQ(KC_OP_XADD, k.op);
	MEM(&k, 0, KC_REG_RDI, NONE, 1, 0, 8, RW);
	/* mov -0x8(%rbp,%r8,8),%rax */
	DECODE(&k, 0x4a, 0x8b, 0x44, 0xc5, 0xf8);
	MEM(&k, 0, KC_REG_RBP, KC_REG_R8, 8, -8, 8, R);
	DECODE(&k, 0x41, 0x8b, 0x45, 0x00);	/* mov 0x0(%r13),%eax */
	MEM(&k, 0, KC_REG_R13, NONE, 1, 0, 4, R);
	DECODE(&k, 0x41, 0x8b, 0x04, 0x24);	/* mov (%r12),%eax */
	MEM(&k, 0, KC_REG_R12, NONE, 1, 0, 4, R);
	DECODE(&k, 0x42, 0x8b, 0x04, 0x25, 0x00, 0x10, 0x00, 0x00);
	MEM(&k, 0, NONE, KC_REG_R12, 1, 0x1000, 4, R);	/* (,%r12,1) */
}

TEST(stack_and_indirect_branches)
{
	struct kc_regs regs = { 0 };
	struct kc_insn k;
	u64 addr;

	DECODE(&k, 0xff, 0x32);			/* push (%rdx) */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_IMPLICIT_STACK | KC_INSN_LOAD |
			KC_INSN_STORE));
	EXPECT_EQ(KC_OP_PUSH, k.op);
	MEM(&k, 0, KC_REG_RDX, NONE, 1, 0, 8, R);
	DECODE(&k, 0x8f, 0x04, 0x24);		/* pop (%rsp) */
	EXPECT_EQ(KC_OP_POP, k.op);
	MEM(&k, 0, KC_REG_RSP, NONE, 1, 0, 8, W);
	regs.gpr[KC_REG_RSP] = 0x2000;		/* rsp is incremented first */
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(0x2008, addr);
	DECODE(&k, 0xff, 0x25, 0x00, 0x10, 0x00, 0x00); /* jmp *0x1000(%rip) */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_BRANCH | KC_INSN_INDIRECT));
	ASSERT_TRUE(HASNT(&k, KC_INSN_CALL | KC_INSN_REL_TARGET));
	MEM(&k, 0, KC_REG_RIP, NONE, 1, 0x1000, 8, R);
	DECODE(&k, 0x41, 0xff, 0x54, 0x24, 0x08); /* call *0x8(%r12) */
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_CALL | KC_INSN_INDIRECT |
			KC_INSN_IMPLICIT_STACK));
	MEM(&k, 0, KC_REG_R12, NONE, 1, 8, 8, R);
	DECODE(&k, 0xff, 0xd0);			/* call *%rax */
	ASSERT_TRUE(HAS(&k, KC_INSN_CALL | KC_INSN_INDIRECT));
	ASSERT_TRUE(HASNT(&k, KC_INSN_MEM));
	DECODE(&k, 0x53);			/* push %rbx */
	ASSERT_TRUE(HAS(&k, KC_INSN_IMPLICIT_STACK | KC_INSN_STORE));
	ASSERT_TRUE(HASNT(&k, KC_INSN_MEM));
	DECODE(&k, 0x41, 0x5c);			/* pop %r12 */
	ASSERT_TRUE(HAS(&k, KC_INSN_IMPLICIT_STACK | KC_INSN_LOAD));
	EXPECT_EQ(KC_OP_POP, k.op);
}

TEST(direct_branches)
{
	struct kc_insn k;
	u64 t;

	DECODE(&k, 0xe8, 0x10, 0x00, 0x00, 0x00); /* call +0x10 */
	ASSERT_TRUE(HAS(&k, KC_INSN_BRANCH | KC_INSN_CALL |
			KC_INSN_REL_TARGET));
	ASSERT_TRUE(kc_branch_target(&k, 0x1000, &t));
	EXPECT_EQ(0x1015, t);
	DECODE(&k, 0x75, 0xfe);			/* jne . */
	ASSERT_TRUE(HAS(&k, KC_INSN_BRANCH | KC_INSN_COND));
	ASSERT_TRUE(kc_branch_target(&k, 0x1000, &t));
	EXPECT_EQ(0x1000, t);
	DECODE(&k, 0x0f, 0x84, 0x00, 0xff, 0xff, 0xff); /* je -0x100 */
	EXPECT_EQ(KC_OP_JCC, k.op);
	ASSERT_TRUE(kc_branch_target(&k, 0x1000, &t));
	EXPECT_EQ(0x1006 - 0x100, t);
	DECODE(&k, 0xe9, 0x00, 0x00, 0x00, 0x00); /* jmp +0 */
	ASSERT_TRUE(HASNT(&k, KC_INSN_COND | KC_INSN_CALL));
	DECODE(&k, 0xeb, 0x02);
	EXPECT_EQ(KC_OP_JMP, k.op);
	DECODE(&k, 0xc3);
	ASSERT_TRUE(HAS(&k, KC_INSN_BRANCH | KC_INSN_RET));
	ASSERT_FALSE(kc_branch_target(&k, 0x1000, &t));
	DECODE(&k, 0xc2, 0x08, 0x00);		/* ret $8 */
	EXPECT_EQ(KC_OP_RET, k.op);
	DECODE(&k, 0xc7, 0xf8, 0x00, 0x01, 0x00, 0x00); /* xbegin +0x100 */
	ASSERT_TRUE(kc_branch_target(&k, 0x1000, &t));
	EXPECT_EQ(0x1106, t);
}

TEST(barriers_and_serializing)
{
	struct kc_insn k;

	DECODE(&k, 0x0f, 0xae, 0xf0);		/* mfence */
	EXPECT_EQ(KC_OP_MFENCE, k.op);
	ASSERT_TRUE(HAS(&k, KC_INSN_BARRIER));
	DECODE(&k, 0x0f, 0xae, 0xe8);		/* lfence: no store drain */
	EXPECT_EQ(KC_OP_LFENCE, k.op);
	ASSERT_TRUE(HASNT(&k, KC_INSN_BARRIER));
	DECODE(&k, 0x0f, 0xae, 0xf8);		/* sfence */
	EXPECT_EQ(KC_OP_SFENCE, k.op);
	DECODE(&k, 0x0f, 0xa2);			/* cpuid */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING | KC_INSN_BARRIER));
	DECODE(&k, 0x0f, 0x30);			/* wrmsr */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x48, 0xcf);			/* iretq */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING | KC_INSN_RET));
	EXPECT_EQ(KC_OP_IRET, k.op);
	DECODE(&k, 0x0f, 0x01, 0xe8);		/* serialize */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x0f, 0x22, 0xd8);		/* mov %rax,%cr3 */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x44, 0x0f, 0x22, 0xc0);	/* mov %rax,%cr8: not */
	ASSERT_TRUE(HASNT(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x0f, 0x23, 0xf8);		/* mov %rax,%db7 */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x0f, 0x20, 0x05);		/* mov %cr0,%rbp: mod ignored */
	ASSERT_TRUE(HASNT(&k, KC_INSN_MEM));
	DECODE(&k, 0x0f, 0x08);			/* invd */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x0f, 0x09);			/* wbinvd */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x0f, 0x01, 0x38);		/* invlpg (%rax) */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING | KC_INSN_NOT_ACCESS));
	DECODE(&k, 0x0f, 0x01, 0x10);		/* lgdt (%rax) */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING | KC_INSN_MEM));
	DECODE(&k, 0x0f, 0x01, 0x18);		/* lidt (%rax) */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	/* group 7's register forms are not lgdt/lidt/invlpg */
	DECODE(&k, 0x0f, 0x01, 0xf9);		/* rdtscp */
	ASSERT_TRUE(HASNT(&k, KC_INSN_SERIALIZING | KC_INSN_BARRIER));
	DECODE(&k, 0x0f, 0x01, 0xf8);		/* swapgs */
	ASSERT_TRUE(HASNT(&k, KC_INSN_SERIALIZING | KC_INSN_BARRIER));
	DECODE(&k, 0x0f, 0x01, 0xd0);		/* xgetbv */
	ASSERT_TRUE(HASNT(&k, KC_INSN_SERIALIZING | KC_INSN_BARRIER));
	DECODE(&k, 0x0f, 0x01, 0xca);		/* clac */
	ASSERT_TRUE(HASNT(&k, KC_INSN_SERIALIZING | KC_INSN_BARRIER));
	DECODE(&k, 0x0f, 0x00, 0xd0);		/* lldt %ax */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x0f, 0x00, 0xd8);		/* ltr %ax */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x66, 0x0f, 0x38, 0x82, 0x07); /* invpcid (%rdi),%rax */
	ASSERT_TRUE(HAS(&k, KC_INSN_SERIALIZING));
	DECODE(&k, 0x48, 0x89, 0x07);		/* a plain store is not */
	ASSERT_TRUE(HASNT(&k, KC_INSN_BARRIER | KC_INSN_SERIALIZING));
}

TEST(lengths)
{
	struct kc_insn k;

	/* movabs $0x0807060504030201,%rax */
	DECODE(&k, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8);
	EXPECT_EQ(0x0807060504030201ll, k.imm);
	DECODE(&k, 0x66, 0xb8, 0x34, 0x12);	/* mov $0x1234,%ax */
	/* movabs 0xffffffff81000000,%eax: moffs */
	DECODE(&k, 0xa1, 0x00, 0x00, 0x00, 0x81, 0xff, 0xff, 0xff, 0xff);
	ASSERT_TRUE(HAS(&k, EXACT | KC_INSN_MOFFS));
	EXPECT_EQ(4, k.mem[0].size);
	DECODE(&k, 0x67, 0xa2, 0x00, 0x10, 0x00, 0x00); /* addr32 moffs */
	EXPECT_EQ(4, k.mem[0].addr_size);
	DECODE(&k, 0xc8, 0x10, 0x00, 0x01);	/* enter $0x10,$1 */
	DECODE(&k, 0x68, 0x00, 0x00, 0x00, 0x80); /* push $imm32 */
	DECODE(&k, 0x66, 0x68, 0x00, 0x80);	/* pushw $imm16 */
	DECODE(&k, 0x6b, 0xc0, 0x05);		/* imul $5,%eax,%eax */
	DECODE(&k, 0x69, 0x07, 1, 0, 0, 0);	/* imul $1,(%rdi),%eax */
	DECODE(&k, 0xcc);
	EXPECT_EQ(KC_OP_INT3, k.op);
	DECODE(&k, 0x0f, 0x0b);
	EXPECT_EQ(KC_OP_UD, k.op);
	DECODE(&k, 0x0f, 0xb9, 0x40, 0x10);	/* ud1 0x10(%rax),%eax */
	EXPECT_EQ(KC_OP_UD, k.op);
	DECODE(&k, 0xd9, 0x7c, 0x24, 0xfc);	/* fnstcw -0x4(%rsp) */
	MEM(&k, 0, KC_REG_RSP, NONE, 1, -4, 2, W);
	DECODE(&k, 0xdb, 0xe3);			/* fninit */
	DECODE(&k, 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08); /* palignr */
	DECODE(&k, 0x66, 0x0f, 0x38, 0x00, 0xc1);	/* pshufb */
	DECODE(&k, 0x66, 0x0f, 0x70, 0xc1, 0x1b);	/* pshufd */
	DECODE(&k, 0xc4, 0xe2, 0x7d, 0x5a, 0x45, 0x00); /* vbroadcasti128 */
	DECODE(&k, 0x62, 0xf1, 0x65, 0x28, 0x72, 0xcb, 0x10); /* vprord */
	DECODE(&k, 0x66, 0x0f, 0x38, 0xf8, 0x02);	/* movdir64b */
	DECODE(&k, 0x66, 0x0f, 0xae, 0xf1);		/* tpause %ecx */
	DECODE(&k, 0x0f, 0x01, 0xca);			/* clac */
	DECODE(&k, 0x0f, 0x01, 0xf8);			/* swapgs */
	DECODE(&k, 0xf3, 0x0f, 0xa7, 0xc8);		/* xcrypt-ecb */
	DECODE(&k, 0x66, 0x0f, 0x78, 0xc0, 0x08, 0x10); /* extrq $8,$16 */
	DECODE(&k, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
	       0x2e, 0x0f, 0x1f, 0x40, 0x00);	/* prefix-padded nop */
}

TEST(undecodable_is_never_guessed)
{
	REJECT(-EINVAL, 0x06);			/* push %es: not in 64-bit */
	REJECT(-EINVAL, 0x27);			/* daa */
	REJECT(-EINVAL, 0xce);			/* into */
	REJECT(-EINVAL, 0xea, 0, 0, 0, 0, 0, 0);	/* ljmp ptr16:32 */
	REJECT(-EINVAL, 0x0f, 0x0f, 0xc1, 0xb4);	/* 3DNow! pfmul */
	REJECT(-EINVAL, 0x0f, 0x04);
	REJECT(-EINVAL, 0x0f, 0xb8, 0xc0);		/* jmpe, no f3 */
	REJECT(-EINVAL, 0x0f, 0x38, 0x50, 0xc0);	/* unassigned */
	REJECT(-EINVAL, 0x8f, 0xe8, 0x78, 0xc2, 0xc0, 0x00); /* XOP */
	REJECT(-EINVAL, 0xfe, 0x17);			/* fe /2 */
	REJECT(-EINVAL, 0xff, 0xff);			/* ff /7 */
	REJECT(-EINVAL, 0xc7, 0x0f, 0, 0, 0, 0);	/* c7 /1 */
	REJECT(-EINVAL, 0x66, 0xc5, 0xf8, 0x77);	/* VEX after 66 */
	REJECT(-EINVAL, 0xc4, 0xe4, 0x7d, 0x00, 0xc0); /* VEX map 4 */
	/* 15 prefixes and an opcode: longer than any instruction */
	REJECT(-EINVAL, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
	       0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x90);
}

TEST(truncated_is_enodata)
{
	static const u8 code[] = { 0x65, 0x48, 0x8b, 0x04, 0x25,
				   0x10, 0x00, 0x00, 0x00 };
	struct kc_insn k;
	size_t n;

	for (n = 0; n < sizeof(code); n++)
		ASSERT_EQ(-ENODATA, kc_decode(code, n, &k)) TH_LOG("n=%zu", n);
	ASSERT_EQ(0, kc_decode(code, sizeof(code), &k));
	for (n = 0; n < 3; n++)
		ASSERT_EQ(-ENODATA, kc_decode((const u8 *)"\xc4\xe2\x7d", n,
					      &k));
}

TEST(effective_address_addr32_wraps)
{
	struct kc_regs regs = { 0 };
	struct kc_insn k;
	u64 addr;

	DECODE(&k, 0x67, 0x8b, 0x40, 0x10);	/* mov 0x10(%eax),%eax */
	EXPECT_EQ(4, k.mem[0].addr_size);
	regs.gpr[KC_REG_RAX] = 0x1fffffff8ull;
	ASSERT_EQ(0, kc_effective_address(&k, 0, &regs, &addr));
	EXPECT_EQ(0x8, addr);
	ASSERT_EQ(-EINVAL, kc_effective_address(&k, 1, &regs, &addr));
	DECODE(&k, 0x48, 0x8d, 0x00);		/* lea: no access */
	ASSERT_EQ(-EINVAL, kc_effective_address(&k, 0, &regs, &addr));
	DECODE(&k, 0x48, 0x01, 0xc0);		/* register operands */
	ASSERT_EQ(-EINVAL, kc_effective_address(&k, 0, &regs, &addr));
}

TEST(op_names)
{
	unsigned int op;

	EXPECT_STREQ("add", kc_op_name(KC_OP_ADD));
	EXPECT_STREQ("cmpxchg", kc_op_name(KC_OP_CMPXCHG));
	EXPECT_STREQ("?", kc_op_name(KC_OP_NR));
	for (op = 0; op < KC_OP_NR; op++)
		EXPECT_STRNE("?", kc_op_name(op)) TH_LOG("op %u", op);
}

/*
 * Random bytes: whatever they are, the decoder must stay within what it was
 * given and within 15 bytes, and be consistent with itself (it runs in the
 * kernel on arbitrary text).
 */
TEST(random_bytes_stay_in_bounds)
{
	u8 buf[32];
	struct kc_insn k;
	unsigned int i, j, avail;
	int r;

	srandom(1);
	for (i = 0; i < 200000; i++) {
		for (j = 0; j < sizeof(buf); j++)
			buf[j] = random();
		avail = random() % 17;
		r = kc_decode(buf, avail, &k);
		ASSERT_TRUE(r == 0 || r == -EINVAL || r == -ENODATA);
		if (r)
			continue;
		ASSERT_LE(k.length, avail);
		ASSERT_LE(k.length, KC_INSN_MAX_LEN);
		ASSERT_LE(k.nmem, 2);
		if (k.flags & KC_INSN_NOT_ACCESS)
			ASSERT_FALSE(k.flags & KC_INSN_MEM);
		/* the same bytes with more room decode the same */
		ASSERT_EQ(0, kc_decode(buf, sizeof(buf), &k));
	}
}

TEST_HARNESS_MAIN
