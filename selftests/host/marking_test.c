// SPDX-License-Identifier: GPL-2.0
/*
 * Markings from the source: the line scanner on its own, then
 * "kcollider report -M" on reports naming the accesses of a module-like
 * object (selftests/fixtures/marking/fxmark.c) whose instructions are all
 * plain movs: only DWARF and the source tell READ_ONCE() from plain.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "exempt.h"
#include "kselftest_harness.h"
#include "markers.h"
#include "marking.h"

#define KC KC_TOP "/user/kcollider"
#define LOG KC_MARK_FX_SRC "/reports.log"

static char out[1 << 16];

static int run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The text of report @n ("#n ...") up to the next one. */
static char *report_n(int n)
{
	static char one[8192];
	char head[16], *p, *end;

	snprintf(head, sizeof(head), "#%d ", n);
	p = strstr(out, head);
	if (!p)
		return NULL;
	end = strstr(p + 1, "\n#");
	snprintf(one, sizeof(one), "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
	return one;
}

static const char *marker(const char *line, enum kc_mark_kind *k)
{
	return kc_marker_in_line(line, 0, k);
}

TEST(line_scanner)
{
	enum kc_mark_kind k;

	ASSERT_STREQ("READ_ONCE", marker("\treturn READ_ONCE(p->x);", &k));
	ASSERT_EQ(KC_MARK_MARKED, k);
	ASSERT_STREQ("data_race", marker("v = READ_ONCE(a) + data_race(b);", &k));
	ASSERT_EQ(KC_MARK_DATA_RACE, k);
	ASSERT_STREQ("atomic64_read", marker("n = atomic64_read(&s->n);", &k));
	ASSERT_STREQ("rcu_dereference_check", marker("p = rcu_dereference_check(x, 1);", &k));
	ASSERT_STREQ("local_inc", marker("\tlocal_inc(&part->in_flight);", &k));
	ASSERT_EQ(KC_MARK_MARKED, k);
	/* not markers: the protected form, a comment, a string, a non-call */
	ASSERT_EQ(NULL, marker("p = rcu_dereference_protected(x, 1);", &k));
	ASSERT_EQ(KC_MARK_PLAIN, k);
	ASSERT_EQ(NULL, marker("x = y; /* READ_ONCE(y) not needed */", &k));
	ASSERT_EQ(NULL, marker("pr_info(\"READ_ONCE(%d)\", x); // WRITE_ONCE(", &k));
	ASSERT_EQ(NULL, marker("int READ_ONCE_count = READ_ONCEx(y);", &k));
	ASSERT_EQ(NULL, marker("atomic_inc_read(v); atomic_reader(v);", &k));
	ASSERT_EQ(NULL, marker("local_irq_save(flags); local_lock(&l);", &k));
}

/* With DWARF's column: only a marker whose call spans it counts. */
TEST(line_scanner_by_column)
{
	/* 1-based, a tab is one: "+=" at 4, READ_ONCE at 7, b at 17 */
	const char *line = "\tc += READ_ONCE(b); /* ) */";
	enum kc_mark_kind k;

	EXPECT_EQ(NULL, kc_marker_in_line(line, 4, &k));
	EXPECT_EQ(KC_MARK_PLAIN, k);
	EXPECT_STREQ("READ_ONCE", kc_marker_in_line(line, 7, &k));
	EXPECT_STREQ("READ_ONCE", kc_marker_in_line(line, 17, &k));
	EXPECT_STREQ("READ_ONCE", kc_marker_in_line(line, 18, &k));
	EXPECT_EQ(NULL, kc_marker_in_line(line, 19, &k));
	/* nested calls: the innermost marker's parenthesis closes it */
	line = "x = f(READ_ONCE(g(a)), b) + data_race(y);";
	EXPECT_STREQ("READ_ONCE", kc_marker_in_line(line, 7, &k));
	EXPECT_STREQ("READ_ONCE", kc_marker_in_line(line, 21, &k));
	EXPECT_EQ(NULL, kc_marker_in_line(line, 24, &k));
	EXPECT_STREQ("data_race", kc_marker_in_line(line, 30, &k));
	EXPECT_EQ(KC_MARK_DATA_RACE, k);
	/* an access in nested macros has the outermost one's column */
	line = "\treturn unlikely(READ_ONCE(s->sequence) != start);";
	EXPECT_STREQ("READ_ONCE", kc_marker_in_line(line, 9, &k));
	line = "\t    likely(!(READ_ONCE(p->flags) & PF_NO_NOTIFY_SIGNAL)))";
	EXPECT_STREQ("READ_ONCE", kc_marker_in_line(line, 6, &k));
	/* a compare that took the load: the column of the if's "(" */
	line = "\tif (!data_race(journal->j_running_transaction)) {";
	EXPECT_STREQ("data_race", kc_marker_in_line(line, 5, &k));
	line = "\tif (!fetch(j->t)) {";
	EXPECT_EQ(NULL, kc_marker_in_line(line, 5, &k));
	line = "\tif (!data_race(a) && b->c) {";
	EXPECT_EQ(NULL, kc_marker_in_line(line, 5, &k));
	line = "\tc = foo(b) + READ_ONCE(a);";
	EXPECT_EQ(NULL, kc_marker_in_line(line, 6, &k));
	EXPECT_EQ(NULL, kc_marker_in_line(line, 7, &k));
	/* a call the line does not close runs to its end */
	EXPECT_STREQ("WRITE_ONCE", kc_marker_in_line("\tWRITE_ONCE(p->x,", 15, &k));
}

/*
 * Report @n has @has and, with @verdict, that verdict text; without, no
 * verdict at all.
 */
static void check_report(struct __test_metadata *_metadata, int n,
			 const char *has, const char *verdict)
{
	const char *r = report_n(n);

	ASSERT_NE(NULL, r) TH_LOG("no report #%d in:\n%s", n, out);
	EXPECT_NE(NULL, strstr(r, has)) TH_LOG("%s", r);
	if (verdict) {
		EXPECT_NE(NULL, strstr(r, verdict)) TH_LOG("%s", r);
		return;
	}
	EXPECT_EQ(NULL, strstr(r, "verdict")) TH_LOG("%s", r);
}

TEST(pairs_from_the_source)
{
	char *r;

	ASSERT_EQ(0, run(KC " report -M " KC_MARK_FX_DIR " " LOG)) TH_LOG("%s", out);

	r = report_n(1);	/* READ_ONCE vs WRITE_ONCE */
	ASSERT_NE(NULL, r);
	EXPECT_NE(NULL, strstr(r, "racer=WRITE_ONCE (fxmark.c:")) TH_LOG("%s", r);
	EXPECT_NE(NULL, strstr(r, "sampled=READ_ONCE (fxmark.c:")) TH_LOG("%s", r);
	EXPECT_NE(NULL, strstr(r, "verdict  benign filter=marked: both")) TH_LOG("%s", r);

	r = report_n(2);	/* one plain side: a race, as KCSAN says */
	ASSERT_NE(NULL, r);
	EXPECT_NE(NULL, strstr(r, "sampled=plain (fxmark.c:")) TH_LOG("%s", r);
	EXPECT_EQ(NULL, strstr(r, "verdict")) TH_LOG("%s", r);

	r = report_n(3);	/* data_race() on one side suffices */
	ASSERT_NE(NULL, r);
	EXPECT_NE(NULL, strstr(r, "racer=plain")) TH_LOG("%s", r);
	EXPECT_NE(NULL, strstr(r, "sampled=data_race")) TH_LOG("%s", r);
	EXPECT_NE(NULL, strstr(r, "benign filter=marked: inside data_race()")) TH_LOG("%s", r);

	/*
	 * The inlined helper's own line is the access's; against a plain
	 * aligned store, which KCSAN takes as atomic, no race to KCSAN.
	 */
	r = report_n(4);
	ASSERT_NE(NULL, r);
	EXPECT_NE(NULL, strstr(r, "sampled=READ_ONCE (fxmark.c:")) TH_LOG("%s", r);
	EXPECT_NE(NULL, strstr(r, "verdict  benign filter=marked: a marked read against a plain aligned word write"))
		TH_LOG("%s", r);

	r = report_n(5);	/* no object file: unknown, the class stands */
	ASSERT_NE(NULL, r);
	EXPECT_NE(NULL, strstr(r, "racer=unknown (no fx_absent.ko")) TH_LOG("%s", r);
	EXPECT_EQ(NULL, strstr(r, "verdict")) TH_LOG("%s", r);

	/* KCSAN's frames: after the __tsan call */
	check_report(_metadata, 6, "sampled=READ_ONCE",
		     "verdict  benign filter=marked");

	/* one-sided: KCSAN never watches a marked access, only plain ones */
	check_report(_metadata, 7, "marking  sampled=READ_ONCE",
		     "benign filter=marked: the access is marked");
	check_report(_metadata, 8, "marking  sampled=plain", NULL);

	/* "fx_total += READ_ONCE(fx_flag);": the load is marked, the add not */
	check_report(_metadata, 9, "marking  sampled=READ_ONCE",
		     "benign filter=marked");
	check_report(_metadata, 10, "marking  sampled=plain", NULL);

	/*
	 * READ_ONCE vs a plain aligned 4-byte store: KCSAN takes the store
	 * as atomic (ASSUME_PLAIN_WRITES_ATOMIC), no race; misaligned, one.
	 * The plain read against WRITE_ONCE (#2) stays a race, and so does a
	 * plain store against WRITE_ONCE (#13): KCSAN hides that one.
	 */
	check_report(_metadata, 11, "racer=plain (fxmark.c:",
		     "benign filter=marked: a marked read against a plain aligned word write");
	check_report(_metadata, 12, "racer=plain (fxmark.c:", NULL);
	check_report(_metadata, 13, "racer=WRITE_ONCE (fxmark.c:", NULL);
	check_report(_metadata, 13, "sampled=plain (fxmark.c:", NULL);
}

TEST(json_verdict_and_group_rank)
{
	ASSERT_EQ(0, run(KC " --json report -M " KC_MARK_FX_DIR " " LOG)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"verdict\":{\"class\":\"benign\",\"filter\":\"marked\",\"by\":\"source\"}"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"verdict\":{\"class\":\"harmful\",\"filter\":null,\"by\":\"report\"}"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "{\"role\":\"sampled\",\"kind\":\"data_race\",\"marker\":\"data_race\""))
		TH_LOG("%s", out);

	/* marked pairs rank after every harmful kind */
	ASSERT_EQ(0, run(KC " report group -M " KC_MARK_FX_DIR " " LOG)) TH_LOG("%s", out);
	ASSERT_NE(NULL, strstr(out, "load-store")) TH_LOG("%s", out);
	ASSERT_NE(NULL, strstr(out, "marked")) TH_LOG("%s", out);
	EXPECT_LT(strstr(out, "load-store"), strstr(out, "marked")) TH_LOG("%s", out);
}

