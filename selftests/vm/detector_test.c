// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: the detector against the planted races of kc_planted.ko.
 *
 * Each test loads both modules fresh, targets exactly the functions of one
 * scenario, runs it, and asserts on the report log
 * (/sys/kernel/debug/kcollider/reports) and the counters.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/klog.h>
#include <time.h>

#include "kselftest_harness.h"
#include "vm_reports.h"

#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"

static bool kprobes_list_mentions(const char *what)
{
	static char buf[65536];

	if (kc_read_file(KPROBES_LIST, buf, sizeof(buf)) < 0)
		return false;
	return strstr(buf, what) != NULL;
}

static bool all_probes_disabled(const char *what)
{
	static char buf[65536];
	char *line;

	if (kc_read_file(KPROBES_LIST, buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, what) && !strstr(line, "[DISABLED]"))
			return false;
	return true;
}

/* A splat since the test began (kc_klog_mark() in the fixture's setup). */
static bool dmesg_has_trouble(char *line, size_t size)
{
	static const char * const bad[] = {
		"WARNING:", "Oops", "BUG: unable", "BUG: kernel", "general protection",
		"kernel BUG", "Call Trace", NULL,
	};
	const char *at = kc_klog_find(bad);

	if (at)
		snprintf(line, size, "%.160s", at);
	return at;
}

#define TRACING		"/sys/kernel/debug/tracing"

/* int3's (a visit's die notifier, the sampler's), the stall's, #DB's */
#define TRACED_HANDLERS	"kc_pool_int3|kc_probe_hit|kc_stall|kc_watch_hit"

static bool tracing_kcollider;

/* Opened for writing with O_TRUNC, ftrace's files are emptied. */
static int trace_file_empty(const char *path)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The function graph tracer on every function of kcollider's, or off. */
static int trace_kcollider(bool on)
{
	int ret;

	ret = kc_write_file(TRACING "/current_tracer", "nop");
	ret = ret ?: kc_write_file(TRACING "/tracing_on", "1");
	ret = ret ?: trace_file_empty(TRACING "/set_ftrace_filter");
	ret = ret ?: trace_file_empty(TRACING "/trace");
	if (!ret && on)
		ret = kc_write_file(TRACING "/set_ftrace_filter",
				    ":mod:kcollider");
	if (!ret && on)
		ret = kc_write_file(TRACING "/current_tracer",
				    "function_graph");
	tracing_kcollider = on && !ret;
	return ret;
}

FIXTURE(planted) {
	bool loaded;
};

FIXTURE_SETUP(planted)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	kc_klog_mark();
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load kcollider: %s", strerror(errno));
	self->loaded = true;
	if (kc_load_module(planted_path(), NULL) && errno != EEXIST)
		ASSERT_TRUE(false) TH_LOG("load kc_planted: %s", strerror(errno));
}

FIXTURE_TEARDOWN(planted)
{
	if (!kc_in_vm())
		return;
	/* a test that stopped half-way leaves no tracer behind */
	if (tracing_kcollider)
		trace_kcollider(false);
	if (self->loaded) {
		int ret;

		kc_write_attr("enabled", "0");
		ret = kc_unload_module("kcollider");
		EXPECT_EQ(0, ret) TH_LOG("unload kcollider: %d %s", ret,
					 strerror(errno));
	}
	EXPECT_EQ(0, kc_unload_module("kc_planted"))
		TH_LOG("unload kc_planted: %s", strerror(errno));
}

/* Run @scenario in 2 s slices until @needles appear or @budget_s passes. */
static bool run_until(const char *scenario, int budget_s,
		      const char * const *needles, char *out, size_t size)
{
	int waited;

	for (waited = 0; waited < budget_s; waited += 2) {
		if (run_scenario(scenario, 2000))
			return false;
		if (find_report(read_reports(), needles, out, size))
			return true;
	}
	return false;
}

static char report[16384], block[8192];

TEST_F_TIMEOUT(planted, r1_counter_race_reported_with_both_stacks, 120)
{
	static const char * const needles[] = {
		"BUG: KCOLLIDER: data-race in kc_r1_dec / kc_r1_inc",
		"kcollider: racer: ip=", NULL,
	};
	char *other;

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r1", 30, needles, report, sizeof(report)))
		TH_LOG("no two-sided R1 report; log:\n%.3000s", read_reports());
	/* both sides are the planted functions, each a read-write of 4 bytes */
	ASSERT_TRUE(report_block(report, 0, block, sizeof(block)));
	ASSERT_EQ(0, strncmp(block, "read-write to 0x", 16)) TH_LOG("%s", block);
	ASSERT_NE(NULL, strstr(block, "of 4 bytes by task "));
	other = strstr(block, "kc_r1_inc+") ? "kc_r1_dec+" : "kc_r1_inc+";
	ASSERT_TRUE(strstr(block, "kc_r1_inc+") || strstr(block, "kc_r1_dec+"))
		TH_LOG("%s", block);
	ASSERT_NE(NULL, strstr(block, "kc_worker_fn+"));
	ASSERT_TRUE(report_block(report, 1, block, sizeof(block)));
	ASSERT_EQ(0, strncmp(block, "read-write to 0x", 16)) TH_LOG("%s", block);
	ASSERT_NE(NULL, strstr(block, other)) TH_LOG("%s", block);
	ASSERT_NE(NULL, strstr(block, "kc_worker_fn+"));
	ASSERT_NE(NULL, strstr(report, "kcollider: object: global sym=kc_r1_count+0x0 mod=kc_planted"))
		TH_LOG("%s", report);
	ASSERT_NE(NULL, strstr(report, "kcollider: context: sampled=task"));
	ASSERT_NE(NULL, strstr(report, "\nReported by kcollider on:\n"));
}

