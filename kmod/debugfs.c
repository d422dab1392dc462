// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/kcollider/: "reports", the report log the CLI reads
 * without parsing the console; "control", which takes the words syzkaller
 * writes to KCSAN's control file ("on", "off") plus target specs; "stats",
 * the counters; "running", the functions the sampler takes as running;
 * "arm_latency_ns" and "visited", for the benchmarks;
 * "watched", the ranges recently watched, and "rescue_selftest",
 * "loop_selftest", "silent_selftest", "cpusync_selftest",
 * "idle_selftest", "ackscan_selftest" and "hotplug_selftest", for the
 * tests, with "fail_thread_start" and "reap_hold_ms", which make rare
 * paths happen.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <kcollider/parse.h>
#include "kcollider.h"

static struct dentry *kc_debugfs_dir;

static int kc_reports_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_report_log_show, NULL, 64 * 4096);
}

static const struct file_operations kc_reports_fops = {
	.owner = THIS_MODULE,
	.open = kc_reports_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kc_control_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", kc_is_enabled() ? "on" : "off");
	return 0;
}

static int kc_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, kc_control_show, NULL);
}

static ssize_t kc_control_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[128];
	size_t len;
	bool on;
	int ret;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	len = kc_parse_strip_len(buf, count);
	if (!kc_parse_bool(buf, count, &on))
		ret = kc_set_enabled(on);
	else if (len && (buf[0] == '+' || buf[0] == '-') &&
		 kc_parse_ascii_text(buf, len))
		ret = kc_targets_write(buf, len);
	else
		ret = -EINVAL;
	return ret ? ret : count;
}

static const struct file_operations kc_control_fops = {
	.owner = THIS_MODULE,
	.open = kc_control_open,
	.read = seq_read,
	.write = kc_control_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kc_latency_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_watch_latency_show, NULL, 64 * 1024);
}

static const struct file_operations kc_latency_fops = {
	.owner = THIS_MODULE,
	.open = kc_latency_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kc_watched_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_watch_watched_show, NULL, 32 * 1024);
}

static const struct file_operations kc_watched_fops = {
	.owner = THIS_MODULE,
	.open = kc_watched_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kc_visited_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_pool_visited_show, NULL, 8192);
}

static const struct file_operations kc_visited_fops = {
	.owner = THIS_MODULE,
	.open = kc_visited_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kc_running_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_sites_running_show, NULL, 16384);
}

static const struct file_operations kc_running_fops = {
	.owner = THIS_MODULE,
	.open = kc_running_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * Reading a self-test's file runs it: "passed", or "failed" and the error.
 * Read-only, so that no write, however malformed, runs it.
 */
static ssize_t kc_selftest_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	int (*selftest)(void) = file->private_data;
	char out[32];
	int ret, len;

	if (*ppos)
		return 0;
	ret = selftest();
	if (ret)
		len = scnprintf(out, sizeof(out), "failed %d\n", ret);
	else
		len = scnprintf(out, sizeof(out), "passed\n");
	return simple_read_from_buffer(ubuf, count, ppos, out, len);
}

/* Each self-test's file holds its function (pool.c's, cpusync.c's). */
static const struct file_operations kc_selftest_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kc_selftest_read,
	.llseek = noop_llseek,
};

/*
 * The tests' knobs that make a rare path happen on purpose: a number each,
 * read and written through the owner's two functions.
 */
struct kc_test_knob {
	int (*get)(void);
	void (*set)(int value);
	int max;
};

static const struct kc_test_knob kc_fail_thread_knob = {
	.get = kc_sampler_thread_fail_in,
	.set = kc_sampler_fail_thread_start,
	.max = INT_MAX,
};

static const struct kc_test_knob kc_reap_hold_knob = {
	.get = kc_pool_reap_hold,
	.set = kc_pool_set_reap_hold,
	.max = KC_REAP_HOLD_MAX_MS,
};

static ssize_t kc_test_knob_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	const struct kc_test_knob *knob = file->private_data;
	char out[16];
	int len;

	len = scnprintf(out, sizeof(out), "%d\n", knob->get());
	return simple_read_from_buffer(ubuf, count, ppos, out, len);
}

/* Decimal, as every setting: a typo must not arm a different failure. */
static ssize_t kc_test_knob_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	const struct kc_test_knob *knob = file->private_data;
	char buf[24];
	u64 value;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	if (kc_parse_u64_range(buf, count, 0, knob->max, &value))
		return -EINVAL;
	knob->set(value);
	return count;
}

static const struct file_operations kc_test_knob_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = kc_test_knob_read,
	.write = kc_test_knob_write,
	.llseek = noop_llseek,
};

/* what the stats file calls each reason a sample was skipped */
static const char * const kc_skip_names[KC_NR_SKIPS] = {
	[KC_SKIP_NMI] = "nmi",
	[KC_SKIP_RECURSION] = "recursion",
	[KC_SKIP_ROTATION] = "stopping",
	[KC_SKIP_FORBIDDEN] = "forbidden_address",
	[KC_SKIP_NO_SLOT] = "no_slot",
	[KC_SKIP_NO_MARK] = "no_mark",
	[KC_SKIP_RCU] = "rcu_not_watching",
	[KC_SKIP_DISABLED] = "disabled",
	[KC_SKIP_HELD] = "held_share",
	[KC_SKIP_PERCPU_DENIED] = "percpu_denied",
};

/*
 * Counters are not settings: one "NAME VALUE" line each, in debugfs as
 * KCSAN keeps its own, so that sysfs holds one setting per file.
 */
