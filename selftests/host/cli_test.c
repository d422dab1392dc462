// SPDX-License-Identifier: GPL-2.0
/*
 * The kcollider command line, end to end: exit codes, JSON lines and the
 * JSON contract of "tso" that other tools rely on.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
	static const char first[] =
		"{\"title\":\"test_kernel_read / test_kernel_write\",\"tool\":\"KCSAN\",\"count\":4,";

	ASSERT_EQ(0, run("cat " FX "/reports/kcsan_dmesg.log " FX "/reports/kcsan_dmesg.log | "
			 KC " report group --json", out, sizeof(out)));
	ASSERT_EQ(2, count_lines(out)) TH_LOG("%s", out);
	/*
	 * Ranked by kind (a load-store pair before a one-sided report), then
	 * by count; offsets dropped.
	 */
	EXPECT_EQ(0, strncmp(out, first, strlen(first))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"kind\":\"load-store\"}\n{\"title\":\"test_kernel_rmw_array\""))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"kind\":\"unknown-origin\"}")) TH_LOG("%s", out);
}

/*
 * A farm's console logs, one per machine: how many machines saw each race
 * ranks it before how often it was printed.
 */
TEST(report_group_over_many_logs)
{
	static const char farm[] =
		"d=$(mktemp -d) && mkdir $d/vm1 $d/vm2 $d/vm3 $d/vm4 && cat "
		FX "/reports/kcsan_dmesg.log " FX "/reports/kcsan_dmesg.log "
		FX "/reports/kcsan_dmesg.log > $d/vm1/console.log && sed 's/test_kernel_/other_kernel_/g' "
		FX "/reports/kcsan_dmesg.log > $d/vm2/console.log && cp $d/vm2/console.log $d/vm3/console.log && echo 'no race here' > $d/vm4/console.log && cd $d && ";
	char cmd[8192];
	const char *p, *q;

	snprintf(cmd, sizeof(cmd), "%s" KC " --json report group . ; r=$?; "
		 "rm -r $d; exit $r", farm);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	ASSERT_EQ(4, count_lines(out)) TH_LOG("%s", out);
	p = strstr(out, "\"title\":\"other_kernel_read / other_kernel_write\"");
	q = strstr(out, "\"title\":\"test_kernel_read / test_kernel_write\"");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	ASSERT_NE(NULL, q) TH_LOG("%s", out);
	/* two machines, 4 reports, before one machine's 6 */
	EXPECT_LT(p, q) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(p, "\"count\":4,")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(p, "\"logs_seen\":2,\"logs_read\":4,\"per_log\":[{\"log\":\"./vm2/console.log\",\"count\":2},{\"log\":\"./vm3/console.log\",\"count\":2}]"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(q, "\"count\":6,")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(q, "\"logs_seen\":1,")) TH_LOG("%s", out);
	/* the text says it in words; files and directories mix */
	snprintf(cmd, sizeof(cmd), "%s" KC " report group vm1 vm2/console.log vm3 vm4; "
		 "r=$?; rm -r $d; exit $r", farm);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "other_kernel_read / other_kernel_write  (in 2 of 4 logs; first vm2/console.log:3)"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# 15 reports in 4 logs, 0 malformed or truncated"))
		TH_LOG("%s", out);
}

TEST(litmus_command)
{
	ASSERT_EQ(0, run(KC " --json litmus " FX "/litmus/SB.litmus " FX "/litmus/MP.litmus",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "{\"test\":\"SB\",\"tso\":true,\"sc\":false"));
	EXPECT_NE(NULL, strstr(out, "{\"test\":\"MP\",\"tso\":false,\"sc\":false"));
}

/*
 * A scratch directory whose path is longer than @min characters, made of
 * nested 50-character components under a mkdtemp() directory.
 */
static char *long_dir(size_t min)
{
	static const char seg[] = "/a_directory_name_of_fifty_characters_for_testing_";
	char *path = malloc(min + 2 * sizeof(seg) + 32);

	if (!path)
		return NULL;
	strcpy(path, "/tmp/kc_cli_XXXXXX");
	if (!mkdtemp(path))
		return NULL;
	while (strlen(path) <= min) {
		strcat(path, seg);
		if (mkdir(path, 0700))
			return NULL;
	}
	return path;
}

