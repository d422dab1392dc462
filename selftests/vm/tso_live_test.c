// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: "kcollider tso" in live mode (/proc/kallsyms + /proc/kcore) on
 * the reports the detector produces for the planted scenarios R9 and R13
 * (store buffering: sc-violation), R10 (message passing) and R14 (SB with
 * smp_mb() on both sides): not-triangular, R15 (one-sided): triangular.
 *
 * Each pair is analysed twice: with the detector still sampling (its
 * kprobes put int3s in the planted text, so the code comes from the .ko
 * given by --modules, relocated to the running module's addresses), and
 * after it is disabled, from /proc/kcore alone.
 */
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "vm_reports.h"

#define OUT_SIZE	(1 << 16)

/* Run @scenario in 2 s slices until each title has a report (or 90 s). */
static bool run_until(const char *scenario, const char * const *titles,
		      char reports[][16384])
{
	char cmd[64];
	int waited, i, missing;

	for (waited = 0; waited < 90; waited += 2) {
		snprintf(cmd, sizeof(cmd), "%s 2000\n", scenario);
		if (kc_write_file(PLANTED_RUN, cmd))
			return false;
		for (i = 0, missing = 0; titles[i]; i++)
			missing += !find_whole_report(read_reports(), titles[i],
						      reports[i], sizeof(reports[i]));
		if (!missing)
			return true;
	}
	return false;
}

/*
 * "kcollider --json tso [--modules DIR]" on @report: its output in @out,
 * its exit status returned. Report and output are kept in the results.
 */
static int tso_live(const char *name, const char *report, bool modules,
		    char *out, size_t size)
{
	const char *res = getenv("KC_RESULTS") ? getenv("KC_RESULTS") : "/tmp";
	char path[256], opath[256], cmd[8192];
	size_t n = 0;
	FILE *f;
	int st;

	snprintf(path, sizeof(path), "%s/tso_live_%s.log", res, name);
	snprintf(opath, sizeof(opath), "%s/tso_live_%s%s.json", res, name,
		 modules ? "_modules" : "_kcore");
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(report, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s/user/kcollider --json tso --litmus%s%s%s %s | tee %s",
		 kc_top(), modules ? " --modules " : "", modules ? kc_top() : "",
		 modules ? "/selftests/planted" : "", path, opath);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The value of the first "key":"value" after @after in @json. */
static const char *field(const char *json, const char *after, const char *key)
{
	static char val[160];
	char pat[64];
	const char *p = after ? strstr(json, after) : json;
	size_t len;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = p ? strstr(p, pat) : NULL;
	if (!p)
		return "(none)";
	p += strlen(pat);
	len = strcspn(p, "\"");
	snprintf(val, sizeof(val), "%.*s", (int)len, p);
	return val;
}

FIXTURE(live) {
	bool loaded;
};

FIXTURE_SETUP(live)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	if (access("/proc/kcore", R_OK))
		SKIP(return, "no readable /proc/kcore");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load kcollider: %s", strerror(errno));
	self->loaded = true;
	if (kc_load_module(planted_path(), NULL) && errno != EEXIST)
		ASSERT_TRUE(false) TH_LOG("load kc_planted: %s", strerror(errno));
}

FIXTURE_TEARDOWN(live)
{
	if (!kc_in_vm() || !self->loaded)
		return;
	kc_write_attr("enabled", "0");
	EXPECT_EQ(0, kc_unload_module("kcollider"));
	EXPECT_EQ(0, kc_unload_module("kc_planted"));
}

/* Missing trailing members are NULL by C's rules. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
struct want {
	const char *title;	/* the pair */
	const char *verdict;
	const char *load;	/* symbol of the racy load, or NULL: any */
	const char *witness;	/* the witness store: symbol, or a prefix */
	const char *fence;	/* "before" symbol of the fence, or NULL */
	const char *barrier;	/* not-triangular: the barrier's function */
	const char *close;	/* sc-violation: the racer's closing load */
};

