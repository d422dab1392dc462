// SPDX-License-Identifier: GPL-2.0
/*
 * The rescue of a delayed work whose timer sits on a CPU that no longer
 * runs its timers.
 *
 * A delayed work's timer fires on the CPU that queued it. Under QEMU's
 * multi-threaded TCG the pool's scrub, a later write of a visit's page,
 * is what ends a vCPU's loop on a stale int3 (see kc_probe_scrub()). That
 * loop may run with interrupts off, inside spin_lock_irqsave(), while the
 * other CPUs that want the lock spin with interrupts off too: if the
 * scrub's timer was queued on any of them it never fires, nothing else
 * writes the page, and the guest hangs until the RCU stall detector
 * panics it.
 *
 * So while the work is due, every CPU runs a watchdog of its own, and one
 * that finds the work overdue writes the pages itself, lock-free, and
 * pulls the work onto itself for the rest. The watchdogs are hard
 * hrtimers: a CPU that loops with interrupts on but cannot schedule (a
 * spinlock held, or bottom halves off, where neither a softirq timer nor
 * a worker runs) still ends its own loop. One CPU with interrupts on is
 * enough. The watchdogs stop once nothing is due. On hardware the work is
 * never overdue and the watchdogs never act.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "kcollider.h"

/*
 * Overdue: this long after its due time the work is rescued, by a
 * watchdog that looks every tick. A loop the work ends lasts at most
 * their sum; each look wakes its CPU, so not much more often.
 */
#define KC_RESCUE_GRACE_MS	50
#define KC_RESCUE_TICK_MS	50

static struct delayed_work *kc_rescue_work;
static void (*kc_rescue_write)(void);
/* jiffies the work is due by; 0: nothing due */
static unsigned long kc_rescue_due;
static bool kc_rescue_enabled;
static DEFINE_PER_CPU(bool, kc_rescue_ticking);
static DEFINE_PER_CPU(struct hrtimer, kc_rescue_timer);
/* a watchdog is started on its own CPU: hrtimers fire where started */
static DEFINE_PER_CPU(call_single_data_t, kc_rescue_csd);
static atomic_t kc_rescue_csds_in_flight = ATOMIC_INIT(0);
static DEFINE_PER_CPU(unsigned long, kc_rescue_pulls);

static bool kc_rescue_overdue(void)
{
	unsigned long due = READ_ONCE(kc_rescue_due);

	return due && time_after(jiffies,
				 due + msecs_to_jiffies(KC_RESCUE_GRACE_MS));
}

static enum hrtimer_restart kc_rescue_tick(struct hrtimer *t)
{
	if (kc_rescue_overdue() && READ_ONCE(kc_rescue_enabled)) {
		kc_rescue_write();
		/* taken from the stuck CPU's timer or worklist, run here */
		mod_delayed_work_on(smp_processor_id(), system_wq,
				    kc_rescue_work, 0);
		this_cpu_inc(kc_rescue_pulls);
	}
	this_cpu_write(kc_rescue_ticking, false);
	/* pairs with kc_rescue_expect(): its mark seen, or our flag there */
	smp_mb();
	if (!READ_ONCE(kc_rescue_enabled) || !READ_ONCE(kc_rescue_due))
		return HRTIMER_NORESTART;
	this_cpu_write(kc_rescue_ticking, true);
	hrtimer_forward_now(t, ms_to_ktime(KC_RESCUE_TICK_MS));
	return HRTIMER_RESTART;
}
NOKPROBE_SYMBOL(kc_rescue_tick);

/* On the watchdog's own CPU, interrupts off. */
static void kc_rescue_start_local(void *unused)
{
	struct hrtimer *t = this_cpu_ptr(&kc_rescue_timer);

	if (READ_ONCE(kc_rescue_enabled) && !hrtimer_is_queued(t)) {
		this_cpu_write(kc_rescue_ticking, true);
		hrtimer_start(t, ms_to_ktime(KC_RESCUE_TICK_MS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	/* our text's last access but the return: see kc_rescue_exit() */
	atomic_dec(&kc_rescue_csds_in_flight);
}
NOKPROBE_SYMBOL(kc_rescue_start_local);

/*
 * The watched work was queued to run @delay jiffies from now. Call after
 * queueing it: the work may already be running and clear the mark. Any
 * context but int3 and NMI, interrupts off too.
 */
void kc_rescue_expect(unsigned long delay)
{
	int cpu;

	WRITE_ONCE(kc_rescue_due, (jiffies + delay) ?: 1);
	atomic_inc(&kc_rescue_csds_in_flight);
	/* holds kc_rescue_exit() off; pairs with kc_rescue_tick() too */
	smp_mb__after_atomic();
	for_each_online_cpu(cpu) {
		if (!READ_ONCE(kc_rescue_enabled) ||
		    READ_ONCE(per_cpu(kc_rescue_ticking, cpu)))
			continue;
		atomic_inc(&kc_rescue_csds_in_flight);
		/* -EBUSY: the one still queued starts it */
		if (smp_call_function_single_async(cpu,
				per_cpu_ptr(&kc_rescue_csd, cpu)))
			atomic_dec(&kc_rescue_csds_in_flight);
	}
	atomic_dec(&kc_rescue_csds_in_flight);
}

/* The watched work is running: what it queues again it expects again. */
void kc_rescue_ran(void)
{
	WRITE_ONCE(kc_rescue_due, 0);
}

unsigned long kc_rescue_pulled(void)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(kc_rescue_pulls, cpu);
	return n;
}

/*
 * @write: writes the pages the work would, lock-free, from a watchdog's
 * hard interrupt.
 */
void kc_rescue_init(struct delayed_work *work, void (*write)(void))
{
	int cpu;

	kc_rescue_work = work;
	kc_rescue_write = write;
	for_each_possible_cpu(cpu) {
		hrtimer_init(per_cpu_ptr(&kc_rescue_timer, cpu),
			     CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		per_cpu(kc_rescue_timer, cpu).function = kc_rescue_tick;
		INIT_CSD(per_cpu_ptr(&kc_rescue_csd, cpu),
			 kc_rescue_start_local, NULL);
	}
	WRITE_ONCE(kc_rescue_enabled, true);
}

/* Before the watched work is cancelled: no watchdog queues it after. */
void kc_rescue_exit(void)
{
	int cpu;

	WRITE_ONCE(kc_rescue_enabled, false);
	/* pairs with kc_rescue_expect(): it sees this, or we its count */
	smp_mb();
	while (atomic_read(&kc_rescue_csds_in_flight))
		usleep_range(1000, 2000);
	/* a start runs with interrupts off: an RCU reader to its return */
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&kc_rescue_timer, cpu));
}
