// SPDX-License-Identifier: GPL-2.0
/*
 * "tso --vmlinux ELF --modules DIR": frames in module code resolved in the
 * .ko files of DIR, whose relocations are applied so that a call inside a
 * module reaches its callee (in the same module in another section, in
 * the image, in another module) and the callee's summary decides. Without
 * the relocations every call in fxmod.ko points at its own next byte and
 * each case below would be "unknown".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cfg.h"
#include "code.h"
#include "report_parse.h"
#include "tso.h"

struct expect {
	const char *log;
	enum tso_verdict verdict;
	const char *reason;
	const char *load;
	const char *witness;
	int path_len;
	const char *barrier;
	const char *fence;
	const char *unknown_at;
};

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct expect cases[] = {
	{ "store_in_callee", TSO_TRIANGULAR, "pending-store",
	  "fxm_store_in_callee+0x5", "fxm_set_stats+0x0", 3, NULL,
	  "fxm_store_in_callee+0x5" },
	{ "vmlinux_fences", TSO_NOT_TRIANGULAR, "barrier",
	  "fxm_vmlinux_fences+0x5", NULL, 0, "fx_inc_stats+0xa", NULL },
	{ "vmlinux_store", TSO_TRIANGULAR, "pending-store",
	  "fxm_vmlinux_store+0x5", "fx_set_stats+0x0", 3, NULL,
	  "fxm_vmlinux_store+0x5" },
	{ "other_module", TSO_TRIANGULAR, "pending-store",
	  "fxm_other_module+0x5", "fxm2_publish+0x1", 3, NULL,
	  "fxm_other_module+0x5" },
	{ "caller_store", TSO_TRIANGULAR, "pending-store", "fxm_load_y+0x0",
	  "fxm_caller_store+0x0", 3, NULL, "fxm_caller_store+0xa" },
	{ "missing", TSO_UNKNOWN, "code-unavailable", "fxm_missing+0x5",
	  NULL, 0, NULL, NULL, "fxm_nowhere+0x0" },
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

static void analyze(struct __test_metadata *_metadata, const char *log,
		    struct tso_result *res)
{
	static struct kc_report r;
	struct tso_opts o = { .max_depth = 8, .max_frames = 64 };
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.log", KC_TSO_MOD_LOGS, log);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	memset(&r, 0, sizeof(r));
	kc_parse_file(f, log, first_report, &r, NULL, NULL);
	fclose(f);
	ASSERT_EQ(KC_REP_OK, r.status) TH_LOG("%s: %s", log, r.error);
	tso_analyze(&code, &r, &o, res);
}

static void check_case(struct __test_metadata *_metadata, const struct expect *e)
{
	struct tso_result res;
	char buf[160];

	analyze(_metadata, e->log, &res);
	EXPECT_STREQ(tso_verdict_name(e->verdict), tso_verdict_name(res.verdict))
		TH_LOG("%s: %s", e->log, res.detail);
	EXPECT_STREQ(e->reason, res.reason) TH_LOG("%s", e->log);
	ASSERT_TRUE(res.have_load) TH_LOG("%s", e->log);
	sym(res.load_ip, buf, sizeof(buf));
	EXPECT_STREQ(e->load, buf) TH_LOG("%s: load", e->log);
	EXPECT_EQ(e->witness != NULL, res.have_witness) TH_LOG("%s", e->log);
	if (e->witness && res.have_witness) {
		sym(res.witness_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->witness, buf) TH_LOG("%s: witness", e->log);
		EXPECT_EQ(e->path_len, res.path_len) TH_LOG("%s", e->log);
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
		ASSERT_TRUE(res.have_unknown_ip) TH_LOG("%s", e->log);
		sym(res.unknown_ip, buf, sizeof(buf));
		EXPECT_STREQ(e->unknown_at, buf) TH_LOG("%s: unknown at", e->log);
	}
	tso_result_free(&res);
}

FIXTURE(mods) {
	int dummy;
};

FIXTURE_SETUP(mods)
{
	char err[256];

	if (code.image.nsyms)
		return;
	ASSERT_EQ(0, code_open_elf(&code, KC_TSO_FIXTURE_BIN, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, code_add_modules(&code, KC_TSO_MOD_DIR, err, sizeof(err)))
		TH_LOG("%s", err);
}

FIXTURE_TEARDOWN(mods)
{
}

TEST_F(mods, every_module_case)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(_metadata, &cases[i]);
}

/* Both modules, under the names their .modinfo gives, in their sections. */
TEST_F(mods, modules_loaded_and_placed)
{
	const struct kc_module *m = code_module(&code, "fxmod");
	const struct kc_sym *a, *b;

	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, code_module(&code, "fxmod2"));
	EXPECT_EQ(NULL, code_module(&code, "nosuch"));
	a = code_find_name(&code, "fxm_store_in_callee", "fxmod", 0);
	b = code_find_name(&code, "fxm_set_stats", "fxmod", 0);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(0x10, a->size);
	EXPECT_STREQ("fxmod", a->mod);
	/* Two text sections: two addresses, neither at the other's zero. */
	EXPECT_NE(a->addr, b->addr);
	EXPECT_EQ(a, code_find_addr(&code, a->addr + 5));
	/* A frame without [mod] is the image's: fx_set_stats, not a module. */
	EXPECT_EQ(NULL, code_find_name(&code, "fx_set_stats", "fxmod", 0));
}

