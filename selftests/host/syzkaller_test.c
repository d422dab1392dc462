// SPDX-License-Identifier: GPL-2.0
/*
 * syzkaller compatibility of the report styles (issue 13): what syzkaller's
 * Linux report parser, reimplemented in syz_title.h from google/syzkaller
 * commit 1e72964b0111319984575e60f266d1fa0a98abb5 (SYZ_COMMIT), makes of
 * KCSAN's own reports, of kcollider's default style and of
 * report_style=kcsan: title, type, frame, the report text it keeps, and
 * whether it calls the report corrupted. The kcsan-style texts are built
 * from the constants the module prints (include/kcollider/report.h); the
 * in-VM report_style_test checks the module's real output with the same
 * parser. The kcsan_*.log fixtures other than kcsan_dmesg.log are damaged
 * or unusual KCSAN reports, written after syzkaller's own test data.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <kcollider/report.h>
#include "kselftest_harness.h"
#include "syz_title.h"

#define FX KC_TOP "/selftests/fixtures/reports"
#define KC KC_TOP "/user/kcollider"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* @text with its first @from replaced by @to (allocated). */
static char *replace(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	char *out;

	if (!p)
		return NULL;
	if (asprintf(&out, "%.*s%s%s", (int)(p - text), text, to,
		     p + strlen(from)) < 0)
		return NULL;
	return out;
}

/* The CLI's JSON for @text (through stdin), in @out. */
static int cli_json(const char *text, char *out, size_t size)
{
	char tmp[] = "/tmp/kc_syz_XXXXXX", cmd[8192];
	FILE *f, *p;
	size_t n;
	int fd = mkstemp(tmp), st;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), KC " --json report %s", tmp);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, size - 1, p) : 0;
	out[n] = '\0';
	st = p ? pclose(p) : -1;
	unlink(tmp);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The reimplementation agrees with syzkaller on KCSAN's own output. */
TEST(real_kcsan_report_is_a_kcsan_data_race)
{
	char *log = slurp(FX "/kcsan_dmesg.log");
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_STREQ("BUG:", c.header);
	EXPECT_STREQ("KCSAN: data-race in test_kernel_read / test_kernel_write", c.title);
	EXPECT_STREQ("KCSAN-DATARACE", c.type);
	free(log);
}

/* Why the switch exists: the default header is a crash of no known type. */
TEST(default_style_is_no_data_race_to_syzkaller)
{
	char *log = slurp(FX "/kcollider_two_sided.log");
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_STREQ("BUG: KCOLLIDER: data-race in kc_r1_dec / kc_r1_inc", c.title);
	EXPECT_STREQ("UNKNOWN", c.type);
	free(log);
}

TEST(kcsan_style_gets_the_kcsan_title)
{
	char *base = slurp(FX "/kcollider_two_sided.log"), *log, out[1 << 14];
	struct syz_crash c;

	ASSERT_NE(NULL, base);
	log = replace(base, KC_REPORT_TITLE, KC_REPORT_TITLE_KCSAN);
	ASSERT_NE(NULL, log);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_STREQ("KCSAN: data-race in kc_r1_dec / kc_r1_inc", c.title);
	EXPECT_STREQ("KCSAN-DATARACE", c.type);
	/* kcollider's own lines are kept, and the CLI still reads them. */
	EXPECT_NE(NULL, strstr(log, "\nkcollider: sampled: ip="));
	ASSERT_EQ(0, cli_json(log, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"status\":\"ok\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"tool\":\"KCSAN\",\"title\":\"kc_r1_dec / kc_r1_inc\""));
	EXPECT_NE(NULL, strstr(out, "\"sym\":\"kc_r1_inc+0xc/0x30\""));
	free(log);
	free(base);
}

