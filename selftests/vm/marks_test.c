// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: marked accesses, which the binary cannot tell from plain ones.
 * N10 (READ_ONCE() flag vs WRITE_ONCE()), N11 (smp_load_acquire() vs
 * smp_store_release()), N12 (data_race() read vs a plain store) and N13
 * (READ_ONCE() vs a plain aligned word write, atomic to KCSAN) are
 * plain movs like their counterparts R20-R22 and R24, which keep one
 * plain side each (R22 is N12 without data_race(), R24 N13's plain read). After "kcollider mark" read the
 * planted module's DWARF and source, the module prints the N scenarios as
 * "benign: filter=marked" lines and never a report naming both sides, and
 * the R scenarios as harmful reports; without it, "kcollider report -M"
 * gives the dmesg reports of N10 the same verdict.
 */
#include <libgen.h>

#include "kselftest_harness.h"
#include "vm_reports.h"

static char out[1 << 20];

static int run(const char *cmd)
{
	return kc_run(cmd, out, sizeof(out));
}

/* The directory of the planted .ko: where "-M" finds it. */
static const char *planted_dir(void)
{
	static char dir[512];

	snprintf(dir, sizeof(dir), "%s", planted_path());
	return dirname(dir);
}

FIXTURE(marking) {
	int unused;
};

FIXTURE_SETUP(marking)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load kcollider: %s", strerror(errno));
	ASSERT_EQ(0, load_planted()) TH_LOG("load kc_planted: %s", strerror(errno));
}

FIXTURE_TEARDOWN(marking)
{
	if (!kc_in_vm())
		return;
	kc_write_attr("enabled", "0");
	kc_unload_module("kcollider");
	kc_unload_module("kc_planted");
}

/* "ranges N" of the marks file. */
static long marks_ranges(void)
{
	char buf[256];
	long n = -1;

	if (kc_read_attr("marks", buf, sizeof(buf)) > 0)
		sscanf(buf, "ranges %ld", &n);
	return n;
}

/* "analysed N" of the marks file: the functions whose source was read. */
static long marks_analysed(void)
{
	char buf[256];
	const char *p = NULL;
	long n = -1;

	if (kc_read_attr("marks", buf, sizeof(buf)) > 0)
		p = strstr(buf, "\nanalysed ");
	if (p)
		sscanf(p, "\nanalysed %ld", &n);
	return n;
}

static void mark_planted(struct __test_metadata *_metadata)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "%s/user/kcollider mark -M %s kc_planted 2>&1",
		 kc_top(), planted_dir());
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	ASSERT_NE(NULL, strstr(out, "kc_planted: ")) TH_LOG("%s", out);
	ASSERT_LT(0, marks_ranges());
}

static int start(const char *a, const char *b)
{
	char targets[256];
	int ret;

	snprintf(targets, sizeof(targets), "kc_planted:%s kc_planted:%s", a, b);
	ret = kc_write_attr("targets", targets);
	return ret ? ret : kc_enable();
}

/* A one-sided report ("race at unknown origin") names no pair. */
static bool names_a_pair(const char *log)
{
	const char *bug, *next, *origin;

	for (bug = strstr(log, "BUG: KCOLLIDER"); bug; bug = next) {
		next = strstr(bug + 1, "BUG: KCOLLIDER");
		origin = strstr(bug, "race at unknown origin");
		if (!origin || (next && origin > next))
			return true;
	}
	return false;
}

static void expect_marked(struct __test_metadata *_metadata,
			  const char *scenario, const char *a, const char *b)
{
	mark_planted(_metadata);
	ASSERT_EQ(0, start(a, b));
	ASSERT_TRUE(run_until_report(scenario, "kcollider: benign: filter=marked ", 40))
		TH_LOG("%.3000s", read_reports());
	EXPECT_FALSE(names_a_pair(read_reports())) TH_LOG("%.3000s", read_reports());
	EXPECT_EQ(NULL, strstr(read_reports(), "kcollider: class: harmful"))
		TH_LOG("%.3000s", read_reports());
	EXPECT_LE(1, kc_stat("benign_marked"));
}