/*
 * The trap handlers take no kprobe, but ftrace may trace them, as it may
 * kprobes' own int3 handler: its callbacks are safe in int3 and #DB
 * context, and no tracing code is ever a site. With the function graph
 * tracer on all of kcollider, which hooks the returns too, the stall the
 * trampoline calls included, the race is still found while the handlers
 * of both traps are hooked, and nothing is splatted.
 */
TEST_F_TIMEOUT(planted, r1_found_with_every_handler_traced, 150)
{
	static const char * const needles[] = {
		"BUG: KCOLLIDER: data-race in kc_r1_dec / kc_r1_inc",
		"kcollider: racer: ip=", NULL,
	};
	char line[200], seen[256];

	ASSERT_EQ(0, trace_kcollider(true));
	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r1", 30, needles, report, sizeof(report)))
		TH_LOG("no two-sided R1 report; log:\n%.3000s", read_reports());
	/*
	 * Every call of the handlers went through ftrace: they are hooked
	 * (the ring buffer, which keeps only the newest, cannot say that).
	 */
	ASSERT_EQ(0, kc_run("grep -owE '" TRACED_HANDLERS "' " TRACING
			    "/enabled_functions | sort -u | tr '\\n' ' '",
			    seen, sizeof(seen)));
	ASSERT_STREQ("kc_pool_int3 kc_probe_hit kc_stall kc_watch_hit ", seen);
	ASSERT_EQ(0, kc_write_file(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, kc_run("grep -c ' kc_' " TRACING "/trace", seen,
			    sizeof(seen)));
	TH_LOG("%ld calls of kcollider's in the trace", atol(seen));
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(0, trace_kcollider(false));
	ASSERT_FALSE(dmesg_has_trouble(line, sizeof(line))) TH_LOG("%s", line);
}

TEST_F_TIMEOUT(planted, r5_hrtimer_on_same_cpu_named_as_interrupt, 120)
{
	static const char * const needles[] = {
		"data-race in kc_r5_task_write / kc_r5_timer_access",
		"racer=hardirq", NULL,
	};
	char cpu_a[32], *p;

	ASSERT_EQ(0, kc_write_attr("targets", "kc_planted:kc_r5_task_write"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r5", 30, needles, report, sizeof(report)))
		TH_LOG("no R5 report; log:\n%.3000s", read_reports());
	ASSERT_TRUE(report_block(report, 0, block, sizeof(block)));
	ASSERT_NE(NULL, strstr(block, "by interrupt on cpu ")) TH_LOG("%s", block);
	ASSERT_NE(NULL, strstr(block, "kc_r5_timer_access+")) TH_LOG("%s", block);
	p = strstr(block, " on cpu ");
	snprintf(cpu_a, sizeof(cpu_a), "%.*s", (int)strcspn(p, ":"), p);
	ASSERT_TRUE(report_block(report, 1, block, sizeof(block)));
	ASSERT_NE(NULL, strstr(block, "kc_r5_task_write+")) TH_LOG("%s", block);
	ASSERT_NE(NULL, strstr(block, cpu_a))
		TH_LOG("interrupt side%s, sampled side: %s", cpu_a, block);
}

TEST_F_TIMEOUT(planted, r8_invisible_writer_is_unknown_origin, 120)
{
	static const char * const needles[] = {
		"BUG: KCOLLIDER: data-race in kc_r8_read+",
		"race at unknown origin, with read to 0x",
		"kcollider: racer: unknown", "value changed: 0x", NULL,
	};

	ASSERT_EQ(0, kc_write_attr("targets", "kc_planted:kc_r8_read"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r8", 30, needles, report, sizeof(report)))
		TH_LOG("no unknown-origin R8 report; log:\n%.3000s",
		       read_reports());
	ASSERT_NE(NULL, strstr(report, " kc_r8_read+")) TH_LOG("%s", report);
	ASSERT_GE(kc_stat("unknown_origin"), 1);
}

/*
 * The value changed and the racer's #DB comes only after the window: the
 * watch must be held until it lands, or the report loses its racer.
 */
TEST_F_TIMEOUT(planted, r26_store_seen_before_its_trap_names_the_racer, 120)
{
	static const char * const needles[] = {
		"BUG: KCOLLIDER: data-race in ", "kc_r26_write_late+",
		"value changed: 0x", NULL,
	};

	ASSERT_EQ(0, kc_write_attr("targets", "kc_planted:kc_r8_read"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r26", 60, needles, report, sizeof(report)))
		TH_LOG("no R26 report naming the late racer; traps_awaited %ld unknown_origin %ld; log:\n%.3000s",
		       kc_stat("traps_awaited"), kc_stat("unknown_origin"),
		       read_reports());
	ASSERT_NE(NULL, strstr(report, " kc_r8_read+")) TH_LOG("%s", report);
	ASSERT_GE(kc_stat("traps_awaited"), 1);
}

/*
 * Device memory is never read by the detector (a register may act when
 * read): its accesses fire and are skipped, no window opens on them.
 */
TEST_F_TIMEOUT(planted, n14_device_register_is_never_watched, 120)
{
	ASSERT_EQ(0, kc_write_attr("targets", "kc_planted:kc_n14_read_counter"));
	ASSERT_EQ(0, kc_enable());
	run_until_stat("n14", "skipped_forbidden_address", 3, 60);
	ASSERT_GE(kc_stat("skipped_forbidden_address"), 3)
		TH_LOG("fired %ld samples %ld (no HPET at 0xfed00000? see facts)",
		       kc_stat("fired"), kc_stat("samples"));
	ASSERT_EQ(0, kc_stat("samples"));
}

TEST_F_TIMEOUT(planted, n1_spinlocked_counter_never_reported, 120)
{
	const char *log;

	ASSERT_EQ(0, kc_write_attr("targets", "kc_planted:kc_n1_inc_locked"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_EQ(0, run_scenario("n1", 10000));
	run_until_stat("n1", "samples", 3, 60);
	/*
	 * It was sampled, watched, and found nothing. Few samples: under TCG
	 * a re-armed int3 in this tight loop is often not executed for a
	 * while (rotations continue, hits stop), so the rate is low here.
	 */
	ASSERT_GE(kc_stat("samples"), 3)
		TH_LOG("samples %ld fired %ld hits %ld", kc_stat("samples"),
		       kc_stat("fired"), kc_stat("hits"));
	ASSERT_EQ(0, kc_stat("races"));
	ASSERT_EQ(0, kc_stat("unknown_origin"));
	log = read_reports();
	ASSERT_EQ(0, count_reports(log)) TH_LOG("%.3000s", log);
}

TEST_F_TIMEOUT(planted, stats_consistent_with_reports, 150)
{
	long samples, races, unknown, logged;

	ASSERT_EQ(0, kc_write_attr("dedup_ms", "0"));
	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec"));
	ASSERT_EQ(0, kc_enable());
	for (int t = 0; t < 60 && kc_stat("races") + kc_stat("unknown_origin") < 1; t += 2)
		ASSERT_EQ(0, run_scenario("r1", 2000));
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	usleep(200000);		/* the report worker drains its queue */
	samples = kc_stat("samples");
	races = kc_stat("races");
	unknown = kc_stat("unknown_origin");
	logged = count_reports(read_reports());
	ASSERT_GT(samples, 0);
	ASSERT_GT(races + unknown, 0);
	ASSERT_EQ(samples, kc_stat("watch_full") + kc_stat("watch_partial"));
	ASSERT_LE(samples, kc_stat("fired"));
	ASSERT_LE(races + unknown, samples);
	ASSERT_EQ(0, kc_stat("reports_suppressed"));
	/* every counted race is in the log (it keeps the last 128) */
	if (races + unknown <= 128)
		ASSERT_EQ(races + unknown, logged);
}

TEST_F_TIMEOUT(planted, disabled_means_no_probe_and_no_sampling, 150)
{
	long fired;

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_GT(run_until_stat("r1", "fired", 1, 60), 0);
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(0, kc_stat("probes_armed"));
	fired = kc_stat("fired");
	ASSERT_EQ(0, run_scenario("r1", 1000));
	ASSERT_EQ(fired, kc_stat("fired"));
	ASSERT_EQ(0, kc_stat("probes_armed"));
	/* registered but disabled: every one of ours is [DISABLED] */
	ASSERT_TRUE(all_probes_disabled("kc_r1_")) TH_LOG("kprobes list");
}

#define PERF_BP		"/sys/kernel/debug/kc_planted/perf_bp"
#define DEBUGREGS	"/sys/kernel/debug/kc_planted/debugregs"

static long perf_bp_hits(void)
{
	char buf[32];

	return kc_read_file(PERF_BP, buf, sizeof(buf)) > 0 ?
	       strtol(buf, NULL, 10) : -1;
}

/*
 * Every online CPU has a debug register enabled in DR7 that holds @addr;
 * @why says which CPU does not, or how many do.
 */
static bool every_cpu_watches(unsigned long addr, char *why, size_t size)
{
	char buf[4096], *line, *save = NULL, name[8];
	unsigned long dr[4], dr7;
	int lines = 0, i;

	if (kc_read_file(DEBUGREGS, buf, sizeof(buf)) <= 0) {
		snprintf(why, size, "no debugregs file");
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), lines++) {
		bool held = false;

		if (sscanf(line, "%7s dr7=%lx dr0=%lx dr1=%lx dr2=%lx dr3=%lx",
			   name, &dr7, &dr[0], &dr[1], &dr[2], &dr[3]) != 6) {
			snprintf(why, size, "unreadable: %s", line);
			return false;
		}
		for (i = 0; i < 4; i++)
			held |= dr[i] == addr && (dr7 & (3UL << (2 * i)));
		if (!held) {
			snprintf(why, size, "%s", line);
			return false;
		}
	}
	snprintf(why, size, "%d CPUs", lines);
	return lines > 0;
}

/*
 * perf's hardware breakpoints beside the detector's, on the very word it
 * watches (R1's counter): the detector still reports the race, and perf's
 * breakpoint still fires and still sits in a debug register on every CPU,
 * while the detector samples, after it stops and after it unloads. The
 * detector recognises its own register by its parking address, never by
 * the address it watches, which perf's holds too.
 */
TEST_F_TIMEOUT(planted, perf_breakpoint_on_the_watched_word_keeps_working, 150)
{
	static const char * const needles[] = {
		"BUG: KCOLLIDER: data-race in kc_r1_dec / kc_r1_inc", NULL,
	};
	unsigned long addr;
	char val[64], why[256];
	long hits;

	ASSERT_TRUE(planted_fact("r1_count", val, sizeof(val)));
	addr = strtoul(val, NULL, 16);
	ASSERT_EQ(0, kc_write_file(PERF_BP, "1")) TH_LOG("%s", strerror(errno));
	hits = perf_bp_hits();
	ASSERT_EQ(0, run_scenario("r1", 300));
	ASSERT_LT(hits, perf_bp_hits());

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r1", 60, needles, report, sizeof(report)))
		TH_LOG("no R1 report beside perf's breakpoint; log:\n%.3000s",
		       read_reports());
	ASSERT_TRUE(every_cpu_watches(addr, why, sizeof(why))) TH_LOG("%s", why);

	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	hits = perf_bp_hits();
	ASSERT_EQ(0, run_scenario("r1", 300));
	ASSERT_LT(hits, perf_bp_hits());
	ASSERT_TRUE(every_cpu_watches(addr, why, sizeof(why))) TH_LOG("%s", why);

	ASSERT_EQ(0, kc_unload_module("kcollider"));
	self->loaded = false;
	hits = perf_bp_hits();
	ASSERT_EQ(0, run_scenario("r1", 300));
	ASSERT_LT(hits, perf_bp_hits());
	ASSERT_TRUE(every_cpu_watches(addr, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, kc_write_file(PERF_BP, "0"));
}

#define DECOY_BP	"/sys/kernel/debug/kc_planted/decoy_bp"

static void *run_r1_4s(void *unused)
{
	run_scenario("r1", 4000);
	return NULL;
}

/* Polls until every CPU watches @addr (a window is open), for @ms. */
static bool window_seen_open(unsigned long addr, int ms)
{
	char why[256];
	int t;

	for (t = 0; t < ms; t++) {
		if (every_cpu_watches(addr, why, sizeof(why)))
			return true;
		usleep(1000);
	}
	return false;
}

/* One slot, loaded above the decoy's register, sampling R1 slowly. */
static int load_above_the_decoy(void)
{
	int ret = kc_unload_module("kcollider");

	ret = ret ?: kc_write_file(PERF_BP, "0");
	ret = ret ?: kc_write_file(DECOY_BP, "1");
	ret = ret ?: kc_load_module(kc_module_path(), "watch_slots=1");
	ret = ret ?: kc_write_attr("targets",
				   "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec");
	ret = ret ?: kc_write_attr("window_sleep_us", "100000");
	ret = ret ?: kc_write_attr("stall_share_permille", "1000");
	return ret ?: kc_enable();
}

/*
 * perf moves the detector's register in the middle of a window. A decoy
 * breakpoint holds the register below the detector's single slot; while a
 * window on R1's counter is open (every CPU holds the counter, and nothing
 * but the detector watches it yet), the decoy goes and a breakpoint on
 * that very counter comes. perf puts the detector's event back first, in
 * the register the decoy freed, and the newcomer in the one the detector
 * held, which holds the watched address: the window must find its own
 * register where perf moved it (dr_repaired counts it put back there) and
 * leave the newcomer's alone. A window may close before the swap lands,
 * so up to five tries, each with the detector loaded anew.
 */
TEST_F_TIMEOUT(planted, perf_moving_the_register_midwindow_keeps_its_breakpoint,
	       300)
{
	long repaired = 0, hits;
	char val[64], why[256];
	unsigned long addr;
	pthread_t thread;
	int tries;

	ASSERT_TRUE(planted_fact("r1_count", val, sizeof(val)));
	addr = strtoul(val, NULL, 16);
	for (tries = 0; tries < 5 && !repaired; tries++) {
		bool open;

		self->loaded = false;
		ASSERT_EQ(0, load_above_the_decoy()) TH_LOG("%s",
							    strerror(errno));
		self->loaded = true;
		ASSERT_EQ(0, pthread_create(&thread, NULL, run_r1_4s, NULL));
		open = window_seen_open(addr, 3000);
		repaired = kc_stat("dr_repaired");
		ASSERT_EQ(0, kc_write_file(DECOY_BP, "0"));
		ASSERT_EQ(0, kc_write_file(PERF_BP, "1"));
		usleep(300000);
		ASSERT_EQ(0, kc_write_attr("enabled", "0"));
		repaired = open ? kc_stat("dr_repaired") - repaired : 0;
		pthread_join(thread, NULL);
		ASSERT_TRUE(every_cpu_watches(addr, why, sizeof(why)))
			TH_LOG("try %d: the newcomer's register: %s", tries,
			       why);
	}
	ASSERT_GT(repaired, 0)
		TH_LOG("no window open when perf moved the register, %d tries",
		       tries);
	TH_LOG("moved in a window on try %d: %ld watch(es) put back", tries,
	       repaired);
	hits = perf_bp_hits();
	ASSERT_EQ(0, run_scenario("r1", 300));
	ASSERT_LT(hits, perf_bp_hits());
	ASSERT_EQ(0, kc_write_file(PERF_BP, "0"));
}

static void *run_r1_5s(void *unused)
{
	run_scenario("r1", 5000);
	return NULL;
}

TEST_F_TIMEOUT(planted, unload_during_running_scenario_is_clean, 120)
{
	char line[200];
	pthread_t thread;

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_EQ(0, pthread_create(&thread, NULL, run_r1_5s, NULL));
	sleep(2);
	ASSERT_GT(kc_stat("samples"), 0);
	ASSERT_EQ(0, kc_unload_module("kcollider"))
		TH_LOG("unload under load: %s", strerror(errno));
	self->loaded = false;
	ASSERT_FALSE(kc_path_exists(KCOLLIDER_SYSFS_DIR));
	ASSERT_FALSE(kprobes_list_mentions("kc_r1_"));
	pthread_join(thread, NULL);
	ASSERT_FALSE(dmesg_has_trouble(line, sizeof(line))) TH_LOG("%s", line);
}

static int set_cpu_online(int cpu, bool on)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return kc_write_file(path, on ? "1" : "0");
}

static int read_selftest_on(const char *file, int cpu, char *result,
			    size_t len)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return kc_read_file(file, result, len);
}

/* Lets the reader run on any of the first ncpus CPUs again. */
static int unpin(long ncpus)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < ncpus; cpu++)
		CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A self-test answers for the CPU its reader runs on: read it from every
 * online CPU in turn. Returns the first CPU whose answer is not "passed"
 * (the answer, or why there is none, left in result), or -1.
 */
static int selftest_on_every_cpu(const char *file, char *result, size_t len)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu, failed = -1;

	for (cpu = 0; cpu < ncpus && failed < 0; cpu++) {
		if (read_selftest_on(file, cpu, result, len) <= 0) {
			snprintf(result, len, "%s", strerror(errno));
			failed = cpu;
		} else if (strcmp(result, "passed\n")) {
			failed = cpu;
		}
	}
	if (unpin(ncpus))
		return ncpus;
	return failed;
}

#define RESCUE_SELFTEST	"/sys/kernel/debug/kcollider/rescue_selftest"

/*
 * The scrub that ends a vCPU's loop on a stale int3 is a delayed work,
 * and that loop can hold its CPU, and others spinning on its lock, with
 * interrupts off: a timer queued there never fires. The self-test, run by
 * a read, queues the scrub on the CPU it runs on and keeps that CPU's
 * interrupts off until the scrub has run elsewhere ("failed" if it never
 * does); from every CPU in turn, so each CPU's neighbours' watchdogs are
 * used.
 */
TEST_F_TIMEOUT(planted, scrub_queued_on_a_cpu_with_interrupts_off_still_runs,
	       120)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pulled = kc_stat("scrubs_rescued");
	char line[200], result[64];
	int cpu;

	ASSERT_GE(ncpus, 2) TH_LOG("the rescue needs a second CPU");
	ASSERT_GE(pulled, 0);
	cpu = selftest_on_every_cpu(RESCUE_SELFTEST, result, sizeof(result));
	ASSERT_EQ(-1, cpu)
		TH_LOG("cpu %d: the scrub did not run: %s", cpu, result);
	ASSERT_LE(pulled + ncpus, kc_stat("scrubs_rescued"));
	ASSERT_FALSE(dmesg_has_trouble(line, sizeof(line))) TH_LOG("%s", line);
}

#define LOOP_SELFTEST	"/sys/kernel/debug/kcollider/loop_selftest"

/*
 * Under TCG a stale int3 can outlive every planned write of its page, and
 * a CPU that runs it, interrupts on, loops in kprobes' retry. Its own
 * watchdog finds it at the same site on two ticks and writes the page.
 * The self-test, run by a read, loops on one instruction of a site it
 * notes, with interrupts on, until the reader's watchdog has written that
 * page ("failed" if it never does); on every CPU in turn.
 */
TEST_F_TIMEOUT(planted, cpu_looping_at_a_site_gets_its_page_written, 120)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	long broken = kc_stat("loops_broken");
	char line[200], result[64];
	int cpu;

	ASSERT_GE(broken, 0);
	cpu = selftest_on_every_cpu(LOOP_SELFTEST, result, sizeof(result));
	ASSERT_EQ(-1, cpu)
		TH_LOG("cpu %d: the loop was not broken: %s", cpu, result);
	ASSERT_LE(broken + ncpus, kc_stat("loops_broken"));
	ASSERT_FALSE(dmesg_has_trouble(line, sizeof(line))) TH_LOG("%s", line);
}

/*
 * A CPU that goes offline while its watchdog ticks must take the
 * watchdog down with it: a pinned hrtimer is moved to another CPU and
 * would tick there for good, and the CPU back online would have none of
 * its own. Its loop is then caught only if it started its own again.
 */
TEST_F_TIMEOUT(planted, cpu_back_online_watches_its_own_loops, 120)
{
	int cpu = sysconf(_SC_NPROCESSORS_CONF) - 1, i;
	char line[200], result[64];

	ASSERT_GT(cpu, 0);
	for (i = 0; i < 2; i++) {
		/* every CPU's watchdog ticks for a while after this */
		ASSERT_LT(0, read_selftest_on(LOOP_SELFTEST, 0, result,
					      sizeof(result)));
		ASSERT_STREQ("passed\n", result);
		ASSERT_EQ(0, set_cpu_online(cpu, false)) TH_LOG("round %d", i);
		ASSERT_EQ(0, set_cpu_online(cpu, true)) TH_LOG("round %d", i);
		ASSERT_LT(0, read_selftest_on(LOOP_SELFTEST, cpu, result,
					      sizeof(result)))
			TH_LOG("round %d: %s", i, strerror(errno));
		ASSERT_STREQ("passed\n", result)
			TH_LOG("round %d: cpu %d back online has no watchdog",
			       i, cpu);
	}
	ASSERT_EQ(0, unpin(cpu + 1));
	ASSERT_FALSE(dmesg_has_trouble(line, sizeof(line))) TH_LOG("%s", line);
}

#define SILENT_SELFTEST	"/sys/kernel/debug/kcollider/silent_selftest"

/*
 * The same loop with interrupts off takes no tick: the CPU is found by
 * its silence, and another CPU's watchdog writes each of the sites armed
 * last again. The self-test, run by a read, notes two sites on one page
 * and keeps the reader's CPU's interrupts off until both were written
 * ("failed" if that never happens: one write per page drops only the
 * translations holding its own bytes); from every CPU in turn.
 */
TEST_F_TIMEOUT(planted, silent_cpu_gets_the_recent_sites_written, 120)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	long rewrites = kc_stat("silent_rewrites");
	char line[200], result[64];
	int cpu;

	ASSERT_GE(ncpus, 2) TH_LOG("the rescue needs a second CPU");
	ASSERT_GE(rewrites, 0);
	cpu = selftest_on_every_cpu(SILENT_SELFTEST, result, sizeof(result));
	ASSERT_EQ(-1, cpu)
		TH_LOG("cpu %d: no watchdog wrote for it: %s", cpu, result);
	ASSERT_LE(rewrites + ncpus, kc_stat("silent_rewrites"));
	ASSERT_FALSE(dmesg_has_trouble(line, sizeof(line))) TH_LOG("%s", line);
}

#define CPUSYNC_SELFTEST	"/sys/kernel/debug/kcollider/cpusync_selftest"

/* A self-test that needs a second CPU passes from every CPU, no splat. */
static void passes_on_every_cpu(struct __test_metadata *_metadata,
				const char *selftest)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	char line[200], result[64];
	int cpu;

	ASSERT_GE(ncpus, 2) TH_LOG("the self-test needs a second CPU");
	cpu = selftest_on_every_cpu(selftest, result, sizeof(result));
	ASSERT_EQ(-1, cpu) TH_LOG("cpu %d: %s", cpu, result);
	ASSERT_FALSE(dmesg_has_trouble(line, sizeof(line))) TH_LOG("%s", line);
}

/*
 * Under TCG a removed int3's page is written a second time once every
 * other CPU has taken an interrupt since the removal: a translation made
 * from the old bytes is linked by then. The self-test keeps another CPU's
 * interrupts off, "failed" if the wait ends meanwhile (an answer that
 * proves nothing) or does not end once they are on again; from every CPU.
 */
TEST_F_TIMEOUT(planted, second_write_waits_for_every_cpu_to_take_an_interrupt,
	       120)
{
	passes_on_every_cpu(_metadata, CPUSYNC_SELFTEST);
}

#define IDLE_SELFTEST	"/sys/kernel/debug/kcollider/idle_selftest"

/*
 * A CPU running its idle task counts as watching before it acknowledges
 * the arming IPI. The self-test wakes a thread on such a CPU right after
 * arming, and its write must trap there: "failed -5" if it went
 * uncaught; from every CPU.
 */
TEST_F_TIMEOUT(planted, write_of_a_thread_woken_on_an_idle_cpu_traps, 120)
{
	passes_on_every_cpu(_metadata, IDLE_SELFTEST);
}

#define ACKSCAN_SELFTEST	"/sys/kernel/debug/kcollider/ackscan_selftest"

/*
 * A window that must not sleep polls for the arming's acknowledgements.
 * With another CPU's interrupts held off, the polls must not find the
 * watch complete ("failed -71"), and must examine that CPU once a poll,
 * not every CPU a poll ("failed -5"); let go, it completes ("failed
 * -110" if not); from every CPU.
 */
TEST_F_TIMEOUT(planted, acknowledgement_polls_examine_the_late_cpu_only, 120)
{
	passes_on_every_cpu(_metadata, ACKSCAN_SELFTEST);
}

#define HOTPLUG_SELFTEST	"/sys/kernel/debug/kcollider/hotplug_selftest"

/*
 * A CPU brought online while a window is open watches in it: the
 * self-test takes another CPU offline, arms, brings it back, and a
 * thread bound to it writes the watched word, which must trap there
 * ("failed -5" if it went uncaught); from every CPU.
 */
TEST_F_TIMEOUT(planted, cpu_brought_up_during_a_window_watches_in_it, 180)
{
	passes_on_every_cpu(_metadata, HOTPLUG_SELFTEST);
}

/* ---- sysfs validation: garbage is -EINVAL and changes nothing ---- */

struct knob {
	const char *name;
	const char *good;
	const char * const bad[12];
};

static const struct knob knobs[] = {
	{ "enabled", "0", { "banana", "2", "-1", "\n", "1 1", "0x1", NULL } },
	{ "sample_percpu", "0", { "maybe", "3", "-0", NULL } },
	{ "sample_rate", "123", { "fast", "-5", "0", "100001",
		"99999999999999999999999", "12abc", "1.5", " 7", "\n", NULL } },
	{ "max_probes", "17", { "many", "-1", "0", "257", "4294967297",
		"0x10", NULL } },
	{ "stall_share_permille", "333", { "half", "-1", "0", "1001", "0.5",
		"25%", NULL } },
	{ "overhead_permille", "40", { "cheap", "-1", "0", "1001", "1.5",
		"2%", "0x10", NULL } },
	{ "window_sleep_us", "1500", { "x", "-1", "0", "100001",
		"18446744073709551616", NULL } },
	{ "window_atomic_us", "50", { "x", "-1", "0", "1001", "1e3", NULL } },
	{ "arm_timeout_us", "777", { "y", "-1", "0", "10001", NULL } },
	{ "dedup_ms", "2500", { "z", "-1", "3600001", "99999999999999999999",
		NULL } },
};

/*
 * A sleeping window must leave the sampled task as preemption would: P1
 * holds a block plug around its sampled store and counts every flush of
 * it by schedule(). Without kcollider the count stays 0 (its worker only
 * yields outside the plug).
 */
TEST_F_TIMEOUT(planted, sleeping_window_leaves_the_block_plug_alone, 150)
{
	char runs[32] = "", flushes[32] = "";
	long samples;

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_p1_plugged_store"));
	ASSERT_EQ(0, kc_enable());
	samples = run_until_stat("p1", "samples", 20, 120);
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_TRUE(planted_fact("p1_plugged_runs", runs, sizeof(runs)));
	ASSERT_TRUE(planted_fact("p1_schedule_flushes", flushes,
				 sizeof(flushes)));
	TH_LOG("samples %ld stall_us %ld plugged runs %s flushed by schedule %s",
	       samples, kc_stat("stall_us"), runs, flushes);
	ASSERT_GE(samples, 20);
	ASSERT_GT(atol(runs), 0);
	EXPECT_EQ(0, atol(flushes));
}

TEST_F(planted, every_knob_rejects_garbage_and_keeps_its_value)
{
	char before[64], after[64];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		const struct knob *k = &knobs[i];

		ASSERT_EQ(0, kc_write_attr(k->name, k->good)) TH_LOG("%s", k->name);
		ASSERT_LT(0, kc_read_attr(k->name, before, sizeof(before)));
		ASSERT_EQ(0, strncmp(before, k->good, strlen(k->good)));
		for (j = 0; k->bad[j]; j++) {
			int ret = kc_write_attr(k->name, k->bad[j]);

			ASSERT_EQ(-EINVAL, ret)
				TH_LOG("%s <- '%s': %d", k->name, k->bad[j], ret);
			ASSERT_LT(0, kc_read_attr(k->name, after, sizeof(after)));
			ASSERT_STREQ(before, after) TH_LOG("%s", k->name);
		}
	}
}