/* Benign races, one line or in full, are no crash to syzkaller. */
TEST(kcsan_style_benign_is_no_crash)
{
	char *base = slurp(FX "/kcollider_two_sided.log"), *full, *log, out[1 << 14];
	struct syz_crash c;

	ASSERT_NE(NULL, base);
	full = replace(base, KC_REPORT_TITLE, KC_REPORT_TITLE_BENIGN);
	ASSERT_NE(NULL, full);
	log = replace(full, "class: harmful", "class: benign filter=lossy-counter");
	ASSERT_NE(NULL, log);
	EXPECT_FALSE(syz_parse(log, &c)) TH_LOG("%s at line %d", c.header, c.line);
	EXPECT_FALSE(syz_parse("kcollider: benign: filter=lossy-counter sampled=a racer=b addr=0xffff888003a1c000 seq=3\n",
			       &c));
	/* The CLI still reads the benign full report as a report. */
	ASSERT_EQ(0, cli_json(log, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"status\":\"ok\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"class\":{\"value\":\"benign\",\"filter\":\"lossy-counter\"}"));
	free(log);
	free(full);
	free(base);
}

/* The snapshot named in the header comment is the one ported. */
TEST(ported_from_the_named_syzkaller_commit)
{
	EXPECT_STREQ("1e72964b0111319984575e60f266d1fa0a98abb5", SYZ_COMMIT);
	EXPECT_EQ(40, strlen(SYZ_COMMIT));
}

/*
 * Every report of KCSAN's log, as syzkaller's ParseAll walks them (each
 * parse starts after the previous header line): the one-sided header's
 * offsets leave the title, and Frame is the first function named.
 */
TEST(kcsan_dmesg_titles_and_frames)
{
	static const char * const titles[] = {
		"KCSAN: data-race in test_kernel_read / test_kernel_write",
		"KCSAN: data-race in test_kernel_rmw_array",
		"KCSAN: data-race in test_kernel_read / test_kernel_write",
	};
	static const char * const frames[] = {
		"test_kernel_read", "test_kernel_rmw_array", "test_kernel_read",
	};
	char *log = slurp(FX "/kcsan_dmesg.log");
	struct syz_crash c;
	const char *p;
	int n = 0;

	ASSERT_NE(NULL, log);
	for (p = log; syz_parse(p, &c); p += c.skip, n++) {
		ASSERT_LT(n, 3);
		EXPECT_STREQ(titles[n], c.title);
		EXPECT_STREQ(frames[n], c.frame);
		EXPECT_STREQ("KCSAN-DATARACE", c.type);
		EXPECT_STREQ("BUG: KCSAN: data-race", c.format);
		EXPECT_STREQ(SYZ_CONSOLE, c.context);
		EXPECT_FALSE(c.corrupted) TH_LOG("%s", c.corrupted_reason);
		EXPECT_FALSE(c.panicked);
	}
	EXPECT_EQ(3, n);
	ASSERT_TRUE(syz_parse(strstr(log, "[   12.345682]"), &c));
	EXPECT_STREQ("KCSAN: data-race in test_kernel_rmw_array+0x71/0xd0",
		     c.raw_title);
	free(log);
}

/*
 * The text syzkaller keeps: console prefixes gone, earlier lines in
 * front, and everything to the log's end, later reports included; the
 * crash spans up to the last header line.
 */
TEST(kcsan_dmesg_kept_report)
{
	char *log = slurp(FX "/kcsan_dmesg.log"), *rep;
	const char *last;
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_EQ(3, c.line);
	rep = syz_report(log, &c);
	ASSERT_NE(NULL, rep);
	EXPECT_EQ(0, strncmp(rep, "random: crng init done\n"
			     "==================================================================\n"
			     "BUG: KCSAN: data-race in test_kernel_read / test_kernel_write\n\n"
			     "write to 0xffffffffc009a628 of 8 bytes by task 487 on cpu 0:\n"
			     " test_kernel_write+0x1d/0x30\n", 200)) TH_LOG("%s", rep);
	EXPECT_EQ(NULL, strstr(rep, "[   1"));
	EXPECT_NE(NULL, strstr(rep, "\nBUG: KCSAN: data-race in test_kernel_rmw_array+0x71/0xd0\n"));
	EXPECT_NE(NULL, strstr(rep, "\nusb 1-1: new high-speed USB device number 2\n"));
	last = strstr(log, "[   14.000001] BUG: KCSAN");
	ASSERT_NE(NULL, last);
	EXPECT_EQ(last + strcspn(last, "\n") - log, c.end);
	EXPECT_EQ(strchr(c.at, '\n') - log, c.skip);
	free(rep);
	free(log);
}

