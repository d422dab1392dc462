// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: every scenario of the planted-race catalogue
 * (Documentation/testing.rst, Planted races), one test each, named after its id.
 *
 * Each test loads kcollider.ko and kc_planted.ko fresh, targets exactly the
 * scenario's functions, runs it and asserts on the report log
 * (/sys/kernel/debug/kcollider/reports): R scenarios run in 2 s slices
 * until the expected report appears (30 s budget), N scenarios run for a
 * fixed time and must be sampled yet never reported. B scenarios assert
 * what the detector reports today (the benign filters come later).
 * detector_test.c checks R1, R5, R8 and N1 in more depth.
 */
#include <sys/klog.h>
#include <time.h>

#include "kselftest_harness.h"
#include "vm_reports.h"

#define R_BUDGET_S	30
#define N_RUN_MS	8000

/* One side of a race as a block shows it. */
struct side {
	char access[16];	/* read, write, read-write */
	int size;
	char func[64];		/* of the top frame */
	bool irq;		/* "by interrupt" */
	int cpu;
};

static bool parse_block(const char *block, struct side *s)
{
	const char *frame = strchr(block, '\n');
	const char *p;

	memset(s, 0, sizeof(*s));
	if (sscanf(block, "%15s to 0x%*x of %d bytes", s->access,
		   &s->size) != 2)
		return false;
	s->irq = strstr(block, " bytes by interrupt on cpu ") != NULL;
	p = strstr(block, " on cpu ");
	if (!p || sscanf(p, " on cpu %d", &s->cpu) != 1)
		return false;
	if (!frame || frame[1] != ' ')
		return false;
	return sscanf(frame + 2, "%63[^+]", s->func) == 1;
}

/* What a test expects of one side; size 0: any. */
struct expect {
	const char *func;
	const char *access;
	int size;
};

/*
 * The two blocks of @report are @a and @b, in either order (either side
 * can be the sampled one). On mismatch, says why in @why.
 */
static bool sides_are(const char *report, const struct expect *a,
		      const struct expect *b, char *why, size_t size)
{
	const struct expect *want[2] = { a, b };
	struct side got[2];
	static char block[8192];
	int k, order;

	for (k = 0; k < 2; k++) {
		if (!report_block(report, k, block, sizeof(block)) ||
		    !parse_block(block, &got[k])) {
			snprintf(why, size, "block %d unparsable", k);
			return false;
		}
	}
	for (order = 0; order < 2; order++) {
		for (k = 0; k < 2; k++) {
			const struct expect *w = want[k ^ order];

			if (strcmp(got[k].func, w->func) ||
			    strcmp(got[k].access, w->access) ||
			    (w->size && got[k].size != w->size))
				break;
		}
		if (k == 2)
			return true;
	}
	snprintf(why, size, "got %s %s/%d and %s %s/%d", got[0].func,
		 got[0].access, got[0].size, got[1].func, got[1].access,
		 got[1].size);
	return false;
}

/* Targets "kc_planted:f" for each function of the space-separated @funcs. */
static int target(const char *funcs)
{
	char spec[1024] = "", copy[512], *f, *save;

	snprintf(copy, sizeof(copy), "%s", funcs);
	for (f = strtok_r(copy, " ", &save); f; f = strtok_r(NULL, " ", &save)) {
		if (spec[0])
			strcat(spec, ",");
		strcat(spec, "kc_planted:");
		strcat(spec, f);
	}
	return kc_write_attr("targets", spec);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Run @scenario in 2 s slices until every needle set of @sets (each
 * NULL-terminated, the list ends with NULL) matches a report, or the
 * budget passes. The report matching set i goes to @out[i].
 */
static bool run_until_all(const char *scenario, const char * const **sets,
			  char (*out)[16384])
{
	double start = now_s();
	int i, waited;

	for (waited = 0; waited < R_BUDGET_S; waited += 2) {
		if (run_scenario(scenario, 2000))
			return false;
		for (i = 0; sets[i]; i++)
			if (!find_report(read_reports(), sets[i], out[i],
					 sizeof(out[i])))
				break;
		if (!sets[i]) {
			fprintf(stderr, "# %s: expected reports after %.1f s\n",
				scenario, now_s() - start);
			return true;
		}
	}
	return false;
}

static char reports[2][16384];

static bool run_until(const char *scenario, const char * const *needles)
{
	const char * const *sets[] = { needles, NULL };

	return run_until_all(scenario, sets, reports);
}

FIXTURE(scenario) {
	bool loaded;
};

FIXTURE_SETUP(scenario)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load kcollider: %s", strerror(errno));
	self->loaded = true;
	if (kc_load_module(planted_path(), NULL) && errno != EEXIST)
		ASSERT_TRUE(false) TH_LOG("load kc_planted: %s", strerror(errno));
}

FIXTURE_TEARDOWN(scenario)
{
	if (!kc_in_vm() || !self->loaded)
		return;
	kc_write_attr("enabled", "0");
	EXPECT_EQ(0, kc_unload_module("kcollider"))
		TH_LOG("unload kcollider: %s", strerror(errno));
	EXPECT_EQ(0, kc_unload_module("kc_planted"))
		TH_LOG("unload kc_planted: %s", strerror(errno));
}

static char why[256];

/* ASSERT in a helper: the harness longjmps out of the whole test. */
static void assert_sides(struct __test_metadata *_metadata,
			 const char *report, const struct expect *a,
			 const struct expect *b)
{
	ASSERT_TRUE(sides_are(report, a, b, why, sizeof(why)))
		TH_LOG("%s\n%s", why, report);
}

#define ASSERT_SIDES(report, a, b) assert_sides(_metadata, report, a, b)

/* ---- R: must be reported ---- */

