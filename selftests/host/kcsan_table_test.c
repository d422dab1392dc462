// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/runner/kcsan-real-table.sh, the real-workload half of make
 * bench-kcsan, on two boots' logs written here: a pair both tools report,
 * one only kcollider's hunt reports, one whose function only Debian's
 * kernel has (not comparable); kcollider's class, and the marking of
 * each side read from the marking fixture's image (-V); accesses in
 * functions one kernel inlined, counted in the caller both kernels have.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define TABLE KC_TOP "/selftests/runner/kcsan-real-table.sh"
#define CLI KC_TOP "/user/kcollider"
#define FX_IMAGE KC_MARK_FX_DIR "/fxvmlinux"
#define RULE "=================================================================="

static char out[1 << 15];

static int run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	size_t n;

	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	return WEXITSTATUS(pclose(p));
}

/* dmesg's empty line: its timestamp and the space after it */
static void blank(FILE *f, const char *stamp)
{
	fprintf(f, "[ %s] ", stamp);
	fputc('\n', f);
}

static void kcsan_report(FILE *f, const char *a, const char *b)
{
	fprintf(f, "[ 10.0] %s\n[ 10.0] BUG: KCSAN: data-race in %s / %s\n",
		RULE, a, b);
	blank(f, "10.0");
	fprintf(f, "[ 10.0] write to 0xffffffff82002010 of 4 bytes by task 7 on cpu 1:\n");
	fprintf(f, "[ 10.0]  %s+0x6/0x7\n[ 10.0]  kthread+0xd7/0x100\n", b);
	blank(f, "10.0");
	fprintf(f, "[ 10.0] read to 0xffffffff82002010 of 4 bytes by task 8 on cpu 0:\n");
	fprintf(f, "[ 10.0]  %s+0x0/0x7\n[ 10.0]  kthread+0xd7/0x100\n", a);
	blank(f, "10.0");
	fprintf(f, "[ 10.0] Reported by Kernel Concurrency Sanitizer on:\n");
	fprintf(f, "[ 10.0] CPU: 0 PID: 8 Comm: t Not tainted 6.1.0 #1\n[ 10.0] %s\n",
		RULE);
}

/*
 * @sampled reads, at its first instruction; @racer wrote, just before its
 * +0x6; the object line says @object.
 */
static void kcollider_object_report(FILE *f, const char *sampled,
				    const char *racer, const char *object)
{
	fprintf(f, "[ 20.0] %s\n[ 20.0] BUG: KCOLLIDER: data-race in %s / %s\n",
		RULE, strcmp(sampled, racer) < 0 ? sampled : racer,
		strcmp(sampled, racer) < 0 ? racer : sampled);
	blank(f, "20.0");
	fprintf(f, "[ 20.0] write to 0xffffffff82002010 of 4 bytes by task 7 on cpu 1:\n");
	fprintf(f, "[ 20.0]  %s+0x6/0x7\n[ 20.0]  kthread+0xd7/0x100\n", racer);
	blank(f, "20.0");
	fprintf(f, "[ 20.0] read to 0xffffffff82002010 of 4 bytes by task 8 on cpu 0:\n");
	fprintf(f, "[ 20.0]  %s+0x0/0x7\n[ 20.0]  kthread+0xd7/0x100\n", sampled);
	blank(f, "20.0");
	fprintf(f, "[ 20.0] kcollider: class: harmful\n");
	fprintf(f, "[ 20.0] kcollider: object: %s\n", object);
	blank(f, "20.0");
	fprintf(f, "[ 20.0] Reported by kcollider on:\n");
	fprintf(f, "[ 20.0] CPU: 0 PID: 8 Comm: t 6.1.0-57-amd64\n[ 20.0] %s\n", RULE);
}

static void kcollider_report(FILE *f, const char *sampled, const char *racer)
{
	kcollider_object_report(f, sampled, racer, "global sym=fx_flag+0x0/0x4");
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "w");
}

