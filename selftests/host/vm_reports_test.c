// SPDX-License-Identifier: GPL-2.0
/*
 * The in-VM tests' report helpers (vm/vm_reports.h), which find reports
 * with the CLI's parser, on the host: on logs in the layout the module's
 * debugfs "reports" file has, each helper must give what the strstr-based
 * helpers it replaced gave (kept here as old_*, the reference), except
 * that a report's text now ends with the report instead of running on to
 * the next one. Nothing here loads a module: only the parsing helpers of
 * the VM headers are called.
 */
#include "kselftest_harness.h"
#include "../vm/vm_reports.h"

/* ---- the helpers as they were, for reference ---- */

/* [p, end) (to the end of the string if !end) into @out, cut to fit. */
static bool old_copy_span(const char *p, const char *end, char *out,
			  size_t size)
{
	size_t len = end ? (size_t)(end - p) : strlen(p);

	if (len >= size)
		len = size - 1;
	memcpy(out, p, len);
	out[len] = '\0';
	return true;
}

static bool old_nth_report(const char *log, int i, char *out, size_t size)
{
	const char *title = "BUG: KCOLLIDER: ";
	const char *p = log, *end;

	for (;;) {
		p = strstr(p, title);
		if (!p)
			return false;
		if ((p == log || p[-1] == '\n') && i-- == 0)
			break;
		p++;
	}
	end = strstr(p + 1, "\nBUG: KCOLLIDER: ");
	return old_copy_span(p, end, out, size);
}

static int old_count_reports(const char *log)
{
	static char tmp[16384];
	int i = 0;

	while (old_nth_report(log, i, tmp, sizeof(tmp)))
		i++;
	return i;
}

static bool old_report_block(const char *report, int k, char *out, size_t size)
{
	const char *p = report, *end;

	while ((p = strstr(p, " bytes by "))) {
		while (p > report && p[-1] != '\n')
			p--;
		if (k-- == 0)
			break;
		p = strchr(p, '\n');
		if (!p)
			return false;
	}
	if (!p)
		return false;
	end = strstr(p, "\n\n");
	return old_copy_span(p, end, out, size);
}

/* tso_live_test's own. */
static bool old_whole_report(const char *log, const char *title, char *out,
			     size_t size)
{
	const char *rule = "\n==================================================================";
	const char *p = strstr(log, title), *begin, *end;
	size_t len;

	if (!p)
		return false;
	for (begin = p; begin > log && strncmp(begin, rule, strlen(rule)); begin--)
		;
	end = strstr(p, rule);
	if (!end)
		return false;
	end += strlen(rule);
	len = end - begin < (long)size - 2 ? (size_t)(end - begin) : size - 2;
	memcpy(out, begin, len);
	out[len] = '\n';
	out[len + 1] = '\0';
	return true;
}

/* ---- logs as the module writes them (kmod/report.c) ---- */

#define RULE "==================================================================\n"

#define TWO_SIDED(a, b, racer_ctx, tail)					\
	RULE								\
	"BUG: KCOLLIDER: data-race in " a " / " b "\n"			\
	"\n"								\
	"read-write to 0xffffffffc0a02010 of 4 bytes by " racer_ctx " on cpu 1:\n" \
	" " a "+0x12/0x30 [kc_planted]\n"				\
	" kc_worker_fn+0x41/0x90 [kc_planted]\n"			\
	" kthread+0xd7/0x100\n"						\
	" ret_from_fork+0x22/0x30\n"					\
	"\n"								\
	"read-write to 0xffffffffc0a02010 of 4 bytes by task 210 on cpu 0:\n" \
	" " b "+0xc/0x30 [kc_planted]\n"				\
	" kc_worker_fn+0x41/0x90 [kc_planted]\n"			\
	" kthread+0xd7/0x100\n"						\
	" ret_from_fork+0x22/0x30\n"					\
	"\n"								\
	"value changed: 0x00000005 -> 0x00000004\n"			\
	"\n"								\
	"kcollider: sampled: ip=0xffffffffc0a0000c sym=" b "+0xc/0x30 mod=kc_planted op=add access=read-write size=4\n" \
	"kcollider: racer: ip=0xffffffffc0a0010e trap_ip=0xffffffffc0a00112 sym=" a "+0xe/0x30 mod=kc_planted op=sub access=read-write size=4 locked=0 addr=0xffffffffc0a02010\n" \
	"kcollider: watch: addr=0xffffffffc0a02010 len=4 type=rw window_us=812 armed=4/4\n" \
	"kcollider: context: sampled=task sampled_irqs=on racer=task racer_irqs=on\n" \
	tail								\
	"kcollider: seq: 17\n"						\
	"kcollider: object: global sym=kc_r1_count+0x0 mod=kc_planted\n" \
	"\n"								\
	"Reported by kcollider on:\n"					\
	"CPU: 0 PID: 210 Comm: kc_r1/0 Tainted: G           OE      6.1.0-56-amd64\n" \
	RULE