/*
 * syzkaller reads no frame of a KCSAN report: the title is KCSAN's header
 * even where a stack starts in KCSAN's own functions, and those stay in
 * the kept report. Lines of another printk caller and "? " frames do not.
 */
TEST(kcsan_title_is_the_header_not_the_stack)
{
	char *log = slurp(FX "/kcsan_internal_frames.log"), *rep, *other;
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_STREQ("KCSAN: data-race in find_next_bit / rcu_report_exp_cpu_mult", c.title);
	EXPECT_STREQ("find_next_bit", c.frame);
	EXPECT_STREQ("[    C4]", c.context);
	EXPECT_FALSE(c.corrupted);
	rep = syz_report(log, &c);
	ASSERT_NE(NULL, rep);
	EXPECT_EQ(0, strncmp(rep, "e1000: eth0 NIC Link is Up", 26)) TH_LOG("%s", rep);
	EXPECT_NE(NULL, strstr(rep, "\n __kcsan_check_watchpoint+0x2e/0x180\n"
				    " kcsan_setup_watchpoint+0x3fe/0x410\n"
				    " __tsan_write4+0x18/0x40\n"));
	EXPECT_NE(NULL, strstr(rep, "\n sync_rcu_exp_select_node_cpus+0x28e/0x510\n"
				    " sync_rcu_exp_select_cpus+0x30c/0x590\n"));
	EXPECT_EQ(NULL, strstr(rep, "audit:"));
	EXPECT_EQ(NULL, strstr(rep, "flush_smp_call_function_queue"));
	free(rep);
	/* Other names in the header: the stacks change nothing. */
	other = replace(log, "in find_next_bit / rcu_report_exp_cpu_mult",
			"in zz_reader / aa_writer");
	ASSERT_NE(NULL, other);
	ASSERT_TRUE(syz_parse(other, &c));
	EXPECT_STREQ("KCSAN: data-race in zz_reader / aa_writer", c.title);
	EXPECT_STREQ("zz_reader", c.frame);
	free(other);
	free(log);
}

/* kcollider's default style: the whole header line, of no format. */
TEST(default_style_has_no_format_and_is_not_corrupted)
{
	char *log = slurp(FX "/kcollider_two_sided.log");
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_EQ(NULL, c.format);
	EXPECT_STREQ("kc_r1_dec", c.frame);
	EXPECT_STREQ("", c.context);
	EXPECT_FALSE(c.corrupted);
	free(log);
}

/* report_style=kcsan, two-sided and one-sided, as KCSAN's own reports. */
TEST(kcsan_style_frame_and_kept_report)
{
	char *base = slurp(FX "/kcollider_two_sided.log"), *log, *one, *rep;
	struct syz_crash c;

	ASSERT_NE(NULL, base);
	log = replace(base, KC_REPORT_TITLE, KC_REPORT_TITLE_KCSAN);
	ASSERT_NE(NULL, log);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_STREQ("BUG: KCSAN: data-race", c.format);
	EXPECT_STREQ("kc_r1_dec", c.frame);
	EXPECT_FALSE(c.corrupted) TH_LOG("%s", c.corrupted_reason);
	rep = syz_report(log, &c);
	ASSERT_NE(NULL, rep);
	EXPECT_EQ(0, strncmp(rep, "==================================================================\n"
			     KC_REPORT_TITLE_KCSAN "kc_r1_dec / kc_r1_inc\n", 109)) TH_LOG("%s", rep);
	EXPECT_NE(NULL, strstr(rep, "\nkcollider: sampled: ip="));
	EXPECT_NE(NULL, strstr(rep, "\n kc_r1_inc+0xc/0x30 [kc_planted]\n"));
	free(rep);
	one = replace(log, "kc_r1_dec / kc_r1_inc\n", "kc_r1_inc+0xc/0x30\n");
	ASSERT_NE(NULL, one);
	ASSERT_TRUE(syz_parse(one, &c));
	EXPECT_STREQ("KCSAN: data-race in kc_r1_inc", c.title);
	EXPECT_STREQ("KCSAN: data-race in kc_r1_inc+0xc/0x30", c.raw_title);
	EXPECT_STREQ("kc_r1_inc", c.frame);
	EXPECT_STREQ("KCSAN-DATARACE", c.type);
	EXPECT_FALSE(c.corrupted);
	free(one);
	free(log);
	free(base);
}

