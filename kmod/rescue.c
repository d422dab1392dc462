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
 * So while the work is due, every CPU runs a watchdog timer of its own,
 * and a CPU that finds the work overdue pulls it onto itself: one CPU that
 * still runs its timers is enough. The watchdogs stop once nothing is due.
 * On hardware the work is never overdue and the watchdogs never pull.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "kcollider.h"

/*
 * Overdue: this long after its due time the work is pulled, by a
 * watchdog that looks every tick. A loop the work ends lasts at most
 * their sum; each look wakes its CPU, so not much more often.
 */
#define KC_RESCUE_GRACE_MS	50
#define KC_RESCUE_TICK_MS	50

static struct delayed_work *kc_rescue_work;
/* jiffies the work is due by; 0: nothing due */
static unsigned long kc_rescue_due;
static bool kc_rescue_enabled;
static bool kc_rescue_ticking;
/* orders the watchdogs' re-arming against starting and stopping them */
static DEFINE_SPINLOCK(kc_rescue_lock);
static DEFINE_PER_CPU(struct timer_list, kc_rescue_timer);
static DEFINE_PER_CPU(unsigned long, kc_rescue_pulls);

static bool kc_rescue_overdue(void)
{
	unsigned long due = READ_ONCE(kc_rescue_due);

	return due && time_after(jiffies,
				 due + msecs_to_jiffies(KC_RESCUE_GRACE_MS));
}

static void kc_rescue_tick(struct timer_list *t)
{
	if (kc_rescue_overdue() && READ_ONCE(kc_rescue_enabled)) {
		/* taken from the stuck CPU's timer or worklist, run here */
		mod_delayed_work_on(smp_processor_id(), system_wq,
				    kc_rescue_work, 0);
		this_cpu_inc(kc_rescue_pulls);
	}
	spin_lock(&kc_rescue_lock);
	if (kc_rescue_enabled && READ_ONCE(kc_rescue_due))
		mod_timer(t, jiffies + msecs_to_jiffies(KC_RESCUE_TICK_MS));
	else
		kc_rescue_ticking = false;
	spin_unlock(&kc_rescue_lock);
}

static void kc_rescue_start(void)
{
	unsigned long expires = jiffies + msecs_to_jiffies(KC_RESCUE_TICK_MS);
	unsigned long flags;
	int cpu;

	spin_lock_irqsave(&kc_rescue_lock, flags);
	if (kc_rescue_enabled && !kc_rescue_ticking) {
		kc_rescue_ticking = true;
		for_each_online_cpu(cpu) {
			struct timer_list *t = per_cpu_ptr(&kc_rescue_timer,
							   cpu);

			if (timer_pending(t))
				continue;
			t->expires = expires;
			add_timer_on(t, cpu);
		}
	}
	spin_unlock_irqrestore(&kc_rescue_lock, flags);
}

/*
 * The watched work was queued to run @delay jiffies from now. Call after
 * queueing it: the work may already be running and clear the mark. Any
 * context but the watchdogs' own.
 */
void kc_rescue_expect(unsigned long delay)
{
	WRITE_ONCE(kc_rescue_due, (jiffies + delay) ?: 1);
	if (!READ_ONCE(kc_rescue_ticking))
		kc_rescue_start();
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

void kc_rescue_init(struct delayed_work *work)
{
	int cpu;

	kc_rescue_work = work;
	for_each_possible_cpu(cpu)
		timer_setup(per_cpu_ptr(&kc_rescue_timer, cpu), kc_rescue_tick,
			    TIMER_PINNED);
	WRITE_ONCE(kc_rescue_enabled, true);
}

/* Before the watched work is cancelled: no watchdog queues it after. */
void kc_rescue_exit(void)
{
	unsigned long flags;
	int cpu;

	spin_lock_irqsave(&kc_rescue_lock, flags);
	WRITE_ONCE(kc_rescue_enabled, false);
	spin_unlock_irqrestore(&kc_rescue_lock, flags);
	for_each_possible_cpu(cpu)
		del_timer_sync(per_cpu_ptr(&kc_rescue_timer, cpu));
}
