// SPDX-License-Identifier: GPL-2.0
/*
 * The operational x86-TSO checker against the known answers of the x86-TSO
 * papers' litmus tests (and SC, where TSO's store buffers make the
 * difference), plus the herd7 syntax round trip the --litmus output uses.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "litmus.h"

struct known {
	const char *file;
	bool tso, sc;	/* exists clause reachable? */
};

/* Owens/Sarkar/Sewell TPHOLs 2009 and the Intel/AMD manuals' examples. */
static const struct known known[] = {
	{ "SB", true, false },
	{ "SB-sc-outcome", true, true },
	{ "SB+mfences", false, false },
	{ "SB+lockadds", false, false },
	{ "SB+xchgs", false, false },
	{ "SB+rfi", true, false },
	{ "MP", false, false },
	{ "LB", false, false },
	{ "IRIW", false, false },
	{ "WRC", false, false },
	{ "iwp2.6", false, false },
	{ "n4", false, false },
	{ "n5", false, false },
	{ "n6", true, false },
};

static int load(const char *name, struct litmus *t, char *err, size_t len)
{
	char path[512];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/litmus/%s.litmus", KC_FIXTURES, name);
	f = fopen(path, "r");
	if (!f)
		return snprintf(err, len, "cannot open %.100s", path), -1;
	ret = lit_parse_file(f, t, err, len);
	fclose(f);
	return ret;
}

TEST(known_answers)
{
	struct lit_result tso, sc;
	struct litmus t;
	char err[160];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++) {
		ASSERT_EQ(0, load(known[i].file, &t, err, sizeof(err)))
			TH_LOG("%s: %s", known[i].file, err);
		ASSERT_EQ(0, lit_check(&t, LIT_TSO, &tso));
		ASSERT_EQ(0, lit_check(&t, LIT_SC, &sc));
		EXPECT_EQ(known[i].tso, tso.reachable) TH_LOG("%s under TSO", t.name);
		EXPECT_EQ(known[i].sc, sc.reachable) TH_LOG("%s under SC", t.name);
		/* Never vacuous: the tests have several outcomes. */
		EXPECT_GT(tso.finals, 1) TH_LOG("%s", t.name);
		/* Every SC outcome is a TSO outcome. */
		EXPECT_GE(tso.finals, sc.finals) TH_LOG("%s", t.name);
		if (sc.reachable)
			EXPECT_TRUE(tso.reachable);
	}
}

