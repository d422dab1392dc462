// SPDX-License-Identifier: GPL-2.0
/*
 * kc_planted: races planted on purpose, for kcollider's tests.
 *
 * Each scenario of ../shared/design/scenarios.md that is implemented here
 * puts every racy access in a noinline function of its own, named after
 * the scenario, so a report names it and a test can target exactly it.
 *
 *   echo "r1 3000" > /sys/kernel/debug/kc_planted/run   # run R1 for 3 s
 *   cat /sys/kernel/debug/kc_planted/facts               # object addresses
 *
 * The write returns when the scenario has finished.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

static DEFINE_MUTEX(kc_run_lock);
static struct dentry *kc_dir;

/* Shared data of the scenarios; volatile-free on purpose: plain races. */
int kc_r1_count;
long kc_r5_shared;
int kc_n1_count;
static DEFINE_SPINLOCK(kc_n1_lock);
static int *kc_r8_direct;		/* the page through the direct map */
static int *kc_r8_alias;		/* the same page through vmap() */
static struct page *kc_r8_page;

struct kc_worker {
	void (*body)(void);
	unsigned long end;
};

/* ---- R1: plain count++ and count-- in two threads ---- */

noinline void kc_r1_inc(void)
{
	kc_r1_count++;
}

noinline void kc_r1_dec(void)
{
	kc_r1_count--;
}

/* ---- R5: task writes, an hrtimer on the same CPU reads and writes ---- */

noinline void kc_r5_task_write(void)
{
	kc_r5_shared = kc_r5_shared + 3;
}

noinline void kc_r5_timer_access(void)
{
	kc_r5_shared = kc_r5_shared * 2 + 1;
}

static struct hrtimer kc_r5_timer;

static enum hrtimer_restart kc_r5_timer_fn(struct hrtimer *t)
{
	kc_r5_timer_access();
	hrtimer_forward_now(t, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/* ---- R8: a writer through a second mapping, invisible to the watch ---- */

noinline int kc_r8_read(void)
{
	return READ_ONCE(*kc_r8_direct) + *kc_r8_direct;
}

noinline void kc_r8_write_alias(void)
{
	(*kc_r8_alias)++;
}

/* ---- N1: a counter protected by a spinlock everywhere ---- */

noinline void kc_n1_inc_locked(void)
{
	spin_lock(&kc_n1_lock);
	kc_n1_count++;
	spin_unlock(&kc_n1_lock);
}

static void kc_r8_reader(void)
{
	static volatile int sink;

	sink = kc_r8_read();
}

static int kc_worker_fn(void *data)
{
	struct kc_worker *w = data;
	unsigned int n = 0;

	while (!kthread_should_stop()) {
		if (time_before(jiffies, w->end)) {
			w->body();
			if (!(++n % 64))
				cond_resched();
			continue;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* R5's task side also owns the timer, so the timer fires on its CPU. */
static void kc_r5_task_body(void)
{
	if (!hrtimer_active(&kc_r5_timer))
		hrtimer_start(&kc_r5_timer, ns_to_ktime(50 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_PINNED);
	kc_r5_task_write();
	udelay(1);
}

struct kc_scenario {
	const char *name;
	void (*bodies[2])(void);
	int cpus[2];
};

static const struct kc_scenario kc_scenarios[] = {
	{ "r1", { kc_r1_inc, kc_r1_dec }, { 0, 1 } },
	{ "r5", { kc_r5_task_body, NULL }, { 0, -1 } },
	{ "r8", { kc_r8_reader, kc_r8_write_alias }, { 0, 1 } },
	{ "n1", { kc_n1_inc_locked, kc_n1_inc_locked }, { 0, 1 } },
};

static int kc_run(const struct kc_scenario *sc, unsigned int ms)
{
	struct kc_worker workers[2];
	struct task_struct *tasks[2] = { };
	int i, ret = 0;

	for (i = 0; i < 2 && sc->bodies[i]; i++) {
		int cpu = sc->cpus[i] % num_online_cpus();

		workers[i].body = sc->bodies[i];
		workers[i].end = jiffies + msecs_to_jiffies(ms);
		tasks[i] = kthread_create_on_cpu(kc_worker_fn, &workers[i],
						 cpu, "kc_planted/%u");
		if (IS_ERR(tasks[i])) {
			ret = PTR_ERR(tasks[i]);
			tasks[i] = NULL;
			break;
		}
	}
	for (i = 0; i < 2; i++)
		if (tasks[i])
			wake_up_process(tasks[i]);
	if (!ret)
		msleep(ms);
	for (i = 0; i < 2; i++)
		if (tasks[i])
			kthread_stop(tasks[i]);
	hrtimer_cancel(&kc_r5_timer);
	return ret;
}

static ssize_t kc_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[64], name[16];
	unsigned int ms, i;
	int ret = -EINVAL;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%15s %u", name, &ms) != 2 || !ms || ms > 600000)
		return -EINVAL;
	mutex_lock(&kc_run_lock);
	for (i = 0; i < ARRAY_SIZE(kc_scenarios); i++)
		if (!strcmp(name, kc_scenarios[i].name))
			ret = kc_run(&kc_scenarios[i], ms);
	mutex_unlock(&kc_run_lock);
	return ret ? ret : count;
}

static const struct file_operations kc_run_fops = {
	.owner = THIS_MODULE,
	.write = kc_run_write,
};

static int kc_facts_show(struct seq_file *m, void *v)
{
	seq_printf(m, "r1_count %px\n", &kc_r1_count);
	seq_printf(m, "r5_shared %px\n", &kc_r5_shared);
	seq_printf(m, "r8_direct %px\n", kc_r8_direct);
	seq_printf(m, "r8_alias %px\n", kc_r8_alias);
	seq_printf(m, "n1_count %px\n", &kc_n1_count);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_facts);

static int __init kc_planted_init(void)
{
	kc_r8_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!kc_r8_page)
		return -ENOMEM;
	kc_r8_direct = page_address(kc_r8_page);
	kc_r8_alias = vmap(&kc_r8_page, 1, VM_MAP, PAGE_KERNEL);
	if (!kc_r8_alias) {
		__free_page(kc_r8_page);
		return -ENOMEM;
	}
	hrtimer_init(&kc_r5_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	kc_r5_timer.function = kc_r5_timer_fn;
	kc_dir = debugfs_create_dir("kc_planted", NULL);
	debugfs_create_file("run", 0200, kc_dir, NULL, &kc_run_fops);
	debugfs_create_file("facts", 0400, kc_dir, NULL, &kc_facts_fops);
	return 0;
}

static void __exit kc_planted_exit(void)
{
	debugfs_remove_recursive(kc_dir);
	hrtimer_cancel(&kc_r5_timer);
	vunmap(kc_r8_alias);
	__free_page(kc_r8_page);
}

module_init(kc_planted_init);
module_exit(kc_planted_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kcollider test module: planted data races");