static char cmd[1 << 14];

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The CLI names files by their whole path, however long (issue 13). */
TEST(fixture_path_longer_than_200)
{
	char *dir = long_dir(200), expect[1024];

	ASSERT_NE(NULL, dir);
	ASSERT_GT(strlen(dir), 200);
	snprintf(cmd, sizeof(cmd), "cp " FX "/reports/bad.log %s/ && " KC
		 " report %s/bad.log 2>&1 >/dev/null", dir, dir);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	snprintf(expect, sizeof(expect),
		 "kcollider: %s/bad.log:6: malformed report (begins at line 2)",
		 dir);
	EXPECT_NE(NULL, strstr(out, expect)) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), KC " --json report %s/bad.log 2>/dev/null", dir);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	snprintf(expect, sizeof(expect), "\"source\":\"%s/bad.log\"", dir);
	EXPECT_NE(NULL, strstr(out, expect)) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "rm -r /tmp/%.*s", 13, dir + 5);
	system(cmd);
	free(dir);
}

/* A report on function @a (whose frame names it) racing with "b". */
static void write_named_report(FILE *f, const char *a)
{
	fprintf(f, "==================================================================\n"
		"BUG: KCSAN: data-race in %s / b\n\n"
		"read to 0xffff888003a1c000 of 4 bytes by task 10 on cpu 0:\n"
		" %s+0x10/0x40 [a_module]\n\n"
		"write to 0xffff888003a1c000 of 4 bytes by task 11 on cpu 1:\n"
		" b+0x4/0x40\n\n"
		"==================================================================\n",
		a, a);
}

/* A report whose racing functions have names of @len characters. */
static void write_long_name_report(FILE *f, size_t len)
{
	char *name = malloc(len + 1);

	memset(name, 'r', len);
	name[len] = '\0';
	memcpy(name, "_R", 2);	/* Rust symbols are the long ones */
	write_named_report(f, name);
	free(name);
}

TEST(symbol_names_never_cut)
{
	char *dir = long_dir(0), path[256], *name;
	FILE *f;

	ASSERT_NE(NULL, dir);
	/* 500 characters: within KSYM_NAME_LEN, kept whole. */
	snprintf(path, sizeof(path), "%s/long.log", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	write_long_name_report(f, 500);
	fclose(f);
	snprintf(cmd, sizeof(cmd), KC " --json report %s", path);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	name = malloc(600);
	memset(name, 'r', 500);
	memcpy(name, "_R", 2);
	strcpy(name + 500, "+0x10/0x40 [a_module]\"");
	EXPECT_NE(NULL, strstr(out, name)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"status\":\"ok\""));
	/* 600: longer than the kernel can print: malformed, said so, not cut. */
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	write_long_name_report(f, 600);
	fclose(f);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"error\":\"symbol name longer than the kernel allows\""))
		TH_LOG("%s", out);
	/* The whole name still in the title: 600 + " / b". */
	name = realloc(name, 700);
	memset(name, 'r', 620);
	memcpy(name, "\"title\":\"_R", 11);
	strcpy(name + 609, " / b\"");
	EXPECT_NE(NULL, strstr(out, name)) TH_LOG("%s", out);
	unlink(path);
	rmdir(dir);
	free(name);
	free(dir);
}

/*
 * Names are whatever bytes the log holds: UTF-8 comes out as it went in
 * (once \u00c3\u00a9 for an é), an ill-formed byte as U+FFFD, never as
 * invalid JSON.
 */
TEST(json_utf8_round_trip)
{
	/* "fée_€_🐛", in octal: a hex escape would run on into the e */
#define UTF8_NAME "f\303\251e_\342\202\254_\360\237\220\233"
	char path[] = "/tmp/kc_utf8_XXXXXX", *p;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	ASSERT_NE(NULL, f);
	write_named_report(f, UTF8_NAME);
	write_named_report(f, "bad\377byte");
	fclose(f);
	snprintf(cmd, sizeof(cmd), KC " --json report %s", path);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	unlink(path);
	ASSERT_EQ(2, count_lines(out)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"title\":\"" UTF8_NAME " / b\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"stack\":[\"" UTF8_NAME "+0x10/0x40 [a_module]\"]"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"title\":\"bad\\ufffdbyte / b\"")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "\\u00")) TH_LOG("%s", out);
	for (p = out; *p; p++)
		ASSERT_NE(0xff, (unsigned char)*p);
#undef UTF8_NAME
}

