// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: the benchmarks' time to a first report (runner/kmsg-watch.sh,
 * sourced by detect-guest.sh and the KCSAN and detector benchmarks). It
 * is the kernel log's time from a mark to the first matching line after
 * it, and the watcher answers when that line comes, not when more of the
 * log follows it: a trial is stopped at its first report.
 */
#include "kselftest_harness.h"
#include "vm_util.h"

/*
 * bash running @body after sourcing the watcher, its stdout into @out;
 * each test's lines carry @tag, so that no other test's count.
 */
static int watch(const char *body, char *out, size_t len)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "bash -c '. %s/selftests/runner/kmsg-watch.sh && %s' 2>&1",
		 kc_top(), body);
	return kc_run(cmd, out, len);
}

FIXTURE(kmsg) {
	int unused;
};

FIXTURE_SETUP(kmsg)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
}

FIXTURE_TEARDOWN(kmsg)
{
}

/* The seconds from the mark to the line, by the log's clock. */
TEST_F(kmsg, seconds_from_the_mark_to_the_first_match)
{
	char out[512];
	double s;

	ASSERT_EQ(0, watch("kmsg_watch_start \"kc-test: mark 1 ($$)\" \"^kc-test: hit 1 \" || exit 1; "
			   "echo \"kc-test: hit 1 before ($$)\" > /dev/kmsg; "
			   "{ echo \"kc-test: mark 1 ($$)\" > /dev/kmsg; sleep 0.5; "
			   "echo \"kc-test: hit 1 first ($$)\" > /dev/kmsg; "
			   "echo \"kc-test: hit 1 second ($$)\" > /dev/kmsg; "
			   "echo \"$kmsg_end\" > /dev/kmsg; } & "
			   "kmsg_watch_result; wait; echo \"first=$kmsg_first\"",
			   out, sizeof(out))) TH_LOG("%s", out);
	/* a matching line before the mark (a last trial's) does not count */
	ASSERT_NE(NULL, strstr(out, "first="));
	ASSERT_EQ(1, sscanf(strstr(out, "first="), "first=%lf", &s)) TH_LOG("%s", out);
	EXPECT_GE(s, 0.5) TH_LOG("%s", out);
}

/* The end before any match: "none". */
TEST_F(kmsg, none_when_the_end_comes_first)
{
	char out[512];

	ASSERT_EQ(0, watch("kmsg_watch_start \"kc-test: mark 2 ($$)\" \"^kc-test: hit 2 \" || exit 1; "
			   "{ echo \"kc-test: mark 2 ($$)\" > /dev/kmsg; "
			   "echo \"kc-test: miss 2 ($$)\" > /dev/kmsg; "
			   "echo \"$kmsg_end\" > /dev/kmsg; "
			   "echo \"kc-test: hit 2 late ($$)\" > /dev/kmsg; } & "
			   "kmsg_watch_result; wait; echo \"first=$kmsg_first\"",
			   out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "first=none\n")) TH_LOG("%s", out);
}

/*
 * The answer comes with the matching line, while the log stays quiet
 * after it: a reader that waits to fill a buffer (mawk's default) would
 * answer only at the end, 60 s later, and the trial would run on.
 */
TEST_F_TIMEOUT(kmsg, answers_at_the_match_not_at_more_log, 120)
{
	char out[512];

	ASSERT_EQ(0, watch("kmsg_watch_start \"kc-test: mark 3 ($$)\" \"^kc-test: hit 3 \" || exit 1; "
			   "{ echo \"kc-test: mark 3 ($$)\" > /dev/kmsg; "
			   "echo \"kc-test: hit 3 ($$)\" > /dev/kmsg; sleep 60; "
			   "echo \"$kmsg_end\" > /dev/kmsg; } > /dev/null 2>&1 & job=$!; "
			   "kmsg_watch_result; "
			   "kill -0 $job && echo during || echo after; "
			   "kill $job; echo \"first=$kmsg_first\"",
			   out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "during\n")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "first=none")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "first=\n")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