/* The value of "key" in the object after @a1 and then @a2. */
static const char *field2(const char *json, const char *a1, const char *a2,
			  const char *key)
{
	const char *p = strstr(json, a1);

	return p ? field(p, a2, key) : "(none)";
}

/*
 * sc-violation: both halves named, the witness is the store of the
 * reader, the closing load the racer's; the litmus test of the cycle is
 * allowed on x86 only, with the suggested fences on neither.
 */
static void check_cycle(struct __test_metadata *_metadata, const char *out,
			const struct want *w)
{
	const char *cyc = strstr(out, "\"cycle\":{");
	char witness[160], load[160];

	ASSERT_NE(NULL, cyc) TH_LOG("%s", out);
	/* field() returns a static buffer: copy before the next call */
	snprintf(witness, sizeof(witness), "%s", field(out, "\"witness\":", "symbol"));
	snprintf(load, sizeof(load), "%s", field(out, "\"load\":", "symbol"));
	EXPECT_STREQ(witness, field2(cyc, "\"reader\":", "\"store\":", "symbol"));
	EXPECT_STREQ(load, field2(cyc, "\"reader\":", "\"load\":", "symbol"));
	EXPECT_NE(NULL, strstr(field2(cyc, "\"racer\":", "\"load\":", "symbol"), "+0x"));
	if (w->close)
		EXPECT_STREQ(w->close, field2(cyc, "\"racer\":", "\"load\":", "symbol"));
	EXPECT_NE(NULL, strstr(out, "\"litmus_tso_allowed\":true"));
	EXPECT_NE(NULL, strstr(out, "\"litmus_sc_allowed\":false"));
	EXPECT_NE(NULL, strstr(out, "\"litmus_fixed_tso_allowed\":false"));
	EXPECT_NE(NULL, strstr(out, "\"litmus_fixed_sc_allowed\":false"));
}

static void check(struct __test_metadata *_metadata, const char *name,
		  const char *report, bool modules, const struct want *w)
{
	static char out[OUT_SIZE];

	ASSERT_EQ(0, tso_live(name, report, modules, out, sizeof(out)))
		TH_LOG("%s: %s", name, out);
	TH_LOG("%s (%s): %.1500s", name, modules ? "--modules" : "kcore", out);
	EXPECT_STREQ(w->verdict, field(out, NULL, "verdict")) TH_LOG("%s", out);
	if (w->load)
		EXPECT_STREQ(w->load, field(out, "\"load\":", "symbol"));
	/* Braces: the harness's EXPECT_* are loops, an "else" would bind wrong. */
	if (w->witness) {
		EXPECT_EQ(0, strncmp(w->witness, field(out, "\"witness\":", "symbol"),
				     strlen(w->witness)))
			TH_LOG("witness %s", field(out, "\"witness\":", "symbol"));
	} else {
		EXPECT_NE(NULL, strstr(out, "\"witness\":null"));
	}
	if (w->fence)
		EXPECT_STREQ(w->fence, field(out, "\"fence\":", "symbol"));
	if (w->barrier) {
		EXPECT_NE(NULL, strstr(field(out, "\"barrier\":", "symbol"),
				       w->barrier))
			TH_LOG("%s", out);
	}
	if (!strcmp(w->verdict, "sc-violation"))
		check_cycle(_metadata, out, w);
	else
		EXPECT_NE(NULL, strstr(out, "\"cycle\":null")) TH_LOG("%s", out);
}

/* Both pairs with the sampler's int3s armed (--modules), then from kcore. */
static void check_pairs(struct __test_metadata *_metadata, const char *scenario,
			const struct want *w, int n)
{
	static char reports[2][16384];
	const char *titles[3] = { w[0].title, n > 1 ? w[1].title : NULL, NULL };
	char name[64];
	int i;

	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until(scenario, titles, reports))
		TH_LOG("no report for every pair; log:\n%.3000s", read_reports());
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s_%d", scenario, i);
		check(_metadata, name, reports[i], true, &w[i]);
	}
	/* Disabled: the kprobes are disarmed and kcore has the plain text. */
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s_%d", scenario, i);
		check(_metadata, name, reports[i], false, &w[i]);
	}
}

