// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: the benign-race filters against the planted B, R and N scenarios.
 * A benign race is a one-line "kcollider: benign: filter=NAME ..." record by
 * default; switching its filter off (or strict mode) turns it back into a
 * full report; the real bugs that look alike (R1, R12) stay harmful.
 */
#include "kselftest_harness.h"
#include "vm_reports.h"


/* Run @scenario in 2 s slices until @needle is logged or @budget_s pass. */
FIXTURE(filters) {
	int unused;
};

FIXTURE_SETUP(filters)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load kcollider: %s", strerror(errno));
	if (kc_load_module(planted_path(), NULL) && errno != EEXIST)
		ASSERT_TRUE(false) TH_LOG("load kc_planted: %s", strerror(errno));
}

FIXTURE_TEARDOWN(filters)
{
	if (!kc_in_vm())
		return;
	kc_write_attr("enabled", "0");
	kc_unload_module("kcollider");
	kc_unload_module("kc_planted");
}

static int start(const char *targets)
{
	int ret = kc_write_attr("targets", targets);

	return ret ? ret : kc_enable();
}

/*
 * Whether every full report of @log is one-sided ("race at unknown
 * origin": a value changed and no watch caught the writer). Such a report
 * names no racer and is no verdict on the pair; a heavily loaded host
 * produced them even in windows armed on every CPU (see M1 below).
 */
static bool only_one_sided_reports(const char *log)
{
	return !count_two_sided_reports(log);
}

/*
 * A benign scenario: its one-line benign record (@line) comes, and never
 * a full report that names both sides.
 */