static int write_text(const char *dir, const char *name, const char *text)
{
	FILE *f = open_in(dir, name);

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* @dir made, and in it @k and @c, KCSAN's boot's and kcollider's (64 bytes) */
static int boot_dirs(char *dir, char *k, char *c)
{
	char cmd[256];

	if (!mkdtemp(dir))
		return -1;
	snprintf(k, 64, "%s/k", dir);
	snprintf(c, 64, "%s/c", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s %s", k, c);
	return system(cmd);
}

/* KCSAN's boot: one pair; kcollider's: default nothing, hunt four pairs. */
static int write_boots(const char *k, const char *c)
{
	FILE *f;

	f = open_in(k, "real.txt");
	if (!f)
		return -1;
	fprintf(f, "[  5.0] kc-bench: real start kcsan\n");
	kcsan_report(f, "fx_read_plain", "fx_write_once");
	fprintf(f, "[ 99.0] kc-bench: real end kcsan\n");
	fclose(f);
	if (write_text(k, "functions.txt",
		       "fx_read_plain\nfx_write_once\nfx_write_plain\nfx_read_once\n"))
		return -1;

	f = open_in(c, "real.txt");
	if (!f)
		return -1;
	fprintf(f, "[  5.0] kc-bench: real start default\n[ 15.0] kc-bench: real end default\n");
	fprintf(f, "[ 16.0] kc-bench: real start hunt\n");
	kcollider_report(f, "fx_read_plain", "fx_write_once");
	kcollider_report(f, "fx_read_plain", "fx_write_once");
	kcollider_report(f, "fx_read_once", "fx_write_plain");
	kcollider_report(f, "fx_wait_plain", "fx_write_plain");
	/* kc_btf_obj's "in.a" (offset 12) in its own cache */
	kcollider_object_report(f, "kc_btf_use", "kc_btf_use",
				"slab cache=kc_btf_obj start=0xffffffff82002000 offset=12 size=64");
	fprintf(f, "[ 99.0] kc-bench: real end hunt\n");
	fclose(f);
	return write_text(c, "functions.txt",
			  "fx_read_plain\nfx_write_once\nfx_write_plain\nfx_read_once\n"
			  "fx_wait_plain\n");
}

/* The table's line for @pair, or "". */
static const char *row(const char *pair)
{
	static char line[512];
	const char *p = out, *end;

	while ((p = strstr(p, pair))) {
		if (p == out || p[-1] == '\n') {
			end = strchr(p, '\n');
			snprintf(line, sizeof(line), "%.*s",
				 (int)(end ? end - p : (long)strlen(p)), p);
			return line;
		}
		p++;
	}
	return "";
}

/* @line's whitespace-separated fields from the pair's end, in @f. */
static int fields(const char *line, const char *pair, char f[8][32])
{
	int n = sscanf(line + strlen(pair), "%31s %31s %31s %31s %31s %31s",
		       f[0], f[1], f[2], f[3], f[4], f[5]);

	return n;
}

TEST(pairs_counted_compared_and_marked)
{
	char dir[] = "/tmp/kc_ktable_XXXXXX", k[64], c[64], cmd[8192];
	char f[8][32];
	const char *both = "fx_read_plain / fx_write_once";

	ASSERT_EQ(0, access(CLI, X_OK)) TH_LOG("build the CLI first (make)");
	ASSERT_EQ(0, boot_dirs(dir, k, c));
	ASSERT_EQ(0, write_boots(k, c));

	snprintf(cmd, sizeof(cmd), "bash %s %s %s %s/t -V %s -B %s 2>&1", TABLE,
		 k, c, dir, FX_IMAGE, KC_BTF_FIXTURE);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	/* KCSAN 1, default 0, hunt 2, harmful, each side's marking, object */
	ASSERT_EQ(6, fields(row(both), both, f)) TH_LOG("%s", out);
	EXPECT_STREQ("1", f[0]);
	EXPECT_STREQ("0", f[1]);
	EXPECT_STREQ("2", f[2]);
	EXPECT_STREQ("harmful", f[3]);
	EXPECT_STREQ("plain/marked", f[4]) TH_LOG("%s", out);
	EXPECT_STREQ("global", f[5]);
	/* found by kcollider only, both kernels have its functions */
	ASSERT_EQ(6, fields(row("fx_read_once / fx_write_plain"),
			    "fx_read_once / fx_write_plain", f)) TH_LOG("%s", out);
	EXPECT_STREQ("0", f[0]);
	EXPECT_STREQ("1", f[2]);
	EXPECT_STREQ("marked/plain", f[4]) TH_LOG("%s", out);
	/* fx_wait_plain is only in kcollider's kernel: listed apart */
	EXPECT_LT(strstr(out, "not comparable"), strstr(out, "fx_wait_plain / fx_write_plain"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "distinct comparable pairs: both 1, KCSAN only 0, kcollider only 1"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "reported by kcollider hunt: 1 of 1")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "reported by kcollider default: 0 of 1")) TH_LOG("%s", out);
	/* a slab object named by BTF: struct and field, no guess */
	ASSERT_EQ(6, fields(row("kc_btf_use / kc_btf_use"), "kc_btf_use / kc_btf_use", f))
		TH_LOG("%s", out);
	EXPECT_STREQ("kc_btf_obj.in.a", f[5]) TH_LOG("%s", out);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(0, system(cmd));
}

/*
 * A report of @tool whose first side, @a, was called by @a_caller, and
 * whose second, @b, by kthread(): KCSAN's layout, or kcollider's with its
 * class line.
 */
static void report_called(FILE *f, const char *tool, const char *a,
			  const char *a_caller, const char *b)
{
	bool kc = !strcmp(tool, "KCOLLIDER");

	fprintf(f, "[ 30.0] %s\n[ 30.0] BUG: %s: data-race in %s / %s\n",
		RULE, tool, strcmp(a, b) < 0 ? a : b, strcmp(a, b) < 0 ? b : a);
	blank(f, "30.0");
	fprintf(f, "[ 30.0] write to 0xffffffff82002010 of 4 bytes by task 7 on cpu 1:\n");
	fprintf(f, "[ 30.0]  %s+0x6/0x7\n[ 30.0]  %s+0x10/0x40\n", a, a_caller);
	fprintf(f, "[ 30.0]  kthread+0xd7/0x100\n");
	blank(f, "30.0");
	fprintf(f, "[ 30.0] read to 0xffffffff82002010 of 4 bytes by task 8 on cpu 0:\n");
	fprintf(f, "[ 30.0]  %s+0x0/0x7\n[ 30.0]  kthread+0xd7/0x100\n", b);
	blank(f, "30.0");
	if (kc) {
		fprintf(f, "[ 30.0] kcollider: class: harmful\n");
		blank(f, "30.0");
	}
	fprintf(f, "[ 30.0] Reported by %s on:\n",
		kc ? "kcollider" : "Kernel Concurrency Sanitizer");
	fprintf(f, "[ 30.0] CPU: 0 PID: 8 Comm: t 6.1.0 #1\n[ 30.0] %s\n", RULE);
}

/*
 * The two kernels inline differently: KCSAN's reports a write in
 * fx_helper(), a function Debian's kernel inlined into fx_writer();
 * kcollider's reports a read in fx_peek(), which KCSAN's kernel inlined
 * into fx_reader(). Each is counted as the other tool's pair in the
 * caller both kernels have. A function only Debian's kernel has whose
 * caller names no pair of KCSAN's (fx_driver(), called by kthread(),
 * which both have) keeps its own name and stays apart.
 */
TEST(accesses_named_by_a_caller_both_kernels_have)
{
	char dir[] = "/tmp/kc_ktable_XXXXXX", k[64], c[64], cmd[8192];
	const char *pair = "fx_reader / fx_writer";
	char f[8][32];
	FILE *fk, *fc;

	ASSERT_EQ(0, access(CLI, X_OK)) TH_LOG("build the CLI first (make)");
	ASSERT_EQ(0, boot_dirs(dir, k, c));
	fk = open_in(k, "real.txt");
	fc = open_in(c, "real.txt");
	ASSERT_NE(NULL, fk);
	ASSERT_NE(NULL, fc);
	fprintf(fk, "[  5.0] kc-bench: real start kcsan\n");
	report_called(fk, "KCSAN", "fx_helper.isra.0", "fx_writer", "fx_reader");
	fprintf(fk, "[ 99.0] kc-bench: real end kcsan\n");
	fprintf(fc, "[  5.0] kc-bench: real start hunt\n");
	report_called(fc, "KCOLLIDER", "fx_peek", "fx_reader", "fx_writer");
	report_called(fc, "KCOLLIDER", "fx_driver", "kthread", "fx_writer");
	fprintf(fc, "[ 99.0] kc-bench: real end hunt\n");
	ASSERT_EQ(0, fclose(fk));
	ASSERT_EQ(0, fclose(fc));
	ASSERT_EQ(0, write_text(k, "functions.txt",
				"fx_helper.isra.0\nfx_writer\nfx_reader\nkthread\n"));
	ASSERT_EQ(0, write_text(c, "functions.txt",
				"fx_peek\nfx_writer\nfx_reader\nfx_driver\nkthread\n"));

	snprintf(cmd, sizeof(cmd), "bash %s %s %s %s/t 2>&1", TABLE, k, c, dir);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	/* one row, comparable: KCSAN 1, hunt 1, kcollider's class */
	ASSERT_EQ(5, fields(row(pair), pair, f)) TH_LOG("%s", out);
	EXPECT_STREQ("1", f[0]);
	EXPECT_STREQ("1", f[1]);
	EXPECT_STREQ("harmful", f[2]);
	EXPECT_STREQ("", row("fx_helper / fx_reader")) TH_LOG("%s", out);
	EXPECT_STREQ("", row("fx_peek / fx_writer")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "KCSAN: fx_helper -> fx_writer")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "kcollider hunt: fx_peek / fx_writer -> fx_reader / fx_writer"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "reported by kcollider hunt: 1 of 1")) TH_LOG("%s", out);
	/* no counterpart in kthread(): fx_driver's pair stays apart */
	EXPECT_LT(strstr(out, "not comparable"), strstr(out, "fx_driver / fx_writer"))
		TH_LOG("%s", out);
	EXPECT_STREQ("", row("fx_writer / kthread")) TH_LOG("%s", out);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(0, system(cmd));
}

/* Without its inputs the table says what is missing and fails. */
TEST(missing_logs_fail_clearly)
{
	snprintf(out, sizeof(out), "x");
	ASSERT_EQ(1, run("bash " TABLE " /nonexistent-k /nonexistent-c /tmp/kc-none 2>&1"));
	EXPECT_NE(NULL, strstr(out, "no /nonexistent-k/real.txt")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
