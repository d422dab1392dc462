// SPDX-License-Identifier: GPL-2.0
/*
 * The report parser on kcollider's and KCSAN's reports, on broken ones,
 * and on a corpus of truncated and garbled reports derived from the
 * fixtures (built with ASan/UBSan: any bad access aborts the test).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "report_parse.h"

#define MAX_REPORTS 64

struct collected {
	int n;
	struct kc_report r[MAX_REPORTS];
};

static int collect(const struct kc_report *r, void *data)
{
	struct collected *c = data;

	if (c->n < MAX_REPORTS)
		c->r[c->n] = *r;
	c->n++;
	return 0;
}

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/reports/%s", KC_FIXTURES, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	*len = n;
	return buf;
}

/* Parse @len bytes of @buf (NULs included) as one log. */
static int parse_buf(const char *buf, size_t len, struct collected *c)
{
	unsigned long n = 0, bad = 0;
	FILE *f;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!len)
		return 0;
	f = fmemopen((void *)buf, len, "r");
	if (!f)
		return -1;
	ret = kc_parse_file(f, "buf", collect, c, &n, &bad);
	fclose(f);
	if (ret || n != (unsigned long)c->n)
		return -1;
	return 0;
}

static int parse_fixture(const char *name, struct collected *c)
{
	size_t len;
	char *buf = slurp(name, &len);
	int ret;

	if (!buf)
		return -1;
	ret = parse_buf(buf, len, c);
	free(buf);
	return ret;
}

static struct collected c;

TEST(kcollider_report_fields_and_precedence)
{
	const struct kc_report *r = &c.r[0];
	const struct kc_access *racer, *sampled;

	ASSERT_EQ(0, parse_fixture("kcollider_two_sided.log", &c));
	ASSERT_EQ(1, c.n);
	EXPECT_EQ(KC_REP_OK, r->status) TH_LOG("%s at %d", r->error, r->error_line);
	EXPECT_STREQ("KCOLLIDER", r->tool);
	EXPECT_STREQ("kc_r1_dec / kc_r1_inc", r->title);
	EXPECT_EQ(2, r->first_line);
	EXPECT_EQ(28, r->last_line);
	ASSERT_EQ(2, r->nacc);
	ASSERT_EQ(0, kc_report_racer(r));
	ASSERT_EQ(1, kc_report_sampled(r));
	racer = &r->acc[0];
	sampled = &r->acc[1];
	EXPECT_EQ(KC_ACC_TYPE_READ_WRITE, racer->type);
	EXPECT_EQ(0xffffffffc0a02010ULL, racer->addr);
	EXPECT_EQ(4, racer->size);
	EXPECT_EQ(211, racer->pid);
	EXPECT_EQ(1, racer->cpu);
	EXPECT_EQ(4, racer->nframes);
	EXPECT_STREQ("kc_r1_dec", racer->frames[0].func);
	EXPECT_EQ(0x12, racer->frames[0].off);
	EXPECT_STREQ("kc_planted", racer->frames[0].mod);
	EXPECT_STREQ("", racer->frames[2].mod);
	/* kcollider's racer: line wins over the after-the-access frame. */
	EXPECT_TRUE(racer->have_ip);
	EXPECT_FALSE(racer->top_is_after);
	EXPECT_EQ(0xffffffffc0a0010eULL, racer->ip);
	EXPECT_EQ(0xffffffffc0a00112ULL, racer->trap_ip);
	EXPECT_EQ(0xe, racer->sym.off);
	EXPECT_STREQ("kc_planted", racer->sym.mod);
	EXPECT_STREQ("sub", racer->op);
	EXPECT_EQ(0xffffffffc0a0000cULL, sampled->ip);
	EXPECT_EQ(0xc, sampled->sym.off);
	EXPECT_TRUE(r->has_value);
	EXPECT_EQ(5, r->old_value);
	EXPECT_EQ(4, r->new_value);
	ASSERT_TRUE(r->has_seq);
	EXPECT_EQ(17, r->seq);
	EXPECT_EQ(7, r->ntool);
	EXPECT_STREQ("812", kc_tool_line_get(kc_report_tool_line(r, "watch"),
					     "window_us"));
	EXPECT_STREQ("global", kc_report_tool_line(r, "object")->words);
	EXPECT_STREQ("harmful", kc_report_tool_line(r, "class")->words);
	/* each block's lines: the access line, then its stack */
	EXPECT_EQ(4, racer->line);
	EXPECT_EQ(8, racer->end_line);
	EXPECT_EQ(10, sampled->line);
	EXPECT_EQ(14, sampled->end_line);
	EXPECT_FALSE(r->benign_title);
}

