// SPDX-License-Identifier: GPL-2.0
/*
 * The loads kcollider's int3 handler carries out itself (lib/x86_emulate.c,
 * the source the module links) against this CPU executing the very same
 * instructions: each form below is assembled here, run on random register,
 * memory and flag values, and its bytes decoded and emulated on the same
 * values. The destination register and the arithmetic flags must agree.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <kcollider/x86_emulate.h>
#include "emulate_forms.h"

#define TRIALS 20000

struct form {
	const char *name;
	void (*run)(struct cpu_state *s);
	const u8 *insn, *end;
	bool r12;			/* the destination, else %rax */
};

#define F(n, dst) { #n, n, (const u8 *)n##_insn, (const u8 *)n##_end, dst }

static const struct form forms[] = {
	F(form_add64, false), F(form_add32, false),
	F(form_add_sib_r12, true), F(form_movslq, false),
	F(form_movslq_sib_r12, true), F(form_mov32, false),
	F(form_mov64, false), F(form_movzbl, false), F(form_movzwq, false),
	F(form_movsbl, false), F(form_movswq, false), F(form_mov_disp, false),
};

static u64 rnd64(void)
{
	return (u64)random() << 42 ^ (u64)random() << 21 ^ (u64)random();
}

/* Values that make the flags interesting: edges as often as noise. */
static u64 operand(void)
{
	static const u64 edges[] = {
		0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff,
		0x80000000, 0xffffffff, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, ~0ULL, 0xf, 0x10,
	};

	if (random() % 2)
		return edges[random() % ARRAY_SIZE(edges)] +
		       (random() % 3) - 1;
	return rnd64();
}

static bool read_host(u64 addr, unsigned int size, u64 *val)
{
	*val = 0;
	memcpy(val, (const void *)(uintptr_t)addr, size);
	return true;
}

static bool read_fails(u64 addr, unsigned int size, u64 *val)
{
	return false;
}

static void regs_of(const struct cpu_state *s, struct kc_regs *r,
		    const u8 *ip)
{
	memset(r, 0, sizeof(*r));
	r->gpr[KC_REG_RAX] = s->rax;
	r->gpr[KC_REG_RBX] = s->rbx;
	r->gpr[KC_REG_RDX] = s->rdx;
	r->gpr[KC_REG_RSI] = s->rsi;
	r->gpr[KC_REG_R12] = s->r12;
	r->ip = (uintptr_t)ip;
}

TEST(each_form_matches_the_cpu)
{
	static u64 mem[4];
	struct cpu_state in, cpu;
	struct kc_insn insn;
	struct kc_regs regs;
	u64 flags, result;
	size_t i;
	int t;

	srandom(1);
	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		const struct form *f = &forms[i];

		ASSERT_EQ(0, kc_decode(f->insn, f->end - f->insn, &insn))
			TH_LOG("%s", f->name);
		ASSERT_EQ(f->end - f->insn, insn.length) TH_LOG("%s", f->name);
		ASSERT_TRUE(kc_emulate_possible(&insn)) TH_LOG("%s", f->name);
		ASSERT_EQ(f->r12 ? KC_REG_R12 : KC_REG_RAX, insn.reg);
		for (t = 0; t < TRIALS; t++) {
			mem[0] = operand();
			mem[1] = operand();
			in.rax = operand();
			in.r12 = operand();
			in.rbx = random() % 64;
			in.rdx = (uintptr_t)mem - in.rbx;
			in.rsi = (uintptr_t)mem;
			/* IF and the reserved bit 1; the others random */
			in.flags = 0x202 | (rnd64() & KC_FLAGS_ARITH);
			cpu = in;
			f->run(&cpu);

			regs_of(&in, &regs, f->insn);
			flags = in.flags;
			ASSERT_EQ(0, kc_emulate_insn(&insn, &regs, &flags,
						     read_host, &result));
			ASSERT_EQ(f->r12 ? cpu.r12 : cpu.rax, result)
				TH_LOG("%s: mem %llx rax %llx r12 %llx",
				       f->name, (unsigned long long)mem[0],
				       (unsigned long long)in.rax,
				       (unsigned long long)in.r12);
			ASSERT_EQ(cpu.flags & KC_FLAGS_ARITH,
				  flags & KC_FLAGS_ARITH)
				TH_LOG("%s: mem %llx rax %llx flags %llx",
				       f->name, (unsigned long long)mem[0],
				       (unsigned long long)in.rax,
				       (unsigned long long)in.flags);
		}
	}
}

/* A failed load changes nothing: the instruction then runs in place. */
TEST(a_failed_load_changes_nothing)
{
	struct cpu_state in = { .rsi = 0x1000, .flags = KC_FLAG_CF };
	const struct form *f = &forms[0];
	struct kc_insn insn;
	struct kc_regs regs;
	u64 flags = in.flags, result = 42;

	ASSERT_EQ(0, kc_decode(f->insn, f->end - f->insn, &insn));
	regs_of(&in, &regs, f->insn);
	EXPECT_EQ(-EFAULT, kc_emulate_insn(&insn, &regs, &flags, read_fails,
					   &result));
	EXPECT_EQ(KC_FLAG_CF, flags);
	EXPECT_EQ(42, result);
}