#define ONE_SIDED							\
	RULE								\
	"BUG: KCOLLIDER: data-race in kc_r8_read+0x5/0x20 [kc_planted]\n" \
	"\n"								\
	"race at unknown origin, with read to 0xffffffffc0a03000 of 4 bytes by task 300 on cpu 2:\n" \
	" kc_r8_read+0x5/0x20 [kc_planted]\n"				\
	" kthread+0xd7/0x100\n"						\
	"\n"								\
	"value changed: 0x00000000 -> 0x00000001\n"			\
	"\n"								\
	"kcollider: sampled: ip=0xffffffffc0a00005 sym=kc_r8_read+0x5/0x20 mod=kc_planted op=mov access=read size=4\n" \
	"kcollider: racer: unknown\n"					\
	"kcollider: watch: addr=0xffffffffc0a03000 len=4 type=rw window_us=500 armed=4/4\n" \
	"kcollider: context: sampled=task sampled_irqs=on\n"		\
	"kcollider: class: harmful\n"					\
	"kcollider: seq: 18\n"						\
	"kcollider: object: global sym=kc_r8_x+0x0 mod=kc_planted\n"	\
	"\n"								\
	"Reported by kcollider on:\n"					\
	"CPU: 2 PID: 300 Comm: kc_r8 Tainted: G           OE      6.1.0-56-amd64\n" \
	RULE

#define BENIGN_LINE \
	"kcollider: benign: filter=lossy-counter sampled=kc_b1_stat_inc racer=kc_b1_stat_inc addr=0xffffffffc0a04000 seq=19\n"

static const char log_default[] =
	"kcollider: lost: 3 records before seq 16\n"
	TWO_SIDED("kc_r1_dec", "kc_r1_inc", "task 211",
		  "kcollider: class: harmful\n")
	BENIGN_LINE
	ONE_SIDED
	BENIGN_LINE
	TWO_SIDED("kc_r5_timer_access", "kc_r5_task_write", "interrupt",
		  "kcollider: class: benign filter=other-bits\n");

/* report_style=kcsan: KCSAN's header, and benign races without "BUG:". */
static const char log_kcsan[] =
	RULE
	"BUG: KCSAN: data-race in kc_r1_dec / kc_r1_inc\n"
	"\n"
	"read-write to 0x10 of 4 bytes by task 1 on cpu 0:\n"
	" kc_r1_dec+0x1/0x10\n"
	"\n"
	"read-write to 0x10 of 4 bytes by task 2 on cpu 1:\n"
	" kc_r1_inc+0x1/0x10\n"
	"\n"
	"Reported by kcollider on:\n"
	RULE
	RULE
	"KCOLLIDER: benign data-race in kc_b1_stat_inc / kc_b1_stat_inc\n"
	"\n"
	"read-write to 0x20 of 8 bytes by task 1 on cpu 0:\n"
	" kc_b1_stat_inc+0x1/0x10\n"
	"\n"
	"read-write to 0x20 of 8 bytes by task 2 on cpu 1:\n"
	" kc_b1_stat_inc+0x1/0x10\n"
	"\n"
	"kcollider: class: benign filter=lossy-counter\n"
	"Reported by kcollider on:\n"
	RULE;

static char got[16384], want[16384], gblock[8192], wblock[8192];

/* The new text is the old one up to the report's closing rule. */
static void same_report(struct __test_metadata *_metadata, const char *n,
			const char *o)
{
	size_t len = strlen(n);

	ASSERT_GT(len, strlen(RULE));
	EXPECT_EQ(0, strncmp(n, o, len)) TH_LOG("new:\n%s\nold:\n%s", n, o);
	EXPECT_STREQ(RULE, n + len - strlen(RULE)) TH_LOG("%s", n);
	EXPECT_EQ(0, strncmp(n, "BUG: KCOLLIDER: ", 16)) TH_LOG("%s", n);
}

TEST(nth_count_and_blocks_as_before)
{
	int i, k;

	EXPECT_EQ(3, count_reports(log_default));
	EXPECT_EQ(old_count_reports(log_default), count_reports(log_default));
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(nth_report(log_default, i, got, sizeof(got)));
		ASSERT_TRUE(old_nth_report(log_default, i, want, sizeof(want)));
		same_report(_metadata, got, want);
		for (k = 0; k < 3; k++) {
			bool n = report_block(got, k, gblock, sizeof(gblock));
			bool o = old_report_block(want, k, wblock, sizeof(wblock));

			EXPECT_EQ(o, n) TH_LOG("report %d block %d", i, k);
			if (n && o)
				EXPECT_STREQ(wblock, gblock);
		}
	}
	EXPECT_FALSE(nth_report(log_default, 3, got, sizeof(got)));
	/* the benign record after a report is no part of it any more */
	ASSERT_TRUE(nth_report(log_default, 0, got, sizeof(got)));
	EXPECT_EQ(NULL, strstr(got, "benign: filter=lossy-counter"));
	ASSERT_TRUE(report_block(got, 0, gblock, sizeof(gblock)));
	EXPECT_EQ(0, strncmp(gblock, "read-write to 0x", 16));
	EXPECT_NE(NULL, strstr(gblock, " ret_from_fork+0x22/0x30"));
	EXPECT_NE('\n', gblock[strlen(gblock) - 1]);
	/* the one-sided report: one block, the sampled access */
	ASSERT_TRUE(nth_report(log_default, 1, got, sizeof(got)));
	EXPECT_TRUE(report_block(got, 0, gblock, sizeof(gblock)));
	EXPECT_EQ(0, strncmp(gblock, "race at unknown origin", 22));
	EXPECT_FALSE(report_block(got, 1, gblock, sizeof(gblock)));
}