static void expect_harmful(struct __test_metadata *_metadata,
			   const char *scenario, const char *a, const char *b)
{
	char title[160];

	mark_planted(_metadata);
	snprintf(title, sizeof(title), "BUG: KCOLLIDER: data-race in %s / %s",
		 strcmp(a, b) < 0 ? a : b, strcmp(a, b) < 0 ? b : a);
	ASSERT_EQ(0, start(a, b));
	ASSERT_TRUE(run_until_report(scenario, title, 40))
		TH_LOG("%.3000s", read_reports());
	EXPECT_NE(NULL, strstr(read_reports(), "kcollider: class: harmful"))
		TH_LOG("%.3000s", read_reports());
	EXPECT_EQ(NULL, strstr(read_reports(), "filter=marked "))
		TH_LOG("%.3000s", read_reports());
}

/*
 * A harmful pair after "mark": the report says each side's marking, x and
 * y (either side may have been the sampled one).
 */
static void expect_harmful_marking(struct __test_metadata *_metadata,
				   const char *scenario, const char *a,
				   const char *b, const char *x, const char *y)
{
	char one[96], other[96];
	const char *log;

	expect_harmful(_metadata, scenario, a, b);
	snprintf(one, sizeof(one), "kcollider: marking: sampled=%s racer=%s\n", x, y);
	snprintf(other, sizeof(other), "kcollider: marking: sampled=%s racer=%s\n", y, x);
	log = read_reports();
	EXPECT_TRUE(strstr(log, one) || strstr(log, other)) TH_LOG("%.3000s", log);
	EXPECT_EQ(NULL, strstr(log, "marking: unknown")) TH_LOG("%.3000s", log);
}

TEST_F_TIMEOUT(marking, n10_read_once_flag_vs_write_once_is_marked, 150)
{
	expect_marked(_metadata, "n10", "kc_n10_set_stop", "kc_n10_should_stop");
}

TEST_F_TIMEOUT(marking, n11_acquire_vs_release_is_marked, 150)
{
	expect_marked(_metadata, "n11", "kc_n11_publish", "kc_n11_observe");
}

TEST_F_TIMEOUT(marking, n12_data_race_read_vs_plain_store_is_marked, 150)
{
	expect_marked(_metadata, "n12", "kc_n12_note", "kc_n12_peek_racy");
}

TEST_F_TIMEOUT(marking, r20_write_once_vs_plain_read_stays_harmful, 150)
{
	expect_harmful_marking(_metadata, "r20", "kc_r20_set_stop",
			       "kc_r20_should_stop_plain", "marked", "plain");
}

TEST_F_TIMEOUT(marking, r21_release_vs_plain_read_stays_harmful, 150)
{
	expect_harmful(_metadata, "r21", "kc_r21_publish", "kc_r21_observe_plain");
}

TEST_F_TIMEOUT(marking, r22_plain_read_vs_plain_store_stays_harmful, 150)
{
	expect_harmful_marking(_metadata, "r22", "kc_r22_note", "kc_r22_peek",
			       "plain", "plain");
}

/*
 * N13, percpu_counter's pattern: READ_ONCE() against a plain "+=" under
 * a lock, no race to KCSAN (it takes the aligned word write as atomic);
 * R24 reads the same count plain, a race.
 */
TEST_F_TIMEOUT(marking, n13_read_once_vs_locked_plain_add_is_marked, 150)
{
	expect_marked(_metadata, "n13", "kc_n13_add", "kc_n13_read");
}

TEST_F_TIMEOUT(marking, r24_plain_read_vs_locked_plain_add_stays_harmful, 150)
{
	expect_harmful(_metadata, "r24", "kc_n13_add", "kc_r24_read_plain");
}

/* R13: plain store buffering, kept in order by barrier() only */
TEST_F_TIMEOUT(marking, r13_plain_store_buffering_stays_harmful, 150)
{
	expect_harmful(_metadata, "r13", "kc_r13_sb0", "kc_r13_sb1");
}

/*
 * B6, d_alloc_parallel()'s bucket head: the owner publishes a node with
 * the lock bit kept set while a waiter tests that bit. Benign whichever
 * side was sampled and whatever raced: marked (both in the source), the
 * owner's LOCK'd bit_spin_lock() (locked-racer), never a harmful pair.
 */
