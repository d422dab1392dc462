// SPDX-License-Identifier: GPL-2.0
/*
 * The triangular-race analysis on the pattern fixtures: one assembly
 * function per pattern of issue 6, one report per pattern, and the exact
 * verdict, witness, path length, barrier and fence point each must give.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cfg.h"
#include "code.h"
#include "report_parse.h"
#include "tso.h"
#include "tso_mem.h"

struct expect {
	const char *log;
	bool strict;
	enum tso_verdict verdict;
	const char *reason;
	const char *load;	/* symbol+off, NULL: none */
	const char *witness;
	int path_len;
	const char *barrier;
	const char *fence;
	const char *unknown_at;
	/* sc-violation: the racer's closing load, its barrier, its fence */
	const char *close;
	const char *q_barrier;
	const char *q_fence;
};

/* Missing trailing members are NULL/0 by C's rules. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct expect cases[] = {
	/* issue 14: SB closes, through the racer's callee and caller too */
	{ "sb", false, TSO_SC_VIOLATION, "store-buffering", "fx_sb+0xa",
	  "fx_sb+0x0", 2, NULL, "fx_sb+0xa", NULL, "fx_sb_writer+0xa", NULL,
	  "fx_sb_writer+0xa" },
	{ "sb_one_fence", false, TSO_SC_VIOLATION, "store-buffering", "fx_sb+0xa",
	  "fx_sb+0x0", 2, NULL, "fx_sb+0xa", NULL, "fx_sb_writer_mb+0x10",
	  "fx_sb_writer_mb+0xa", NULL },
	{ "sb_racer_caller", false, TSO_SC_VIOLATION, "store-buffering",
	  "fx_sb+0xa", "fx_sb+0x0", 2, NULL, "fx_sb+0xa", NULL,
	  "fx_write_then_load+0x5", NULL, "fx_write_y+0xa" },
	{ "sb_racer_callee", false, TSO_SC_VIOLATION, "store-buffering",
	  "fx_sb+0xa", "fx_sb+0x0", 2, NULL, "fx_sb+0xa", NULL, "fx_load_x+0x0",
	  NULL, "fx_write_call_load+0xa" },
	{ "past_same", false, TSO_SC_VIOLATION, "store-buffering",
	  "fx_past_same+0x14", "fx_past_same+0x0", 3, NULL, "fx_past_same+0xa",
	  NULL, "fx_sb_writer+0xa", NULL, "fx_sb_writer+0xa" },
	{ "caller_store", false, TSO_SC_VIOLATION, "store-buffering",
	  "fx_load_y+0x0", "fx_caller_store+0x0", 3, NULL, "fx_caller_store+0xa",
	  NULL, "fx_sb_writer+0xa", NULL, "fx_sb_writer+0xa" },
	{ "loop", false, TSO_SC_VIOLATION, "store-buffering", "fx_loop+0x0",
	  "fx_loop+0xa", 3, NULL, "fx_loop+0x14", NULL, "fx_sb_writer+0xa", NULL,
	  "fx_sb_writer+0xa" },
	/*
	 * A witness, and a racer that loads nothing of it: one-sided. The
	 * racer of mp_reader_stats and store_in_callee is sb's (same store,
	 * same stack): its kept walk must be matched against new witnesses.
	 */
	{ "one_sided", false, TSO_TRIANGULAR, "pending-store", "fx_sb+0xa",
	  "fx_sb+0x0", 2, NULL, "fx_sb+0xa" },
	{ "same_reg_moved", false, TSO_TRIANGULAR, "pending-store",
	  "fx_same_reg_moved+0xb", "fx_same_reg_moved+0x0", 3, NULL,
	  "fx_same_reg_moved+0x7" },
	{ "mp_reader_stats", false, TSO_TRIANGULAR, "pending-store",
	  "fx_mp_reader_stats+0x7", "fx_mp_reader_stats+0x0", 2, NULL,
	  "fx_mp_reader_stats+0x7" },
	{ "store_in_callee", false, TSO_TRIANGULAR, "pending-store",
	  "fx_store_in_callee+0x5", "fx_set_stats+0x0", 3, NULL,
	  "fx_store_in_callee+0x5" },
	{ "rsp_only", true, TSO_TRIANGULAR, "pending-store", "fx_rsp_only+0x10",
	  "fx_rsp_only+0xc", 2, NULL, "fx_rsp_only+0x10" },
	/* same-address stores are no witnesses */
	{ "same_rip", false, TSO_NOT_TRIANGULAR, "no-store", "fx_same_rip+0xa",
	  NULL, 0, NULL, NULL },
	{ "same_reg", false, TSO_NOT_TRIANGULAR, "no-store", "fx_same_reg+0x7",
	  NULL, 0, NULL, NULL },
	{ "sb_smp_mb", false, TSO_NOT_TRIANGULAR, "barrier", "fx_sb_smp_mb+0x10",
	  NULL, 0, "fx_sb_smp_mb+0xa", NULL, NULL },
	{ "sb_mfence", false, TSO_NOT_TRIANGULAR, "barrier", "fx_sb_mfence+0xd",
	  NULL, 0, "fx_sb_mfence+0xa", NULL, NULL },
	{ "spin", false, TSO_NOT_TRIANGULAR, "barrier", "fx_spin+0x13",
	  NULL, 0, "fx_spin+0x7", NULL },
	{ "mp_reader", false, TSO_NOT_TRIANGULAR, "no-store", "fx_mp_reader+0xa",
	  NULL, 0, NULL, NULL },
	{ "callee_atomic", false, TSO_NOT_TRIANGULAR, "barrier",
	  "fx_callee_atomic+0x5", NULL, 0, "fx_inc_stats+0xa", NULL },
	{ "xchg_publish", false, TSO_NOT_TRIANGULAR, "barrier",
	  "fx_xchg_publish+0x15", NULL, 0, "fx_xchg_publish+0xf", NULL },
	{ "rsp_only", false, TSO_NOT_TRIANGULAR, "no-store", "fx_rsp_only+0x10",
	  NULL, 0, NULL, NULL },
	{ "indirect", false, TSO_UNKNOWN, "indirect-call", "fx_indirect+0x10",
	  NULL, 0, NULL, NULL, "fx_indirect+0xa" },
	{ "write_write", false, TSO_WRITE_WRITE, "both-stores", NULL,
	  NULL, 0, NULL, NULL },
	{ "locked", false, TSO_LOCKED, "locked-load", "fx_locked_load+0xf",
	  NULL, 0, NULL, NULL },
};