TEST(source_moved_is_found_under_S)
{
	char dir[] = "/tmp/kc_marking_XXXXXX", cmd[8192];

	ASSERT_NE(NULL, mkdtemp(dir));
	/* a copy of the object whose DWARF names a path that is then gone */
	static const char script[] =
		"set -e; d=%s; mkdir -p $d/src/sub $d/mods; "
		"cp %s/fxmark.c $d/src/sub/; cd $d/src/sub; "
		"cc -c -O2 -g -fcf-protection=none -fno-asynchronous-unwind-tables -o $d/mods/fxmark.ko fxmark.c; "
		"mv $d/src $d/moved";

	snprintf(cmd, sizeof(cmd), script, dir, KC_MARK_FX_SRC);
	ASSERT_EQ(0, system(cmd));

	snprintf(cmd, sizeof(cmd), KC " report -M %s/mods " LOG, dir);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "source not found:")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "verdict")) TH_LOG("%s", out);

	snprintf(cmd, sizeof(cmd), KC " report -M %s/mods -S %s/moved " LOG, dir, dir);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(1), "verdict  benign filter=marked")) TH_LOG("%s", out);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(0, system(cmd));
}

/*
 * KCSAN_SANITIZE as Kbuild reads it: a directory's rule for its own
 * objects only, an object's own rule first; both assignment forms, any
 * blanks; what is no such rule changes nothing.
 */