TEST_F(planted, targets_reject_garbage_and_unknown_functions)
{
	static const char * const garbage[] = {
		"foo;bar", "::", "a:b:c", "module:", "kc_planted:", "$x",
		"-", "+", "\n", " , ", NULL,
	};
	char before[4096], after[4096];
	int i;

	ASSERT_EQ(0, kc_write_attr("targets", "kc_planted:kc_r1_inc"));
	ASSERT_LT(0, kc_read_attr("targets", before, sizeof(before)));
	ASSERT_NE(NULL, strstr(before, "kc_planted:kc_r1_inc sites="));
	for (i = 0; garbage[i]; i++) {
		ASSERT_EQ(-EINVAL, kc_write_attr("targets", garbage[i]))
			TH_LOG("'%s'", garbage[i]);
		ASSERT_LT(0, kc_read_attr("targets", after, sizeof(after)));
		ASSERT_STREQ(before, after);
	}
	/* a valid list with one unknown function changes nothing at all */
	ASSERT_EQ(-ENOENT, kc_write_attr("targets",
		"kc_planted:kc_r1_dec,no_such_function_kcollider"));
	ASSERT_LT(0, kc_read_attr("targets", after, sizeof(after)));
	ASSERT_STREQ(before, after);
	ASSERT_EQ(0, kc_write_attr("targets", "-kc_planted:kc_r1_inc"));
	ASSERT_LE(0, kc_read_attr("targets", after, sizeof(after)));
	ASSERT_STREQ("", after);
}