/*
 * Cut right after its header, or with no frame at all, a KCSAN report is
 * still whole to syzkaller: its formats skip the stack checks, which would
 * call even a complete KCSAN report stackless.
 */
TEST(kcsan_without_stack_is_not_corrupted)
{
	char *cut = slurp(FX "/kcsan_truncated_header.log");
	char *bare = slurp(FX "/kcsan_no_stack.log");
	char *full = slurp(FX "/kcsan_dmesg.log"), *rep;
	struct syz_format checked = syz_bug_formats[0];
	struct syz_crash c;

	ASSERT_NE(NULL, cut);
	ASSERT_NE(NULL, bare);
	ASSERT_NE(NULL, full);
	ASSERT_TRUE(syz_parse(cut, &c));
	EXPECT_STREQ("KCSAN: data-race in foo_read / foo_write", c.title);
	EXPECT_STREQ("KCSAN-DATARACE", c.type);
	EXPECT_FALSE(c.corrupted) TH_LOG("%s", c.corrupted_reason);
	ASSERT_TRUE(syz_parse(bare, &c));
	EXPECT_STREQ("KCSAN: data-race in foo_read / foo_write", c.title);
	EXPECT_FALSE(c.corrupted) TH_LOG("%s", c.corrupted_reason);
	ASSERT_TRUE(syz_bug_formats[0].no_stack_trace);
	checked.no_stack_trace = false;
	rep = syz_report(bare, &c);
	EXPECT_STREQ(SYZ_NO_STACK, syz_is_corrupted(c.raw_title, rep, &checked));
	EXPECT_EQ(NULL, syz_is_corrupted(c.raw_title, rep, &syz_bug_formats[0]));
	free(rep);
	ASSERT_TRUE(syz_parse(full, &c));
	rep = syz_report(full, &c);
	EXPECT_STREQ(SYZ_NO_STACK, syz_is_corrupted(c.raw_title, rep, &checked));
	free(rep);
	free(full);
	free(bare);
	free(cut);
}

/* The stack checks themselves, for the formats that keep them. */
TEST(stack_checks_of_other_formats)
{
	struct syz_format checked = syz_bug_formats[0];

	checked.no_stack_trace = false;
	EXPECT_EQ(NULL, syz_is_corrupted("t", "BUG: x\nCall Trace:\n <TASK>\n f+0x1/0x2\n\n",
					 &checked));
	EXPECT_STREQ(SYZ_NO_CALL_TRACE, syz_is_corrupted("t", "BUG: x\nCall Trace:\n f\n",
							 &checked));
	EXPECT_STREQ(SYZ_NO_FRAMES,
		     syz_is_corrupted("t", "BUG: x\nCall Trace:\nCPU: 0\nPID: 1\n\n", &checked));
	EXPECT_STREQ(SYZ_NO_FRAMES,
		     syz_is_corrupted("t", "Call Trace:\nFreed by task 3:\n f+0x1/0x2\n\n",
				      &checked));
	EXPECT_EQ(NULL, syz_is_corrupted("t", "x\n backtrace:\n f+0x1/0x2\n\n\n", &checked));
	EXPECT_EQ(NULL, syz_is_corrupted("t", "no stack at all\n", NULL));
}