static struct code_src code;

static int first_report(const struct kc_report *r, void *data)
{
	memcpy(data, r, sizeof(*r));
	return 1;
}

static void sym(uint64_t ip, char *buf, size_t len)
{
	code_symbolize(&code, ip, buf, len);
}

/* The racer's half: closing load, its own barrier, where its fence goes. */
static void check_close(struct __test_metadata *_metadata,
			const struct expect *e, const struct tso_result *res)
{
	struct tso_mem w, l;
	char buf[160];

	EXPECT_EQ(e->close != NULL, res->q.found) TH_LOG("%s", e->log);
	if (!e->close || !res->q.found)
		return;
	sym(res->q.load_ip, buf, sizeof(buf));
	EXPECT_STREQ(e->close, buf) TH_LOG("%s: closing load", e->log);
	EXPECT_EQ(e->q_barrier != NULL, res->q.fenced) TH_LOG("%s", e->log);
	if (e->q_barrier && res->q.fenced) {
		sym(res->q.barrier_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->q_barrier, buf) TH_LOG("%s: racer's barrier", e->log);
	}
	if (e->q_fence) {
		sym(res->q.next_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->q_fence, buf) TH_LOG("%s: racer's fence", e->log);
	}
	/* The witness shown is the store whose location the racer loads. */
	ASSERT_TRUE(tso_mem_at(&code, res->witness_ip, &w));
	ASSERT_TRUE(tso_mem_at(&code, res->q.load_ip, &l));
	EXPECT_TRUE(tso_mem_alias(&w, &l)) TH_LOG("%s", e->log);
}