TEST_F_TIMEOUT(marking, b6_bit_spinlock_word_is_benign, 150)
{
	mark_planted(_metadata);
	ASSERT_EQ(0, start("kc_b6_set_first", "kc_b6_is_locked"));
	ASSERT_TRUE(run_until_report("b6", "kcollider: benign: filter=", 40))
		TH_LOG("%.3000s", read_reports());
	/*
	 * No report of a pair. A one-sided one may come (a value changed
	 * and its writer's trap missed the window): it names no pair, and no
	 * filter may call it benign.
	 */
	EXPECT_FALSE(names_a_pair(read_reports())) TH_LOG("%.3000s", read_reports());
}

/*
 * Without "mark" the module cannot know: N10 is a harmful load/store pair
 * of unknown marking; the CLI, given the .ko, reads the same verdict from
 * the source that "mark" would have taught the module.
 */
TEST_F_TIMEOUT(marking, unmarked_n10_report_gets_its_verdict_from_the_cli, 150)
{
	char cmd[8192];

	ASSERT_EQ(0, marks_ranges());
	ASSERT_EQ(0, start("kc_n10_set_stop", "kc_n10_should_stop"));
	ASSERT_TRUE(run_until_report("n10", "kcollider: marking: unknown load-store", 40))
		TH_LOG("%.3000s", read_reports());
	snprintf(cmd, sizeof(cmd), "%s/user/kcollider report -D -M %s", kc_top(),
		 planted_dir());
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	/* either side may have been the sampled one */
	EXPECT_NE(NULL, strstr(out, "=WRITE_ONCE (kc_planted.c:")) TH_LOG("%.3000s", out);
	EXPECT_NE(NULL, strstr(out, "=READ_ONCE (kc_planted.c:")) TH_LOG("%.3000s", out);
	EXPECT_NE(NULL, strstr(out, "verdict  benign filter=marked")) TH_LOG("%.3000s", out);
}

/* Where kallsyms puts the next symbol after @addr's: @addr's size. */
static unsigned long kallsyms_size(unsigned long addr)
{
	unsigned long long a, next = ~0ULL;
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && fgets(line, sizeof(line), f)) {
		a = strtoull(line, NULL, 16);
		if (a > addr && a < next)
			next = a;
	}
	if (f)
		fclose(f);
	return next == ~0ULL ? 0 : next - addr;
}

/* An "exempt" range over the whole of planted function @func. */
static void exempt_function(struct __test_metadata *_metadata,
			    const char *func)
{
	unsigned long f = kc_kallsyms_find(func, "tT", "kc_planted");
	char line[64];

	ASSERT_NE(0, f);
	ASSERT_LT(0, kallsyms_size(f));
	snprintf(line, sizeof(line), "0x%lx %lu exempt", f, kallsyms_size(f));
	ASSERT_EQ(0, kc_write_attr("marks", line));
}

/*
 * Code the kernel builds without KCSAN (its Makefiles' KCSAN_SANITIZE,
 * which "kcollider mark -S" reads): R22's pair, harmful above, is benign
 * once its reader is exempt, as KCSAN would never watch it and sees it
 * racing a watched access only as a value changed. The range itself is a
 * range like the others: shown, and gone with the module.
 */
TEST_F_TIMEOUT(marking, r22_in_exempt_code_is_benign, 150)
{
	char buf[256];

	exempt_function(_metadata, "kc_r22_peek");
	ASSERT_LT(0, kc_read_attr("marks", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "ranges 1\n")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "exempt 1\n")) TH_LOG("%s", buf);
	ASSERT_EQ(0, start("kc_r22_note", "kc_r22_peek"));
	ASSERT_TRUE(run_until_report("r22", "kcollider: benign: filter=exempt ", 40))
		TH_LOG("%.3000s", read_reports());
	EXPECT_EQ(NULL, strstr(read_reports(), "kcollider: class: harmful"))
		TH_LOG("%.3000s", read_reports());
	EXPECT_LE(1, kc_stat("benign_exempt"));
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(0, kc_unload_module("kc_planted"));
	EXPECT_EQ(0, marks_ranges());
}