static int kc_stats_show(struct seq_file *m, void *v)
{
	const struct kc_stats *s = &kc_stats;
	int i;

	kc_sites_stats(m);
	kc_profile_stats(m);
	kc_pool_stats(m);
	kc_sampler_stats(m);
	seq_printf(m, "samples %ld\nsamples_writes %ld\nstall_us %ld\n"
		   "stall_queued_us %ld\n"
		   "stall_arm_us %ld\n"
		   "stall_window_us %ld\nstall_sleeps %ld\n"
		   "stall_sleep_late_us %ld\nloop_waits %ld\n"
		   "watch_full %ld\nwatch_partial %ld\n"
		   "watch_idle_joined %ld\nwindow_partial %ld\n"
		   "changed_arming %ld\n"
		   "races %ld\nunknown_origin %ld\n"
		   "reports_suppressed %ld\nreports_lost %ld\n"
		   "dr_repaired %ld\nlate_traps %ld\n"
		   "watch_splits_rmw %d\nsplit_read_traps %ld\n"
		   "traps_awaited %ld\nracer_outside %ld\ntraps_own %ld\n"
		   "racer_read_other %ld\n"
		   "racers_stepping %ld\nracers_carried %ld\n",
		   atomic_long_read(&s->samples),
		   atomic_long_read(&s->samples_writes),
		   atomic_long_read(&s->stall_us),
		   atomic_long_read(&s->stall_queued_us),
		   atomic_long_read(&s->stall_arm_us),
		   atomic_long_read(&s->stall_window_us),
		   atomic_long_read(&s->stall_sleeps),
		   atomic_long_read(&s->stall_sleep_late_us),
		   atomic_long_read(&s->loop_waits),
		   atomic_long_read(&s->watch_full),
		   atomic_long_read(&s->watch_partial),
		   atomic_long_read(&s->watch_idle_joined),
		   atomic_long_read(&s->window_partial),
		   atomic_long_read(&s->changed_arming),
		   atomic_long_read(&s->races),
		   atomic_long_read(&s->unknown_origin),
		   atomic_long_read(&s->reports_suppressed),
		   atomic_long_read(&s->reports_lost),
		   atomic_long_read(&s->dr_repaired),
		   atomic_long_read(&s->late_traps),
		   kc_watch_splits_rmw(),
		   atomic_long_read(&s->split_read_traps),
		   atomic_long_read(&s->traps_awaited),
		   atomic_long_read(&s->racer_outside),
		   atomic_long_read(&s->traps_own),
		   atomic_long_read(&s->racer_read_other),
		   atomic_long_read(&s->racers_stepping),
		   atomic_long_read(&s->racers_carried));
	kc_filters_stats(m);
	for (i = 0; i < KC_NR_SKIPS; i++)
		seq_printf(m, "skipped_%s %ld\n", kc_skip_names[i],
			   atomic_long_read(&s->skipped[i]));
	return 0;
}

static int kc_stats_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_stats_show, NULL, 8192);
}

static const struct file_operations kc_stats_fops = {
	.owner = THIS_MODULE,
	.open = kc_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

int kc_debugfs_init(void)
{
	kc_debugfs_dir = debugfs_create_dir("kcollider", NULL);
	debugfs_create_file("reports", 0400, kc_debugfs_dir, NULL,
			    &kc_reports_fops);
	debugfs_create_file("control", 0600, kc_debugfs_dir, NULL,
			    &kc_control_fops);
	debugfs_create_file("arm_latency_ns", 0400, kc_debugfs_dir, NULL,
			    &kc_latency_fops);
	debugfs_create_file("watched", 0400, kc_debugfs_dir, NULL,
			    &kc_watched_fops);
	debugfs_create_file("visited", 0400, kc_debugfs_dir, NULL,
			    &kc_visited_fops);
	debugfs_create_file("running", 0400, kc_debugfs_dir, NULL,
			    &kc_running_fops);
	debugfs_create_file("stats", 0444, kc_debugfs_dir, NULL,
			    &kc_stats_fops);
	debugfs_create_file("rescue_selftest", 0400, kc_debugfs_dir,
			    kc_pool_rescue_selftest, &kc_selftest_fops);
	debugfs_create_file("loop_selftest", 0400, kc_debugfs_dir,
			    kc_rescue_loop_selftest, &kc_selftest_fops);
	debugfs_create_file("silent_selftest", 0400, kc_debugfs_dir,
			    kc_rescue_silent_selftest, &kc_selftest_fops);
	debugfs_create_file("cpusync_selftest", 0400, kc_debugfs_dir,
			    kc_cpusync_selftest, &kc_selftest_fops);
	debugfs_create_file("idle_selftest", 0400, kc_debugfs_dir,
			    kc_watch_idle_selftest, &kc_selftest_fops);
	debugfs_create_file("ackscan_selftest", 0400, kc_debugfs_dir,
			    kc_watch_ackscan_selftest, &kc_selftest_fops);
	debugfs_create_file("hotplug_selftest", 0400, kc_debugfs_dir,
			    kc_watch_hotplug_selftest, &kc_selftest_fops);
	debugfs_create_file("fail_thread_start", 0600, kc_debugfs_dir,
			    (void *)&kc_fail_thread_knob, &kc_test_knob_fops);
	debugfs_create_file("reap_hold_ms", 0600, kc_debugfs_dir,
			    (void *)&kc_reap_hold_knob, &kc_test_knob_fops);
	return 0;
}

void kc_debugfs_exit(void)
{
	debugfs_remove_recursive(kc_debugfs_dir);
	kc_debugfs_dir = NULL;
}