/* Another printk's timestamp inside the header: lines ran into each other. */
TEST(kcsan_interleaved_title_is_corrupted)
{
	char *log = slurp(FX "/kcsan_interleaved_title.log");
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_STREQ("KCSAN-DATARACE", c.type);
	EXPECT_TRUE(c.corrupted);
	EXPECT_STREQ(SYZ_BAD_TITLE, c.corrupted_reason);
	EXPECT_STREQ("KCSAN: data-race in foo_read[   22.000002] usb 1-1: USB disconnect / foo_write",
		     c.raw_title);
	EXPECT_STREQ("KCSAN: data-race in foo_read[ NUM.ADDR] usb NUM-NUM: USB disconnect / foo_write",
		     c.title);
	EXPECT_STREQ("foo_read", c.frame);
	free(log);
}

/* A header cut inside its first line: what is left decides the format. */
TEST(kcsan_header_cut_short)
{
	char *log = slurp(FX "/kcsan_cut_header.log"), *bare = slurp(FX "/kcsan_bare_bug.log");
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_NE(NULL, bare);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_STREQ("KCSAN: data-ra", c.title);
	EXPECT_STREQ("KCSAN-UNKNOWN", c.type);
	EXPECT_STREQ("BUG: KCSAN:", c.format);
	EXPECT_FALSE(c.corrupted);
	ASSERT_TRUE(syz_parse("[   23.000001] BUG: KCS\n", &c));
	EXPECT_STREQ("BUG: KCS", c.title);
	EXPECT_STREQ("UNKNOWN", c.type);
	EXPECT_EQ(NULL, c.format);
	EXPECT_FALSE(c.corrupted);
	ASSERT_TRUE(syz_parse(bare, &c));
	EXPECT_STREQ("BUG: corrupted", c.title);
	EXPECT_STREQ("UNKNOWN", c.type);
	EXPECT_TRUE(c.corrupted);
	EXPECT_STREQ(SYZ_BAD_FORMAT, c.corrupted_reason);
	free(bare);
	free(log);
}

/* A console that hung up may have cut any report: corrupted, no reason. */
TEST(vm_disconnect_corrupts_a_whole_report)
{
	char *log = slurp(FX "/kcsan_dmesg.log"), *hung;
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_GT(asprintf(&hung, "%s%s\n", log, SYZ_GCE_HANGUP), 0);
	ASSERT_TRUE(syz_parse(hung, &c));
	EXPECT_STREQ("KCSAN: data-race in test_kernel_read / test_kernel_write", c.title);
	EXPECT_TRUE(c.corrupted);
	EXPECT_EQ(NULL, c.corrupted_reason);
	free(hung);
	free(log);
}

/*
 * panic_on_warn: after a long enough report the panic and its stack are
 * dropped; a task context keeps more earlier lines than the console's.
 */
TEST(kcsan_panic_on_warn)
{
	char *log = slurp(FX "/kcsan_panic_on_warn.log");
	char *brief = slurp(FX "/kcsan_no_stack.log"), *rep, *panicked;
	struct syz_crash c;

	ASSERT_NE(NULL, log);
	ASSERT_NE(NULL, brief);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_STREQ("KCSAN: data-race in netlink_recvmsg / netlink_recvmsg", c.title);
	EXPECT_STREQ("[T19789]", c.context);
	EXPECT_TRUE(c.panicked);
	EXPECT_FALSE(c.corrupted);
	rep = syz_report(log, &c);
	ASSERT_NE(NULL, rep);
	EXPECT_EQ(0, strncmp(rep, "netlink: 4 bytes leftover", 25)) TH_LOG("%s", rep);
	EXPECT_EQ(NULL, strstr(rep, "random: crng reseeded"));
	EXPECT_EQ(NULL, strstr(rep, "Kernel panic"));
	EXPECT_EQ(NULL, strstr(rep, "Call Trace:"));
	EXPECT_NE(NULL, strstr(rep, "\nHardware name: Google"));
	free(rep);
	/* a short report keeps the panic */
	ASSERT_GT(asprintf(&panicked,
			   "%s[   21.000009] Kernel panic - not syncing: panic_on_warn set ...\n",
			   brief), 0);
	ASSERT_TRUE(syz_parse(panicked, &c));
	EXPECT_TRUE(c.panicked);
	rep = syz_report(panicked, &c);
	EXPECT_NE(NULL, strstr(rep, "\nKernel panic - not syncing: panic_on_warn set ...\n"));
	EXPECT_EQ(NULL, strstr(rep, "[   21."));
	free(rep);
	free(panicked);
	free(brief);
	free(log);
}