TEST(help_everywhere)
{
	static const char * const cmds[] = { "report", "tso", "litmus", "status",
					     "version", "help" };
	char a[8192];
	size_t i;

	ASSERT_EQ(0, run(KC " help", out, sizeof(out)));
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		EXPECT_NE(NULL, strstr(out, cmds[i])) TH_LOG("command %zu", i);
	for (i = 0; i < ARRAY_SIZE(cmds) - 1; i++) {
		/* "help CMD", "CMD help" and "CMD --help": the same text. */
		snprintf(cmd, sizeof(cmd), KC " %s --help", cmds[i]);
		ASSERT_EQ(0, run(cmd, a, sizeof(a))) TH_LOG("%s", cmds[i]);
		EXPECT_EQ(0, strncmp(a, "Usage: kcollider ", 17)) TH_LOG("%s", a);
		EXPECT_NE(NULL, strstr(a, "Exit status: 0")) TH_LOG("%s", cmds[i]);
		EXPECT_NE(NULL, strstr(a, "-p, --pretty")) TH_LOG("%s", cmds[i]);
		snprintf(cmd, sizeof(cmd), KC " help %s", cmds[i]);
		ASSERT_EQ(0, run(cmd, out, sizeof(out)));
		EXPECT_STREQ(a, out);
		snprintf(cmd, sizeof(cmd), KC " %s help", cmds[i]);
		ASSERT_EQ(0, run(cmd, out, sizeof(out)));
		EXPECT_STREQ(a, out);
	}
	/* status --help must not read sysfs, version --help not print it. */
	ASSERT_EQ(0, run("KCOLLIDER_SYSFS=/nonexistent " KC " status --help 2>&1",
			 out, sizeof(out)));
	EXPECT_EQ(NULL, strstr(out, "/nonexistent"));
	ASSERT_EQ(0, run(KC " version --help", out, sizeof(out)));
	EXPECT_EQ(NULL, strstr(out, "kcollider 0."));
	ASSERT_EQ(0, run(KC " -V", a, sizeof(a)));
	ASSERT_EQ(0, run(KC " --version", out, sizeof(out)));
	EXPECT_STREQ(a, out);
	EXPECT_EQ(0, strncmp(out, "kcollider ", 10));
	EXPECT_EQ(2, run(KC " help nosuchcommand 2>/dev/null", out, sizeof(out)));
	EXPECT_EQ(2, run(KC " nosuchcommand 2>/dev/null", out, sizeof(out)));
}

