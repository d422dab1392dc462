// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: report_style (issue 13). Default "kcollider"; "kcsan" gives the
 * planted R1 race the title syzkaller files as KCSAN-DATARACE (checked with
 * the reimplemented parser of ../host/syz_title.h on the module's real
 * output), keeps kcollider's own lines, and a benign race printed in full
 * is no crash at all to that parser.
 */
#include <kcollider/report.h>
#include "kselftest_harness.h"
#include "vm_reports.h"
#include "../host/syz_title.h"

/* Run @scenario in 2 s slices until @needle is logged or @budget_s pass. */
FIXTURE(style) {
	int unused;
};

FIXTURE_SETUP(style)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load kcollider: %s", strerror(errno));
	if (kc_load_module(planted_path(), NULL) && errno != EEXIST)
		ASSERT_TRUE(false) TH_LOG("load kc_planted: %s", strerror(errno));
}

FIXTURE_TEARDOWN(style)
{
	if (!kc_in_vm())
		return;
	kc_write_attr("enabled", "0");
	kc_unload_module("kcollider");
	kc_unload_module("kc_planted");
}

TEST_F(style, knob_defaults_to_kcollider_and_rejects_garbage)
{
	char buf[64];

	ASSERT_GT(kc_read_attr("report_style", buf, sizeof(buf)), 0);
	EXPECT_STREQ("kcollider\n", buf);
	EXPECT_NE(0, kc_write_attr("report_style", "kcsanx"));
	EXPECT_NE(0, kc_write_attr("report_style", "\n"));
	EXPECT_NE(0, kc_write_attr("report_style", "KCSAN"));
	ASSERT_GT(kc_read_attr("report_style", buf, sizeof(buf)), 0);
	EXPECT_STREQ("kcollider\n", buf);
	EXPECT_EQ(0, kc_write_attr("report_style", "kcsan"));
	ASSERT_GT(kc_read_attr("report_style", buf, sizeof(buf)), 0);
	EXPECT_STREQ("kcsan\n", buf);
}

TEST_F_TIMEOUT(style, kcsan_style_r1_is_a_kcsan_data_race_to_syzkaller, 120)
{
	int crashes = 0, two_sided = 0;
	const char *log, *p;
	struct syz_crash c;

	ASSERT_EQ(0, kc_write_attr("report_style", "kcsan"));
	ASSERT_EQ(0, kc_write_attr("targets", "kc_r1_inc kc_r1_dec"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until_report("r1", "BUG: KCSAN: data-race in kc_r1_dec / kc_r1_inc", 30))
		TH_LOG("%.2000s", read_reports());
	/*
	 * Every crash syzkaller finds is a KCSAN data race: the two-sided
	 * report, and one-sided ones (value changed, racer unknown) that R1
	 * also yields, titled "KCSAN: data-race in kc_r1_inc+0x5/0x20 ..."
	 * as KCSAN titles its own.
	 */
	log = read_reports();
	for (p = log; syz_parse(p, &c);) {
		EXPECT_STREQ("KCSAN-DATARACE", c.type) TH_LOG("%s", c.title);
		two_sided += !strcmp(c.title, "KCSAN: data-race in kc_r1_dec / kc_r1_inc");
		crashes++;
		p = c.at + strcspn(c.at, "\n");
	}
	EXPECT_GE(crashes, 1);
	EXPECT_GE(two_sided, 1) TH_LOG("%.2000s", log);
	EXPECT_NE(NULL, strstr(read_reports(), "\nkcollider: sampled: ip="));
	EXPECT_EQ(NULL, strstr(read_reports(), "KCOLLIDER: data-race"));
}

/* Whether the report whose header is at @at names no racer. */
static bool report_is_one_sided(const char *at)
{
	const char *end = strstr(at, KC_REPORT_RULE);
	const char *racer = strstr(at, "\n" KC_REPORT_TOOL_LINE
				   KC_REPORT_KEY_RACER ": unknown\n");

	return racer && (!end || racer < end);
}

/*
 * A benign race printed in full is no crash. A report whose racer went
 * uncaught (its trap came after the window) is one-sided, and no filter
 * may call that benign: a decrement may have been the other side.
 */
TEST_F_TIMEOUT(style, kcsan_style_benign_full_is_no_crash, 120)
{
	struct syz_crash c;
	int one_sided = 0, two_sided = 0;
	const char *p;

	ASSERT_EQ(0, kc_write_attr("report_style", "kcsan"));
	ASSERT_EQ(0, kc_write_attr("benign_full", "1"));
	ASSERT_EQ(0, kc_write_attr("targets", "kc_planted:kc_b1_stat_inc"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until_report("b1", "kcollider: class: benign filter=lossy-counter", 30))
		TH_LOG("%.2000s", read_reports());
	EXPECT_NE(NULL, strstr(read_reports(), KC_REPORT_TITLE_BENIGN "kc_b1_stat_inc"))
		TH_LOG("%.2000s", read_reports());
	for (p = read_reports(); syz_parse(p, &c);
	     p = c.at + strcspn(c.at, "\n")) {
		if (report_is_one_sided(c.at)) {
			one_sided++;
			continue;
		}
		two_sided++;
		TH_LOG("%s at line %d: %s", c.header, c.line, c.title);
	}
	EXPECT_EQ(0, two_sided) TH_LOG("%.4000s", read_reports());
	if (one_sided)
		TH_LOG("%d one-sided report(s): racer not caught", one_sided);
}

TEST_HARNESS_MAIN