TEST_F(planted, read_only_attributes_refuse_writes)
{
	char before[4096], after[4096];

	ASSERT_LT(0, kc_read_attr("watch_slots", before, sizeof(before)));
	ASSERT_NE(0, kc_write_attr("watch_slots", "3"));
	ASSERT_LT(0, kc_read_attr("watch_slots", after, sizeof(after)));
	ASSERT_STREQ(before, after);
	ASSERT_NE(0, kc_write_attr("version", "0"));
}

TEST(watch_slots_out_of_range_refuses_to_load)
{
	static const char * const bad[] = { "watch_slots=0", "watch_slots=5",
					    "watch_slots=-1", NULL };
	int i;

	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	for (i = 0; bad[i]; i++) {
		ASSERT_NE(0, kc_load_module(kc_module_path(), bad[i]))
			TH_LOG("%s loaded", bad[i]);
		ASSERT_FALSE(kc_path_exists(KCOLLIDER_SYSFS_DIR));
	}
	ASSERT_EQ(0, kc_load_module(kc_module_path(), "watch_slots=4"));
	ASSERT_EQ(0, kc_unload_module("kcollider"));
}

/* "module:NAME" for a module already loaded: its functions become sites */
TEST_F_TIMEOUT(planted, module_target_of_loaded_module_samples_it, 150)
{
	char buf[4096];
	long sites;

	ASSERT_EQ(0, kc_write_attr("targets", "module:kc_planted"));
	ASSERT_LT(0, kc_read_attr("targets", buf, sizeof(buf)));
	ASSERT_EQ(0, strncmp(buf, "module:kc_planted sites=", 24)) TH_LOG("%s", buf);
	ASSERT_EQ(NULL, strstr(buf, "not loaded")) TH_LOG("%s", buf);
	sites = strtol(buf + 24, NULL, 10);
	ASSERT_GT(sites, 4);
	ASSERT_EQ(sites, kc_stat("sites"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_GT(run_until_stat("r1", "fired", 1, 60), 0);
	/* its sites visited, or with visits off, kprobes on them */
	ASSERT_TRUE(kc_stat("visits") > 0 ||
		    kprobes_list_mentions(" kc_planted"));
}

/* ... and for one that loads later, and goes away again */
/* Tests that load the modules themselves: teardown unloads what is left. */
FIXTURE(own_load) {
	int unused;
};

FIXTURE_SETUP(own_load)
{
}

FIXTURE_TEARDOWN(own_load)
{
	if (!kc_in_vm())
		return;
	kc_write_attr("enabled", "0");
	kc_unload_module("kcollider");
	kc_unload_module("kc_planted");
}

TEST_F_TIMEOUT(own_load, module_target_follows_load_and_unload, 150)
{
	char buf[4096];

	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), "targets=module:kc_planted"))
		TH_LOG("load: %s", strerror(errno));
	ASSERT_LT(0, kc_read_attr("targets", buf, sizeof(buf)));
	ASSERT_STREQ("module:kc_planted sites=0 (not loaded)\n", buf);
	ASSERT_EQ(0, kc_load_module(planted_path(), NULL));
	ASSERT_LT(0, kc_read_attr("targets", buf, sizeof(buf)));
	ASSERT_EQ(NULL, strstr(buf, "not loaded")) TH_LOG("%s", buf);
	ASSERT_GT(kc_stat("sites"), 4);
	ASSERT_EQ(0, kc_enable());
	ASSERT_GT(run_until_stat("r1", "fired", 1, 60), 0);
	ASSERT_EQ(0, kc_unload_module("kc_planted"));
	ASSERT_LT(0, kc_read_attr("targets", buf, sizeof(buf)));
	ASSERT_STREQ("module:kc_planted sites=0 (not loaded)\n", buf);
	ASSERT_EQ(0, kc_stat("sites"));
	/* dropped, not left behind as [GONE] probes */
	ASSERT_FALSE(kprobes_list_mentions("[GONE]"));
	/* nor as visits of its freed text: every entry of the pool free */
	ASSERT_EQ(0, kc_stat("probes_registered"));
	ASSERT_EQ(0, kc_unload_module("kcollider"));
}