TEST(find_report_as_before)
{
	static const char * const r5[] = {
		"data-race in kc_r5_timer_access / kc_r5_task_write",
		"racer=task", NULL,
	};
	static const char * const r8[] = {
		"race at unknown origin, with read to 0x",
		"kcollider: racer: unknown", "\nvalue changed: 0x", NULL,
	};
	static const char * const none[] = { "kc_r1_dec", "kc_r8_read", NULL };

	ASSERT_TRUE(find_report(log_default, r5, got, sizeof(got)));
	ASSERT_TRUE(old_nth_report(log_default, 2, want, sizeof(want)));
	same_report(_metadata, got, want);
	ASSERT_TRUE(find_report(log_default, r8, got, sizeof(got)));
	ASSERT_TRUE(old_nth_report(log_default, 1, want, sizeof(want)));
	same_report(_metadata, got, want);
	EXPECT_FALSE(find_report(log_default, none, got, sizeof(got)));
	/* cut to the buffer, as before */
	ASSERT_TRUE(nth_report(log_default, 0, got, 100));
	EXPECT_EQ(99, strlen(got));
	EXPECT_FALSE(find_report("", r5, got, sizeof(got)));
	EXPECT_EQ(0, count_reports(""));
}

/* filters_test's, on the log: every report one-sided? */
static bool old_only_one_sided_reports(const char *log)
{
	const char *bug = strstr(log, "BUG: KCOLLIDER"), *next;
	const char *origin;

	for (; bug; bug = next) {
		next = strstr(bug + 1, "BUG: KCOLLIDER");
		origin = strstr(bug, "race at unknown origin");
		if (!origin || (next && origin > next))
			return false;
	}
	return true;
}

TEST(two_sided_reports_as_before)
{
	static const char one_sided_only[] = BENIGN_LINE ONE_SIDED BENIGN_LINE ONE_SIDED;

	EXPECT_EQ(2, count_two_sided_reports(log_default));
	EXPECT_EQ(old_only_one_sided_reports(log_default),
		  !count_two_sided_reports(log_default));
	EXPECT_EQ(0, count_two_sided_reports(one_sided_only));
	EXPECT_EQ(2, count_reports(one_sided_only));
	EXPECT_EQ(old_only_one_sided_reports(one_sided_only),
		  !count_two_sided_reports(one_sided_only));
	EXPECT_EQ(0, count_two_sided_reports(log_kcsan));
	EXPECT_EQ(old_only_one_sided_reports(log_kcsan),
		  !count_two_sided_reports(log_kcsan));
	EXPECT_EQ(0, count_two_sided_reports(""));
}

/* Only kcollider's own "BUG: KCOLLIDER:" reports count, as before. */
TEST(kcsan_style_headers_do_not_count)
{
	static const char * const any[] = { "data-race in", NULL };

	EXPECT_EQ(0, count_reports(log_kcsan));
	EXPECT_EQ(old_count_reports(log_kcsan), count_reports(log_kcsan));
	EXPECT_FALSE(find_report(log_kcsan, any, got, sizeof(got)));
}

/* tso_live_test's: opening rule to closing rule, then a newline. */
TEST(whole_report_for_tso_as_before)
{
	static const char * const titles[] = {
		"data-race in kc_r1_dec / kc_r1_inc",
		"data-race in kc_r5_timer_access / kc_r5_task_write",
	};
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(find_whole_report(log_default, titles[i], got,
					      sizeof(got)));
		ASSERT_TRUE(old_whole_report(log_default, titles[i], want,
					     sizeof(want)));
		/* the old text began with the newline before the rule */
		EXPECT_STREQ(want + (want[0] == '\n'), got);
		EXPECT_EQ(0, strncmp(got, RULE "BUG: KCOLLIDER: ", strlen(RULE) + 16));
	}
	/* any header: KCSAN's, and the benign one */
	ASSERT_TRUE(find_whole_report(log_kcsan, "kc_b1_stat_inc / kc_b1_stat_inc",
				      got, sizeof(got)));
	ASSERT_TRUE(old_whole_report(log_kcsan, "kc_b1_stat_inc / kc_b1_stat_inc",
				     want, sizeof(want)));
	EXPECT_STREQ(want + (want[0] == '\n'), got);
	/* a report still being written is not there yet */
	EXPECT_FALSE(find_whole_report(RULE "BUG: KCOLLIDER: data-race in a / b\n\n",
				       "a / b", got, sizeof(got)));
}

TEST_HARNESS_MAIN