static void check_case(struct __test_metadata *_metadata, const struct expect *e)
{
	static struct kc_report r;
	struct tso_opts o = { .strict = e->strict, .max_depth = 8, .max_frames = 64 };
	struct tso_result res;
	char path[512], buf[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.log", KC_TSO_FIXTURES, e->log);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	memset(&r, 0, sizeof(r));
	kc_parse_file(f, e->log, first_report, &r, NULL, NULL);
	fclose(f);
	ASSERT_EQ(KC_REP_OK, r.status) TH_LOG("%s: %s", e->log, r.error);

	tso_analyze(&code, &r, &o, &res);
	EXPECT_STREQ(tso_verdict_name(e->verdict), tso_verdict_name(res.verdict))
		TH_LOG("%s: %s", e->log, res.detail);
	EXPECT_STREQ(e->reason, res.reason) TH_LOG("%s", e->log);
	EXPECT_EQ(e->load != NULL, res.have_load) TH_LOG("%s", e->log);
	if (e->load && res.have_load) {
		sym(res.load_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->load, buf) TH_LOG("%s: load", e->log);
	}
	EXPECT_EQ(e->witness != NULL, res.have_witness) TH_LOG("%s", e->log);
	if (e->witness && res.have_witness) {
		sym(res.witness_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->witness, buf) TH_LOG("%s: witness", e->log);
		EXPECT_EQ(e->path_len, res.path_len) TH_LOG("%s", e->log);
		/* The path runs from the witness to the load. */
		EXPECT_EQ(res.witness_ip, res.path[0]);
		EXPECT_EQ(res.load_ip, res.path[res.path_len - 1]);
	}
	EXPECT_EQ(e->barrier != NULL, res.have_barrier) TH_LOG("%s", e->log);
	if (e->barrier && res.have_barrier) {
		sym(res.barrier_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->barrier, buf) TH_LOG("%s: barrier", e->log);
	}
	EXPECT_EQ(e->fence != NULL, res.have_fence) TH_LOG("%s", e->log);
	if (e->fence && res.have_fence) {
		sym(res.fence_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->fence, buf) TH_LOG("%s: fence", e->log);
	}
	if (e->unknown_at) {
		ASSERT_TRUE(res.have_unknown_ip);
		sym(res.unknown_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->unknown_at, buf) TH_LOG("%s: unknown at", e->log);
	}
	check_close(_metadata, e, &res);
	tso_result_free(&res);
}

FIXTURE(tso) {
	int dummy;
};

FIXTURE_SETUP(tso)
{
	char err[256];

	if (!code.image.nsyms)
		ASSERT_EQ(0, code_open_elf(&code, KC_TSO_FIXTURE_BIN, err, sizeof(err)))
			TH_LOG("%s", err);
}

FIXTURE_TEARDOWN(tso)
{
}

TEST_F(tso, every_pattern)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(_metadata, &cases[i]);
}