/*
 * kcollider sampling kc_planted, one breakpoint fired. Registered probes
 * only (no visits): kprobes' list shows what is left of them.
 */
static void sample_planted_with_registered_probes(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, kc_load_module(kc_module_path(), "visits=0"));
	ASSERT_EQ(0, kc_load_module(planted_path(), NULL));
	ASSERT_EQ(0, kc_write_attr("targets", "module:kc_planted"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_GT(run_until_stat("r1", "fired", 1, 60), 0);
}

/*
 * Probes left in the pool by a targets change, sampling off, nobody to
 * reap them: when their module unloads they go with it, not stay
 * registered on its freed text.
 */
TEST_F_TIMEOUT(own_load, probes_of_a_module_no_longer_targeted_go_with_it, 150)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	sample_planted_with_registered_probes(_metadata);
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(0, kc_write_attr("targets", "clear"));
	/* the case this is about: idle probes still in the module */
	ASSERT_TRUE(kprobes_list_mentions(" kc_planted"));
	ASSERT_EQ(0, kc_unload_module("kc_planted"));
	EXPECT_FALSE(kprobes_list_mentions("[GONE]"));
	EXPECT_FALSE(kprobes_list_mentions(" kc_planted"));
	ASSERT_EQ(0, kc_unload_module("kcollider"));
}