TEST(exempt_rules_of_makefiles)
{
	struct kc_exempt *x = kc_exempt_new();

	ASSERT_NE(NULL, x);
	EXPECT_FALSE(kc_exempt_cu(x, "kernel/sched/core.c"));
	ASSERT_EQ(0, kc_exempt_add_makefile(x, "kernel/sched",
		"# Disable KCSAN to avoid excessive noise\n"
		"KCSAN_SANITIZE := n\n"
		"KCSAN_SANITIZE_clock.o\t\t:= y\n"));
	ASSERT_EQ(0, kc_exempt_add_makefile(x, "kernel",
		"KCSAN_SANITIZE_softirq.o = n\n"
		"KCSAN_SANITIZEX := n\n"
		"KCSAN_SANITIZE_kcov.o := $(KCOV_OFF)\n"
		"  KCSAN_SANITIZE_stackleak.o := n # not this one's\n"
		"KCSAN_INSTRUMENT_BARRIERS := y\n"));
	EXPECT_EQ(4, kc_exempt_rules(x));
	EXPECT_TRUE(kc_exempt_cu(x, "kernel/sched/core.c"));
	EXPECT_FALSE(kc_exempt_cu(x, "kernel/sched/clock.c"));
	EXPECT_TRUE(kc_exempt_cu(x, "kernel/softirq.c"));
	EXPECT_TRUE(kc_exempt_cu(x, "kernel/stackleak.c"));
	EXPECT_FALSE(kc_exempt_cu(x, "kernel/kcov.c"));
	/* a directory's rule is not its subdirectories' nor its parent's */
	EXPECT_FALSE(kc_exempt_cu(x, "kernel/sched/sub/x.c"));
	EXPECT_FALSE(kc_exempt_cu(x, "kernel/fork.c"));
	/* a relative name is the tree's path; an absolute one ends in it */
	EXPECT_FALSE(kc_exempt_cu(x, "arch/x86/kernel/softirq.c"));
	EXPECT_TRUE(kc_exempt_cu(x, "/build/linux-6.1/kernel/sched/fair.c"));
	EXPECT_FALSE(kc_exempt_cu(x, "/build/linux-6.1/kernel/sched_x/fair.c"));
	EXPECT_FALSE(kc_exempt_cu(x, NULL));
	kc_exempt_free(x);
}