/* The direct call decodes to its callee's address: PLT32 applied. */
TEST_F(mods, call_relocated_to_callee)
{
	const struct kc_sym *a = code_find_name(&code, "fxm_other_module", "fxmod", 0);
	const struct kc_sym *t = code_find_name(&code, "fxm2_publish", "fxmod2", 0);
	const struct kc_sym *v = code_find_name(&code, "fx_set_stats", NULL, 0);
	const struct kc_sym *s = code_find_name(&code, "fxm_vmlinux_store", "fxmod", 0);
	struct kc_func *f;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, t);
	ASSERT_NE(NULL, v);
	ASSERT_NE(NULL, s);
	f = cfg_get(&code, a);
	ASSERT_NE(NULL, f);
	ASSERT_TRUE(f->insn[0].flags & DI_CALL);
	EXPECT_EQ(t->addr, f->insn[0].target);
	f = cfg_get(&code, s);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(v->addr, f->insn[0].target);
}

/* "jmp __x86_return_thunk" to a placeholder still reads as a return. */
TEST_F(mods, return_thunk_placeholder_is_ret)
{
	const struct kc_sym *a = code_find_name(&code, "fxm_set_stats", "fxmod", 0);
	struct kc_func *f;

	ASSERT_NE(NULL, a);
	f = cfg_get(&code, a);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(2, f->n);
	EXPECT_TRUE(f->insn[1].flags & DI_RET);
	EXPECT_FALSE(f->insn[1].flags & DI_TAIL);
}

/* R_X86_64_32S and R_X86_64_64: the immediates are the symbols' addresses. */
TEST_F(mods, absolute_relocations)
{
	const struct kc_sym *a = code_find_name(&code, "fxm_absolute", "fxmod", 0);
	const struct kc_sym *s = code_find_name(&code, "fxm_set_stats", "fxmod", 0);
	const struct kc_sym *p = code_find_name(&code, "fxm2_publish", "fxmod2", 0);
	uint8_t buf[0x12];
	int32_t imm32;
	uint64_t imm64;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(sizeof(buf), code_read(&code, a->addr, buf, sizeof(buf)));
	memcpy(&imm32, buf + 3, 4);	/* 48 c7 c0 imm32 */
	memcpy(&imm64, buf + 9, 8);	/* 48 ba imm64 */
	EXPECT_EQ(s->addr, (uint64_t)(int64_t)imm32);
	EXPECT_EQ(p->addr, imm64);
}

/* Without --modules, a module frame has no code: unknown, never a guess. */
TEST(without_modules_unknown)
{
	static struct kc_report r;
	struct tso_opts o = { .max_depth = 8, .max_frames = 64 };
	struct code_src bare;
	struct tso_result res;
	char err[256];
	FILE *f = fopen(KC_TSO_MOD_LOGS "/store_in_callee.log", "r");

	ASSERT_NE(NULL, f);
	kc_parse_file(f, "store_in_callee", first_report, &r, NULL, NULL);
	fclose(f);
	ASSERT_EQ(0, code_open_elf(&bare, KC_TSO_FIXTURE_BIN, err, sizeof(err)));
	tso_analyze(&bare, &r, &o, &res);
	EXPECT_STREQ("unknown", tso_verdict_name(res.verdict));
	EXPECT_STREQ("code-unavailable", res.reason);
	tso_result_free(&res);
	cfg_cache_free();
	code_close(&bare);
}

/* The command line, end to end. */
TEST(cli_modules_json)
{
	char out[8192];
	size_t n;
	FILE *p = popen(KC_TOP "/user/kcollider --json tso --vmlinux "
			KC_TSO_FIXTURE_BIN " --modules " KC_TSO_MOD_DIR " "
			KC_TSO_MOD_LOGS "/other_module.log", "r");

	ASSERT_NE(NULL, p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	ASSERT_EQ(0, pclose(p));
	EXPECT_NE(NULL, strstr(out, "\"verdict\":\"triangular\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"symbol\":\"fxm_other_module+0x5\""));
	EXPECT_NE(NULL, strstr(out, "\"witness\":{\"ip\":\"0x"));
	EXPECT_NE(NULL, strstr(out, "\"symbol\":\"fxm2_publish+0x1\""));
	EXPECT_NE(NULL, strstr(out, "\"path_len\":3"));
}

TEST_HARNESS_MAIN