/* Pages of text the pool maps writable: one per registered probe. */
static int text_aliases(void)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/vmallocinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, " kc_text_map+") != NULL;
	fclose(f);
	return n;
}

/*
 * The same with sampling on: the targets change, and the module unloads
 * while the keeper reaps what the change left. Neither its probes nor
 * their aliases, writable mappings of its freed text, stay. No other
 * target: every probe and alias left would be the module's.
 */
TEST_F_TIMEOUT(own_load, module_no_longer_targeted_unloaded_while_sampling,
	       150)
{
	char on[16];

	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	sample_planted_with_registered_probes(_metadata);
	ASSERT_EQ(0, kc_write_attr("targets", "clear"));
	TH_LOG("probes of kc_planted still registered: %s; text aliases %d",
	       kprobes_list_mentions(" kc_planted") ? "yes" : "no",
	       text_aliases());
	ASSERT_EQ(0, kc_unload_module("kc_planted"));
	/* still sampling */
	ASSERT_LT(0, kc_read_attr("enabled", on, sizeof(on)));
	ASSERT_STREQ("1\n", on);
	EXPECT_FALSE(kprobes_list_mentions("[GONE]"));
	EXPECT_FALSE(kprobes_list_mentions(" kc_planted"));
	ASSERT_EQ(0, kc_stat("probes_registered"));
	ASSERT_EQ(0, text_aliases());
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(0, kc_unload_module("kcollider"));
}