/*
 * Which header a report had: report_style=kcsan prints a benign race in
 * full under a header without "BUG:". A block's context markers are
 * its lines too; a block without a stack is its access line.
 */
TEST(benign_header_and_block_lines)
{
	static const char log[] =
		"==================================================================\n"
		"KCOLLIDER: benign data-race in a / b\n"
		"\n"
		"read to 0x10 of 4 bytes by interrupt on cpu 0:\n"
		" <IRQ>\n"
		" a+0x1/0x10\n"
		" </IRQ>\n"
		"\n"
		"write to 0x10 of 4 bytes by task 2 on cpu 1:\n"
		"\n"
		"kcollider: class: benign filter=other-bits\n"
		"==================================================================\n"
		"BUG: KCSAN: data-race in a / b\n"
		"\n"
		"read to 0x10 of 4 bytes by task 1 on cpu 0:\n"
		" a+0x1/0x10\n"
		"\n"
		"write to 0x10 of 4 bytes by task 2 on cpu 1:\n"
		" b+0x1/0x10\n"
		"==================================================================\n";

	ASSERT_EQ(0, parse_buf(log, strlen(log), &c));
	ASSERT_EQ(2, c.n);
	EXPECT_EQ(KC_REP_OK, c.r[0].status) TH_LOG("%s at %d", c.r[0].error,
						  c.r[0].error_line);
	EXPECT_STREQ("KCOLLIDER", c.r[0].tool);
	EXPECT_TRUE(c.r[0].benign_title);
	EXPECT_EQ(4, c.r[0].acc[0].line);
	EXPECT_EQ(7, c.r[0].acc[0].end_line);
	EXPECT_EQ(1, c.r[0].acc[0].nframes);
	EXPECT_EQ(9, c.r[0].acc[1].line);
	EXPECT_EQ(9, c.r[0].acc[1].end_line);
	EXPECT_STREQ("KCSAN", c.r[1].tool);
	EXPECT_FALSE(c.r[1].benign_title);
	EXPECT_EQ(19, c.r[1].acc[1].end_line);
}

TEST(kcsan_reports_from_dmesg)
{
	const struct kc_report *r;

	ASSERT_EQ(0, parse_fixture("kcsan_dmesg.log", &c));
	ASSERT_EQ(3, c.n);
	r = &c.r[0];
	EXPECT_EQ(KC_REP_OK, r->status) TH_LOG("%s at %d", r->error, r->error_line);
	EXPECT_STREQ("KCSAN", r->tool);
	EXPECT_STREQ("test_kernel_read / test_kernel_write", r->title);
	ASSERT_EQ(2, r->nacc);
	/* Without kcollider's lines: racer's top frame is after its access. */
	EXPECT_TRUE(r->acc[0].top_is_after);
	EXPECT_FALSE(r->acc[0].have_ip);
	EXPECT_EQ(KC_ACC_TYPE_WRITE, r->acc[0].type);
	EXPECT_STREQ("test_kernel_write", r->acc[0].sym.func);
	EXPECT_EQ(0x1d, r->acc[0].sym.off);
	EXPECT_FALSE(r->acc[1].top_is_after);
	EXPECT_EQ(KC_ACC_TYPE_READ, r->acc[1].type);
	EXPECT_EQ(0x10, r->acc[1].sym.off);
	EXPECT_EQ(0x20, r->acc[1].sym.size);
	EXPECT_EQ(4, r->acc[1].nframes);
	EXPECT_EQ(0x9b2, r->new_value);

	r = &c.r[1];
	EXPECT_EQ(KC_REP_OK, r->status);
	EXPECT_TRUE(r->one_sided);
	EXPECT_EQ(1, r->nacc);
	EXPECT_EQ(-1, kc_report_racer(r));
	EXPECT_EQ(0, kc_report_sampled(r));
	EXPECT_FALSE(r->acc[0].top_is_after);
	EXPECT_EQ(515, r->acc[0].pid);

	r = &c.r[2];
	EXPECT_EQ(KC_REP_OK, r->status);
	EXPECT_TRUE(r->acc[0].interrupt);
	EXPECT_TRUE(r->acc[0].marked);
	EXPECT_EQ(-1, r->acc[0].pid);
	EXPECT_FALSE(r->has_value);
}