/* Titles are cut at SYZ_MAX_TITLE bytes and their whitespace squeezed. */
TEST(long_kcsan_title_is_cut)
{
	char log[512], name[80];
	struct syz_crash c;

	memset(name, 'q', 70);
	name[70] = '\0';
	snprintf(log, sizeof(log), "BUG: KCSAN: data-race in  %s_x\t/ %s_y\n", name, name);
	ASSERT_TRUE(syz_parse(log, &c));
	EXPECT_EQ(SYZ_MAX_TITLE - 1, strlen(c.title));
	EXPECT_EQ(0, strncmp(c.title, "KCSAN: data-race in qqqq", 24));
	EXPECT_NE(NULL, strstr(c.title, "_x / qqq"));
	EXPECT_EQ(70 + 2, strlen(c.frame));
	/* a name that reads as a hex number is taken for an address */
	ASSERT_TRUE(syz_parse("BUG: KCSAN: data-race in deadbeef_fn / f2\n", &c));
	EXPECT_STREQ("KCSAN: data-race in ADDR_fn / f2", c.title);
	EXPECT_STREQ("KCSAN-DATARACE", c.type);
}

/* Headers are tried in syzkaller's order, and some lines are no crash. */
TEST(oops_order_and_suppressions)
{
	struct syz_crash c;

	ASSERT_TRUE(syz_parse("WARNING: x BUG: KCSAN: data-race in f / g\n", &c));
	EXPECT_STREQ("BUG:", c.header);
	EXPECT_STREQ("KCSAN: data-race in f / g", c.title);
	EXPECT_FALSE(syz_parse("ODEBUG: BUG: KCSAN: data-race in f / g\n", &c));
	EXPECT_FALSE(syz_parse("BUG: KCSAN: data-race in f / g\n"
			       "** replaying previous printk message **\n", &c));
	ASSERT_TRUE(syz_parse("fatal error: x\n", &c));
	EXPECT_STREQ("fatal error:", c.header);
}

/*
 * The title comes from the text up to the next crash header, except with
 * a printk caller context, where the report's whole task counts: a
 * default-style report then takes the title of a KCSAN report after it.
 */
TEST(title_text_ends_at_the_next_crash)
{
	static const char console[] =
		"[    1.000000] " KC_REPORT_TITLE "a_read / a_write\n"
		"[    1.000001]  a_read+0x1/0x2\n"
		"[    1.000002] BUG: KCSAN: data-race in b_read / b_write\n";
	static const char task[] =
		"[    1.000000][  T100] " KC_REPORT_TITLE "a_read / a_write\n"
		"[    1.000001][  T100]  a_read+0x1/0x2\n"
		"[    1.000002][  T100] BUG: KCSAN: data-race in b_read / b_write\n";
	struct syz_crash c;

	ASSERT_TRUE(syz_parse(console, &c));
	EXPECT_STREQ("BUG: KCOLLIDER: data-race in a_read / a_write", c.title);
	EXPECT_STREQ("UNKNOWN", c.type);
	ASSERT_TRUE(syz_parse(task, &c));
	EXPECT_STREQ("[  T100]", c.context);
	EXPECT_STREQ("BUG:", c.header);
	EXPECT_EQ(0, c.start);
	EXPECT_STREQ("KCSAN: data-race in b_read / b_write", c.title);
	EXPECT_STREQ("KCSAN-DATARACE", c.type);
}

TEST_HARNESS_MAIN