TEST(one_fence_is_not_enough)
{
	static const char text[] =
		"X86 SB+mfence+po\n"
		"{ x=0; y=0; }\n"
		" P0          | P1          ;\n"
		" MOV [x],$1  | MOV [y],$1  ;\n"
		" MFENCE      | MOV EAX,[x] ;\n"
		" MOV EAX,[y] |             ;\n"
		"exists (0:EAX=0 /\\ 1:EAX=0)\n";
	struct lit_result r;
	struct litmus t;
	char err[160];

	ASSERT_EQ(0, lit_parse(text, &t, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(2, t.nthreads);
	ASSERT_EQ(3, t.t[0].n);
	ASSERT_EQ(2, t.t[1].n);
	ASSERT_EQ(0, lit_check(&t, LIT_TSO, &r));
	EXPECT_TRUE(r.reachable);
	ASSERT_EQ(0, lit_check(&t, LIT_SC, &r));
	EXPECT_FALSE(r.reachable);
}

TEST(forwarding_reads_own_store)
{
	static const char text[] =
		"X86 fwd\n"
		"{ x=0; }\n"
		" P0          | P1          ;\n"
		" MOV [x],$1  | MOV EAX,[x] ;\n"
		" MOV EAX,[x] |             ;\n"
		"exists (0:EAX=0)\n";
	struct lit_result r;
	struct litmus t;
	char err[160];

	ASSERT_EQ(0, lit_parse(text, &t, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, lit_check(&t, LIT_TSO, &r));
	/* A thread always sees its own latest store. */
	EXPECT_FALSE(r.reachable);
	/* Final memory terms: x ends as 1 in every run. */
	t.terms[0].thread = -1;
	t.terms[0].loc = lit_loc(&t, "x");
	t.terms[0].val = 1;
	ASSERT_EQ(0, lit_check(&t, LIT_TSO, &r));
	EXPECT_EQ(r.finals, r.positive);
}

TEST(print_parse_round_trip)
{
	struct lit_result a, b;
	struct litmus t, u;
	char err[160], *buf;
	size_t i, len;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(known); i++) {
		ASSERT_EQ(0, load(known[i].file, &t, err, sizeof(err)));
		buf = NULL;
		f = open_memstream(&buf, &len);
		ASSERT_NE(NULL, f);
		lit_print(f, &t);
		fclose(f);
		ASSERT_EQ(0, lit_parse(buf, &u, err, sizeof(err)))
			TH_LOG("%s: %s\n%s", t.name, err, buf);
		EXPECT_STREQ(t.name, u.name);
		EXPECT_EQ(t.nthreads, u.nthreads);
		EXPECT_EQ(0, memcmp(t.t, u.t, sizeof(t.t))) TH_LOG("%s", buf);
		ASSERT_EQ(0, lit_check(&t, LIT_TSO, &a));
		ASSERT_EQ(0, lit_check(&u, LIT_TSO, &b));
		EXPECT_EQ(a.reachable, b.reachable);
		EXPECT_EQ(a.finals, b.finals);
		free(buf);
	}
}

TEST(parse_errors)
{
	static const char * const bad[] = {
		"",
		"ARM SB\n{}\n P0 ;\n MOV [x],$1 ;\nexists (x=1)\n",
		"X86 t\n{ x=0; }\n P0 ;\n MOV [x],$1 ;\n",
		"X86 t\n{ x=0; }\n P0 ;\n FOO [x],$1 ;\nexists ([x]=1)\n",
		"X86 t\n{ x=0; }\n P0 ;\n MOV [x],$1 | MOV [x],$2 ;\nexists ([x]=1)\n",
		"X86 t\n{ x=0; }\n P1 ;\n MOV [x],$1 ;\nexists ([x]=1)\n",
		"X86 t\n{ x=0; }\n P0 ;\n MOV [x],$1 ;\nexists (3:EAX=1)\n",
	};
	struct litmus t;
	char err[160];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		EXPECT_EQ(-1, lit_parse(bad[i], &t, err, sizeof(err))) TH_LOG("case %zu", i);
		EXPECT_NE(0, err[0]);
	}
}

/* A file is read whole (an 8 KiB buffer once cut it), and has a limit. */
TEST(file_read_whole_or_refused)
{
	static const char head[] = "X86 SB\n{ x=0; y=0; }\n"
		" P0          | P1          ;\n"
		" MOV [x],$1  | MOV [y],$1  ;\n"
		" MOV EAX,[y] | MOV EAX,[x] ;\n";
	static const char tail[] = "exists (0:EAX=0 /\\ 1:EAX=0)\n";
	size_t pad = 20000, big = (1 << 20) + 1, len;
	struct lit_result r;
	struct litmus t;
	char err[160], *text = malloc(big + sizeof(head) + sizeof(tail));
	FILE *f;

	ASSERT_NE(NULL, text);
	/* blank lines are skipped: the exists clause is 20000 bytes down */
	strcpy(text, head);
	memset(text + strlen(head), '\n', pad);
	strcpy(text + strlen(head) + pad, tail);
	len = strlen(text);
	f = fmemopen(text, len, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, lit_parse_file(f, &t, err, sizeof(err))) TH_LOG("%s", err);
	fclose(f);
	ASSERT_EQ(0, lit_check(&t, LIT_TSO, &r));
	EXPECT_TRUE(r.reachable);
	/* over the limit: said so, not parsed from its first part */
	memset(text + strlen(head), '\n', big);
	strcpy(text + strlen(head) + big, tail);
	f = fmemopen(text, strlen(text), "r");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(-1, lit_parse_file(f, &t, err, sizeof(err)));
	fclose(f);
	EXPECT_NE(NULL, strstr(err, "not a litmus test")) TH_LOG("%s", err);
	free(text);
}

TEST_HARNESS_MAIN