/* Stores, segment overrides, LOCK, byte and word destinations: refused. */
TEST(other_instructions_are_not_emulated)
{
	static const u8 refused[][8] = {
		{ 3, 0x48, 0x01, 0x06 },		/* add %rax,(%rsi) */
		{ 4, 0x65, 0x48, 0x8b, 0x06 },		/* mov %gs:(%rsi),%rax */
		{ 5, 0xf0, 0x48, 0x0f, 0xc1, 0x06 },	/* lock xadd */
		{ 2, 0x8a, 0x06 },			/* mov (%rsi),%al */
		{ 3, 0x66, 0x8b, 0x06 },		/* mov (%rsi),%ax */
		{ 3, 0x48, 0x8b, 0x26 },		/* mov (%rsi),%rsp */
		{ 3, 0x48, 0x89, 0x06 },		/* mov %rax,(%rsi) */
		{ 3, 0x48, 0x2b, 0x06 },		/* sub (%rsi),%rax */
		{ 4, 0x67, 0x48, 0x8b, 0x06 },		/* mov (%esi),%rax */
		{ 1, 0xad },				/* lods */
	};
	struct kc_regs regs = { 0 };
	struct kc_insn insn;
	u64 flags = 0, result;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		ASSERT_EQ(0, kc_decode(refused[i] + 1, refused[i][0], &insn))
			TH_LOG("#%zu", i);
		EXPECT_FALSE(kc_emulate_possible(&insn)) TH_LOG("#%zu", i);
		EXPECT_EQ(-EINVAL, kc_emulate_insn(&insn, &regs, &flags,
						   read_host, &result))
			TH_LOG("#%zu", i);
	}
}

/*
 * The racer check: this CPU's own mov loads at every placement that
 * touches the watched bytes must be found possible, whatever the register
 * held before; values not there must not.
 */
#define AROUND	24
#define AT	8

static void load_at(const struct form *f, const u8 *bytes, unsigned int start,
		    struct cpu_state *s)
{
	memset(s, 0, sizeof(*s));
	s->rax = rnd64();
	s->rsi = (uintptr_t)(bytes + start);
	s->flags = 0x202;
	f->run(s);
}

TEST(each_load_over_the_watch_could_read)
{
	static const unsigned int lens[] = { 1, 2, 4, 8 };
	static const struct { const struct form *f; unsigned int size; } loads[] = {
		{ &forms[5], 4 }, { &forms[6], 8 },
	};
	u8 bytes[AROUND];
	struct cpu_state s;
	unsigned int l, k, start, i;

	srandom(2);
	ASSERT_TRUE(loads[0].f->run == form_mov32);
	ASSERT_TRUE(loads[1].f->run == form_mov64);
	for (i = 0; i < AROUND; i++)
		bytes[i] = random();
	for (l = 0; l < ARRAY_SIZE(lens); l++) {
		for (k = 0; k < ARRAY_SIZE(loads); k++) {
			unsigned int size = loads[k].size;

			for (start = AT + 1 - size; start < AT + lens[l]; start++) {
				load_at(loads[k].f, bytes, start, &s);
				EXPECT_TRUE(kc_load_could_read(bytes, AROUND, AT,
							       lens[l], size,
							       s.rax))
					TH_LOG("len %u size %u start %u",
					       lens[l], size, start);
			}
		}
	}
}

TEST(a_load_beside_the_watch_read_other)
{
	u8 bytes[AROUND];
	struct cpu_state s;
	unsigned int i;

	for (i = 0; i < AROUND; i++)
		bytes[i] = i + 1;
	/* wholly after a 4-byte watch, and wholly before it */
	load_at(&forms[5], bytes, AT + 4, &s);
	EXPECT_FALSE(kc_load_could_read(bytes, AROUND, AT, 4, 4, s.rax));
	load_at(&forms[6], bytes, 0, &s);
	EXPECT_FALSE(kc_load_could_read(bytes, AROUND, AT, 4, 8, s.rax));
	/* a per-CPU counter's value, nowhere near */
	EXPECT_FALSE(kc_load_could_read(bytes, AROUND, AT, 4, 4, 0x12345));
}

TEST(unknown_placements_are_possible)
{
	u8 bytes[AROUND] = { 0 };

	/* other sizes: their registers need not hold what they read */
	EXPECT_TRUE(kc_load_could_read(bytes, AROUND, AT, 4, 2, ~0ULL));
	EXPECT_TRUE(kc_load_could_read(bytes, AROUND, AT, 4, 1, ~0ULL));
	/* placements the copy does not cover: before, and after it */
	EXPECT_TRUE(kc_load_could_read(bytes, AROUND, 3, 4, 8, ~0ULL));
	EXPECT_TRUE(kc_load_could_read(bytes, AROUND, AT, 16, 8, ~0ULL));
	EXPECT_TRUE(kc_load_could_read(bytes, AROUND, AT, 0, 8, ~0ULL));
	/* within: the same values are judged */
	EXPECT_FALSE(kc_load_could_read(bytes, AROUND, AT, 8, 8, ~0ULL));
}

TEST_HARNESS_MAIN