/*
 * R9, store buffering: each reader stored the other variable just before
 * (in kc_r9_write_x/y, called right before kc_r9_read_y/x): the witness
 * is that store; the writer's thread then calls kc_r9_read_x/y, which
 * loads the witness's variable: the cycle closes through the racer's
 * return into its caller and that caller's next call.
 */
TEST_F_TIMEOUT(live, r9_store_buffering_sc_violation, 240)
{
	static const struct want w[] = {
		{ "data-race in kc_r9_read_y / kc_r9_write_y", "sc-violation",
		  "kc_r9_read_y+0x5", "kc_r9_write_x+0x5", NULL, NULL,
		  "kc_r9_read_x+0x5" },
		{ "data-race in kc_r9_read_x / kc_r9_write_x", "sc-violation",
		  "kc_r9_read_x+0x5", "kc_r9_write_y+0x5", NULL, NULL,
		  "kc_r9_read_y+0x5" },
	};

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r9_write_x,kc_planted:kc_r9_read_y,kc_planted:kc_r9_write_y,kc_planted:kc_r9_read_x"));
	check_pairs(_metadata, "r9", w, 2);
}

/*
 * R10, message passing: the reader (kc_r10_consumer) stores nothing
 * before its loads and starts with smp_mb() ("lock addl $0,-4(%rsp)"),
 * which cuts every path back into the harness: neither race is
 * triangular, and the barrier is what the analysis must name.
 */
TEST_F_TIMEOUT(live, r10_message_passing_verdict, 240)
{
	static const struct want w[] = {
		{ "data-race in kc_r10_read_data / kc_r10_write_data",
		  "not-triangular", "kc_r10_read_data+0x5", NULL, NULL,
		  "kc_r10_consumer+" },
		{ "data-race in kc_r10_read_flag / kc_r10_write_flag",
		  "not-triangular", "kc_r10_read_flag+0x5", NULL, NULL,
		  "kc_r10_consumer+" },
	};

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r10_write_data,kc_planted:kc_r10_write_flag,kc_planted:kc_r10_read_flag,kc_planted:kc_r10_read_data"));
	check_pairs(_metadata, "r10", w, 2);
}

/*
 * R13, store buffering in one function per side: x = 1; r0 = y and
 * y = 1; r1 = x. Both races (on x and on y) have the same title; either
 * is an sc-violation whose witness is the reader's own store, one
 * instruction before its load, and whose closing load is the racer's.
 */
TEST_F_TIMEOUT(live, r13_store_buffering_sc_violation, 240)
{
	static const struct want w[] = {
		{ "data-race in kc_r13_sb0 / kc_r13_sb1", "sc-violation", NULL,
		  "kc_r13_sb" },
	};

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r13_sb0,kc_planted:kc_r13_sb1"));
	check_pairs(_metadata, "r13", w, 1);
}

/* R14, R13 with smp_mb() between store and load on both sides. */
TEST_F_TIMEOUT(live, r14_sb_smp_mb_not_triangular, 240)
{
	static const struct want w[] = {
		{ "data-race in kc_r14_sb0 / kc_r14_sb1", "not-triangular",
		  NULL, NULL, NULL, "kc_r14_sb" },
	};

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r14_sb0,kc_planted:kc_r14_sb1"));
	check_pairs(_metadata, "r14", w, 1);
}

/*
 * R15, one-sided: the reader stores z then loads x (triangular, fence
 * before the load); the writer stores x and never loads z.
 */
TEST_F_TIMEOUT(live, r15_one_sided_triangular, 240)
{
	static const struct want w[] = {
		{ "data-race in kc_r15_read / kc_r15_write", "triangular",
		  "kc_r15_read+0xf", "kc_r15_read+0x5", "kc_r15_read+0xf" },
	};

	ASSERT_EQ(0, kc_write_attr("targets",
				   "kc_planted:kc_r15_read,kc_planted:kc_r15_write"));
	check_pairs(_metadata, "r15", w, 1);
}

TEST_HARNESS_MAIN