TEST(broken_reports_named_with_line)
{
	ASSERT_EQ(0, parse_fixture("bad.log", &c));
	ASSERT_EQ(3, c.n);
	EXPECT_EQ(KC_REP_MALFORMED, c.r[0].status);
	EXPECT_EQ(6, c.r[0].error_line);
	EXPECT_STREQ("bad stack frame", c.r[0].error);
	/* What could be read is kept. */
	EXPECT_EQ(2, c.r[0].nacc);
	EXPECT_EQ(2, c.r[0].acc[0].nframes);
	EXPECT_EQ(KC_REP_MALFORMED, c.r[1].status);
	EXPECT_EQ(19, c.r[1].error_line);
	EXPECT_EQ(KC_REP_TRUNCATED, c.r[2].status);
	EXPECT_EQ(20, c.r[2].first_line);
	EXPECT_EQ(26, c.r[2].error_line);
	EXPECT_EQ(2, c.r[2].nacc);
}

TEST(report_cut_by_next_header_is_truncated)
{
	static const char log[] =
		"BUG: KCSAN: data-race in a / b\n"
		"\n"
		"read to 0x10 of 4 bytes by task 1 on cpu 0:\n"
		" a+0x1/0x10\n"
		"BUG: KCSAN: data-race in c / d\n"
		"\n"
		"write to 0x10 of 4 bytes by task 1 on cpu 0:\n"
		" c+0x1/0x10\n"
		"\n"
		"read to 0x10 of 4 bytes by task 2 on cpu 1:\n"
		" d+0x1/0x10\n"
		"==================================================================\n";

	ASSERT_EQ(0, parse_buf(log, strlen(log), &c));
	ASSERT_EQ(2, c.n);
	EXPECT_EQ(KC_REP_TRUNCATED, c.r[0].status);
	EXPECT_EQ(5, c.r[0].error_line);
	EXPECT_EQ(KC_REP_OK, c.r[1].status);
	EXPECT_STREQ("c / d", c.r[1].title);
}

TEST(kmsg_and_syslog_prefixes)
{
	static const char log[] =
		"4,812,5000,-;BUG: KCOLLIDER: data-race in a / b\n"
		"<4>[    1.000000] write to 0x10 of 4 bytes by task 1 on cpu 0:\n"
		"[    1.000000][    T1]  a+0x1/0x10 [mymod]\n"
		"[    1.000000]\n"
		"read to 0x10 of 4 bytes by task 2 on cpu 1:\n"
		"  b+0x4/0x10\n"
		"kcollider: racer: unknown\n"
		"==================================================================\n";

	ASSERT_EQ(0, parse_buf(log, strlen(log), &c));
	ASSERT_EQ(1, c.n);
	EXPECT_EQ(KC_REP_OK, c.r[0].status) TH_LOG("%s at %d", c.r[0].error,
						  c.r[0].error_line);
	EXPECT_STREQ("mymod", c.r[0].acc[0].frames[0].mod);
	EXPECT_STREQ("b", c.r[0].acc[1].frames[0].func);
	EXPECT_TRUE(c.r[0].racer_unknown);
}

TEST(frame_syntax)
{
	struct kc_frame f;

	ASSERT_TRUE(kc_parse_frame("foo.cold+0x1a/0x2b0 [ext4]", &f));
	EXPECT_STREQ("foo.cold", f.func);
	EXPECT_EQ(0x1a, f.off);
	EXPECT_EQ(0x2b0, f.size);
	EXPECT_STREQ("ext4", f.mod);
	EXPECT_FALSE(kc_parse_frame("foo+0x1a", &f));
	EXPECT_FALSE(kc_parse_frame("foo+0x/0x2", &f));
	EXPECT_FALSE(kc_parse_frame("foo+0x1/0x2 []", &f));
	EXPECT_FALSE(kc_parse_frame("foo+0x1/0x2 [m", &f));
	EXPECT_FALSE(kc_parse_frame("+0x1/0x2", &f));
	EXPECT_FALSE(kc_parse_frame("", &f));
}

