// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler, DataCollider's: a few code breakpoints armed at uniformly
 * random sites of the pool. An armed breakpoint samples its first hit;
 * the periodic worker then moves it to a new random site, so rarely run
 * code is sampled as often as hot code. The same worker adjusts how many
 * are armed so that fired breakpoints per second track sample_rate.
 *
 * Arming and disarming patch text (text_poke), which reloads every CPU's
 * debug registers: the worker first blocks new windows (kc_rotating) and
 * waits for the open ones to close.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "kcollider.h"

#define KC_SAMPLER_PERIOD_MS	20
/*
 * A breakpoint on code that does not run would hold its place forever and,
 * one by one, the armed set would fill with dead code: move it on.
 */
#define KC_STALE_MS		500
#define KC_POOL_MAX		(1U << 20)

atomic_t kc_rotating = ATOMIC_INIT(1);

static DEFINE_MUTEX(kc_sampler_lock);
static struct kc_site **kc_pool;
static unsigned int kc_pool_len;
static struct kc_site *kc_armed[KC_MAX_PROBES];
static unsigned int kc_nr_armed;
static unsigned int kc_goal = 1;
static long kc_last_fired;
static bool kc_running;
static struct delayed_work kc_sampler_work;

static void kc_disarm_site(struct kc_site *site)
{
	WRITE_ONCE(site->armed, false);
	disable_kprobe(&site->kp);
}

static void kc_disarm_index(unsigned int i)
{
	kc_disarm_site(kc_armed[i]);
	kc_armed[i] = kc_armed[--kc_nr_armed];
}

static void kc_arm_random(void)
{
	struct kc_site *site;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		site = kc_pool[get_random_u32() % kc_pool_len];
		if (site->armed || !site->registered)
			continue;
		atomic_set(&site->fired, 0);
		if (enable_kprobe(&site->kp))
			continue;
		site->armed_at = jiffies;
		WRITE_ONCE(site->armed, true);
		kc_armed[kc_nr_armed++] = site;
		return;
	}
}

/* Block new windows and wait for open ones; false if they stay open. */
static bool kc_quiesce_windows(void)
{
	int i;

	atomic_set(&kc_rotating, 1);
	/* pairs with kc_claim_window(): it sees the flag or we see its count */
	smp_mb__after_atomic();
	for (i = 0; i < 1000; i++) {
		if (!atomic_read(&kc_windows_open))
			return true;
		usleep_range(20, 40);
	}
	return false;
}

static void kc_adjust_goal(void)
{
	long fired = atomic_long_read(&kc_stats.fired);
	unsigned long rate = (fired - kc_last_fired) * 1000 /
			     KC_SAMPLER_PERIOD_MS;
	unsigned int target = READ_ONCE(kc_settings.sample_rate);
	unsigned int max = min3(READ_ONCE(kc_settings.max_probes),
				kc_pool_len, (unsigned int)KC_MAX_PROBES);

	kc_last_fired = fired;
	if (rate < target && kc_goal < max)
		kc_goal += max_t(unsigned int, 1, kc_goal / 4);
	else if (rate > target && kc_goal > 1)
		kc_goal -= max_t(unsigned int, 1, kc_goal / 4);
	kc_goal = clamp_t(unsigned int, kc_goal, 1, max ? max : 1);
}

static void kc_rotate(void)
{
	unsigned long stale = msecs_to_jiffies(KC_STALE_MS);
	unsigned int i;

	for (i = 0; i < kc_nr_armed;) {
		if (atomic_read(&kc_armed[i]->fired) ||
		    time_after(jiffies, kc_armed[i]->armed_at + stale))
			kc_disarm_index(i);
		else
			i++;
	}
	while (kc_nr_armed > kc_goal)
		kc_disarm_index(kc_nr_armed - 1);
	for (i = 0; kc_nr_armed < kc_goal && i < kc_goal * 2; i++)
		kc_arm_random();
}

static void kc_sampler_fn(struct work_struct *work)
{
	mutex_lock(&kc_sampler_lock);
	if (!kc_running || !kc_pool_len) {
		mutex_unlock(&kc_sampler_lock);
		return;
	}
	kc_adjust_goal();
	if (kc_quiesce_windows()) {
		kc_rotate();
		atomic_long_inc(&kc_stats.rotations);
	} else {
		atomic_long_inc(&kc_stats.rotations_deferred);
	}
	atomic_set(&kc_rotating, 0);
	kc_marks_expire();
	mutex_unlock(&kc_sampler_lock);
	/* unbound: the CPUs running the targets are often the busy ones */
	queue_delayed_work(system_unbound_wq, &kc_sampler_work,
			   msecs_to_jiffies(KC_SAMPLER_PERIOD_MS));
}