TEST_F(tso, classifies_barriers_and_stores)
{
	static const struct {
		const char *bytes;
		size_t len;
		unsigned int set, clear;
	} insns[] = {
		{ "\xf0\x83\x44\x24\xfc\x00", 6, DI_BARRIER | DI_LOCKED, DI_STORE | DI_STACK_STORE },
		{ "\x0f\xae\xf0", 3, DI_BARRIER, DI_STORE },		/* mfence */
		{ "\x0f\xae\xf8", 3, 0, DI_BARRIER },			/* sfence */
		{ "\x0f\xae\xe8", 3, 0, DI_BARRIER },			/* lfence */
		{ "\x87\x07", 2, DI_BARRIER | DI_LOCKED, DI_STORE },	/* xchg %eax,(%rdi) */
		{ "\x87\xc1", 2, 0, DI_BARRIER },			/* xchg %eax,%ecx */
		{ "\x0f\xa2", 2, DI_BARRIER, 0 },			/* cpuid */
		{ "\x0f\x30", 2, DI_BARRIER, 0 },			/* wrmsr */
		{ "\x0f\x22\xd8", 3, DI_BARRIER, 0 },			/* mov %rax,%cr3 */
		{ "\x48\xcf", 2, DI_BARRIER | DI_RET, 0 },		/* iretq */
		{ "\x65\x48\x89\x05\x00\x00\x00\x00", 8, DI_STORE, DI_BARRIER }, /* mov %rax,%gs:0 */
		{ "\x48\x89\x04\x24", 4, DI_STACK_STORE, DI_STORE },	/* mov %rax,(%rsp) */
		{ "\x48\x8b\x07", 3, DI_LOAD, DI_STORE },		/* mov (%rdi),%rax */
		{ "\x48\xab", 2, DI_STORE, 0 },				/* stos %rax,(%rdi) */
		{ "\x48\x8d\x07", 3, 0, DI_STORE | DI_LOAD },		/* lea (%rdi),%rax */
		{ "\xf6\x40\x2e\x20", 4, DI_LOAD, DI_STORE },		/* testb $0x20,0x2e(%rax) */
		{ "\x0f\xba\x27\x03", 4, DI_LOAD, DI_STORE },		/* btl $3,(%rdi) */
		{ "\x0f\xb1\x0f", 3, DI_STORE, DI_BARRIER },		/* cmpxchg %ecx,(%rdi) */
		{ "\x0f\xc1\x07", 3, DI_STORE, DI_BARRIER },		/* xadd %eax,(%rdi) */
		/* the shared decoder's classification (lib/x86_decode.c) */
		{ "\xf0\x0f\xb1\x0f", 4, DI_BARRIER | DI_LOCKED, DI_STORE }, /* lock cmpxchg */
		{ "\xf0\x48\x0f\xc1\x07", 5, DI_BARRIER | DI_LOCKED, DI_STORE }, /* lock xadd */
		{ "\x44\x0f\x22\xc0", 4, 0, DI_BARRIER },		/* mov %rax,%cr8: the TPR */
		{ "\x66\x0f\x38\x82\x07", 5, DI_BARRIER, 0 },	/* invpcid (%rdi),%rax */
		{ "\x0f\x01\x10", 3, DI_BARRIER, 0 },			/* lgdt (%rax) */
		{ "\x0f\x01\xf8", 3, 0, DI_BARRIER },			/* swapgs */
		{ "\x0f\x01\xf9", 3, 0, DI_BARRIER },			/* rdtscp: loads only */
		{ "\xff\xd0", 2, DI_CALL | DI_INDIRECT, 0 },		/* call *%rax */
		{ "\x0f\x0b", 2, DI_STOP, 0 },				/* ud2 */
	};
	struct kc_dinsn d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(insns); i++) {
		ASSERT_EQ(0, cfg_decode_one(&code, (const uint8_t *)insns[i].bytes,
					    insns[i].len, 0x1000, &d)) TH_LOG("case %zu", i);
		EXPECT_EQ(insns[i].set, d.flags & insns[i].set)
			TH_LOG("case %zu: %s flags 0x%x", i, d.text, d.flags);
		EXPECT_EQ(0, d.flags & insns[i].clear)
			TH_LOG("case %zu: %s flags 0x%x", i, d.text, d.flags);
		EXPECT_EQ(insns[i].len, d.len);
	}
	/*
	 * A static call trampoline's "ud1 %esp,%ecx": capstone 4 reads two
	 * bytes, the shared decoder (as the SDM) three; classified all the
	 * same, the sweep stays capstone's.
	 */
	ASSERT_EQ(0, cfg_decode_one(&code, (const uint8_t *)"\x0f\xb9\xcc", 3,
				    0x1000, &d));
	EXPECT_EQ(0, d.flags & (DI_BARRIER | DI_LOCKED));
	EXPECT_EQ(2, d.len);
	/* femms (3DNow!): capstone's alone, not classified: not analysed */
	EXPECT_EQ(-1, cfg_decode_one(&code, (const uint8_t *)"\x0f\x0e", 2,
				     0x1000, &d));
}

TEST_F(tso, unresolvable_frames_are_unknown)
{
	static const char log[] =
		"BUG: KCSAN: data-race in fx_nosuch / fx_sb_writer\n\n"
		"write to 0x1 of 4 bytes by task 1 on cpu 0:\n fx_sb_writer+0xa/0x11\n\n"
		"read to 0x1 of 4 bytes by task 2 on cpu 1:\n fx_nosuch+0x4/0x10\n\n"
		"==================================================================\n";
	struct tso_opts o = { .max_depth = 8, .max_frames = 64 };
	static struct kc_report r;
	struct tso_result res;
	FILE *f = fmemopen((void *)log, sizeof(log) - 1, "r");

	ASSERT_NE(NULL, f);
	kc_parse_file(f, "mem", first_report, &r, NULL, NULL);
	fclose(f);
	tso_analyze(&code, &r, &o, &res);
	EXPECT_EQ(TSO_UNKNOWN, res.verdict);
	EXPECT_STREQ("code-unavailable", res.reason);
	EXPECT_FALSE(res.have_witness);
	tso_result_free(&res);
}

TEST_F(tso, depth_limit_is_unknown)
{
	struct tso_opts o = { .max_depth = 0, .max_frames = 64 };
	static struct kc_report r;
	struct tso_result res;
	char path[512];
	FILE *f;

	/* A fresh summary one level deep, with summaries not allowed at all. */
	cfg_cache_free();
	snprintf(path, sizeof(path), "%s/callee_atomic.log", KC_TSO_FIXTURES);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	kc_parse_file(f, "x", first_report, &r, NULL, NULL);
	fclose(f);
	tso_analyze(&code, &r, &o, &res);
	EXPECT_EQ(TSO_UNKNOWN, res.verdict);
	EXPECT_STREQ("depth", res.reason);
	tso_result_free(&res);
	cfg_cache_free();
}

TEST_HARNESS_MAIN