/* Deterministic pseudo-random numbers for the corpus. */
static unsigned int lcg(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

static void check_invariants(struct __test_metadata *_metadata,
			     const struct collected *k)
{
	int i, a;

	for (i = 0; i < k->n && i < MAX_REPORTS; i++) {
		const struct kc_report *r = &k->r[i];

		ASSERT_LE(r->nacc, 2);
		ASSERT_LE(r->ntool, KC_MAX_TOOL_LINES);
		ASSERT_LT(strlen(r->title), sizeof(r->title));
		if (r->status == KC_REP_OK) {
			ASSERT_GE(r->nacc, 1);
		} else {
			/* braces: the harness's ASSERT_* are loops, an "else" would bind wrong */
			ASSERT_GT(r->error_line, 0);
		}
		for (a = 0; a < r->nacc; a++)
			ASSERT_LE(r->acc[a].nframes, KC_MAX_FRAMES);
	}
}

static const char * const corpus_files[] = {
	"kcollider_two_sided.log", "kcsan_dmesg.log", "bad.log",
};

TEST(truncated_corpus_every_byte)
{
	size_t i, cut, len, last;
	int full;

	for (i = 0; i < ARRAY_SIZE(corpus_files); i++) {
		char *buf = slurp(corpus_files[i], &len);

		ASSERT_NE(NULL, buf);
		ASSERT_EQ(0, parse_buf(buf, len, &c));
		full = c.n;
		/* Where the closing rule's 20th '=' is: from there it closes. */
		for (last = len - 1; last && buf[last - 1] != '\n'; last--)
			;
		last += 20;
		for (cut = 0; cut < len; cut++) {
			ASSERT_EQ(0, parse_buf(buf, cut, &c));
			check_invariants(_metadata, &c);
			/* A cut never invents reports. */
			ASSERT_LE(c.n, full);
			/* A cut inside the last report makes it truncated. */
			if (c.n && cut < last && strstr(corpus_files[i], "kcollider"))
				ASSERT_EQ(KC_REP_TRUNCATED, c.r[c.n - 1].status);
		}
		free(buf);
	}
}

TEST(garbled_corpus)
{
	static const char junk[] = "=BUG: KCSAN: data-race in kcollider: :0x+/[]\x20\n\t\0\xff";
	unsigned int seed = 6;
	size_t i, len;
	int round, k, bad = 0;

	for (i = 0; i < ARRAY_SIZE(corpus_files); i++) {
		char *orig = slurp(corpus_files[i], &len);
		char *buf = malloc(len + 1);

		ASSERT_NE(NULL, orig);
		for (round = 0; round < 3000; round++) {
			memcpy(buf, orig, len);
			for (k = 0; k < 1 + round % 8; k++) {
				size_t at = lcg(&seed) % len;

				buf[at] = round & 1 ? junk[lcg(&seed) % (sizeof(junk) - 1)]
						    : (char)lcg(&seed);
			}
			ASSERT_EQ(0, parse_buf(buf, len, &c));
			check_invariants(_metadata, &c);
			for (k = 0; k < c.n && k < MAX_REPORTS; k++)
				bad += c.r[k].status != KC_REP_OK;
		}
		free(buf);
		free(orig);
	}
	/* The mutations do break reports, and they are named as broken. */
	EXPECT_GT(bad, 1000);
}

TEST(pathological_lines)
{
	size_t big = 1 << 20, i;
	char *buf = malloc(big);

	ASSERT_NE(NULL, buf);
	/* One huge header and one huge stack frame, no newlines at all. */
	memset(buf, 'A', big);
	memcpy(buf, "BUG: KCSAN: data-race in ", 25);
	ASSERT_EQ(0, parse_buf(buf, big, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_EQ(KC_REP_TRUNCATED, c.r[0].status);
	/* Thousands of frames: stored up to the limit, never beyond. */
	i = snprintf(buf, big, "BUG: KCSAN: data-race in a / b\n"
		     "read to 0x1 of 1 bytes by task 1 on cpu 0:\n");
	while (i + 32 < big)
		i += snprintf(buf + i, big - i, " f+0x1/0x2\n");
	ASSERT_EQ(0, parse_buf(buf, i, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_EQ(KC_MAX_FRAMES, c.r[0].acc[0].nframes);
	/* Oversized values: bounded, not rejected silently. */
	i = snprintf(buf, big, "BUG: KCSAN: data-race in a / b\n"
		     "read to 0x1 of 999999999999 bytes by task 1 on cpu 0:\n");
	ASSERT_EQ(0, parse_buf(buf, i, &c));
	EXPECT_EQ(KC_REP_TRUNCATED, c.r[0].status);
	EXPECT_STREQ("expected an access line", c.r[0].error);
	EXPECT_EQ(2, c.r[0].error_line);
	free(buf);
}

TEST_HARNESS_MAIN