static void expect_benign_only(struct __test_metadata *_metadata,
			       const char *targets, const char *scenario,
			       const char *line)
{
	ASSERT_EQ(0, start(targets));
	ASSERT_TRUE(run_until_report(scenario, line, 30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_TRUE(only_one_sided_reports(read_reports()))
		TH_LOG("%.2000s", read_reports());
}

/*
 * The filter, not chance, named @scenario's races: with @filter off, its
 * traps are still caught and judged (races, which counts benign lines
 * too, grows within 30 s of runs), and @filter no longer counts them.
 */
static void expect_filter_decides(struct __test_metadata *_metadata,
				  const char *filter, const char *scenario)
{
	char stat[64], off[64];
	long own, judged;
	int t;

	snprintf(stat, sizeof(stat), "benign_%s", filter);
	snprintf(off, sizeof(off), "%s=off", filter);
	own = kc_stat(stat);
	judged = kc_stat("races");
	ASSERT_EQ(0, kc_write_attr("filters", off));
	ASSERT_EQ(0, kc_write_attr("dedup_ms", "0"));
	for (t = 0; t < 30 && kc_stat("races") == judged; t += 2)
		ASSERT_EQ(0, run_scenario(scenario, 2000));
	ASSERT_LT(judged, kc_stat("races")) TH_LOG("%.2000s", read_reports());
	ASSERT_EQ(own, kc_stat(stat));
}

/*
 * @scenario's races are all benign by @filter (its record, @line, comes;
 * no harmful report), and by @filter alone (expect_filter_decides()).
 */
static void expect_filter_only(struct __test_metadata *_metadata,
			       const char *filter, const char *targets,
			       const char *scenario, const char *line)
{
	char stat[64];

	snprintf(stat, sizeof(stat), "benign_%s", filter);
	expect_benign_only(_metadata, targets, scenario, line);
	ASSERT_GE(kc_stat(stat), 1);
	ASSERT_EQ(NULL, strstr(read_reports(), "kcollider: class: harmful"))
		TH_LOG("%.2000s", read_reports());
	expect_filter_decides(_metadata, filter, scenario);
}

TEST_F_TIMEOUT(filters, b1_increment_only_counter_is_benign_lossy_counter, 120)
{
	expect_benign_only(_metadata, "kc_planted:kc_b1_stat_inc", "b1",
			   "kcollider: benign: filter=lossy-counter sampled=kc_b1_stat_inc racer=kc_b1_stat_inc");
	ASSERT_GE(kc_stat("benign_lossy-counter"), 1);
}

/*
 * With registered probes (visits=0), B1's workers run the sampled
 * increment too: one that hits the spent
 * breakpoint single-steps the instruction in the probe's slot, and its
 * #DB comes from there. It is the same access: mapped back to its site,
 * it is named, unwound and compared (lossy-counter) as the other
 * workers' are, never as an address in kprobes' instruction pages.
 */
TEST_F_TIMEOUT(filters, b1_racer_stepping_a_probe_is_named_by_its_site, 300)
{
	const char *log;
	long stepping;

	/* only a registered probe has a slot to step in: no visits */
	ASSERT_EQ(0, kc_unload_module("kcollider"));
	ASSERT_EQ(0, kc_load_module(kc_module_path(), "visits=0"));
	ASSERT_EQ(0, kc_write_attr("dedup_ms", "0"));
	ASSERT_EQ(0, start("kc_planted:kc_b1_stat_inc"));
	stepping = run_until_stat("b1", "racers_stepping", 1, 240);
	TH_LOG("racers_stepping %ld, samples %ld, benign %ld", stepping,
	       kc_stat("samples"), kc_stat("benign_lossy-counter"));
	ASSERT_GE(stepping, 1);
	log = read_reports();
	EXPECT_EQ(NULL, strstr(log, "kprobe_insn_page")) TH_LOG("%.3000s", log);
	EXPECT_NE(NULL, strstr(log, "racer=kc_b1_stat_inc"))
		TH_LOG("%.3000s", log);
	EXPECT_TRUE(only_one_sided_reports(log)) TH_LOG("%.3000s", log);
}

TEST_F_TIMEOUT(filters, r1_inc_and_dec_counter_stays_harmful, 120)
{
	ASSERT_EQ(0, start("kc_planted:kc_r1_inc,kc_planted:kc_r1_dec"));
	ASSERT_TRUE(run_until_report("r1", "data-race in kc_r1_dec / kc_r1_inc", 30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_NE(NULL, strstr(read_reports(), "kcollider: class: harmful"));
	ASSERT_EQ(NULL, strstr(read_reports(), "filter=lossy-counter"))
		TH_LOG("%.2000s", read_reports());
}

/*
 * Counters that are not statistics: a count bumped by different amounts
 * loses updates that matter. Each needs its harmful two-sided report, and
 * no lossy-counter verdict on the pair, whichever side was sampled.
 */
static void expect_counter_pair_harmful(struct __test_metadata *_metadata,
					const char *scenario, const char *a,
					const char *b)
{
	char targets[128], title[128], benign[160];

	snprintf(targets, sizeof(targets), "kc_planted:%s kc_planted:%s", a, b);
	snprintf(title, sizeof(title), "BUG: KCOLLIDER: data-race in %s / %s",
		 strcmp(a, b) < 0 ? a : b, strcmp(a, b) < 0 ? b : a);
	ASSERT_EQ(0, start(targets));
	ASSERT_TRUE(run_until_report(scenario, title, 30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_NE(NULL, strstr(read_reports(), "kcollider: class: harmful"));
	snprintf(benign, sizeof(benign),
		 "filter=lossy-counter sampled=%s racer=%s", a, b);
	EXPECT_EQ(NULL, strstr(read_reports(), benign)) TH_LOG("%.2000s", read_reports());
	snprintf(benign, sizeof(benign),
		 "filter=lossy-counter sampled=%s racer=%s", b, a);
	EXPECT_EQ(NULL, strstr(read_reports(), benign)) TH_LOG("%.2000s", read_reports());
	EXPECT_EQ(0, kc_stat("benign_lossy-counter"));
}

TEST_F_TIMEOUT(filters, r16_refcount_inc_vs_add_two_stays_harmful, 120)
{
	expect_counter_pair_harmful(_metadata, "r16", "kc_r16_get",
				    "kc_r16_get_two");
}

TEST_F_TIMEOUT(filters, r17_task_inc_vs_softirq_add_0x100_stays_harmful, 120)
{
	expect_counter_pair_harmful(_metadata, "r17", "kc_r17_task_inc",
				    "kc_r17_softirq_add");
}

/* Two +1 sites of the same width on one counter: still a statistic. */
TEST_F_TIMEOUT(filters, b4_counter_bumped_by_two_functions_is_lossy_counter, 120)
{
	expect_benign_only(_metadata, "kc_planted:kc_b4_stat_rx kc_planted:kc_b4_stat_tx", "b4",
			   "kcollider: benign: filter=lossy-counter sampled=kc_b4_stat_");
}

TEST_F_TIMEOUT(filters, b2_test_of_other_bit_is_benign_other_bits, 120)
{
	expect_benign_only(_metadata, "kc_planted:kc_b2_test_bit5", "b2",
			   "kcollider: benign: filter=other-bits sampled=kc_b2_test_bit5 racer=kc_b2_flip_bit0");
	ASSERT_GE(kc_stat("benign_other-bits"), 1);
}

/* The test is of the second byte, through DH: its mask is shifted. */
TEST_F_TIMEOUT(filters, b7_test_through_a_high_byte_register_is_other_bits, 120)
{
	expect_benign_only(_metadata, "kc_planted:kc_b7_test_bit14", "b7",
			   "kcollider: benign: filter=other-bits sampled=kc_b7_test_bit14 racer=kc_b7_flip_bit0");
	ASSERT_GE(kc_stat("benign_other-bits"), 1);
}

/* The writer is a plain store: the value line says bit 5 never changed. */
TEST_F_TIMEOUT(filters, b5_store_keeping_the_tested_bit_is_other_bits, 120)
{
	expect_benign_only(_metadata, "kc_planted:kc_b5_test_bit5", "b5",
			   "kcollider: benign: filter=other-bits sampled=kc_b5_test_bit5 racer=kc_b5_store_flipped");
}

/*
 * N8: atomic_read() vs atomic_set() are plain movs; the variable is also
 * atomic_inc()'d elsewhere in the module, so they are marked accesses.
 * R2 is their plain counterpart: still harmful, marked "unknown".
 */
TEST_F_TIMEOUT(filters, n8_atomic_read_vs_atomic_set_is_marked_atomic, 120)
{
	expect_benign_only(_metadata, "kc_planted:kc_n8_set kc_planted:kc_n8_poll", "n8",
			   "kcollider: benign: filter=marked-atomic ");
}

/*
 * N18: a store to a bit-field of the task's own task_struct. The sleeping
 * window puts the task to sleep there, and its wakeup touches the same
 * word: own-wakeup, the detector's doing, never a full report.
 */
TEST_F_TIMEOUT(filters, n18_own_task_word_touched_by_its_wakeup_is_own_wakeup, 120)
{
	/*
	 * The filter, not chance, names them: off, the same wakeups are
	 * still caught, and judged by the other rules (other-bits, where
	 * the wakeup reads another bit of the byte, or harmful).
	 */
	expect_filter_only(_metadata, "own-wakeup", "kc_planted:kc_n18_own_bits",
			   "n18", "kcollider: benign: filter=own-wakeup sampled=kc_n18_own_bits");
}

/*
 * N19: a kernel thread's load of its own active_mm. The sleeping window
 * switches the task away there, and the switch (inlined in __schedule)
 * writes the field: own-wakeup, never a full report.
 */
TEST_F_TIMEOUT(filters, n19_own_field_written_by_its_switch_is_own_wakeup, 120)
{
	expect_benign_only(_metadata, "kc_planted:kc_n19_own_switch", "n19",
			   "kcollider: benign: filter=own-wakeup sampled=kc_n19_own_switch");
	ASSERT_EQ(NULL, strstr(read_reports(), "kcollider: class: harmful"))
		TH_LOG("%.2000s", read_reports());
}

/*
 * N20: two threads on one CPU this_cpu_inc() its copy of a per-CPU
 * counter. The sleeping window at one lets the other add first, on the
 * same copy, same CPU: own-cpu, never a full report. Off, the same traps
 * are judged by the other rules, and reported.
 */
TEST_F_TIMEOUT(filters, n20_own_cpu_copy_added_on_its_cpu_is_own_cpu, 150)
{
	/* the %gs-relative increment is a site with it (the default) */
	ASSERT_EQ(0, kc_write_attr("sample_percpu", "1"));
	expect_filter_only(_metadata, "own-cpu", "kc_planted:kc_n20_inc", "n20",
			   "kcollider: benign: filter=own-cpu sampled=kc_n20_inc racer=kc_n20_inc");
}

/*
 * N21: a preemptible load of its CPU's copy through raw_cpu_ptr() while
 * another thread on that CPU adds to it: own-cpu too, the copy known by
 * its address rather than by %gs. Off, the same traps are reported.
 */
TEST_F_TIMEOUT(filters, n21_own_cpu_copy_read_through_a_pointer_is_own_cpu, 150)
{
	expect_filter_only(_metadata, "own-cpu", "kc_planted:kc_n21_peek", "n21",
			   "kcollider: benign: filter=own-cpu sampled=kc_n21_peek racer=kc_n20_inc");
}

TEST_F_TIMEOUT(filters, r2_plain_pair_stays_harmful_marking_unknown, 120)
{
	ASSERT_EQ(0, start("kc_planted:kc_r2_write kc_planted:kc_r2_read"));
	ASSERT_TRUE(run_until_report("r2", "kcollider: marking: unknown load-store", 30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_NE(NULL, strstr(read_reports(), "kcollider: class: harmful"));
	ASSERT_EQ(NULL, strstr(read_reports(), "filter=marked-atomic"));
}

TEST_F_TIMEOUT(filters, r12_rmw_of_different_bits_stays_harmful, 120)
{
	ASSERT_EQ(0, start("kc_planted:kc_r12_clear_a,kc_planted:kc_r12_set_b"));
	ASSERT_TRUE(run_until_report("r12", "data-race in kc_r12_clear_a / kc_r12_set_b",
			      30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_NE(NULL, strstr(read_reports(), "kcollider: class: harmful"));
	ASSERT_EQ(NULL, strstr(read_reports(), "filter=other-bits"));
}

/* The hits of "jiffies" in the suppress file. */
static long jiffies_suppressed(void)
{
	char buf[1024];
	long hits = 0;
	char *p;

	if (kc_read_attr("suppress", buf, sizeof(buf)) <= 0)
		return -1;
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
		if (!strncmp(p, "jiffies", 7))
			hits += strtol(strchr(p, ' ') + 1, NULL, 10);
	return hits;
}

/*
 * B3 reads jiffies, which every tick writes: each of its samples would be
 * suppressed, so the picks leave its read out and count it. Where benign
 * races are wanted in full it is sampled, and the filter names it.
 */
TEST_F_TIMEOUT(filters, b3_jiffies_is_not_sampled_and_suppressed_if_wanted, 120)
{
	ASSERT_EQ(0, start("kc_planted:kc_b3_read_jiffies"));
	EXPECT_LE(1, run_until_stat("b3", "picks_suppressed", 1, 20));
	EXPECT_EQ(0, kc_stat("samples"));
	ASSERT_EQ(NULL, strstr(read_reports(), "kcollider: benign:"))
		TH_LOG("%.2000s", read_reports());

	ASSERT_EQ(0, kc_write_attr("benign_full", "1"));
	ASSERT_TRUE(run_until_report("b3", "kcollider: class: benign filter=suppressed",
				     30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_NE(NULL, strstr(read_reports(), "BUG: KCOLLIDER: data-race in kc_b3_read_jiffies"))
		TH_LOG("%.2000s", read_reports());
	ASSERT_GE(jiffies_suppressed(), 1);
	ASSERT_GE(kc_stat("benign_suppressed"), 1);
}

/*
 * A suppressed function is never sampled, and a race it makes against a
 * sampled access is suppressed: R2's reader, named, leaves no report of
 * R2's pair.
 */
TEST_F_TIMEOUT(filters, suppressed_racer_function_is_suppressed_and_counted, 120)
{
	ASSERT_EQ(0, kc_write_attr("suppress", "+kc_r2_read"));
	ASSERT_EQ(0, start("kc_planted:kc_r2_write,kc_planted:kc_r2_read"));
	ASSERT_TRUE(run_until_report("r2", "kcollider: benign: filter=suppressed ", 30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_EQ(NULL, strstr(read_reports(), "BUG: KCOLLIDER"))
		TH_LOG("%.2000s", read_reports());
	ASSERT_GE(kc_stat("benign_suppressed"), 1);
	EXPECT_LE(1, run_until_stat("r2", "picks_suppressed", 1, 20));
}

/*
 * Where a suppressed module function was goes with the module: once it is
 * loaded again (its code may be elsewhere, or another module's may be
 * there), the picks take it, and the name still suppresses its reports.
 */
TEST_F_TIMEOUT(filters, suppressed_module_function_place_goes_with_module, 120)
{
	long placed = kc_stat("suppressed_placed");

	ASSERT_LE(0, placed);
	ASSERT_EQ(0, kc_write_attr("suppress", "+kc_r2_read"));
	EXPECT_EQ(placed + 1, kc_stat("suppressed_placed"));
	ASSERT_EQ(0, start("kc_planted:kc_r2_read"));
	EXPECT_LE(1, run_until_stat("r2", "picks_suppressed", 1, 20));
	EXPECT_EQ(0, kc_stat("samples"));
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(0, kc_unload_module("kc_planted"));
	EXPECT_EQ(placed, kc_stat("suppressed_placed"));
	ASSERT_EQ(0, kc_load_module(planted_path(), NULL));
	ASSERT_EQ(0, start("kc_planted:kc_r2_read"));
	EXPECT_LE(1, run_until_stat("r2", "samples", 1, 40));
	EXPECT_EQ(NULL, strstr(read_reports(), "BUG: KCOLLIDER"))
		TH_LOG("%.2000s", read_reports());
}

TEST_F_TIMEOUT(filters, r4_same_value_write_marked_idempotent, 120)
{
	ASSERT_EQ(0, start("kc_planted:kc_r4_write_a,kc_planted:kc_r4_write_b"));
	ASSERT_TRUE(run_until_report("r4", "kcollider: class: harmful idempotent=1", 30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_NE(NULL, strstr(read_reports(), "data-race in kc_r4_write_a / kc_r4_write_b"));
}

TEST_F_TIMEOUT(filters, n7_freed_and_reused_memory_never_reported, 120)
{
	ASSERT_EQ(0, start("kc_planted:kc_n7_use_a,kc_planted:kc_n7_use_b"));
	ASSERT_EQ(0, run_scenario("n7", 10000));
	run_until_stat("n7", "samples", 1, 60);
	ASSERT_GT(kc_stat("samples"), 0);
	ASSERT_EQ(NULL, strstr(read_reports(), "BUG: KCOLLIDER"))
		TH_LOG("%.2000s", read_reports());
}

/*
 * N9: the owner frees the object a reader's window watches through
 * kmem_cache_free_bulk() (as kfree_bulk() and kfree_rcu()'s batches do),
 * which no kmem tracepoint reports, allocates it again and initialises it
 * under the reader. The cache is SLAB_TYPESAFE_BY_RCU: the free is no
 * race there, the re-initialisation is (KCSAN reports it too). The report
 * must say the object was freed in the window: the bulk-free hook saw it.
 * The owner holds each object a millisecond, so windows see frees often;
 * the bound is generous.
 */
TEST_F_TIMEOUT(filters, n9_recycled_typesafe_object_is_reported, 150)
{
	static const char * const needles[] = {
		"freed_in_window=1", "cache=kc_n9_obj", "typesafe_by_rcu=1",
		"kc_n9_owner", "kc_n9_peek", NULL
	};
	static char report[16384];
	char frees[32];

	bool found = false;
	int t;

	ASSERT_EQ(0, start("kc_planted:kc_n9_peek"));
	/* a window may also see the value change alone, naming no racer */
	for (t = 0; t < 100 && !found; t += 2) {
		ASSERT_EQ(0, run_scenario("n9", 2000));
		found = find_report(read_reports(), needles, report,
				    sizeof(report));
	}
	ASSERT_TRUE(found)
		TH_LOG("samples %ld; log:\n%.3000s", kc_stat("samples"),
		       read_reports());
	ASSERT_NE(NULL, strstr(report, "BUG: KCOLLIDER: data-race in"))
		TH_LOG("%s", report);
	ASSERT_NE(NULL, strstr(report, "kcollider: class: harmful"))
		TH_LOG("%s", report);
	/* a typesafe object's free is never dropped as memory reuse */
	ASSERT_EQ(0, kc_stat("benign_memory-reuse"));
	ASSERT_TRUE(planted_fact("n9_bulk_frees", frees, sizeof(frees)));
	ASSERT_GT(strtol(frees, NULL, 10), 0);
}

TEST_F_TIMEOUT(filters, m1_plain_load_racing_lock_rmw_is_benign_locked_racer, 120)
{
	ASSERT_EQ(0, start("kc_planted:kc_m1_plain_read"));
	ASSERT_TRUE(run_until_report("m1",
				     "kcollider: benign: filter=locked-racer sampled=kc_m1_plain_read racer=kc_m1_atomic_inc",
				     30))
		TH_LOG("%.2000s", read_reports());
	/*
	 * Never a harmful report that caught the LOCK'd increment. A window
	 * whose watch was not yet armed on the incrementing CPU (armed=3/4
	 * under TCG) sees only the value change: that one-sided "unknown
	 * origin" report names no racer and is not a verdict on the pair.
	 */
	ASSERT_EQ(NULL, strstr(read_reports(),
			       "data-race in kc_m1_atomic_inc / kc_m1_plain_read"))
		TH_LOG("%.2000s", read_reports());
	ASSERT_EQ(NULL, strstr(read_reports(),
			       "data-race in kc_m1_plain_read / kc_m1_atomic_inc"))
		TH_LOG("%.2000s", read_reports());
	if (strstr(read_reports(), "BUG: KCOLLIDER"))
		ASSERT_NE(NULL, strstr(read_reports(), "race at unknown origin"))
			TH_LOG("%.2000s", read_reports());
	ASSERT_GE(kc_stat("benign_locked-racer"), 1);
}

TEST_F_TIMEOUT(filters, m2_plain_store_racing_lock_rmw_stays_harmful, 120)
{
	ASSERT_EQ(0, start("kc_planted:kc_m2_plain_store"));
	/*
	 * Under QEMU TCG the read/write watch a sampled store gets does not
	 * see LOCK'd RMWs (the write-only watch of M1 does): the race often
	 * shows as "unknown origin". Either way it must be harmful, and a
	 * caught racer must be the LOCK'd increment.
	 */
	ASSERT_TRUE(run_until_report("m2", "BUG: KCOLLIDER: data-race in kc_m2_", 30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_NE(NULL, strstr(read_reports(), "kcollider: class: harmful"));
	ASSERT_EQ(NULL, strstr(read_reports(), "filter=locked-racer"));
	ASSERT_EQ(NULL, strstr(read_reports(), "kcollider: benign:"));
	if (strstr(read_reports(), "kcollider: racer: ip=")) {
		ASSERT_NE(NULL, strstr(read_reports(), "sym=kc_m2_atomic_inc+"));
		ASSERT_NE(NULL, strstr(read_reports(), "locked=1"));
	}
}

/* Each filter switched off: its benign scenario becomes a full report. */
struct off_case {
	const char *switch_attr, *switch_val, *targets, *scenario, *title;
};

static const struct off_case off_cases[] = {
	{ "filters", "lossy-counter=off", "kc_planted:kc_b1_stat_inc", "b1",
	  "data-race in kc_b1_stat_inc / kc_b1_stat_inc" },
	{ "filters", "other-bits=off", "kc_planted:kc_b2_test_bit5", "b2",
	  "data-race in kc_b2_flip_bit0 / kc_b2_test_bit5" },
	{ "filters", "suppressed=off", "kc_planted:kc_b3_read_jiffies", "b3",
	  "data-race in " },
	{ "strict", "1", "kc_planted:kc_b1_stat_inc", "b1",
	  "data-race in kc_b1_stat_inc / kc_b1_stat_inc" },
	{ "strict", "1", "kc_planted:kc_b2_test_bit5", "b2",
	  "data-race in kc_b2_flip_bit0 / kc_b2_test_bit5" },
	{ "strict", "1", "kc_planted:kc_b3_read_jiffies", "b3",
	  "data-race in " },
	{ "filters", "locked-racer=off", "kc_planted:kc_m1_plain_read", "m1",
	  "data-race in kc_m1_atomic_inc / kc_m1_plain_read" },
};

TEST_F_TIMEOUT(filters, filter_off_or_strict_gives_full_harmful_reports, 300)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(off_cases); i++) {
		const struct off_case *c = &off_cases[i];

		ASSERT_EQ(0, kc_write_attr("enabled", "0"));
		ASSERT_EQ(0, kc_write_attr("targets", "clear"));
		/* a fresh log: reload the module */
		ASSERT_EQ(0, kc_unload_module("kcollider"));
		ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL));
		ASSERT_EQ(0, kc_write_attr(c->switch_attr, c->switch_val));
		ASSERT_EQ(0, start(c->targets));
		ASSERT_TRUE(run_until_report(c->scenario, c->title, 30))
			TH_LOG("%s=%s: %.2000s", c->switch_attr, c->switch_val,
			       read_reports());
		ASSERT_NE(NULL, strstr(read_reports(), "kcollider: class: harmful"))
			TH_LOG("%s=%s", c->switch_attr, c->switch_val);
		ASSERT_EQ(NULL, strstr(read_reports(), "kcollider: benign:"))
			TH_LOG("%s=%s: %.2000s", c->switch_attr, c->switch_val,
			       read_reports());
	}
}

TEST_F_TIMEOUT(filters, benign_full_prints_the_whole_report_with_class, 120)
{
	ASSERT_EQ(0, kc_write_attr("benign_full", "1"));
	ASSERT_EQ(0, start("kc_planted:kc_b1_stat_inc"));
	ASSERT_TRUE(run_until_report("b1", "kcollider: class: benign filter=lossy-counter",
			      30))
		TH_LOG("%.2000s", read_reports());
	ASSERT_NE(NULL, strstr(read_reports(), "BUG: KCOLLIDER: data-race in kc_b1_stat_inc"));
}

TEST_F(filters, filter_knobs_reject_garbage_and_keep_their_value)
{
	static const char * const bad_filters[] = {
		"lossy-counter", "lossy-counter=maybe", "nosuch=off", "=off",
		"lossy-counter=off,other-bits=off", "\n", NULL,
	};
	static const char * const bad_suppress[] = {
		"-not_in_list", "bad name", "a;b", "\n", "-", NULL,
	};
	char before[1024], after[1024];
	int i;

	ASSERT_LT(0, kc_read_attr("filters", before, sizeof(before)));
	ASSERT_NE(NULL, strstr(before, "lossy-counter on\n"));
	for (i = 0; bad_filters[i]; i++) {
		ASSERT_EQ(-EINVAL, kc_write_attr("filters", bad_filters[i]))
			TH_LOG("'%s'", bad_filters[i]);
		ASSERT_LT(0, kc_read_attr("filters", after, sizeof(after)));
		ASSERT_STREQ(before, after);
	}
	ASSERT_EQ(0, kc_write_attr("filters", "other-bits=off"));
	ASSERT_LT(0, kc_read_attr("filters", after, sizeof(after)));
	ASSERT_NE(NULL, strstr(after, "other-bits off\n"));

	ASSERT_LT(0, kc_read_attr("suppress", before, sizeof(before)));
	ASSERT_NE(NULL, strstr(before, "jiffies 0\n"));
	for (i = 0; bad_suppress[i]; i++) {
		ASSERT_NE(0, kc_write_attr("suppress", bad_suppress[i]))
			TH_LOG("'%s'", bad_suppress[i]);
		ASSERT_LT(0, kc_read_attr("suppress", after, sizeof(after)));
		ASSERT_STREQ(before, after);
	}
	ASSERT_EQ(0, kc_write_attr("suppress", "my_counter"));
	ASSERT_LT(0, kc_read_attr("suppress", after, sizeof(after)));
	ASSERT_NE(NULL, strstr(after, "my_counter 0\n"));
	ASSERT_EQ(0, kc_write_attr("suppress", "-my_counter"));
	ASSERT_LT(0, kc_read_attr("suppress", after, sizeof(after)));
	ASSERT_STREQ(before, after);

	ASSERT_EQ(-EINVAL, kc_write_attr("strict", "very"));
	ASSERT_EQ(-EINVAL, kc_write_attr("benign_full", "2"));
}

TEST_HARNESS_MAIN