/*
 * Takes the "analysed" lines (the functions read) out of out, which then
 * holds only the ranges the source marks or exempts; returns whether
 * @want (a line's start, e.g. ".text+0x20 ") was one of them.
 */
static bool drop_analysed(const char *want)
{
	char *r = out, *w = out, *nl;
	bool found = false;

	while (*r) {
		size_t n;

		nl = strchr(r, '\n');
		n = nl ? (size_t)(nl - r + 1) : strlen(r);
		if (*r != '#' && n > 10 &&
		    !strncmp(r + n - (nl ? 10 : 9), " analysed", 9)) {
			found |= want && !strncmp(r, want, strlen(want));
		} else {
			memmove(w, r, n);
			w += n;
		}
		r += n;
	}
	*w = '\0';
	return found;
}

/* The first line of out that starts with "0x<@addr> ", or "". */
static const char *range_at(unsigned long addr)
{
	static char line[256];
	char want[64];
	const char *p, *end;

	snprintf(want, sizeof(want), "0x%lx ", addr);
	p = strstr(out, want);
	if (!p || (p != out && p[-1] != '\n'))
		return "";
	end = strchr(p, '\n');
	snprintf(line, sizeof(line), "%.*s",
		 (int)(end ? end - p : (long)strlen(p)), p);
	return line;
}

/* Whether range line @line ends in " @kind". */
static bool range_is(const char *line, const char *kind)
{
	size_t n = strlen(line), k = strlen(kind);

	return n > k && line[n - k - 1] == ' ' && !strcmp(line + n - k, kind);
}

static unsigned long nm_addr(const char *elf, const char *func);

/*
 * "mark -V -S": the tree's Makefiles build fx_exempt_read's unit and
 * fx_all_write's directory without KCSAN: each function is one exempt
 * range, whatever its source marks, while fx_kept_read (same directory,
 * no rule) and fx_back_read (its own rule takes it back) keep their
 * READ_ONCE()'s marked range. Without -S (no Makefile, and no source
 * found for these relative paths) no range is exempt.
 */
TEST(mark_vmlinux_exempt_units)
{
	const char *img = KC_MARK_FX_DIR "/fxexempt-vmlinux";
	unsigned long exempt = nm_addr(img, "fx_exempt_read");
	unsigned long all = nm_addr(img, "fx_all_write");
	unsigned long kept = nm_addr(img, "fx_kept_read");
	unsigned long back = nm_addr(img, "fx_back_read");

	ASSERT_NE(0, exempt);
	ASSERT_NE(0, all);
	ASSERT_NE(0, kept);
	ASSERT_NE(0, back);
	ASSERT_EQ(0, run(KC " mark -n -V " KC_MARK_FX_DIR "/fxexempt-vmlinux -S "
			 KC_MARK_FX_SRC "/exempt -f 'fx_*'")) TH_LOG("%s", out);
	EXPECT_TRUE(range_is(range_at(exempt), "exempt")) TH_LOG("%s", out);
	EXPECT_TRUE(range_is(range_at(all), "exempt")) TH_LOG("%s", out);
	EXPECT_TRUE(range_is(range_at(kept), "marked")) TH_LOG("%s", out);
	EXPECT_TRUE(range_is(range_at(back), "marked")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# vmlinux: 4 ranges (2 marked, 0 data_race, 2 exempt)"))
		TH_LOG("%s", out);

	ASSERT_EQ(0, run(KC " mark -n -V " KC_MARK_FX_DIR "/fxexempt-vmlinux -f 'fx_*'"))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, " exempt\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ", 0 exempt)")) TH_LOG("%s", out);
}