TEST(errors_name_the_file_and_cause)
{
	EXPECT_EQ(1, run("d=$(mktemp -d) && " KC " report $d > $d.out 2>&1; r=$?; "
			 "sed \"s|$d|DIR|\" $d.out; rm $d.out; rmdir $d; exit $r",
			 out, sizeof(out)));
	EXPECT_STREQ("kcollider: report: DIR: no log file in this directory\n", out);
	EXPECT_EQ(1, run(KC " report /nonexistent 2>&1", out, sizeof(out)));
	EXPECT_STREQ("kcollider: report: /nonexistent: No such file or directory\n", out);
	EXPECT_EQ(2, run(KC " report -K " FX "/reports/bad.log 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "no FILE with --kmsg")) TH_LOG("%s", out);
	/* The input is checked before the code: no kcore complaint first. */
	EXPECT_EQ(1, run(KC " tso /nonexistent 2>&1", out, sizeof(out)));
	EXPECT_STREQ("kcollider: tso: /nonexistent: No such file or directory\n", out);
	EXPECT_EQ(1, run(KC " litmus /nonexistent 2>&1", out, sizeof(out)));
	EXPECT_STREQ("kcollider: litmus: /nonexistent: No such file or directory\n", out);
	EXPECT_EQ(2, run(KC " tso -d abc " FX "/tso/sb.log 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--max-depth 'abc'")) TH_LOG("%s", out);
	EXPECT_EQ(2, run(KC " tso -d 5x " FX "/tso/sb.log 2>/dev/null", out, sizeof(out)));
	EXPECT_EQ(1, run("KCOLLIDER_SYSFS=/nonexistent " KC " status 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "/nonexistent: No such file or directory")) TH_LOG("%s", out);
}

/* -K without CAP_SYSLOG under kernel.dmesg_restrict=1 says why. */
TEST(kmsg_error_names_dmesg_restrict)
{
	FILE *f = fopen("/proc/sys/kernel/dmesg_restrict", "r");
	int restrict_on = 0;

	if (f) {
		if (fscanf(f, "%d", &restrict_on) != 1)
			restrict_on = 0;
		fclose(f);
	}
	/* Root drops CAP_SYSLOG with setpriv; others cannot read it anyway. */
	if (restrict_on != 1 || geteuid() || run("command -v setpriv", out, sizeof(out)))
		SKIP(return, "needs root, kernel.dmesg_restrict=1 and setpriv");
	EXPECT_EQ(1, run("setpriv --bounding-set=-syslog --inh-caps=-syslog "
			 KC " report -K 2>&1", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "kcollider: report: /dev/kmsg: "));
	EXPECT_NE(NULL, strstr(out, "kernel.dmesg_restrict=1")) TH_LOG("%s", out);
}

TEST(json_errors_and_pretty)
{
	/* Under -j the error is JSON, on stdout, and the status stays 1. */
	EXPECT_EQ(1, run(KC " -j report /nonexistent 2>/dev/null", out, sizeof(out)));
	EXPECT_STREQ("{\"error\":\"report: /nonexistent: No such file or directory\"}\n", out);
	EXPECT_EQ(2, run(KC " tso -j -d x " FX "/tso/sb.log 2>/dev/null", out, sizeof(out)));
	EXPECT_TRUE(starts_with(out, "{\"error\":\"tso: --max-depth")) TH_LOG("%s", out);
	ASSERT_EQ(0, run(KC " version -p", out, sizeof(out)));
	EXPECT_TRUE(starts_with(out, "{\n  \"version\": \"")) TH_LOG("%s", out);
	ASSERT_EQ(0, run(KC " -p litmus " FX "/litmus/SB.litmus", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\n  \"test\": \"SB\",\n")) TH_LOG("%s", out);
}

/* The kcollider object has numbers where the report has numbers. */
TEST(json_numbers_are_numbers)
{
	ASSERT_EQ(0, run(KC " --json report " FX "/reports/kcollider_two_sided.log",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"access\":\"read-write\",\"size\":4}")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"window_us\":812,\"armed\":\"4/4\""));
	EXPECT_NE(NULL, strstr(out, "\"seq\":{\"value\":17}"));
	/* Addresses stay strings, as at the top level (beyond 2^53). */
	EXPECT_NE(NULL, strstr(out, "\"ip\":\"0xffffffffc0a0000c\""));
	EXPECT_EQ(NULL, strstr(out, "\":\"4\""));
}

/* A lockdep kernel's locks line: lock names whole, one side's set shown. */
TEST(locks_line_named_in_text_and_json)
{
	static const char text[] =
		"  locks    held by the sampled side only: &fbc->lock; by the racer only: rcu_read_lock:r\n";
	static const char json[] =
		"\"sampled_only\":\"&fbc->lock\",\"racer_only\":\"rcu_read_lock:r\"";

	ASSERT_EQ(0, run(KC " report " FX "/reports/kcollider_locks.log",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, text)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# 1 reports, 0 malformed")) TH_LOG("%s", out);
	ASSERT_EQ(0, run(KC " --json report " FX "/reports/kcollider_locks.log",
			 out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, json)) TH_LOG("%s", out);
	/* Without the line (no lockdep), nothing is said of locks. */
	ASSERT_EQ(0, run(KC " report " FX "/reports/kcollider_two_sided.log",
			 out, sizeof(out)));
	EXPECT_EQ(NULL, strstr(out, "locks")) TH_LOG("%s", out);
}

TEST(status_table_and_nested_json)
{
	char *dir = long_dir(0);

	ASSERT_NE(NULL, dir);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf '1\\n' > enabled && printf '200\\n' > sample_rate && printf 'locked-racer on\\nother-bits off\\n' > filters && : > targets && mkdir %s-debug && printf 'sites 340\\nfired 12\\n' > %s-debug/stats && KCOLLIDER_SYSFS=%s KCOLLIDER_DEBUGFS=%s-debug "
		 KC " status",
		 dir, dir, dir, dir, dir);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	/* Every line of a list indented, not just the first. */
	EXPECT_NE(NULL, strstr(out, "filters:\n  locked-racer on\n  other-bits off\n"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "stats:\n  sites 340\n  fired 12\n"));
	EXPECT_NE(NULL, strstr(out, "enabled          1\n"));
	snprintf(cmd, sizeof(cmd),
		 "KCOLLIDER_SYSFS=%s KCOLLIDER_DEBUGFS=%s-debug " KC " -j status",
		 dir, dir);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	EXPECT_STREQ("{\"enabled\":1,\"filters\":{\"locked-racer\":true,\"other-bits\":false},\"sample_rate\":200,\"stats\":{\"sites\":340,\"fired\":12},\"targets\":{}}\n",
		     out);
	/* debugfs not mounted: the settings still show, the counters say why not */
	snprintf(cmd, sizeof(cmd),
		 "KCOLLIDER_SYSFS=%s KCOLLIDER_DEBUGFS=%s-none " KC " status",
		 dir, dir);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "enabled          1\n"));
	EXPECT_NE(NULL, strstr(out, "stats            <unreadable: No such file or directory; is debugfs mounted"))
		TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "rm -r %s %s-debug", dir, dir);
	system(cmd);
	free(dir);
}

TEST_HARNESS_MAIN