TEST_F_TIMEOUT(scenario, r1_inc_dec_read_write_both_sides, 120)
{
	static const char * const title[] = {
		"data-race in kc_r1_dec / kc_r1_inc", NULL,
	};
	static const struct expect inc = { "kc_r1_inc", "read-write", 4 };
	static const struct expect dec = { "kc_r1_dec", "read-write", 4 };

	ASSERT_EQ(0, target("kc_r1_inc kc_r1_dec"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r1", title))
		TH_LOG("no R1 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &inc, &dec);
}

TEST_F_TIMEOUT(scenario, r2_write_vs_read_value_changed, 120)
{
	static const char * const needles[] = {
		"data-race in kc_r2_read / kc_r2_write", "\nvalue changed: 0x",
		NULL,
	};
	static const struct expect w = { "kc_r2_write", "write", 4 };
	static const struct expect r = { "kc_r2_read", "read", 4 };
	struct side racer, sampled;
	static char block[8192];
	unsigned int old, new;
	char *v;
	int n;

	/*
	 * The read is the sampled side this test is about. With the write
	 * targeted too, a sampled write's report (no value change) of the
	 * same pair is often first, and dedup then holds back the sampled
	 * read's for dedup_ms: the test waited on which side the sampler
	 * picked.
	 */
	ASSERT_EQ(0, target("kc_r2_read"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r2", needles))
		TH_LOG("no R2 report with a value change; log:\n%.3000s",
		       read_reports());
	ASSERT_SIDES(reports[0], &w, &r);
	/* the value changed under the sampled read: the writer was caught */
	ASSERT_TRUE(report_block(reports[0], 0, block, sizeof(block)));
	ASSERT_TRUE(parse_block(block, &racer));
	ASSERT_TRUE(report_block(reports[0], 1, block, sizeof(block)));
	ASSERT_TRUE(parse_block(block, &sampled));
	ASSERT_STREQ("kc_r2_write", racer.func) TH_LOG("%s", reports[0]);
	ASSERT_STREQ("kc_r2_read", sampled.func);
	v = strstr(reports[0], "\nvalue changed: ");
	n = sscanf(v, "\nvalue changed: 0x%8x -> 0x%8x", &old, &new);
	ASSERT_EQ(2, n) TH_LOG("%s", v);
	ASSERT_NE(old, new);
	/* 4 bytes: 8 hex digits on each side */
	ASSERT_EQ(' ', v[strlen("\nvalue changed: 0x") + 8]) TH_LOG("%s", v);
}

TEST_F_TIMEOUT(scenario, r3_word_write_write_reported, 120)
{
	static const char * const title[] = {
		"data-race in kc_r3_write_a / kc_r3_write_b", NULL,
	};
	static const struct expect a = { "kc_r3_write_a", "write", 8 };
	static const struct expect b = { "kc_r3_write_b", "write", 8 };

	ASSERT_EQ(0, target("kc_r3_write_a kc_r3_write_b"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r3", title))
		TH_LOG("no R3 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &a, &b);
}

TEST_F_TIMEOUT(scenario, r4_same_value_writes_reported_without_value_change, 120)
{
	static const char * const title[] = {
		"data-race in kc_r4_write_a / kc_r4_write_b", NULL,
	};
	static const struct expect a = { "kc_r4_write_a", "write", 8 };
	static const struct expect b = { "kc_r4_write_b", "write", 8 };

	ASSERT_EQ(0, target("kc_r4_write_a kc_r4_write_b"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r4", title))
		TH_LOG("no R4 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &a, &b);
	/* caught by the watchpoint, not by a value change: none happened */
	ASSERT_EQ(NULL, strstr(reports[0], "\nvalue changed: "))
		TH_LOG("%s", reports[0]);
	ASSERT_NE(NULL, strstr(reports[0], "\nkcollider: racer: ip=0x"));
}

TEST_F_TIMEOUT(scenario, r5_hrtimer_same_cpu_interrupt_side_named, 120)
{
	static const char * const needles[] = {
		"data-race in kc_r5_task_write / kc_r5_timer_access",
		"racer=hardirq", NULL,
	};
	static char block[8192];
	struct side racer, sampled;

	ASSERT_EQ(0, target("kc_r5_task_write kc_r5_timer_access"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r5", needles))
		TH_LOG("no R5 report; log:\n%.3000s", read_reports());
	ASSERT_TRUE(report_block(reports[0], 0, block, sizeof(block)));
	ASSERT_TRUE(parse_block(block, &racer)) TH_LOG("%s", block);
	ASSERT_TRUE(report_block(reports[0], 1, block, sizeof(block)));
	ASSERT_TRUE(parse_block(block, &sampled)) TH_LOG("%s", block);
	ASSERT_STREQ("kc_r5_timer_access", racer.func);
	ASSERT_TRUE(racer.irq) TH_LOG("%s", reports[0]);
	ASSERT_STREQ("kc_r5_task_write", sampled.func);
	ASSERT_FALSE(sampled.irq);
	ASSERT_EQ(sampled.cpu, racer.cpu) TH_LOG("%s", reports[0]);
	ASSERT_NE(NULL, strstr(reports[0], "kcollider: context: sampled=task"));
}

TEST_F_TIMEOUT(scenario, r6_task_vs_softirq_other_cpu, 120)
{
	static const char * const needles[] = {
		"data-race in kc_r6_softirq_access / kc_r6_task_write", NULL,
	};
	static char block[8192];
	struct side s[2];
	int k, soft;

	ASSERT_EQ(0, target("kc_r6_task_write kc_r6_softirq_access"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r6", needles))
		TH_LOG("no R6 report; log:\n%.3000s", read_reports());
	for (k = 0; k < 2; k++) {
		ASSERT_TRUE(report_block(reports[0], k, block, sizeof(block)));
		ASSERT_TRUE(parse_block(block, &s[k])) TH_LOG("%s", block);
	}
	soft = !strcmp(s[1].func, "kc_r6_softirq_access");
	ASSERT_STREQ("kc_r6_softirq_access", s[soft].func);
	ASSERT_STREQ("kc_r6_task_write", s[!soft].func);
	/* the softirq side is named as an interrupt, the task side is not */
	ASSERT_TRUE(s[soft].irq) TH_LOG("%s", reports[0]);
	ASSERT_FALSE(s[!soft].irq) TH_LOG("%s", reports[0]);
	ASSERT_NE(s[0].cpu, s[1].cpu) TH_LOG("%s", reports[0]);
	ASSERT_NE(NULL, strstr(reports[0], soft ? "sampled=softirq" :
						  "racer=softirq"))
		TH_LOG("%s", reports[0]);
}

/*
 * kmem_dump_obj()'s text for the report's object, from the kernel log:
 * the line that follows "kcollider: object: slab" there.
 */
static bool dmesg_slab_line(char *out, size_t size)
{
	static const char tag[] = "kcollider: object: slab";
	int len = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf, *p, *last = NULL;

	if (len <= 0)
		return false;
	buf = malloc(len + 1);
	if (!buf)
		return false;
	len = klogctl(3, buf, len);	/* SYSLOG_ACTION_READ_ALL */
	buf[len > 0 ? len : 0] = '\0';
	for (p = buf; (p = strstr(p, tag)); p++)
		last = p;
	if (last)
		snprintf(out, size, "%.*s", (int)strcspn(last, "\n"), last);
	free(buf);
	return last != NULL;
}

TEST_F_TIMEOUT(scenario, r7_heap_field_object_is_slab_cache_and_offset, 120)
{
	static const char * const needles[] = {
		"data-race in kc_r7_inc_field / kc_r7_read_field",
		"\nkcollider: object: slab", NULL,
	};
	static const struct expect inc = { "kc_r7_inc_field", "read-write", 4 };
	static const struct expect rd = { "kc_r7_read_field", "read", 4 };
	char obj[64], field[64], offset[16], want[128], line[512];

	ASSERT_TRUE(planted_fact("r7_obj", obj, sizeof(obj)));
	ASSERT_TRUE(planted_fact("r7_field", field, sizeof(field)));
	ASSERT_TRUE(planted_fact("r7_offset", offset, sizeof(offset)));
	ASSERT_STREQ("8", offset);
	ASSERT_EQ(0, target("kc_r7_inc_field kc_r7_read_field"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r7", needles))
		TH_LOG("no R7 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &inc, &rd);
	snprintf(want, sizeof(want), "\nkcollider: watch: addr=0x%s len=4 ",
		 field);
	ASSERT_NE(NULL, strstr(reports[0], want)) TH_LOG("%s", reports[0]);
	/*
	 * The cache and offset: in the log's object line when the detector
	 * puts them there, else in kmem_dump_obj()'s text in dmesg.
	 */
	if (strstr(reports[0], "\nkcollider: object: slab cache=")) {
		snprintf(want, sizeof(want),
			 "\nkcollider: object: slab cache=kmalloc-64 start=0x%s offset=8 ",
			 obj);
		ASSERT_NE(NULL, strstr(reports[0], want)) TH_LOG("%s", reports[0]);
		return;
	}
	ASSERT_TRUE(dmesg_slab_line(line, sizeof(line)));
	snprintf(want, sizeof(want), " kmalloc-64 start %s ", obj);
	ASSERT_NE(NULL, strstr(line, want)) TH_LOG("%s", line);
	ASSERT_NE(NULL, strstr(line, " pointer offset 8")) TH_LOG("%s", line);
}

TEST_F_TIMEOUT(scenario, r8_invisible_alias_writer_unknown_origin, 120)
{
	static const char * const needles[] = {
		"BUG: KCOLLIDER: data-race in kc_r8_read+",
		"race at unknown origin, with read to 0x",
		"kcollider: racer: unknown", "\nvalue changed: 0x", NULL,
	};
	const char *block;

	ASSERT_EQ(0, target("kc_r8_read kc_r8_write_alias"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r8", needles))
		TH_LOG("no unknown-origin R8 report; log:\n%.3000s",
		       read_reports());
	/* one block only, the sampled read: nobody was caught */
	block = strchr(strstr(reports[0], "unknown origin"), '\n');
	ASSERT_NE(NULL, block);
	ASSERT_EQ(0, strncmp(block, "\n kc_r8_read+", 13)) TH_LOG("%s", block);
	ASSERT_EQ(NULL, strstr(block, " bytes by ")) TH_LOG("%s", reports[0]);
}

/*
 * R32: the writer's CPU takes the watch only after its stores (interrupts
 * off while it writes), so no trap can name it: the value read before the
 * arming is what shows the race. A detector that compared only from the
 * moment every CPU watched would miss it: the writer pauses longer than
 * a window before it stores again.
 */
TEST_F_TIMEOUT(scenario, r32_change_before_the_watch_held_is_reported, 120)
{
	static const char * const needles[] = {
		"BUG: KCOLLIDER: data-race in kc_r32_read+",
		"race at unknown origin, with read to 0x",
		" changed=arming\n", "\nvalue changed: 0x", NULL,
	};

	ASSERT_EQ(0, target("kc_r32_read"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r32", needles))
		TH_LOG("no R32 report; log:\n%.3000s", read_reports());
	ASSERT_LE(1, kc_stat("changed_arming"));
	ASSERT_NE(NULL, strstr(reports[0], "\nkcollider: class: harmful\n"))
		TH_LOG("%s", reports[0]);
}

TEST_F_TIMEOUT(scenario, r9_store_buffering_both_pairs, 120)
{
	static const char * const x_pair[] = {
		"data-race in kc_r9_read_x / kc_r9_write_x", NULL,
	};
	static const char * const y_pair[] = {
		"data-race in kc_r9_read_y / kc_r9_write_y", NULL,
	};
	static const char * const *sets[] = { x_pair, y_pair, NULL };
	static const struct expect wx = { "kc_r9_write_x", "write", 4 };
	static const struct expect rx = { "kc_r9_read_x", "read", 4 };
	static const struct expect wy = { "kc_r9_write_y", "write", 4 };
	static const struct expect ry = { "kc_r9_read_y", "read", 4 };

	ASSERT_EQ(0, target("kc_r9_write_x kc_r9_read_y kc_r9_write_y kc_r9_read_x"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until_all("r9", sets, reports))
		TH_LOG("not both R9 pairs; log:\n%.4000s", read_reports());
	ASSERT_SIDES(reports[0], &wx, &rx);
	ASSERT_SIDES(reports[1], &wy, &ry);
}

TEST_F_TIMEOUT(scenario, r10_message_passing_both_pairs, 120)
{
	static const char * const data_pair[] = {
		"data-race in kc_r10_read_data / kc_r10_write_data", NULL,
	};
	static const char * const flag_pair[] = {
		"data-race in kc_r10_read_flag / kc_r10_write_flag", NULL,
	};
	static const char * const *sets[] = { data_pair, flag_pair, NULL };
	static const struct expect wd = { "kc_r10_write_data", "write", 4 };
	static const struct expect rd = { "kc_r10_read_data", "read", 4 };
	static const struct expect wf = { "kc_r10_write_flag", "write", 4 };
	static const struct expect rf = { "kc_r10_read_flag", "read", 4 };

	ASSERT_EQ(0, target("kc_r10_write_data kc_r10_write_flag kc_r10_read_flag kc_r10_read_data"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until_all("r10", sets, reports))
		TH_LOG("not both R10 pairs; log:\n%.4000s", read_reports());
	ASSERT_SIDES(reports[0], &wd, &rd);
	ASSERT_SIDES(reports[1], &wf, &rf);
}

TEST_F_TIMEOUT(scenario, r11_u64_write_vs_upper_u16_read_overlap, 120)
{
	static const char * const title[] = {
		"data-race in kc_r11_read_hi16 / kc_r11_write64", NULL,
	};
	static const struct expect w = { "kc_r11_write64", "write", 8 };
	static const struct expect r = { "kc_r11_read_hi16", "read", 2 };
	char word[64], want[96];
	unsigned long addr;

	ASSERT_TRUE(planted_fact("r11_word", word, sizeof(word)));
	addr = strtoul(word, NULL, 16);
	ASSERT_EQ(0, target("kc_r11_write64 kc_r11_read_hi16"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r11", title))
		TH_LOG("no R11 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &w, &r);
	/* the watch is the sampled access: the whole word or its top half */
	snprintf(want, sizeof(want), "\nkcollider: watch: addr=0x%lx len=8 ",
		 addr);
	if (!strstr(reports[0], want))
		snprintf(want, sizeof(want),
			 "\nkcollider: watch: addr=0x%lx len=2 ", addr + 6);
	ASSERT_NE(NULL, strstr(reports[0], want)) TH_LOG("%s", reports[0]);
}

/*
 * Whether @report's watch line says it covered @len bytes at @base: a
 * token of its own, which other tokens may follow (changed=arming).
 */
static bool watch_covers(const char *report, unsigned long base,
			 unsigned int len)
{
	const char *line = strstr(report, "\nkcollider: watch: ");
	const char *end, *cover;
	char want[64];

	if (!line)
		return false;
	end = strchr(line + 1, '\n');
	snprintf(want, sizeof(want), " cover=0x%lx/%u", base, len);
	cover = strstr(line, want);
	if (!cover || (end && cover > end))
		return false;
	cover += strlen(want);
	return *cover == ' ' || *cover == '\n' || !*cover;
}

/*
 * R18: a u16 at an odd offset. Debug registers take aligned lengths only:
 * the watch covers the field with an aligned 4 bytes, and the traps of the
 * byte beside it (kind, written by a third thread) are no race with len.
 */
TEST_F_TIMEOUT(scenario, r18_unaligned_packed_u16_covered_and_filtered, 180)
{
	static const char * const title[] = {
		"data-race in kc_r18_read_len / kc_r18_write_len", NULL,
	};
	static const struct expect w = { "kc_r18_write_len", "write", 2 };
	static const struct expect r = { "kc_r18_read_len", "read", 2 };
	char word[64], want[96];
	unsigned long addr;
	int t;

	ASSERT_TRUE(planted_fact("r18_len", word, sizeof(word)));
	addr = strtoul(word, NULL, 16);
	ASSERT_EQ(1, addr & 1) TH_LOG("the field is not at an odd address");
	ASSERT_EQ(0, target("kc_r18_write_len kc_r18_read_len"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r18", title))
		TH_LOG("no R18 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &w, &r);
	snprintf(want, sizeof(want),
		 "\nkcollider: watch: addr=0x%lx len=2 ", addr);
	ASSERT_NE(NULL, strstr(reports[0], want)) TH_LOG("%s", reports[0]);
	ASSERT_TRUE(watch_covers(reports[0], addr & ~3UL, 4))
		TH_LOG("%s", reports[0]);
	/* the neighbour traps inside the cover, and is never a racer */
	for (t = 0; t < 60 && kc_stat("racer_outside") < 1; t += 2)
		ASSERT_EQ(0, run_scenario("r18", 2000));
	EXPECT_GE(kc_stat("racer_outside"), 1);
	EXPECT_EQ(NULL, strstr(read_reports(), "kc_r18_write_kind"))
		TH_LOG("%.3000s", read_reports());
}

/*
 * R19: a u32 at offset 6 crosses an 8-byte boundary; its larger half (the
 * halves are equal: the first) is watched, and the other side's access
 * to the same field traps there.
 */
TEST_F_TIMEOUT(scenario, r19_u32_crossing_8_byte_boundary_watched, 180)
{
	static const char * const title[] = {
		"data-race in kc_r19_read_seq / kc_r19_write_seq", NULL,
	};
	static const struct expect w = { "kc_r19_write_seq", "write", 4 };
	static const struct expect r = { "kc_r19_read_seq", "read", 4 };
	char word[64], want[96];
	unsigned long addr;

	ASSERT_TRUE(planted_fact("r19_seq", word, sizeof(word)));
	addr = strtoul(word, NULL, 16);
	ASSERT_EQ(6, addr & 7) TH_LOG("the field does not cross 8 bytes");
	ASSERT_EQ(0, target("kc_r19_write_seq kc_r19_read_seq"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r19", title))
		TH_LOG("no R19 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &w, &r);
	snprintf(want, sizeof(want),
		 "\nkcollider: watch: addr=0x%lx len=4 ", addr);
	ASSERT_NE(NULL, strstr(reports[0], want)) TH_LOG("%s", reports[0]);
	ASSERT_TRUE(watch_covers(reports[0], addr, 2)) TH_LOG("%s", reports[0]);
	ASSERT_NE(NULL, strstr(reports[0], "\nkcollider: class: harmful\n"))
		TH_LOG("%s", reports[0]);
}

/*
 * R23: a REP STOS clears the record under the reader. Its trap comes
 * after the iteration that wrote the field, with rdi past it: the racer's
 * address comes from there and is the field's, so the racer is kept.
 */
TEST_F_TIMEOUT(scenario, r23_rep_stos_racer_addressed_from_rdi, 180)
{
	static const char * const title[] = {
		"data-race in kc_r23_clear / kc_r23_read_seq", NULL,
	};
	static const struct expect w = { "kc_r23_clear", "write", 8 };
	static const struct expect r = { "kc_r23_read_seq", "read", 8 };
	char word[64], want[96];
	unsigned long addr;

	ASSERT_TRUE(planted_fact("r23_seq", word, sizeof(word)));
	addr = strtoul(word, NULL, 16);
	ASSERT_EQ(0, target("kc_r23_read_seq"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r23", title))
		TH_LOG("no R23 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &w, &r);
	ASSERT_NE(NULL, strstr(reports[0], " op=string access=write size=8 "))
		TH_LOG("%s", reports[0]);
	snprintf(want, sizeof(want), " locked=0 addr=0x%lx\n", addr);
	ASSERT_NE(NULL, strstr(reports[0], want)) TH_LOG("%s", reports[0]);
}

TEST_F_TIMEOUT(scenario, r12_and_not_a_vs_or_b_rmw, 120)
{
	static const char * const title[] = {
		"data-race in kc_r12_clear_a / kc_r12_set_b", NULL,
	};
	static const struct expect a = { "kc_r12_clear_a", "read-write", 8 };
	static const struct expect b = { "kc_r12_set_b", "read-write", 8 };

	ASSERT_EQ(0, target("kc_r12_clear_a kc_r12_set_b"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r12", title))
		TH_LOG("no R12 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &a, &b);
	ASSERT_NE(NULL, strstr(reports[0], "\nkcollider: class: harmful\n"));
}

/*
 * R25, store buffering in lock-step rounds: each racy function runs once
 * a round, the rest of the time both threads spin on atomics. A window
 * on either store or load must still catch the other thread's access to
 * the same variable.
 */
TEST_F_TIMEOUT(scenario, r25_store_buffering_in_rounds, 120)
{
	static const char * const title[] = {
		"data-race in kc_r25_sb0 / kc_r25_sb1",
		"\nkcollider: class: harmful\n", NULL,
	};

	ASSERT_EQ(0, target("kc_r25_sb0 kc_r25_sb1"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r25", title))
		TH_LOG("no harmful R25 report; log:\n%.3000s", read_reports());
	/* both sides named, one a store of 1 and one a load */
	ASSERT_NE(NULL, strstr(reports[0], " bytes by task "))
		TH_LOG("%s", reports[0]);
	ASSERT_NE(NULL, strstr(reports[0], "write to 0x")) TH_LOG("%s", reports[0]);
	ASSERT_NE(NULL, strstr(reports[0], "read to 0x")) TH_LOG("%s", reports[0]);
}

/* ---- B: benign by design; what the detector reports today ---- */

TEST_F_TIMEOUT(scenario, b1_stat_counter_race_reported, 120)
{
	static const char * const title[] = {
		"data-race in kc_b1_stat_inc / kc_b1_stat_inc", NULL,
	};
	static const struct expect inc = { "kc_b1_stat_inc", "read-write", 8 };

	ASSERT_EQ(0, target("kc_b1_stat_inc"));
	/* what the detector itself reports: the filters are filters_test's */
	ASSERT_EQ(0, kc_write_attr("strict", "1"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("b1", title))
		TH_LOG("no B1 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &inc, &inc);
}

TEST_F_TIMEOUT(scenario, b2_other_bits_race_reported, 120)
{
	static const char * const title[] = {
		"data-race in kc_b2_flip_bit0 / kc_b2_test_bit5", NULL,
	};
	static const struct expect flip = { "kc_b2_flip_bit0", "read-write", 4 };
	static const struct expect test = { "kc_b2_test_bit5", "read", 4 };

	ASSERT_EQ(0, target("kc_b2_flip_bit0 kc_b2_test_bit5"));
	/* what the detector itself reports: the filters are filters_test's */
	ASSERT_EQ(0, kc_write_attr("strict", "1"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("b2", title))
		TH_LOG("no B2 report; log:\n%.3000s", read_reports());
	ASSERT_SIDES(reports[0], &flip, &test);
}

/*
 * Recorded, not asserted: what a read of jiffies races with. The filters
 * are off, as the suppression list would leave the read unsampled.
 */
TEST_F_TIMEOUT(scenario, b3_jiffies_read_outcome_recorded, 120)
{
	static const char * const needles[] = {
		"data-race in ", "kc_b3_read_jiffies", NULL,
	};
	bool reported;

	ASSERT_EQ(0, target("kc_b3_read_jiffies"));
	ASSERT_EQ(0, kc_write_attr("strict", "1"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_EQ(0, run_scenario("b3", N_RUN_MS));
	run_until_stat("b3", "samples", 1, 60);
	ASSERT_GT(kc_stat("samples"), 0);
	reported = find_report(read_reports(), needles, reports[0],
			       sizeof(reports[0]));
	fprintf(stderr, "# b3: samples %ld, races %ld, reported: %s\n",
		kc_stat("samples"), kc_stat("races"), reported ? "yes" : "no");
	if (reported)
		fprintf(stderr, "# b3: %.1500s\n", reports[0]);
}

/* ---- N: must never be reported ---- */

static const char *stats_text(void)
{
	static char buf[4096];

	if (kc_read_stats(buf, sizeof(buf)) < 0)
		return "(no stats)";
	return buf;
}

/* Run @scenario for N_RUN_MS; it must be sampled and never reported. */
static void expect_silence(struct __test_metadata *_metadata,
			   const char *scenario, const char *funcs,
			   bool sampled)
{
	const char *log;

	ASSERT_EQ(0, target(funcs));
	ASSERT_EQ(0, kc_enable());
	ASSERT_EQ(0, run_scenario(scenario, N_RUN_MS));
	/* silence means nothing only once the code was sampled */
	run_until_stat(scenario, sampled ? "samples" : "fired", 1, 60);
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	usleep(200000);		/* the report worker drains its queue */
	fprintf(stderr, "# %s: fired %ld samples %ld races %ld unknown %ld\n",
		scenario, kc_stat("fired"), kc_stat("samples"),
		kc_stat("races"), kc_stat("unknown_origin"));
	ASSERT_GT(kc_stat("fired"), 0) TH_LOG("%s", stats_text());
	if (sampled)
		ASSERT_GT(kc_stat("samples"), 0) TH_LOG("%s", stats_text());
	log = read_reports();
	ASSERT_EQ(0, count_reports(log)) TH_LOG("%.3000s", log);
	ASSERT_EQ(0, kc_stat("races"));
	ASSERT_EQ(0, kc_stat("unknown_origin"));
}

TEST_F_TIMEOUT(scenario, n1_spinlocked_counter_silent, 120)
{
	expect_silence(_metadata, "n1", "kc_n1_inc_locked", true);
}

TEST_F_TIMEOUT(scenario, n2_mutex_counter_silent_stall_sleeps_holding_it, 120)
{
	expect_silence(_metadata, "n2", "kc_n2_inc_locked", true);
}

TEST_F_TIMEOUT(scenario, n3_locked_ops_only_silent, 120)
{
	char sites[256];

	expect_silence(_metadata, "n3", "kc_n3_locked_ops", true);
	/* LOCK'd and XCHG are never sites: only the read of kc_n3_step */
	ASSERT_LT(0, kc_read_attr("targets", sites, sizeof(sites)));
	ASSERT_NE(NULL, strstr(sites, "kc_planted:kc_n3_locked_ops sites=1\n"))
		TH_LOG("%s", sites);
}

TEST_F_TIMEOUT(scenario, n4_two_readers_silent, 120)
{
	expect_silence(_metadata, "n4", "kc_n4_read", true);
}

/*
 * A module's static per-CPU data (DEFINE_PER_CPU) lies in the area the
 * trap paths touch, never watched. Reached through a pointer, the site
 * fires and its window is refused; reached %gs-relative with no register
 * in the address, the instruction is no site at all, even with
 * sample_percpu: every run of it would be refused.
 */
TEST_F_TIMEOUT(scenario, n5_own_cpu_percpu_data_silent, 120)
{
	char sites[256];

	ASSERT_EQ(0, kc_write_attr("sample_percpu", "1"));
	expect_silence(_metadata, "n5", "kc_n5_inc_mine_ptr kc_n5_inc_mine_gs",
		       false);
	ASSERT_GT(kc_stat("skipped_percpu_denied"), 0);
	ASSERT_LT(0, kc_read_attr("targets", sites, sizeof(sites)));
	ASSERT_NE(NULL, strstr(sites, "kc_planted:kc_n5_inc_mine_gs sites=0\n"))
		TH_LOG("targets: %s", sites);
	ASSERT_GT(kc_stat("sites_static_percpu"), 0) TH_LOG("%s", stats_text());
}

TEST_F_TIMEOUT(scenario, n6_stack_local_data_silent, 120)
{
	/* the detector never watches the sampled thread's own stack */
	expect_silence(_metadata, "n6", "kc_n6_touch", false);
	ASSERT_GT(kc_stat("skipped_forbidden_address"), 0);
	ASSERT_EQ(0, kc_stat("samples"));
}

/*
 * Memory reuse: objects freed by one thread and kmalloc'd by another on
 * the same CPU while the detector samples both threads' accesses to them.
 */
/* KASAN's instrumentation is in the kernel (the debug kernel). */
static bool kernel_has_kasan(void)
{
	return kc_kallsyms_find("kasan_report", NULL, "") != 0;
}

TEST_F_TIMEOUT(scenario, n7_freed_and_reallocated_object_silent, 120)
{
	char reused[32], allocs[32];

	expect_silence(_metadata, "n7", "kc_n7_use_a kc_n7_use_b", true);
	ASSERT_TRUE(planted_fact("n7_reused", reused, sizeof(reused)));
	ASSERT_TRUE(planted_fact("n7_allocs", allocs, sizeof(allocs)));
	fprintf(stderr, "# n7: %s of %s allocations got the other thread's object\n",
		reused, allocs);
	/* the silence held, but without a reuse it proved nothing */
	if (!strtol(reused, NULL, 10) && kernel_has_kasan())
		SKIP(return, "KASAN's quarantine holds freed objects back: no reuse");
	ASSERT_GT(strtol(reused, NULL, 10), 0);
}

/* ---- per-CPU data read by other CPUs ---- */

TEST_F_TIMEOUT(scenario, r27_percpu_counter_summed_remotely_both_sides, 120)
{
	static const char * const title[] = {
		"data-race in kc_r27_add / kc_r27_sum", NULL,
	};
	static const struct expect add = { "kc_r27_add", "read-write", 8 };
	static const struct expect sum = { "kc_r27_sum", "read", 8 };

	ASSERT_EQ(0, target("kc_r27_add kc_r27_sum"));
	ASSERT_EQ(0, kc_enable());
	/* the watch set by the remote read catches the owner's %gs write */
	ASSERT_TRUE(run_until("r27", title))
		TH_LOG("no R27 report; log:\n%.3000s\n%s", read_reports(),
		       stats_text());
	ASSERT_SIDES(reports[0], &add, &sum);
	/* the copy written is the owner's, CPU 0's */
	ASSERT_NE(NULL, strstr(reports[0],
			       "kcollider: object: percpu cpu=0 unit_offset=0x"))
		TH_LOG("%s", reports[0]);
}

TEST_F_TIMEOUT(scenario, n15_percpu_counter_under_the_adders_lock_silent, 120)
{
	expect_silence(_metadata, "n15", "kc_n15_add kc_n15_sum", true);
}

TEST_F_TIMEOUT(scenario, r28_percpu_list_drained_remotely_reported, 120)
{
	static const char * const title[] = {
		"data-race in kc_r28_drain / kc_r28_push", NULL,
	};

	ASSERT_EQ(0, target("kc_r28_push kc_r28_drain"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r28", title))
		TH_LOG("no R28 report; log:\n%.3000s\n%s", read_reports(),
		       stats_text());
	ASSERT_NE(NULL, strstr(reports[0], "kc_r28_push+"));
	ASSERT_NE(NULL, strstr(reports[0], "kc_r28_drain+"));
}

static bool kernel_has_lockdep(void)
{
	return kc_kallsyms_find("lock_acquire", NULL, "") != 0;
}

/* The line of @report that starts with @prefix, without its newline. */
static bool report_line(const char *report, const char *prefix, char *out,
			size_t size)
{
	const char *l = strstr(report, prefix);
	size_t n;

	if (!l)
		return false;
	n = strcspn(l, "\n");
	snprintf(out, size, "%.*s", (int)n, l);
	return true;
}

/*
 * As __percpu_counter_sum(): the lock the summing side holds and the
 * adders never take is named as held by that side only, where lockdep
 * keeps a record of held locks; without it, the report says nothing.
 */
TEST_F_TIMEOUT(scenario, r29_sum_under_a_lock_the_adders_skip_names_it, 120)
{
	static const char * const title[] = {
		"data-race in kc_r29_add / kc_r29_sum", NULL,
	};
	char sampled[512], locks[512];
	const char *want;

	ASSERT_EQ(0, target("kc_r29_add kc_r29_sum"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r29", title))
		TH_LOG("no R29 report; log:\n%.3000s\n%s", read_reports(),
		       stats_text());
	if (!kernel_has_lockdep()) {
		ASSERT_EQ(NULL, strstr(reports[0], "kcollider: locks:"))
			TH_LOG("%s", reports[0]);
		return;
	}
	ASSERT_TRUE(report_line(reports[0], "kcollider: sampled:", sampled,
				sizeof(sampled)));
	ASSERT_TRUE(report_line(reports[0], "kcollider: locks:", locks,
				sizeof(locks)))
		TH_LOG("no locks line on a lockdep kernel:\n%s", reports[0]);
	want = strstr(sampled, "sym=kc_r29_sum+") ?
	       "sampled_only=kc_r29_lock" : "racer_only=kc_r29_lock";
	ASSERT_NE(NULL, strstr(locks, want))
		TH_LOG("want %s in: %s", want, locks);
}

/*
 * Static per-CPU data (the kernel's and the modules', the detector's own
 * among them) is what the trap paths touch: never watched, even where it
 * races, and counted.
 */
TEST_F_TIMEOUT(scenario, n16_static_percpu_data_is_denied_and_counted, 120)
{
	const char *log;

	ASSERT_EQ(0, target("kc_n16_inc kc_n16_peek"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_LT(0, run_until_stat("n16", "skipped_percpu_denied", 1, 60))
		TH_LOG("%s", stats_text());
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	usleep(200000);		/* the report worker drains its queue */
	log = read_reports();
	ASSERT_EQ(NULL, strstr(log, "data-race in kc_n16_inc"))
		TH_LOG("%.3000s", log);
	ASSERT_EQ(0, kc_stat("races")) TH_LOG("%s", stats_text());
}

/*
 * Whether any range in the detector's record of recent watches
 * ("address size" lines) overlaps [addr, addr + size).
 */
static bool watched_overlaps(const char *watched, unsigned long addr,
			     unsigned long size)
{
	unsigned long a, n;
	const char *p;

	for (p = watched; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, "%lx %lu", &a, &n) == 2 &&
		    a < addr + size && addr < a + n)
			return true;
	return false;
}

static const char * const n17_vars[] = {
	"cpu_dr7", "current_task", "preempt_count", "cpu_number", "tss_sp0",
	"nmi_count", "module_static", NULL,
};

/*
 * The per-CPU variables of the entry code and the trap paths, read from
 * another CPU through plain pointers (N17), are never watched: none of
 * their addresses (from the planted module, not from the detector) is in
 * the detector's record of the ranges it watched, while R27's dynamic
 * per-CPU counter, sampled just before, is.
 */
TEST_F_TIMEOUT(scenario, n17_trap_path_percpu_variables_never_watched, 360)
{
	static const char * const title[] = {
		"data-race in kc_r27_add / kc_r27_sum", NULL,
	};
	static char watched[64 * 1024];
	unsigned long addr, size;
	char key[64], val[64];
	long denied, refused;
	int i, n;

	ASSERT_EQ(0, target("kc_r27_add kc_r27_sum kc_n17_peek"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("r27", title))
		TH_LOG("no R27 report; log:\n%.3000s\n%s", read_reports(),
		       stats_text());
	denied = kc_stat("skipped_percpu_denied");
	refused = kc_stat("sites_refused_remote");
	/* as many refusals as N17 has loads */
	ASSERT_LE(denied + 7, run_until_stat("n17", "skipped_percpu_denied",
					     denied + 7, 90))
		TH_LOG("%s", stats_text());
	/*
	 * and its reads through another CPU's offset, refused at every
	 * sample, are refused by the table: a static variable's, never to
	 * be watched
	 */
	ASSERT_LT(refused, run_until_stat("n17", "sites_refused_remote",
					  refused + 1, 240))
		TH_LOG("%s", stats_text());
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_LT(0, kc_read_file(KCOLLIDER_DEBUGFS_DIR "/watched", watched,
				  sizeof(watched)));

	ASSERT_TRUE(planted_fact("r27_cpu0", val, sizeof(val)));
	ASSERT_TRUE(watched_overlaps(watched, strtoul(val, NULL, 16), 8))
		TH_LOG("R27's counter %s is not among the watched:\n%.2000s",
		       val, watched);
	for (i = 0; n17_vars[i]; i++) {
		snprintf(key, sizeof(key), "n17_%s", n17_vars[i]);
		ASSERT_TRUE(planted_fact(key, val, sizeof(val))) TH_LOG("%s", key);
		n = sscanf(val, "%lx %lu", &addr, &size);
		ASSERT_EQ(2, n) TH_LOG("%s: %s", key, val);
		EXPECT_FALSE(watched_overlaps(watched, addr, size))
			TH_LOG("%s (%lx) was watched", key, addr);
	}
	ASSERT_EQ(NULL, strstr(read_reports(), "kc_n17_peek"))
		TH_LOG("%.3000s", read_reports());
}

#define MAX_COPIES 64

/*
 * How often the detector's record of recent watches has each CPU's copy
 * of @var (planted facts "VAR_cpuN"); the number of copies.
 */
static int copy_watches(const char *var, long *counts)
{
	static char watched[64 * 1024];
	char key[32], val[64], want[80];
	const char *p;
	int cpu;

	if (kc_read_file(KCOLLIDER_DEBUGFS_DIR "/watched", watched,
			 sizeof(watched)) < 0)
		return 0;
	for (cpu = 0; cpu < MAX_COPIES; cpu++) {
		snprintf(key, sizeof(key), "%s_cpu%d", var, cpu);
		if (!planted_fact(key, val, sizeof(val)))
			break;
		snprintf(want, sizeof(want), "%s ", val);
		counts[cpu] = 0;
		for (p = strstr(watched, want); p; p = strstr(p + 1, want))
			counts[cpu] += p == watched || p[-1] == '\n';
	}
	return cpu;
}

/* Runs @scenario with only @sum targeted until its copies were watched @n times. */
static int watch_copies(const char *scenario, const char *sum,
			const char *var, long n, long *counts)
{
	long total = 0;
	int cpus = 0, cpu, t;

	if (target(sum) || kc_enable())
		return 0;
	for (t = 0; t < 240 && total < n; t++) {
		if (run_scenario(scenario, 1000))
			return 0;
		cpus = copy_watches(var, counts);
		for (total = 0, cpu = 0; cpu < cpus; cpu++)
			total += counts[cpu];
	}
	kc_write_attr("enabled", "0");
	return total >= n ? cpus : 0;
}

/*
 * A read of other CPUs' copies sits in a loop over the CPUs, which reads
 * CPU 0's first: a sample falls on a later pass too, so R27's sum (on CPU
 * 1, interrupts on) has its own copy watched as well as the adder's, CPU
 * 0's. Counted over 40 watches: a sum sampled on its first pass only
 * would watch CPU 0's copy alone.
 */
TEST_F_TIMEOUT(scenario, r27_remote_reads_sampled_on_a_later_pass, 300)
{
	long counts[MAX_COPIES];
	int cpus = watch_copies("r27", "kc_r27_sum", "r27", 40, counts);

	ASSERT_GE(cpus, 2) TH_LOG("too few watches: %s", stats_text());
	EXPECT_GT(counts[0], 0);
	EXPECT_GT(counts[1], 0) TH_LOG("CPU 0's %ld, CPU 1's %ld", counts[0],
				       counts[1]);
	ASSERT_GT(kc_stat("hits_passed"), 0) TH_LOG("%s", stats_text());
}

/*
 * @stat once @scenario, run with @targets sampled, brought it to @min (or
 * 240 s passed); -1 if the detector could not be set up or stopped.
 */
static long targeted_run_until_stat(const char *targets, const char *scenario,
				    const char *stat, long min)
{
	long v;

	if (target(targets) || kc_enable())
		return -1;
	v = run_until_stat(scenario, stat, min, 240);
	return kc_write_attr("enabled", "0") ? -1 : v;
}

/*
 * Whether @stat, which the detector must count, went up while @scenario
 * ran with @targets sampled (up to 240 s).
 */
static bool stat_rises(const char *targets, const char *scenario,
		       const char *stat)
{
	long before = kc_stat(stat);

	return before >= 0 &&
	       targeted_run_until_stat(targets, scenario, stat,
				       before + 1) > before;
}

/*
 * A remote site whose code ran while armed is picked again (most remote
 * picks go to such sites): R27's sum runs, R29's, targeted too, does not.
 */
TEST_F_TIMEOUT(scenario, r27_remote_sites_that_ran_are_picked_again, 300)
{
	long hot = targeted_run_until_stat("kc_r27_sum kc_r29_sum", "r27",
					   "picks_remote_hot", 10);

	ASSERT_GE(hot, 10) TH_LOG("%s", stats_text());
}

/*
 * Copies with no writer to catch are passed: R29's sum runs on CPU 1 with
 * interrupts off, so its own copy is passed at every hit and never
 * watched, and an idle CPU's copy is passed while the profile finds that
 * CPU idle. How often it does depends on what else the machine runs (a
 * share of watches counted here once failed on a busy host), so this
 * checks that each kind of pass happens, by its counter, and leaves the
 * share of CPU 0's copy (its adder's) to the bench.
 */
TEST_F_TIMEOUT(scenario, r29_copies_without_a_writer_are_passed, 600)
{
	long counts[MAX_COPIES], own, others;
	int cpus, cpu;

	ASSERT_TRUE(stat_rises("kc_r29_sum", "r29", "hits_passed_quiet"))
		TH_LOG("no idle CPU's copy passed: %s", stats_text());

	own = kc_stat("hits_passed_own");
	cpus = watch_copies("r29", "kc_r29_sum", "r29", 40, counts);
	ASSERT_GE(cpus, 2) TH_LOG("too few watches: %s", stats_text());
	EXPECT_EQ(0, counts[1]) TH_LOG("the summing CPU's own copy watched");
	EXPECT_LT(own, kc_stat("hits_passed_own")) TH_LOG("%s", stats_text());
	EXPECT_GT(counts[0], 0) TH_LOG("the adder's copy never watched");
	for (others = 0, cpu = 2; cpu < cpus; cpu++)
		others += counts[cpu];
	TH_LOG("watches: CPU 0's %ld, the idle CPUs' %ld; passes: own %ld, quiet %ld",
	       counts[0], others, kc_stat("hits_passed_own"),
	       kc_stat("hits_passed_quiet"));
}

/*
 * R31 is R29 where no register holds the copy's offset at the load (as
 * under KASAN) and the counter lies in a later chunk: the copy's CPU is
 * found by its address, in the areas the keeper looked up for the int3.
 * Both kinds of pass happen there too.
 */
TEST_F_TIMEOUT(scenario, r31_later_chunk_copies_known_by_address, 600)
{
	char val[64];

	ASSERT_TRUE(planted_fact("r31_later_chunk", val, sizeof(val)));
	ASSERT_STREQ("1", val) TH_LOG("R31's counter is in the first chunk");
	ASSERT_TRUE(stat_rises("kc_r31_sum", "r31", "hits_passed_quiet"))
		TH_LOG("no idle CPU's copy passed: %s", stats_text());
	ASSERT_TRUE(stat_rises("kc_r31_sum", "r31", "hits_passed_own"))
		TH_LOG("the summing CPU's own copy never passed: %s",
		       stats_text());
}

/*
 * A load the int3 carries out for R29's sum may trip the watch a sample of
 * the adder set on that copy: the racer is the sum, in the context the
 * int3 interrupted (a task, interrupts off under its lock), and not the
 * handler's own load (copy_from_kernel_nofault(), "by interrupt").
 */
TEST_F_TIMEOUT(scenario, r29_carried_load_reported_as_the_sum, 300)
{
	long carried = targeted_run_until_stat("kc_r29_add kc_r29_sum", "r29",
					       "racers_carried", 1);
	const char *log;

	ASSERT_GE(carried, 1) TH_LOG("%s", stats_text());
	log = read_reports();
	EXPECT_NE(NULL, strstr(log, "data-race in kc_r29_add / kc_r29_sum"))
		TH_LOG("%.4000s", log);
	EXPECT_EQ(NULL, strstr(log, "copy_from_kernel_nofault"))
		TH_LOG("%.4000s", log);
	EXPECT_EQ(NULL, strstr(log, "kc_emul")) TH_LOG("%.4000s", log);
	EXPECT_EQ(NULL, strstr(log, "racer=nmi")) TH_LOG("%.4000s", log);
}

/*
 * A remote read that watched per-CPU data is never refused by the table,
 * however often the deny set refuses it afterwards: R30's sum watches
 * R27's counter through a helper, then N22 hands the same helper cpu_dr7
 * at every run, refused at each sample, more times than it takes the
 * table to refuse N17's reads, which never watched anything. (Other
 * sites of the helper may be refused for other reasons: under KASAN, its
 * reads of the shadow.)
 */
TEST_F_TIMEOUT(scenario, r30_helper_that_watched_is_never_refused, 420)
{
	long samples = targeted_run_until_stat("kc_r30_copy", "r30",
					       "samples", 5);
	long denied;

	ASSERT_GE(samples, 5) TH_LOG("%s", stats_text());
	ASSERT_EQ(0, kc_stat("sites_refused_remote"))
		TH_LOG("%s", stats_text());
	ASSERT_EQ(0, kc_enable());
	denied = run_until_stat("n22", "skipped_percpu_denied", 12, 240);
	ASSERT_GE(denied, 12) TH_LOG("%s", stats_text());
	EXPECT_EQ(0, kc_stat("sites_refused_remote"))
		TH_LOG("%s", stats_text());
}

/* ---- H: the engine's own safety ---- */

/*
 * The loads the int3 handler carries out for a read of other CPUs' copies
 * (an add from memory, a sign-extending load) give what the instruction
 * would: H4's sums of known values stay right, checked by the module at
 * every sum, over at least 50 such hits.
 */
TEST_F_TIMEOUT(scenario, h4_loads_carried_out_by_the_int3_are_exact, 300)
{
	long passed = targeted_run_until_stat("kc_h4_sum", "h4", "hits_passed",
					      50);
	char val[64];

	ASSERT_GE(passed, 50) TH_LOG("%s", stats_text());
	ASSERT_TRUE(planted_fact("h4_sums", val, sizeof(val)));
	ASSERT_GT(strtol(val, NULL, 10), 0);
	ASSERT_TRUE(planted_fact("h4_wrong", val, sizeof(val)));
	ASSERT_STREQ("0", val) TH_LOG("%s", stats_text());
}

static bool cpu_is_qemu_tcg(void)
{
	static char buf[65536];

	return kc_read_file("/proc/cpuinfo", buf, sizeof(buf)) > 0 &&
	       strstr(buf, "QEMU TCG");
}

/*
 * H3: a sampled remote read of the upper half of a per-CPU pair that its
 * owner updates with an unlocked 16-byte compare-exchange. QEMU's TCG
 * stops such an instruction at a write watchpoint on the upper half after
 * its first store and runs it again, which fails it and tears the pair
 * (SLUB then panicked on a double free): the owner must never find its
 * halves unequal, and the race is still caught with the exchange as
 * racer. A load racing a compare-exchange, locked or not, reads the old
 * or the new value: the race is benign (locked-racer), printed in full
 * here to check its racer.
 */
TEST_F_TIMEOUT(scenario, h3_watched_upper_half_keeps_compare_exchange_whole, 120)
{
	static const char * const title[] = {
		"data-race in kc_h3_read_upper / kc_h3_swap",
		"kcollider: class: benign filter=locked-racer", NULL,
	};
	char torn[32], swaps[32];

	ASSERT_EQ(0, target("kc_h3_read_upper"));
	ASSERT_EQ(0, kc_write_attr("benign_full", "1"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until("h3", title))
		TH_LOG("no H3 report; log:\n%.3000s\n%s", read_reports(),
		       stats_text());
	ASSERT_NE(NULL, strstr(reports[0], "op=cmpxchg")) TH_LOG("%s", reports[0]);
	ASSERT_TRUE(planted_fact("h3_swaps", swaps, sizeof(swaps)));
	ASSERT_LT(0, atol(swaps));
	ASSERT_TRUE(planted_fact("h3_torn", torn, sizeof(torn)));
	ASSERT_STREQ("0", torn) TH_LOG("swaps %s; %s", swaps, stats_text());
	/* the probe at load found what this test guards against */
	if (cpu_is_qemu_tcg())
		ASSERT_EQ(1, kc_stat("watch_splits_rmw"));
}

TEST_HARNESS_MAIN