/* A two-sided report of the image's code: @racer wrote, @sampled read. */
static void image_report(FILE *f, const char *sampled, const char *racer,
			  bool changed)
{
	const char *rule = "==================================================================";

	fprintf(f, "%s\nBUG: KCOLLIDER: data-race in %s / %s\n\n", rule,
		sampled, racer);
	fprintf(f, "write to 0xffffffff82002010 of 4 bytes by task 211 on cpu 1:\n");
	fprintf(f, " %s\n kthread+0xd7/0x100\n\n", racer);
	fprintf(f, "read to 0xffffffff82002010 of 4 bytes by task 210 on cpu 0:\n");
	fprintf(f, " %s\n kthread+0xd7/0x100\n\n", sampled);
	if (changed)
		fprintf(f, "value changed: 0x00000005 -> 0x00000004\n\n");
	fprintf(f, "kcollider: class: harmful\n\nReported by kcollider on:\n");
	fprintf(f, "CPU: 0 PID: 210 Comm: kc_r1/0 Tainted: G OE 6.1.0-57-amd64\n");
	fprintf(f, "%s\n", rule);
}

/* A new reports.log, @log, in a new directory made from template @dir. */
static FILE *new_log(char *dir, char *log, size_t size)
{
	if (!mkdtemp(dir))
		return NULL;
	snprintf(log, size, "%s/reports.log", dir);
	return fopen(log, "w");
}

/*
 * "report -V -S": the module's exempt filter, offline. The sampled access
 * in exempt code is benign; so is an exempt racer whose write changed
 * nothing seen, but not one that changed the value (KCSAN would report
 * that, at unknown origin).
 */
TEST(report_exempt_verdict)
{
	char dir[] = "/tmp/kc_exempt_XXXXXX", log[64], cmd[8192];
	FILE *f;

	f = new_log(dir, log, sizeof(log));
	ASSERT_NE(NULL, f);
	image_report(f, "fx_exempt_read+0x0/0xd", "fx_all_write+0x6/0x7", false);
	image_report(f, "fx_kept_read+0x0/0x6", "fx_all_write+0x6/0x7", false);
	image_report(f, "fx_kept_read+0x0/0x6", "fx_all_write+0x6/0x7", true);
	fclose(f);
	snprintf(cmd, sizeof(cmd), KC " report -V " KC_MARK_FX_DIR
		 "/fxexempt-vmlinux -S " KC_MARK_FX_SRC "/exempt %s", log);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(1), "sampled=exempt (sub/fxexempt.c)"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(1), "verdict  benign filter=exempt: "))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(2), "sampled=READ_ONCE ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(2), "verdict  benign filter=exempt: "))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(3), "racer=exempt (")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(report_n(3), "verdict")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(0, system(cmd));
}

/*
 * seqlock.h's helpers are macro-made: the reader's READ_ONCE() is in the
 * macro's body, and its rows name the line invoking the macro. The
 * count's read and its writer's plain increment are both seqlock.h's
 * code, which KCSAN takes as atomic: both are marked ranges, and their
 * pair is benign; a plain access of the guarded data stays plain.
 */
