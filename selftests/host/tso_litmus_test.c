// SPDX-License-Identifier: GPL-2.0
/*
 * "kcollider tso --litmus" on the store-buffering fixtures: for every
 * sc-violation it prints two herd7 tests, the cycle (both halves) and the
 * cycle with the suggested fences. Each is parsed and decided again here
 * and by "kcollider litmus": the cycle is Allowed under x86-TSO and
 * Forbidden under SC, the fixed cycle Forbidden under both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "litmus.h"

#define KC KC_TOP "/user/kcollider"
#define FX KC_TOP "/selftests/fixtures/tso"

static char out[1 << 16];

static int run(const char *cmd, char *buf, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(buf, 1, len - 1, p);
	buf[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Test number @i of @text: from its "X86 " line to its "exists" line. */
static bool nth_test(const char *text, int i, char *buf, size_t len)
{
	const char *p = text, *end;

	for (;;) {
		p = strstr(p, "X86 ");
		if (!p)
			return false;
		if ((p == text || p[-1] == '\n') && i-- == 0)
			break;
		p++;
	}
	end = strstr(p, "exists");
	if (!end)
		return false;
	end = strchr(end, '\n');
	if (!end || (size_t)(end - p) + 2 > len)
		return false;
	memcpy(buf, p, end - p + 1);
	buf[end - p + 1] = '\0';
	return true;
}

/* Decide @test again here, and with "kcollider litmus" on a file. */
static void decide(struct __test_metadata *_metadata, const char *test,
		   bool tso_allowed)
{
	static const char path[] = "/tmp/kc_tso_litmus_test.litmus";
	struct lit_result tso, sc;
	struct litmus t;
	char err[160], res[512];
	FILE *f;

	ASSERT_EQ(0, lit_parse(test, &t, err, sizeof(err))) TH_LOG("%s\n%s", err, test);
	ASSERT_EQ(2, t.nthreads);
	ASSERT_EQ(0, lit_check(&t, LIT_TSO, &tso));
	ASSERT_EQ(0, lit_check(&t, LIT_SC, &sc));
	EXPECT_EQ(tso_allowed, tso.reachable) TH_LOG("%s", test);
	EXPECT_FALSE(sc.reachable) TH_LOG("%s", test);

	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs(test, f);
	fclose(f);
	ASSERT_EQ(0, run(KC " litmus /tmp/kc_tso_litmus_test.litmus", res, sizeof(res)));
	EXPECT_NE(NULL, strstr(res, tso_allowed ? "TSO: Allowed" : "TSO: Forbidden"))
		TH_LOG("%s", res);
	EXPECT_NE(NULL, strstr(res, "SC: Forbidden")) TH_LOG("%s", res);
	unlink(path);
}

static void check_fixture(struct __test_metadata *_metadata, const char *log,
			  bool racer_fenced)
{
	char cmd[8192], test[2048];

	snprintf(cmd, sizeof(cmd), KC " tso --litmus --vmlinux " KC_TSO_FIXTURE_BIN
		 " " FX "/%s.log", log);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	ASSERT_NE(NULL, strstr(out, "verdict  sc-violation")) TH_LOG("%s", out);

	ASSERT_TRUE(nth_test(out, 0, test, sizeof(test))) TH_LOG("%s", out);
	/* The racer's own barrier is part of the program as it is. */
	EXPECT_EQ(racer_fenced, strstr(test, "MFENCE") != NULL) TH_LOG("%s", test);
	decide(_metadata, test, true);

	ASSERT_TRUE(nth_test(out, 1, test, sizeof(test))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(test, "+fences\n"));
	decide(_metadata, test, false);
	EXPECT_FALSE(nth_test(out, 2, test, sizeof(test)));
}

TEST(sb_cycle_and_fix)
{
	check_fixture(_metadata, "sb", false);
}

TEST(sb_one_fence_is_still_allowed)
{
	check_fixture(_metadata, "sb_one_fence", true);
}

TEST(sb_closed_in_racers_caller)
{
	check_fixture(_metadata, "sb_racer_caller", false);
}

/* No cycle, no test: a triangular race alone is only a candidate. */
TEST(one_sided_prints_no_test)
{
	ASSERT_EQ(0, run(KC " tso --litmus --vmlinux " KC_TSO_FIXTURE_BIN " "
			 FX "/one_sided.log", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "verdict  triangular")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "X86 "));
}

/* --json: both halves, and the racer's fence only when it has none. */
TEST(json_carries_both_halves)
{
	ASSERT_EQ(0, run(KC " --json tso --litmus --vmlinux " KC_TSO_FIXTURE_BIN " "
			 FX "/sb.log", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"verdict\":\"sc-violation\""));
	EXPECT_NE(NULL, strstr(out, "\"cycle\":{\"reader\":{\"store\":{\"ip\":"));
	EXPECT_NE(NULL, strstr(out, "\"symbol\":\"fx_sb_writer+0x0\""));
	EXPECT_NE(NULL, strstr(out, "\"symbol\":\"fx_sb_writer+0xa\""));
	EXPECT_NE(NULL, strstr(out, "\"racer_fence\":{\"before_ip\":"));
	EXPECT_NE(NULL, strstr(out, "\"litmus_fixed_tso_allowed\":false"));

	ASSERT_EQ(0, run(KC " --json tso --vmlinux " KC_TSO_FIXTURE_BIN " "
			 FX "/sb_one_fence.log", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"barrier\":{\"ip\":"));
	EXPECT_NE(NULL, strstr(out, "\"racer_fence\":null"));

	ASSERT_EQ(0, run(KC " --json tso --vmlinux " KC_TSO_FIXTURE_BIN " "
			 FX "/one_sided.log", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"cycle\":null"));
}

/* sc-violation first, whatever the input order, and a count of each. */
TEST(ranked_with_summary)
{
	static const char summary[] =
		"# 3 reports: 1 sc-violation, 1 triangular, 0 not-triangular, 1 write-write, 0 locked, 0 unknown\n";
	const char *sc, *tri, *ww;

	ASSERT_EQ(0, run("cat " FX "/write_write.log " FX "/one_sided.log "
			 FX "/sb.log | " KC " tso --vmlinux " KC_TSO_FIXTURE_BIN " -",
			 out, sizeof(out)));
	sc = strstr(out, "verdict  sc-violation");
	tri = strstr(out, "verdict  triangular");
	ww = strstr(out, "verdict  write-write");
	ASSERT_TRUE(sc && tri && ww) TH_LOG("%s", out);
	EXPECT_TRUE(sc < tri && tri < ww) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, summary)) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