/*
 * A sample whose every report the filters would call benign is never
 * taken: the picks leave out the sites of exempt code and of data_race(),
 * as KCSAN never watches them, and count what they left out. Where benign
 * races are wanted (benign_full, or no filters at all), the same sites are
 * sampled again.
 */
static void expect_unwatched(struct __test_metadata *_metadata,
			     const char *scenario, const char *target,
			     const char *want_attr)
{
	char targets[128];

	snprintf(targets, sizeof(targets), "kc_planted:%s", target);
	ASSERT_EQ(0, kc_write_attr("targets", targets));
	ASSERT_EQ(0, kc_enable());
	EXPECT_LE(1, run_until_stat(scenario, "picks_unwatched", 1, 20));
	EXPECT_EQ(0, kc_stat("samples"));
	EXPECT_EQ(0, count_reports(read_reports())) TH_LOG("%.3000s", read_reports());
	ASSERT_EQ(0, kc_write_attr(want_attr, "1"));
	EXPECT_LE(1, run_until_stat(scenario, "samples", 1, 40));
}

TEST_F_TIMEOUT(marking, exempt_code_is_not_sampled_unless_benign_is_wanted, 150)
{
	exempt_function(_metadata, "kc_r22_peek");
	expect_unwatched(_metadata, "r22", "kc_r22_peek", "benign_full");
}

TEST_F_TIMEOUT(marking, data_race_reads_are_not_sampled_unless_strict, 150)
{
	mark_planted(_metadata);
	expect_unwatched(_metadata, "n12", "kc_n12_peek_racy", "strict");
}

/* The ranges of a module go with it; a bad write changes nothing. */
TEST_F_TIMEOUT(marking, marks_follow_the_module_and_bad_writes_change_nothing, 120)
{
	char before[256], after[256];

	mark_planted(_metadata);
	EXPECT_LT(0, marks_analysed());
	ASSERT_LT(0, kc_read_attr("marks", before, sizeof(before)));
	EXPECT_EQ(-EINVAL, kc_write_attr("marks", "0x10 4 marked"));
	EXPECT_EQ(-EINVAL, kc_write_attr("marks", "0xffffffffc0000000 4 plain"));
	EXPECT_EQ(-EINVAL, kc_write_attr("marks", "0xffffffffc0000000 0 marked"));
	ASSERT_LT(0, kc_read_attr("marks", after, sizeof(after)));
	EXPECT_STREQ(before, after);
	ASSERT_EQ(0, kc_unload_module("kc_planted"));
	EXPECT_EQ(0, marks_ranges());
	EXPECT_EQ(0, marks_analysed());
	ASSERT_EQ(0, load_planted());
	mark_planted(_metadata);
	ASSERT_EQ(0, kc_write_attr("marks", "clear"));
	EXPECT_EQ(0, marks_ranges());
	EXPECT_EQ(0, marks_analysed());
}

/*
 * "mark -V" writes the kernel image's ranges: taken inside one function,
 * refused across two, and kept when modules come and go.
 */
TEST_F_TIMEOUT(marking, vmlinux_ranges_stay_and_stay_inside_a_function, 60)
{
	unsigned long f = kc_kallsyms_find("pipe_read", "tT", NULL);
	char line[64];

	ASSERT_NE(0, f);
	ASSERT_EQ(0, kc_write_attr("marks", "clear"));
	snprintf(line, sizeof(line), "0x%lx 2 marked", f - 1);
	EXPECT_EQ(-EINVAL, kc_write_attr("marks", line));
	EXPECT_EQ(0, marks_ranges());
	snprintf(line, sizeof(line), "0x%lx 4 marked", f + 4);
	ASSERT_EQ(0, kc_write_attr("marks", line));
	EXPECT_EQ(1, marks_ranges());
	mark_planted(_metadata);
	EXPECT_LT(1, marks_ranges());
	ASSERT_EQ(0, kc_unload_module("kc_planted"));
	EXPECT_EQ(1, marks_ranges());
}