TEST(seqcount_code_is_marked)
{
	const char *img = KC_MARK_FX_DIR "/fxseq-vmlinux";
	unsigned long reader = nm_addr(img, "fx_seq_read");
	unsigned long writer = nm_addr(img, "fx_seq_write");
	unsigned long data = nm_addr(img, "fx_seq_data");
	char dir[] = "/tmp/kc_seq_XXXXXX", log[64], cmd[8192];
	FILE *f;

	ASSERT_NE(0, reader);
	ASSERT_NE(0, writer);
	ASSERT_NE(0, data);
	ASSERT_EQ(0, run(KC " mark -n -V " KC_MARK_FX_DIR "/fxseq-vmlinux -f 'fx_*'"))
		TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "0x%lx ", reader);
	EXPECT_TRUE(drop_analysed(cmd)) TH_LOG("%s", out);
	EXPECT_TRUE(range_is(range_at(reader), "marked")) TH_LOG("%s", out);
	EXPECT_TRUE(range_is(range_at(writer), "marked")) TH_LOG("%s", out);
	EXPECT_STREQ("", range_at(data)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# vmlinux: 2 ranges (2 marked,")) TH_LOG("%s", out);

	f = new_log(dir, log, sizeof(log));
	ASSERT_NE(NULL, f);
	image_report(f, "fx_seq_read+0x10/0x17", "fx_seq_write+0x7/0x8", true);
	image_report(f, "fx_seq_data+0x0/0x8", "fx_seq_write+0x7/0x8", true);
	fclose(f);
	snprintf(cmd, sizeof(cmd), KC " report -V " KC_MARK_FX_DIR
		 "/fxseq-vmlinux %s", log);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(1), "sampled=seqcount (seqlock.h:"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(1), "racer=seqcount (seqlock.h:"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(1), "verdict  benign filter=marked"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(2), "sampled=plain (fxseq.c:"))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(report_n(2), "verdict")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(0, system(cmd));
}

/*
 * local_t's increment is an asm statement in asm/local.h, no LOCK, and
 * KCSAN never sees it: a marked range. The plain read of the same counter
 * from another CPU stays plain, and the pair is a race, as to KCSAN
 * (a plain read against an access it takes as atomic).
 */
TEST(local_t_code_is_marked)
{
	const char *img = KC_MARK_FX_DIR "/fxlocal-vmlinux";
	unsigned long inc = nm_addr(img, "fx_local_inc");
	unsigned long peek = nm_addr(img, "fx_local_peek");
	char dir[] = "/tmp/kc_local_XXXXXX", log[64], cmd[8192];
	FILE *f;

	ASSERT_NE(0, inc);
	ASSERT_NE(0, peek);
	ASSERT_EQ(0, run(KC " mark -n -V " KC_MARK_FX_DIR "/fxlocal-vmlinux -f 'fx_*'"))
		TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "0x%lx ", inc);
	EXPECT_TRUE(drop_analysed(cmd)) TH_LOG("%s", out);
	EXPECT_TRUE(range_is(range_at(inc), "marked")) TH_LOG("%s", out);
	EXPECT_STREQ("", range_at(peek)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# vmlinux: 1 ranges (1 marked,")) TH_LOG("%s", out);

	f = new_log(dir, log, sizeof(log));
	ASSERT_NE(NULL, f);
	image_report(f, "fx_local_peek+0x0/0x8", "fx_local_inc+0x7/0x8", true);
	fclose(f);
	snprintf(cmd, sizeof(cmd), KC " report -V " KC_MARK_FX_DIR
		 "/fxlocal-vmlinux %s", log);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(1), "sampled=plain (fxlocal.c:"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(report_n(1), "racer=local_t (local.h:"))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(report_n(1), "verdict")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(0, system(cmd));
}

/* "mark -n": the ranges of the object, and a clear error without DWARF. */
TEST(mark_dry_run_ranges_and_no_dwarf)
{
	char dir[] = "/tmp/kc_marking_XXXXXX", cmd[8192];

	ASSERT_EQ(0, run(KC " mark -n -M " KC_MARK_FX_DIR " fxmark")) TH_LOG("%s", out);
	/* every function was read, the plain load's included */
	EXPECT_NE(NULL, strstr(out, "), 11 analysed\n")) TH_LOG("%s", out);
	EXPECT_TRUE(drop_analysed(".text+0x20 ")) TH_LOG("%s", out);
	/* READ_ONCE, WRITE_ONCE, the inlined helper's READ_ONCE: marked */
	EXPECT_NE(NULL, strstr(out, ".text+0x0 ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ".text+0x10 ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ".text+0x40 ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " data_race\n")) TH_LOG("%s", out);
	/* the plain load and store (0x20, 0x30) are not ranges */
	EXPECT_EQ(NULL, strstr(out, ".text+0x20 ")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, ".text+0x30 ")) TH_LOG("%s", out);
	/* fx_mixed_line: READ_ONCE's 6-byte load, not the add in its line */
	EXPECT_NE(NULL, strstr(out, ".text+0x60 6 marked\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# fxmark: ")) TH_LOG("%s", out);

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "objcopy --strip-debug " KC_MARK_FX_DIR
		 "/fxmark.ko %s/fxmark.ko", dir);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), KC " mark -n -M %s fxmark 2>&1", dir);
	EXPECT_EQ(1, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "fxmark.ko has no DWARF line info")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(2, run(KC " mark 2>&1")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "no -M DIR, no -V ELF and no --load FILE")) TH_LOG("%s", out);
}