#define REAP_HOLD_MS	KCOLLIDER_DEBUGFS_DIR "/reap_hold_ms"

/*
 * The keeper's reaping takes a batch out of the pool (BUSY) and
 * unregisters it without the pool's lock; a module that unloads meanwhile
 * must wait for that batch, not free its text under probes still
 * registered, nor unregister them a second time. The reaping is made to
 * hold its batch (reap_hold_ms) so that the unload falls inside it: once
 * the unload has returned, nothing of the module is left in kprobes' list.
 */
TEST_F_TIMEOUT(own_load, unload_waits_for_the_keepers_reaping_of_its_probes,
	       150)
{
	char line[200];
	int i;

	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	kc_klog_mark();
	sample_planted_with_registered_probes(_metadata);
	ASSERT_EQ(0, kc_write_file(REAP_HOLD_MS, "3000"));
	/* the change leaves kc_planted's probes idle, for the keeper */
	ASSERT_EQ(0, kc_write_attr("targets", "clear"));
	for (i = 0; i < 1000 && kc_stat("reap_holding") < 1; i++)
		usleep(10000);
	ASSERT_EQ(1, kc_stat("reap_holding"));
	/* the batch held is kc_planted's, still registered */
	ASSERT_TRUE(kprobes_list_mentions(" kc_planted"));
	ASSERT_EQ(0, kc_unload_module("kc_planted"));
	EXPECT_FALSE(kprobes_list_mentions("[GONE]"));
	EXPECT_FALSE(kprobes_list_mentions(" kc_planted"));
	ASSERT_EQ(0, kc_stat("probes_registered"));
	ASSERT_EQ(0, text_aliases());
	ASSERT_EQ(0, kc_write_file(REAP_HOLD_MS, "0"));
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(0, kc_unload_module("kcollider"));
	ASSERT_FALSE(dmesg_has_trouble(line, sizeof(line))) TH_LOG("%s", line);
}

TEST_HARNESS_MAIN
