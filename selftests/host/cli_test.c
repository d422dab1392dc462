// SPDX-License-Identifier: GPL-2.0
/*
 * The kcollider command line, end to end: exit codes, JSON lines and the
 * JSON contract of "tso" that other tools rely on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define KC KC_TOP "/user/kcollider"
#define FX KC_TOP "/selftests/fixtures"

/* Run @cmd, capture stdout into @out; returns the exit status. */
static int run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static char out[1 << 16];

TEST(tso_json_contract)
{
	ASSERT_EQ(0, run(KC " --json tso --vmlinux " KC_TSO_FIXTURE_BIN " "
			 FX "/tso/store_in_callee.log", out, sizeof(out)));
	ASSERT_EQ(1, count_lines(out)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"verdict\":\"triangular\""));
	EXPECT_NE(NULL, strstr(out, "\"reason\":\"pending-store\""));
	EXPECT_NE(NULL, strstr(out, "\"load\":{\"ip\":\"0x"));
	EXPECT_NE(NULL, strstr(out, "\"symbol\":\"fx_store_in_callee+0x5\""));
	EXPECT_NE(NULL, strstr(out, "\"witness\":{\"ip\":\"0x"));
	EXPECT_NE(NULL, strstr(out, "\"symbol\":\"fx_set_stats+0x0\""));
	EXPECT_NE(NULL, strstr(out, "\"path_len\":3"));
	EXPECT_NE(NULL, strstr(out, "\"barrier\":null"));
	EXPECT_NE(NULL, strstr(out, "\"fence\":{\"before_ip\":\"0x"));
}

TEST(tso_json_null_witness_and_stdin)
{
	ASSERT_EQ(0, run("cat " FX "/tso/sb_mfence.log " FX "/tso/write_write.log | "
			 KC " tso --json --vmlinux " KC_TSO_FIXTURE_BIN " -",
			 out, sizeof(out)));
	ASSERT_EQ(2, count_lines(out)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"verdict\":\"not-triangular\""));
	EXPECT_NE(NULL, strstr(out, "\"witness\":null"));
	EXPECT_NE(NULL, strstr(out, "\"symbol\":\"fx_sb_mfence+0xa\""));
	EXPECT_NE(NULL, strstr(out, "\"verdict\":\"write-write\""));
}

TEST(tso_litmus_output)
{
	ASSERT_EQ(0, run(KC " tso --litmus --vmlinux " KC_TSO_FIXTURE_BIN " "
			 FX "/tso/sb.log", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "X86 fx_sb+fx_sb_writer\n"));
	EXPECT_NE(NULL, strstr(out, "exists (0:EAX=0 /\\ 1:EAX=0)"));
	EXPECT_NE(NULL, strstr(out, "(x86-TSO: Allowed, SC: Forbidden)"));
}

TEST(tso_errors)
{
	EXPECT_EQ(1, run(KC " tso --vmlinux /nonexistent " FX "/tso/sb.log 2>/dev/null",
			 out, sizeof(out)));
	EXPECT_EQ(1, run(KC " tso --vmlinux " FX "/tso/sb.log " FX "/tso/sb.log 2>/dev/null",
			 out, sizeof(out)));
	EXPECT_EQ(2, run(KC " tso --bogus 2>/dev/null", out, sizeof(out)));
	EXPECT_EQ(0, run(KC " tso --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not-triangular"));
}

TEST(report_json_lines_and_bad_reports)
{
	ASSERT_EQ(0, run(KC " --json report " FX "/reports/bad.log 2>/dev/null",
			 out, sizeof(out)));
	ASSERT_EQ(3, count_lines(out)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"status\":\"malformed\",\"error\":\"bad stack frame\",\"error_line\":6"));
	EXPECT_NE(NULL, strstr(out, "\"status\":\"truncated\""));
	/* The warning names the file and the line. */
	ASSERT_EQ(0, run(KC " report " FX "/reports/bad.log 2>&1 >/dev/null",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "bad.log:6: malformed report (begins at line 2)"));
	EXPECT_EQ(1, run(KC " report /nonexistent 2>/dev/null", out, sizeof(out)));
}

TEST(report_group)
{
	static const char first[] = "{\"title\":\"test_kernel_read / test_kernel_write\","
				    "\"tool\":\"KCSAN\",\"count\":4,";

	ASSERT_EQ(0, run("cat " FX "/reports/kcsan_dmesg.log " FX "/reports/kcsan_dmesg.log | "
			 KC " report group --json", out, sizeof(out)));
	ASSERT_EQ(2, count_lines(out)) TH_LOG("%s", out);
	/* Sorted by count: the pair seen 4 times first, offsets dropped. */
	EXPECT_EQ(0, strncmp(out, first, strlen(first))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"title\":\"test_kernel_rmw_array\""));
}

TEST(litmus_command)
{
	ASSERT_EQ(0, run(KC " --json litmus " FX "/litmus/SB.litmus " FX "/litmus/MP.litmus",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "{\"test\":\"SB\",\"tso\":true,\"sc\":false"));
	EXPECT_NE(NULL, strstr(out, "{\"test\":\"MP\",\"tso\":false,\"sc\":false"));
}

TEST_HARNESS_MAIN