/* nm's address of @func in @elf, 0 when absent. */
static unsigned long nm_addr(const char *elf, const char *func)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "nm %s", elf);
	if (run(cmd))
		return 0;
	snprintf(cmd, sizeof(cmd), " T %s\n", func);
	return strstr(out, cmd) ? strtoul(strstr(out, cmd) - 16, NULL, 16) : 0;
}

/* "mark -V": the kernel image's ranges, at link-time addresses, by glob. */
TEST(mark_vmlinux_ranges_by_function_glob)
{
	const char *img = KC_MARK_FX_DIR "/fxvmlinux";
	unsigned long once = nm_addr(img, "fx_read_once");
	unsigned long plain = nm_addr(img, "fx_read_plain");
	unsigned long wonce = nm_addr(img, "fx_write_once");
	char want[64];

	ASSERT_NE(0, once);
	ASSERT_NE(0, plain);
	ASSERT_NE(0, wonce);
	ASSERT_EQ(0, run(KC " mark -n -V " KC_MARK_FX_DIR "/fxvmlinux -f 'fx_*'"))
		TH_LOG("%s", out);
	/* the plain function was read: analysed, and no range of its own */
	snprintf(want, sizeof(want), "0x%lx ", plain);
	EXPECT_TRUE(drop_analysed(want)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "0x%lx ", once);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "0x%lx ", wonce);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "0x%lx ", plain);
	EXPECT_EQ(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " data_race\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# vmlinux: ")) TH_LOG("%s", out);

	/* only the functions named */
	ASSERT_EQ(0, run(KC " mark -n -V " KC_MARK_FX_DIR "/fxvmlinux -f fx_write_once"))
		TH_LOG("%s", out);
	snprintf(want, sizeof(want), "0x%lx ", wonce);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "0x%lx ", once);
	EXPECT_EQ(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# vmlinux: 1 ranges (1 marked")) TH_LOG("%s", out);

	EXPECT_EQ(1, run(KC " mark -n -V " KC_MARK_FX_DIR "/fxvmlinux -f 'nothing_*' 2>&1"));
	EXPECT_NE(NULL, strstr(out, "no function of the image matches")) TH_LOG("%s", out);
	/* the running kernel is not this image: refused before any write */
	EXPECT_EQ(1, run(KC " mark -V " KC_MARK_FX_DIR "/fxvmlinux -f 'fx_*' 2>&1"));
	EXPECT_NE(NULL, strstr(out, "not the running kernel's")) TH_LOG("%s", out);
	EXPECT_EQ(2, run(KC " mark -f 'fx_*' -M " KC_MARK_FX_DIR " 2>&1"));
	EXPECT_NE(NULL, strstr(out, "give -V ELF")) TH_LOG("%s", out);
}

/*
 * The fixture's @prefix "marked" function is marked, all of it, and its
 * @prefix "plain" one, the same shape without a marker, stays plain.
 */
static void check_marked_and_plain(struct __test_metadata *_metadata,
				   const char *prefix)
{
	const char *img = KC_MARK_FX_DIR "/fxvmlinux";
	char marked_fn[64], plain_fn[64], cmd[2 * PATH_MAX];
	unsigned long marked, plain;
	int ranges, nr_marked, fields;
	char *summary;

	snprintf(marked_fn, sizeof(marked_fn), "%smarked", prefix);
	snprintf(plain_fn, sizeof(plain_fn), "%splain", prefix);
	marked = nm_addr(img, marked_fn);
	plain = nm_addr(img, plain_fn);
	ASSERT_NE(0, marked);
	ASSERT_NE(0, plain);
	snprintf(cmd, sizeof(cmd), KC " mark -n -V %s -f '%s*'", img, prefix);
	ASSERT_LT(strlen(cmd) + 1, sizeof(cmd));
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "0x%lx ", plain);
	EXPECT_TRUE(drop_analysed(cmd)) TH_LOG("%s", out);
	EXPECT_TRUE(range_is(range_at(marked), "marked")) TH_LOG("%s", out);
	EXPECT_STREQ("", range_at(plain)) TH_LOG("%s", out);
	/* every range the scan found is the marked function's */
	summary = strstr(out, "# vmlinux: ");
	ASSERT_NE(NULL, summary) TH_LOG("%s", out);
	fields = sscanf(summary, "# vmlinux: %d ranges (%d marked", &ranges,
			&nr_marked);
	ASSERT_EQ(2, fields) TH_LOG("%s", out);
	EXPECT_LT(0, ranges);
	EXPECT_EQ(ranges, nr_marked) TH_LOG("%s", out);
}

