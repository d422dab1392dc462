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
 * bash running, with the watcher sourced, "kmsg_watch_start" for the mark
 * "kc-test: mark N" and the lines "^kc-test: hit N ", then @pre; then in
 * the background a job that writes the mark and runs @job ("$kmsg_end"
 * the end's line); then "kmsg_watch_result" and @post. The answer is
 * printed as "first=", all into @out.
 */
static int watched_job(int n, const char *pre, const char *job,
		       const char *post, char *out, size_t len)
{
	static const char script[] =
		"bash -c '. %s/selftests/runner/kmsg-watch.sh && kmsg_watch_start \"kc-test: mark %d ($$)\" \"^kc-test: hit %d \" || exit 1; %s { echo \"kc-test: mark %d ($$)\" > /dev/kmsg; %s } > /dev/null 2>&1 & job=$!; kmsg_watch_result; %s echo \"first=$kmsg_first\"' 2>&1";
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), script, kc_top(), n, n, pre, n, job, post);
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
	static const char job[] =
		"sleep 0.5; echo \"kc-test: hit 1 first ($$)\" > /dev/kmsg; echo \"kc-test: hit 1 second ($$)\" > /dev/kmsg; echo \"$kmsg_end\" > /dev/kmsg;";
	char out[512], *first, *end;
	double s;

	/* a matching line before the mark (a last trial's) does not count */
	ASSERT_EQ(0, watched_job(1, "echo \"kc-test: hit 1 before ($$)\" > /dev/kmsg;",
				 job, "wait;", out, sizeof(out))) TH_LOG("%s", out);
	first = strstr(out, "first=");
	ASSERT_NE(NULL, first) TH_LOG("%s", out);
	s = strtod(first + strlen("first="), &end);
	ASSERT_NE(first + strlen("first="), end) TH_LOG("%s", out);
	EXPECT_GE(s, 0.5) TH_LOG("%s", out);
}

/* The end before any match: "none". */
TEST_F(kmsg, none_when_the_end_comes_first)
{
	char out[512];

	static const char job[] =
		"echo \"kc-test: miss 2 ($$)\" > /dev/kmsg; echo \"$kmsg_end\" > /dev/kmsg; echo \"kc-test: hit 2 late ($$)\" > /dev/kmsg;";

	ASSERT_EQ(0, watched_job(2, "", job, "wait;", out, sizeof(out)))
		TH_LOG("%s", out);
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

	static const char job[] =
		"echo \"kc-test: hit 3 ($$)\" > /dev/kmsg; sleep 60; echo \"$kmsg_end\" > /dev/kmsg;";

	ASSERT_EQ(0, watched_job(3, "", job,
				 "kill -0 $job && echo during || echo after; kill $job;",
				 out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "during\n")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "first=none")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "first=\n")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
