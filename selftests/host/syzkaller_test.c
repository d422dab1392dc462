// SPDX-License-Identifier: GPL-2.0
/*
 * syzkaller compatibility of the report styles (issue 13): what syzkaller's
 * Linux report parser, reimplemented in syz_title.h, makes of KCSAN's own
 * reports, of kcollider's default style and of report_style=kcsan. The
 * kcsan-style texts are built from the constants the module prints
 * (include/kcollider/report.h); the in-VM report_style_test checks the
 * module's real output with the same parser.
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
	EXPECT_FALSE(syz_parse("kcollider: benign: filter=lossy-counter sampled=a "
			       "racer=b addr=0xffff888003a1c000 seq=3\n", &c));
	/* The CLI still reads the benign full report as a report. */
	ASSERT_EQ(0, cli_json(log, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\"status\":\"ok\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"class\":{\"value\":\"benign\",\"filter\":\"lossy-counter\"}"));
	free(log);
	free(full);
	free(base);
}

TEST_HARNESS_MAIN