/*
 * A macro invoked over two lines ("wait_event(q,\n READ_ONCE(x) ...)"):
 * its rows name the invoking line, the marker is in the next one. The
 * call's statement is read to its end; a call left open without a marker
 * stays plain.
 */
TEST(marker_in_a_call_continued_below)
{
	check_marked_and_plain(_metadata, "fx_wait_");
}

/*
 * A function-like macro the file itself defines, its READ_ONCE() in the
 * body (lockref.c's CMPXCHG_LOOP()): the access's rows name the invoking
 * line, the marker is in the definition. The same macro shape without a
 * marker stays plain.
 */
TEST(marker_in_a_macro_the_file_defines)
{
	check_marked_and_plain(_metadata, "fx_macro_");
}

/*
 * "mark -V -n" saves the image's ranges after a header naming its build
 * ID and _stext: what "mark --load" checks on the test machine. This
 * host's kernel is not the fixture, so the load is refused before a
 * write, as a file that is no image's marks is, with a clear message.
 */
TEST(saved_image_marks_name_their_image)
{
	const char *img = KC_MARK_FX_DIR "/fxvmlinux";
	const char *saved = KC_MARK_FX_DIR "/fxvmlinux.marks";
	unsigned long stext = nm_addr(img, "_stext");
	char want[160], id[128] = "";
	FILE *f;
	int n;

	ASSERT_NE(0, stext);
	ASSERT_EQ(0, run("readelf -n " KC_MARK_FX_DIR "/fxvmlinux | sed -n 's/.*Build ID: //p'"));
	n = sscanf(out, "%127s", id);
	ASSERT_EQ(1, n) TH_LOG("%s", out);
	ASSERT_EQ(0, run(KC " mark -n -V " KC_MARK_FX_DIR "/fxvmlinux -f 'fx_*' > "
			 KC_MARK_FX_DIR "/fxvmlinux.marks"));
	ASSERT_EQ(0, run("head -n1 " KC_MARK_FX_DIR "/fxvmlinux.marks"));
	snprintf(want, sizeof(want),
		 "# kcollider image marks: build-id %s _stext 0x%lx\n", id, stext);
	EXPECT_STREQ(want, out);

	EXPECT_EQ(1, run(KC " mark --load " KC_MARK_FX_DIR "/fxvmlinux.marks 2>&1"));
	EXPECT_NE(NULL, strstr(out, "is not the running kernel's (build IDs differ)"))
		TH_LOG("%s", out);
	EXPECT_EQ(1, run(KC " mark --load " LOG " 2>&1"));
	EXPECT_NE(NULL, strstr(out, ":1: not an image's marks")) TH_LOG("%s", out);
	EXPECT_EQ(1, run(KC " mark --load /nonexistent-kc 2>&1"));
	EXPECT_NE(NULL, strstr(out, "No such file or directory")) TH_LOG("%s", out);
	EXPECT_EQ(2, run(KC " mark --load " KC_MARK_FX_DIR "/fxvmlinux.marks -V "
			 KC_MARK_FX_DIR "/fxvmlinux 2>&1"));
	EXPECT_NE(NULL, strstr(out, "--load FILE stands alone")) TH_LOG("%s", out);
	f = fopen(saved, "a");
	ASSERT_NE(NULL, f);
	fputs("0x1000 4 plain\n", f);
	fclose(f);
	EXPECT_EQ(1, run(KC " mark --load " KC_MARK_FX_DIR "/fxvmlinux.marks 2>&1"));
	EXPECT_NE(NULL, strstr(out, "not a range (0xADDR LEN marked|data_race|exempt|analysed)"))
		TH_LOG("%s", out);
}

TEST(bad_options_fail_clearly)
{
	ASSERT_EQ(1, run(KC " report -M /nonexistent-kc " LOG " 2>&1"));
	EXPECT_NE(NULL, strstr(out, "-M /nonexistent-kc: No such file or directory")) TH_LOG("%s", out);
	ASSERT_EQ(1, run(KC " report -S " LOG " " LOG " 2>&1"));
	EXPECT_NE(NULL, strstr(out, "Not a directory")) TH_LOG("%s", out);
	ASSERT_EQ(1, run(KC " report -V /nonexistent-kc " LOG " 2>&1"));
}

TEST_HARNESS_MAIN