/* The running kernel's build ID, in hex, from its notes; false if none. */
static bool running_build_id(char *hex, size_t size)
{
	static unsigned char notes[1 << 16];
	size_t pos = 0, i;
	ssize_t n = kc_read_file("/sys/kernel/notes", (char *)notes,
				 sizeof(notes));

	while (n > 0 && pos + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		size_t desc;

		memcpy(&namesz, notes + pos, 4);
		memcpy(&descsz, notes + pos + 4, 4);
		memcpy(&type, notes + pos + 8, 4);
		desc = pos + 12 + ((namesz + 3) & ~3u);
		if (desc + descsz > (size_t)n)
			break;
		if (type == 3 && namesz == 4 && !memcmp(notes + pos + 12, "GNU", 4) &&
		    2 * descsz < size) {
			for (i = 0; i < descsz; i++)
				sprintf(hex + 2 * i, "%02x", notes[desc + i]);
			return true;
		}
		pos = desc + ((descsz + 3) & ~3u);
	}
	return false;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * "mark --load" takes an image's ranges saved elsewhere ("mark -V IMAGE
 * -n" on the host: the -dbg package's DWARF is not read in the guest).
 * Written here as if the image were linked 2 MiB below where it runs: the
 * ranges land moved by that, inside pipe_read(); a file for another build
 * or with a bad line is refused whole and writes nothing.
 */
TEST_F_TIMEOUT(marking, saved_image_marks_load_moved_by_kaslr_and_checked, 60)
{
	unsigned long f = kc_kallsyms_find("pipe_read", "tT", NULL);
	unsigned long stext = kc_kallsyms_find("_stext", "tT", NULL);
	const unsigned long shift = 0x200000;
	const char *tmp = getenv("TMPDIR") ?: "/tmp";
	char id[160], path[512], text[1024], cmd[8192], want[64];

	ASSERT_NE(0, f);
	ASSERT_NE(0, stext);
	ASSERT_TRUE(running_build_id(id, sizeof(id)));
	ASSERT_EQ(0, kc_write_attr("marks", "clear"));
	snprintf(path, sizeof(path), "%s/image.marks", tmp);
	snprintf(text, sizeof(text),
		 "# kcollider image marks: build-id %s _stext 0x%lx\n"
		 "0x%lx 4 marked\n0x%lx 2 data_race\n# vmlinux: 2 ranges\n",
		 id, stext - shift, f + 4 - shift, f + 16 - shift);
	write_text(path, text);
	snprintf(cmd, sizeof(cmd), "%s/user/kcollider mark --load %s -n 2>&1",
		 kc_top(), path);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "0x%lx 4 marked\n", f + 4);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "0x%lx 2 data_race\n", f + 16);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_EQ(0, marks_ranges());
	snprintf(cmd, sizeof(cmd), "%s/user/kcollider mark --load %s 2>&1",
		 kc_top(), path);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "vmlinux: 2 ranges written")) TH_LOG("%s", out);
	EXPECT_EQ(2, marks_ranges());

	ASSERT_EQ(0, kc_write_attr("marks", "clear"));
	id[0] = id[0] == '0' ? '1' : '0';
	snprintf(text, sizeof(text),
		 "# kcollider image marks: build-id %s _stext 0x%lx\n"
		 "0x%lx 4 marked\n", id, stext - shift, f + 4 - shift);
	write_text(path, text);
	EXPECT_NE(0, run(cmd));
	EXPECT_NE(NULL, strstr(out, "build IDs differ")) TH_LOG("%s", out);
	id[0] = id[0] == '0' ? '1' : '0';
	snprintf(text, sizeof(text),
		 "# kcollider image marks: build-id %s _stext 0x%lx\n"
		 "0x%lx 4 marked\n0x%lx 4 plain\n", id, stext - shift,
		 f + 4 - shift, f + 8 - shift);
	write_text(path, text);
	EXPECT_NE(0, run(cmd));
	EXPECT_NE(NULL, strstr(out, "image.marks:3: not a range")) TH_LOG("%s", out);
	write_text(path, "0xffffffff81000000 4 marked\n");
	EXPECT_NE(0, run(cmd));
	EXPECT_NE(NULL, strstr(out, "not an image's marks")) TH_LOG("%s", out);
	EXPECT_EQ(0, marks_ranges());
}

TEST_HARNESS_MAIN