/*
 * Stop sampling and wait until no thread is inside a stall: afterwards
 * sites may be unregistered and freed. Callers hold kc_state_lock.
 */
void kc_sampler_stop(void)
{
	mutex_lock(&kc_sampler_lock);
	kc_running = false;
	atomic_set(&kc_rotating, 1);
	mutex_unlock(&kc_sampler_lock);
	cancel_delayed_work_sync(&kc_sampler_work);

	mutex_lock(&kc_sampler_lock);
	while (kc_nr_armed)
		kc_disarm_index(kc_nr_armed - 1);
	mutex_unlock(&kc_sampler_lock);
	/*
	 * Pairs with kc_claim_window(): a window claimed before kc_rotating
	 * was seen is counted in kc_windows_open.
	 */
	smp_mb();
	while (atomic_read(&kc_windows_open) ||
	       atomic_read(&kc_stalls_in_flight))
		usleep_range(1000, 2000);
}

void kc_sampler_start(void)
{
	mutex_lock(&kc_sampler_lock);
	kc_running = true;
	kc_last_fired = atomic_long_read(&kc_stats.fired);
	atomic_set(&kc_rotating, 0);
	mutex_unlock(&kc_sampler_lock);
	queue_delayed_work(system_unbound_wq, &kc_sampler_work, 0);
}

/* The targets changed (sampler stopped): take the new set of sites. */
void kc_sampler_pool_changed(void)
{
	unsigned int n = min(kc_targets_nr_sites(), KC_POOL_MAX);
	struct kc_site **pool = NULL;

	if (n)
		pool = kvcalloc(n, sizeof(*pool), GFP_KERNEL);
	if (pool)
		n = kc_targets_collect(pool, n);
	else
		n = 0;
	mutex_lock(&kc_sampler_lock);
	kvfree(kc_pool);
	kc_pool = pool;
	kc_pool_len = n;
	kc_goal = 1;
	mutex_unlock(&kc_sampler_lock);
}

unsigned long kc_sampler_pool_size(void)
{
	return READ_ONCE(kc_pool_len);
}

unsigned int kc_sampler_armed(void)
{
	return READ_ONCE(kc_nr_armed);
}

/*
 * #DB context, lock-free: traps are accepted only while a window is open,
 * and the armed set changes only with every window closed.
 */
bool kc_sampler_map_armed_slot_ip(unsigned long ip, unsigned long *orig)
{
	unsigned int i, n = READ_ONCE(kc_nr_armed);

	for (i = 0; i < n && i < KC_MAX_PROBES; i++) {
		struct kc_site *s = READ_ONCE(kc_armed[i]);
		unsigned long slot;

		if (!s)
			continue;
		slot = (unsigned long)s->kp.ainsn.insn;
		if (slot && ip > slot && ip <= slot + s->insn.length) {
			*orig = (unsigned long)s->kp.addr + (ip - slot);
			return true;
		}
	}
	return false;
}

/*
 * A racer that was single-stepping one of our probes traps inside the
 * probe's instruction slot: map that back to the probed address.
 */
bool kc_sampler_map_slot_ip(unsigned long ip, unsigned long *orig)
{
	bool found = false;
	unsigned int i;

	mutex_lock(&kc_sampler_lock);
	for (i = 0; i < kc_pool_len && !found; i++) {
		struct kc_site *s = kc_pool[i];
		unsigned long slot = (unsigned long)s->kp.ainsn.insn;

		if (slot && ip > slot && ip <= slot + s->insn.length) {
			*orig = (unsigned long)s->kp.addr + (ip - slot);
			found = true;
		}
	}
	mutex_unlock(&kc_sampler_lock);
	return found;
}

int kc_sampler_init(void)
{
	INIT_DELAYED_WORK(&kc_sampler_work, kc_sampler_fn);
	return 0;
}

void kc_sampler_exit(void)
{
	kc_sampler_stop();
	mutex_lock(&kc_sampler_lock);
	kvfree(kc_pool);
	kc_pool = NULL;
	kc_pool_len = 0;
	mutex_unlock(&kc_sampler_lock);
}
