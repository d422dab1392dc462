// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler, DataCollider's: breakpoints armed at random sites of the
 * site table (uniform, less the sites whose code has not been running),
 * each spent by its first hit. The hit hands the spent
 * breakpoint to the armer through an NMI-safe irq_work, and the armer takes
 * it out of the text at once and arms the next one: one trap per sample,
 * not one per execution until some rotation.
 *
 * The armer earns credits at sample_rate, paced down by the overhead
 * budget and the stall governor, and spends one per breakpoint it arms, so
 * fired breakpoints per second follow the paced rate whenever the armed
 * code runs. Breakpoints whose code does not run give their credit back
 * (visits after KC_VISIT_MS, registered probes after KC_STALE_MS) and
 * move on; up to max_probes wait at once. stats says where the rate went.
 *
 * The int3 handler is hot and NMI-like: per-CPU counters, one cmpxchg on a
 * first hit, nothing shared on the other hits.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "kcollider.h"

#define KC_STALE_MS		2000
/*
 * A visit whose code did not run goes after this. What a visit costs is
 * its writes of the text, not its time armed: while the budget bounds how
 * many visits a second there are, a longer life buys more hits for the
 * same writes, and fewer armer rounds. Too long, and the armed slots
 * (max_probes) bound how fast the sampler moves over the table.
 */
#define KC_VISIT_MS		100
/* After a round that found no site to arm. */
#define KC_RETRY_MS		5
/* Credits at the start, with visits: the first period's breakpoints. */
#define KC_VISIT_SEED		8
/* Sites a round may try before it gives up on the table for now. */
#define KC_VISIT_TRIES		4
/* The reserve moves on: a registered probe serves this long at most. */
#define KC_RESERVE_LIFE_MS	2000
#define KC_RESERVE_EXTRA	64
/*
 * Registering is the costly step (kprobes decodes the function around the
 * site and prepares an optimized copy for each): beyond a small pool, one
 * for every KC_SAMPLES_PER_REG samples the rate asks for, between one
 * every two seconds and ten a second, so that keeping the reserve moving
 * over the table costs a bounded share of one CPU.
 */
#define KC_RESERVE_MIN		16
#define KC_SAMPLES_PER_REG	20
#define KC_REG_RATE_MIN		10	/* one registration every two seconds */
#define KC_REG_RATE_MAX		200	/* ten registrations a second */
/*
 * Picks a refill may make: a small table's last unregistered sites are
 * found among picks of registered ones without a keeper round each.
 */
#define KC_REFILL_PICKS		8
/* picks a site may take to find one whose reports are not all suppressed */
#define KC_SUPPRESSED_TRIES	4
/*
 * The armer's longest sleep, which the stale check (KC_STALE_MS) and the
 * stall governor's period allow. Each wake-up scans the pool, so waking
 * more often costs the armer and the keeper CPU time for nothing.
 */
#define KC_ARMER_IDLE_MS	100
/*
 * The keeper runs every KC_KEEPER_IDLE_MS, and at most KC_KEEPER_MIN_MS
 * after the armer saw a hit on a spent or removed breakpoint: a stale
 * translation under TCG, which the keeper's scrub ends when the armer's
 * second write missed it. Woken after every removal instead, it would
 * cost the armer a cross-CPU wake-up and itself a round per sample; never
 * woken, stale translations would go on trapping until its idle round.
 */
#define KC_KEEPER_MIN_MS	20
#define KC_KEEPER_IDLE_MS	100
/* The most arming one round does before the armer sleeps as long. */
#define KC_ARM_SLICE_NS		(2 * NSEC_PER_MSEC)

struct kc_cpu_counts {
	u64 handler_ns;			/* in our int3 handler */
	unsigned long hits;		/* every int3 of ours */
	unsigned long fired;		/* first hits */
	unsigned long spent_hits;	/* hits after the first */
	unsigned long passed;		/* hits carried out, not sampled */
};

static DEFINE_PER_CPU(struct kc_cpu_counts, kc_counts);

/* The armer's own state: only its thread touches it. */
static struct task_struct *kc_armer;
/* Registering and unregistering take ms: a thread of their own. */
static struct task_struct *kc_keeper;
static bool kc_running;
static u64 kc_credit_ns;	/* earned, in ns of budget */
static u64 kc_register_ns;	/* the same for registrations */
static u64 kc_last_ns;
static unsigned long kc_arms;
static unsigned long kc_add_fail;
static unsigned long kc_expired;
static unsigned long kc_retired;
static u64 kc_arm_ns;		/* time spent arming */
static u64 kc_retire_ns;	/* time spent taking spent probes out */
static u64 kc_busy_ns;		/* rounds that forced a pause */
static unsigned long kc_rounds;
static unsigned long kc_retire_rounds;	/* of them, retiring only */
static u64 kc_rounds_ns;
static unsigned long kc_keeper_rounds;
static u64 kc_keeper_rounds_ns;
static u64 kc_arm_after_ns;	/* the pause: no arming before this */
static u64 kc_round_due_ns;	/* when the next whole round is */
static unsigned long kc_spent_hits_seen;

/* A stale int3 was hit since the keeper's last round. */
static bool kc_keeper_due;
static DECLARE_WAIT_QUEUE_HEAD(kc_keeper_wait);

/*
 * Why the armer stopped short of the budget last time; credit that
 * overflows the cap meanwhile is a sample lost for that reason.
 */
enum kc_limit {
	KC_LIMIT_PATCHING,	/* text patching took the armer's time */
	KC_LIMIT_UNRUN,		/* max_probes armed, their code not run */
	KC_LIMIT_RESERVE,	/* no registered probe left to enable */
	KC_LIMIT_STALL,		/* sampled threads held too much of the time */
	KC_LIMIT_BUDGET,	/* the detector's cost reached its budget */
	KC_NR_LIMITS,
};

static const char * const kc_limit_names[KC_NR_LIMITS] = {
	[KC_LIMIT_PATCHING] = "patching",
	[KC_LIMIT_UNRUN] = "armed_unrun",
	[KC_LIMIT_RESERVE] = "reserve_empty",
	[KC_LIMIT_STALL] = "stall_share",
	[KC_LIMIT_BUDGET] = "budget",
};

/*
 * The stall governor: at most stall_share_permille (a quarter by default)
 * of one thread's time, and of the online CPUs' time, may go to holding
 * sampled threads. Past that, each sample costs the workload more than the
 * one before: a thread let go runs into the next armed breakpoint at once,
 * and a thread held a share f of its time runs 1 / (1 - f) times slower;
 * threads that hand work to each other (a pipe) add their shares. Where a
 * sample's stall grows with the armer's backlog (QEMU TCG), a high rate on
 * a pipe can starve both of its threads outright. A thread's share is
 * capped within each period, not smoothed over several: a hot thread hits
 * the next breakpoint at once, and a whole period of arming held it most
 * of that period.
 */
#define KC_STALL_PERIOD_NS	(100 * NSEC_PER_MSEC)
static u64 kc_stall_seen_ns;
static long kc_stall_seen_us;
static unsigned int kc_stall_permille;	/* of one CPU, smoothed */
static bool kc_stall_thread_full;	/* one thread had its share */

/*
 * The arming pace, in 1024ths of sample_rate. Breakpoints armed before a
 * thread had its share still fire, and are skipped: a trap and two text
 * writes each, no sample: at high rates a large part of what fired. So
 * arming settles near what the threads may be held for. Halving the pace
 * after every period the governor stopped the armer in would throw away
 * many more samples for no slowdown the noise would show.
 */
#define KC_PACE_FULL		1024
#define KC_PACE_MIN		(KC_PACE_FULL / 64)
#define KC_PACE_STEP		(KC_PACE_FULL / 32)
static unsigned int kc_pace;

/*
 * The overhead budget: overhead_permille of the online CPUs' time may go
 * to the detector, and the rate it buys is spent, sample_rate being only
 * a cap. Its cost, counted each stall period: the time sampled threads
 * were held (less what they queued for a busy CPU), its int3 handler's
 * time, and its own threads' CPU time
 * (arming, retiring, scrubbing, registering). What it cannot see is not
 * counted: a trap's entry and exit, the watch IPIs on other CPUs.
 */
enum kc_cost_part {
	KC_COST_STALL,		/* sampled threads held */
	KC_COST_HANDLER,	/* the int3 handler */
	KC_COST_POOL_WORK,	/* the pool's work item: scrubbing visits' pages */
	KC_COST_ARMER,		/* the armer thread: arming, retiring */
	KC_COST_KEEPER,		/* the keeper thread: registering, reaping */
	KC_COST_PROFILE,	/* the ticks that find the running code */
	KC_NR_COSTS,
};

static const char * const kc_cost_names[KC_NR_COSTS] = {
	[KC_COST_STALL] = "stall",
	[KC_COST_HANDLER] = "handler",
	[KC_COST_POOL_WORK] = "pool_work",
	[KC_COST_ARMER] = "armer",
	[KC_COST_KEEPER] = "keeper",
	[KC_COST_PROFILE] = "profile",
};

static u64 kc_cost_seen_ns;
/* since sampling started, by part: where the budget went */
static u64 kc_cost_part_seen_ns[KC_NR_COSTS];
static u64 kc_cost_part_total_ns[KC_NR_COSTS];
static unsigned int kc_cost_permille;	/* of the online CPUs, last period */
/*
 * In 2^20ths of the cap: a budget may buy a millionth of a high cap. Down
 * in the ratio of budget to cost after a period over the budget that left
 * the balance in debt, up by a quarter after one within it, and doubled
 * while the balance holds savings.
 */
#define KC_BUDGET_FULL		(1U << 20)
static unsigned int kc_budget_pace;
/*
 * What the periods left unspent of the budget, or overspent: the budget
 * is spent over many periods, not in each. A period buys about one sample
 * at the default budget under TCG, and its cost is that sample's or none:
 * judged a period at a time, the pace fell after every sample and climbed
 * back slowly, and a fifth of the budget went unspent. Savings are kept
 * for KC_BUDGET_SAVE periods at most (an idle spell must not buy a burst),
 * a debt for KC_BUDGET_DEBT (a burst once paid for is forgotten).
 */
#define KC_BUDGET_SAVE		2
#define KC_BUDGET_DEBT		10
static s64 kc_budget_balance_ns;
static unsigned long kc_budget_periods_over;
/* since sampling started: what the detector cost, and what it could */
static u64 kc_cost_total_ns;
static u64 kc_budget_total_ns;
/* samples per second the budget bought, over the last period */
static unsigned int kc_rate_bought;
static unsigned long kc_bought_fired_seen;

static enum kc_limit kc_limit;
static u64 kc_lost_ns[KC_NR_LIMITS];
static unsigned long kc_expired_kept;

/*
 * Whether a site armed KC_STALE_MS without running stays registered. Its
 * replacement would cost a registration, the sampler's costliest step
 * (kprobes' checks decode the code around the site), and cold paths of hot
 * functions would otherwise cause most registrations. Where most new sites
 * are cold (all, a driver not in use), they make room for new ones at once
 * instead, and so where the ones kept would hold the arming slots.
 */
static bool kc_keep_cold(unsigned int max)
{
	return kc_pool_cold_permille() < 500 && kc_pool_armed() < max / 4;
}

/* The armer's last kc_keep_cold(), for the keeper: one pool scan a round. */
static bool kc_cold_kept;

static void kc_spent_notify(struct irq_work *work)
{
	struct task_struct *t = READ_ONCE(kc_armer);

	if (t)
		wake_up_process(t);
}

/* Hard: on PREEMPT_RT too it runs from the interrupt, not a thread. */
static struct irq_work kc_spent_work = IRQ_WORK_INIT_HARD(kc_spent_notify);

/*
 * A first hit that took its int3 out itself leaves the armer nothing to
 * do until the page's second write is due: it is woken then, once for
 * both (an armer round is a cross-CPU wake-up and a context switch, and
 * at low rates such rounds were a large part of its work). The first
 * such hit sets the time; the armer sees to the later ones in the same
 * round or sleeps until theirs.
 */
static struct hrtimer kc_settle_timer;

static enum hrtimer_restart kc_settle_due(struct hrtimer *timer)
{
	kc_spent_notify(NULL);
	return HRTIMER_NORESTART;
}

static void kc_settle_defer(struct irq_work *work)
{
	if (!hrtimer_active(&kc_settle_timer))
		hrtimer_start(&kc_settle_timer,
			      ns_to_ktime(KC_SETTLE_NS),
			      HRTIMER_MODE_REL_HARD);
}

static struct irq_work kc_settle_work = IRQ_WORK_INIT_HARD(kc_settle_defer);

/* int3: the address @insn at @ip is about to touch; 0 if not known. */
static unsigned long kc_hit_address(const struct kc_insn *insn,
				    unsigned long ip, struct pt_regs *regs)
{
	struct kc_regs r;
	u64 ea;

	kc_regs_from_pt(regs, &r);
	r.ip = ip;
	/* bt/bts with a register bit offset: the decoder adds the offset */
	if (kc_effective_address(insn, 0, &r, &ea))
		return 0;
	return ea;
}
NOKPROBE_SYMBOL(kc_hit_address);

/*
 * int3: the word @insn is about to load from @addr, when it loads 8
 * bytes; 0 otherwise. Running code that loads a function's address (an
 * ops table's method, a callback) is about to call it: the site table
 * knows whether that function is targeted (kc_sites_note_loaded()).
 */
static unsigned long kc_hit_loaded_word(const struct kc_insn *insn,
					unsigned long addr)
{
	const struct kc_mem_operand *m = &insn->mem[0];

	if (!addr || insn->nmem != 1 || m->access != KC_ACC_READ ||
	    m->size != 8 || m->seg != KC_SEG_NONE)
		return 0;
	/* the watch's own read: another sample's window may watch the word */
	return kc_watch_read_value(addr, sizeof(unsigned long));
}
NOKPROBE_SYMBOL(kc_hit_loaded_word);

/* int3, NMI-like: no locks, no printk, no sleeping, no IPIs. */
static int kc_probe_take_hit(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long addr = (unsigned long)kp->addr;
	const struct kc_insn *insn;
	unsigned long ea;
	int ret;

	if (kc_stall_resume(addr, regs->sp))
		return 0;
	this_cpu_inc(kc_counts.hits);
	if (kc_pool_pass(kp, regs)) {
		this_cpu_inc(kc_counts.passed);
		return 1;
	}
	insn = kc_pool_take(kp);
	if (!insn) {
		this_cpu_inc(kc_counts.spent_hits);
		return kc_stall_rehit(addr, regs);
	}
	this_cpu_inc(kc_counts.fired);
	ea = kc_hit_address(insn, addr, regs);
	kc_pool_loaded(kp, kc_hit_loaded_word(insn, ea));
	irq_work_queue(kc_pool_took_out(kp) ? &kc_settle_work : &kc_spent_work);
	ret = kc_stall_try(addr, insn, regs, ea);
	if (ret == KC_STALL_NEVER) {
		kc_pool_condemn(kp);
		return 0;
	}
	if (ret == KC_STALL_REDIRECTED)
		kc_pool_verdict(kp, KC_VERDICT_WATCHED);
	else if (ret == KC_STALL_DENIED)
		kc_pool_verdict(kp, KC_VERDICT_DENIED);
	else if (ret == KC_STALL_ON_STACK)
		kc_pool_verdict(kp, KC_VERDICT_STACK);
	return ret == KC_STALL_REDIRECTED;
}
NOKPROBE_SYMBOL(kc_probe_take_hit);

/* The handler's time counts against the overhead budget. */
static int kc_probe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	u64 t0 = ktime_get_mono_fast_ns();
	int ret = kc_probe_take_hit(kp, regs);

	this_cpu_add(kc_counts.handler_ns, ktime_get_mono_fast_ns() - t0);
	return ret;
}
NOKPROBE_SYMBOL(kc_probe_hit);

/* No wake-up of the armer queued or running after this, until a hit. */
static void kc_wakers_sync(void)
{
	irq_work_sync(&kc_settle_work);
	hrtimer_cancel(&kc_settle_timer);
	irq_work_sync(&kc_spent_work);
}

static unsigned long kc_sum(size_t offset)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += *(unsigned long *)((char *)per_cpu_ptr(&kc_counts, cpu) +
					offset);
	return n;
}

/*
 * Breakpoints armed at once, at most: max_probes, fewer while the budget
 * is short. Visits of cold code cost the armer's time whether or not they
 * fire, so the budget's pace scales their number as well as the rate.
 */
static unsigned int kc_max_armed(void)
{
	unsigned int max = READ_ONCE(kc_settings.max_probes);

	if (!kc_pool_visits_on())
		return max;
	return max_t(unsigned int, (u64)max * READ_ONCE(kc_budget_pace) /
				   KC_BUDGET_FULL, 1);
}

static u64 kc_sum64(size_t offset)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += *(u64 *)((char *)per_cpu_ptr(&kc_counts, cpu) + offset);
	return n;
}

unsigned long kc_sampler_fired(void)
{
	return kc_sum(offsetof(struct kc_cpu_counts, fired));
}

/*
 * Credits a second as the paces allow: the armer wakes for them, and a
 * burst is a tenth of a second's worth of them, not of the cap's (credits
 * piled up at the cap's pace lasted for seconds after the budget fell).
 */
static u64 kc_paced_rate(void)
{
	u64 rate = READ_ONCE(kc_settings.sample_rate);

	rate = div_u64(div_u64(rate * kc_pace, KC_PACE_FULL) * kc_budget_pace,
		       KC_BUDGET_FULL);
	return max_t(u64, rate, 1);
}

static void kc_earn(void)
{
	u64 now = ktime_get_ns();
	u64 rate = READ_ONCE(kc_settings.sample_rate);
	u64 earned = (now - kc_last_ns) * rate;
	u64 budget_pace = div_u64((u64)kc_budget_pace * KC_PACE_FULL,
				  KC_BUDGET_FULL);
	bool by_budget = budget_pace < kc_pace;
	unsigned int max = kc_max_armed();
	u64 paced = div_u64(div_u64(earned * kc_pace, KC_PACE_FULL) *
			    kc_budget_pace, KC_BUDGET_FULL);
	/* a short burst at most: credits do not pile up while code sleeps */
	u64 cap = max_t(u64, NSEC_PER_SEC,
			NSEC_PER_SEC * kc_paced_rate() / 10);
	unsigned int armed = kc_pool_armed();

	/*
	 * Visits expire fast and hand their credit back: credit for every
	 * free slot keeps them all going, and a slot pays only when it fires.
	 */
	if (kc_pool_visits_on() && armed < max)
		cap = max_t(u64, cap, (u64)(max - armed) * NSEC_PER_SEC);

	kc_lost_ns[by_budget ? KC_LIMIT_BUDGET : KC_LIMIT_STALL] +=
		earned - paced;
	kc_credit_ns += paced;
	if (kc_credit_ns > cap) {
		kc_lost_ns[kc_limit] += kc_credit_ns - cap;
		kc_credit_ns = cap;
	}
	kc_last_ns = now;
}

/*
 * The probes the floor counts: those in the reserve, and the armed ones
 * where an expired one comes back. Where expired ones go, counting them
 * would hold the reserve empty on large targets: fewer registrations, and
 * many samples lost for want of a probe.
 */
static unsigned int kc_floor_probes(void)
{
	return READ_ONCE(kc_cold_kept) ? kc_pool_live() : kc_pool_reserve();
}

static bool kc_refused_for_good(int ret)
{
	return ret != -ENOSPC && ret != -EBUSY && ret != -EAGAIN &&
	       ret != -ENOMEM && ret != -EEXIST;
}

/*
 * A site worth a sample, or 0: one whose every report would be
 * suppressed (a read of jiffies) is picked again.
 */
static unsigned long kc_pick(const struct kc_pick_marks *pm)
{
	unsigned long addr = 0;
	int tries;

	for (tries = 0; tries < KC_SUPPRESSED_TRIES; tries++) {
		addr = kc_sites_pick(pm);
		if (!addr || !kc_filters_site_suppressed(addr))
			return addr;
	}
	return 0;
}

/* Registration is slow: one at a time. True if one was registered. */
static bool kc_refill(unsigned int target)
{
	unsigned int reserve = kc_pool_reserve();
	struct kc_pick_marks pm;
	unsigned long addr, gen;
	int ret = -EEXIST, picks;
	bool budgeted;

	/* visits need no reserve */
	if (kc_pool_visits_on() || reserve >= target || !kc_sites_total())
		return false;
	budgeted = kc_floor_probes() >= KC_RESERVE_MIN;
	if (budgeted) {
		if (kc_register_ns < NSEC_PER_SEC)
			return false;
		kc_register_ns -= NSEC_PER_SEC;
	}
	gen = kc_pool_pick_gen();
	kc_filters_pick_marks(&pm);
	for (picks = 0; picks < KC_REFILL_PICKS; picks++) {
		addr = kc_pick(&pm);
		if (!addr)
			return false;
		ret = kc_pool_add(addr, gen, kc_sites_remote(addr));
		/* a pick that has a probe already costs no registration */
		if (ret != -EEXIST)
			break;
	}
	if (!ret) {
		/* in place of a kept site whose code did not run, if any */
		if (budgeted)
			kc_pool_age_cold(msecs_to_jiffies(KC_RESERVE_LIFE_MS));
		return true;
	}
	/* every pick had a probe already: nothing failed, nothing spent */
	if (ret == -EEXIST) {
		if (budgeted)
			kc_register_ns += NSEC_PER_SEC;
		return false;
	}
	kc_add_fail++;
	if (kc_refused_for_good(ret))
		kc_sites_refuse(addr);
	return false;
}

/* One breakpoint on a freshly picked site; false if none could be. */
static bool kc_visit_one(void)
{
	struct kc_pick_marks pm;
	unsigned long addr, gen;
	int tries, ret = -EAGAIN;
	bool cleared;

	kc_filters_pick_marks(&pm);
	for (tries = 0; tries < KC_VISIT_TRIES; tries++) {
		gen = kc_pool_pick_gen();
		addr = kc_pick(&pm);
		if (!addr)
			return false;
		cleared = kc_sites_cleared(addr);
		ret = kc_pool_visit(addr, gen, kc_sites_remote(addr), cleared);
		if (!ret) {
			if (!cleared)
				kc_sites_note_cleared(addr);
			return true;
		}
		if (ret == -ENOSPC)
			return false;
		if (ret == -EEXIST)
			continue;
		kc_add_fail++;
		if (kc_refused_for_good(ret))
			kc_sites_refuse(addr);
	}
	return false;
}

static bool kc_arm_one(void)
{
	return kc_pool_visits_on() ? kc_visit_one() : kc_pool_arm();
}

static void kc_retire_spent(void)
{
	u64 t0 = ktime_get_ns();

	kc_retired += kc_pool_retire();
	kc_retire_ns += ktime_get_ns() - t0;
}

static void kc_arm_budget(unsigned int max)
{
	u64 t0 = ktime_get_ns(), t;
	bool armed;

	while (kc_credit_ns >= NSEC_PER_SEC && !kthread_should_stop()) {
		if (kc_pool_armed() >= max) {
			kc_limit = KC_LIMIT_UNRUN;
			return;
		}
		if (ktime_get_ns() - t0 >= KC_ARM_SLICE_NS) {
			kc_limit = KC_LIMIT_PATCHING;
			return;
		}
		/*
		 * A thread's share filled by this round's breakpoints: the
		 * armer idles to the period's end, as when a round begins so.
		 */
		if (kc_stall_held_full()) {
			kc_stall_thread_full = true;
			kc_limit = KC_LIMIT_STALL;
			return;
		}
		/* a spent probe traps on every pass: out before the next in */
		if (kc_pool_spent_any())
			kc_retire_spent();
		t = ktime_get_ns();
		armed = kc_arm_one();
		kc_arm_ns += ktime_get_ns() - t;
		if (!armed) {
			kc_limit = KC_LIMIT_RESERVE;
			return;
		}
		kc_arms++;
		kc_credit_ns -= NSEC_PER_SEC;
	}
}

/* Read once a period: a write meanwhile applies from the next one. */
static unsigned int kc_stall_max_permille;

static bool kc_stall_cpus_over(void)
{
	return kc_stall_permille > kc_stall_max_permille * num_online_cpus();
}

static void kc_stall_restart_period(void)
{
	kc_stall_max_permille = READ_ONCE(kc_settings.stall_share_permille);
	kc_stall_held_restart(KC_STALL_PERIOD_NS / NSEC_PER_USEC *
			      kc_stall_max_permille / 1000);
}

static unsigned long kc_pace_fired_seen;
static long kc_pace_skips_seen;

/*
 * After a period in which hits were skipped, the pace falls by the share
 * of its fired breakpoints that were not sampled; after one without, it
 * climbs by a 32nd of the rate.
 */
static void kc_pace_adjust(void)
{
	unsigned long fired = kc_sampler_fired();
	long skips = atomic_long_read(&kc_stats.skipped[KC_SKIP_HELD]);
	unsigned long n = fired - kc_pace_fired_seen;
	unsigned long wasted = min_t(unsigned long,
				     skips - kc_pace_skips_seen, n);

	kc_pace_fired_seen = fired;
	kc_pace_skips_seen = skips;
	/* stats reads it */
	if (wasted)
		WRITE_ONCE(kc_pace, max_t(unsigned int,
					  kc_pace * (n - wasted) / n,
					  KC_PACE_MIN));
	else
		WRITE_ONCE(kc_pace, min_t(unsigned int, kc_pace + KC_PACE_STEP,
					  KC_PACE_FULL));
}

static u64 kc_task_runtime(struct task_struct *t)
{
	return t ? READ_ONCE(t->se.sum_exec_runtime) : 0;
}

/*
 * What each part has cost so far, in ns; the threads' since they started
 * (0 when called from elsewhere than the armer, before they run).
 */
static void kc_cost_parts(u64 *part, bool threads)
{
	part[KC_COST_STALL] =
		(u64)atomic_long_read(&kc_stats.stall_charged_us) *
		NSEC_PER_USEC;
	part[KC_COST_HANDLER] = kc_sum64(offsetof(struct kc_cpu_counts,
						  handler_ns));
	part[KC_COST_POOL_WORK] = kc_pool_work_ns();
	part[KC_COST_ARMER] = threads ? kc_task_runtime(current) : 0;
	part[KC_COST_KEEPER] = threads ?
			       kc_task_runtime(READ_ONCE(kc_keeper)) : 0;
	part[KC_COST_PROFILE] = kc_profile_ns();
}

static u64 kc_cost_sum(const u64 *part)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < KC_NR_COSTS; i++)
		sum += part[i];
	return sum;
}

/* The armer's: what its period cost, by part, into the totals. */
static u64 kc_cost_ns(void)
{
	u64 part[KC_NR_COSTS];
	int i;

	kc_cost_parts(part, true);
	for (i = 0; i < KC_NR_COSTS; i++) {
		WRITE_ONCE(kc_cost_part_total_ns[i], kc_cost_part_total_ns[i] +
			   part[i] - kc_cost_part_seen_ns[i]);
		kc_cost_part_seen_ns[i] = part[i];
	}
	return kc_cost_sum(part);
}

/* The pace after a period that cost @spent of its @budget. */
static unsigned int kc_budget_pace_next(unsigned int pace, u64 budget,
					u64 spent)
{
	s64 balance = clamp_t(s64, kc_budget_balance_ns + (s64)budget -
				   (s64)spent,
			      -(s64)budget * KC_BUDGET_DEBT,
			      (s64)budget * KC_BUDGET_SAVE);

	/* stats reads it */
	WRITE_ONCE(kc_budget_balance_ns, balance);
	if (spent > budget && balance < 0)
		return max_t(u64, div64_u64((u64)pace * budget, spent), 1);
	if (spent > budget)
		return pace;
	if (balance > 0)
		return min_t(unsigned int, pace * 2, KC_BUDGET_FULL);
	return min_t(unsigned int, pace + pace / 4 + 1, KC_BUDGET_FULL);
}

/* The armer's, once a period of @dt ns. */
static void kc_budget_adjust(u64 dt)
{
	u64 cost = kc_cost_ns(), spent = cost - kc_cost_seen_ns;
	u64 budget = div_u64(dt * num_online_cpus() *
			     READ_ONCE(kc_settings.overhead_permille), 1000);
	unsigned int pace = kc_budget_pace;

	kc_cost_seen_ns = cost;
	kc_profile_budget(budget);
	WRITE_ONCE(kc_cost_total_ns, kc_cost_total_ns + spent);
	WRITE_ONCE(kc_budget_total_ns, kc_budget_total_ns + budget);
	WRITE_ONCE(kc_rate_bought,
		   div64_u64((u64)(kc_sampler_fired() - kc_bought_fired_seen) *
			     NSEC_PER_SEC, max_t(u64, dt, 1)));
	kc_bought_fired_seen = kc_sampler_fired();
	/* stats reads it */
	WRITE_ONCE(kc_cost_permille,
		   div64_u64(spent * 1000, max_t(u64, dt * num_online_cpus(),
						 1)));
	if (spent > budget)
		kc_budget_periods_over++;
	WRITE_ONCE(kc_budget_pace, kc_budget_pace_next(pace, budget, spent));
}

/* The stall share of the last periods, halved each period. */
static void kc_stall_observe(u64 now)
{
	long stall = atomic_long_read(&kc_stats.stall_us);
	u64 dt = now - kc_stall_seen_ns;
	u64 share;

	if (dt < KC_STALL_PERIOD_NS) {
		kc_stall_thread_full = kc_stall_held_full();
		return;
	}
	kc_pace_adjust();
	kc_budget_adjust(dt);
	kc_stall_restart_period();
	kc_stall_thread_full = false;
	share = div64_u64((u64)max(stall - kc_stall_seen_us, 0L) *
			  NSEC_PER_USEC * 1000, dt);
	kc_stall_permille = (kc_stall_permille + min_t(u64, share, 100000)) / 2;
	kc_stall_seen_ns = now;
	kc_stall_seen_us = stall;
}

static bool kc_stall_over_budget(void)
{
	return kc_stall_thread_full || kc_stall_cpus_over();
}

static void kc_keeper_kick(void)
{
	if (READ_ONCE(kc_keeper_due))
		return;
	WRITE_ONCE(kc_keeper_due, true);
	wake_up(&kc_keeper_wait);
}

/* Hits on spent or removed breakpoints: stale int3s to be scrubbed. */
static void kc_kick_on_stale(void)
{
	unsigned long spent = kc_sum(offsetof(struct kc_cpu_counts,
					      spent_hits));

	if (spent == kc_spent_hits_seen)
		return;
	kc_spent_hits_seen = spent;
	kc_keeper_kick();
}

static u64 kc_armer_round(void)
{
	u64 start = ktime_get_ns();
	unsigned int max = kc_max_armed();
	unsigned int target = max + KC_RESERVE_EXTRA;
	bool keep_cold = kc_keep_cold(max);
	unsigned int expired;

	kc_retire_spent();
	kc_earn();
	/*
	 * Age one out when a registration can replace it, and only when the
	 * table is larger than the reserve: every registration in a module
	 * holds a reference on it for its duration (an rmmod then fails).
	 */
	expired = kc_pool_expire(msecs_to_jiffies(KC_STALE_MS),
				 msecs_to_jiffies(KC_VISIT_MS),
				 msecs_to_jiffies(KC_RESERVE_LIFE_MS),
				 kc_pool_reserve() >= target &&
				 kc_sites_total() > target &&
				 READ_ONCE(kc_register_ns) >= NSEC_PER_SEC,
				 keep_cold);
	WRITE_ONCE(kc_cold_kept, keep_cold);
	kc_expired += expired;
	if (keep_cold)
		kc_expired_kept += expired;
	/* their code did not run: the budget goes to other sites */
	kc_credit_ns += (u64)expired * NSEC_PER_SEC;
	kc_kick_on_stale();
	kc_stall_observe(ktime_get_ns());
	if (kc_stall_over_budget())
		kc_limit = KC_LIMIT_STALL;
	else if (ktime_get_ns() >= kc_arm_after_ns)
		kc_arm_budget(max);
	else
		kc_limit = KC_LIMIT_PATCHING;
	kc_watch_repair_local();
	return ktime_get_ns() - start;
}

/*
 * Woken before its next round was due: by a first hit, whose breakpoint is
 * to be retired or whose page is due its second write. Only that: the
 * rest of a round (the budget, expiry, arming) has nothing new to do before
 * the time it planned, and under TCG it costs as much as the wake-up.
 */
static u64 kc_armer_retire_round(void)
{
	u64 start = ktime_get_ns();

	kc_retire_spent();
	kc_kick_on_stale();
	kc_watch_repair_local();
	return ktime_get_ns() - start;
}

/*
 * How long until the budget holds the next credit. A whole period after
 * each round instead would lose the time the round took (arming and
 * retiring are slow where text patching waits for other CPUs), and the
 * armed rate would fall short of the rate asked for.
 */
static u64 kc_until_credit_ns(u64 rate)
{
	if (kc_credit_ns >= NSEC_PER_SEC)
		return 0;
	return div64_u64(NSEC_PER_SEC - kc_credit_ns + rate - 1, rate);
}

/*
 * How long after a whole round the next is due: at the next credit, unless
 * nothing can be armed then. A spent probe wakes us before that for a
 * round that only retires (kc_armer_retire_round()). Patching text can be
 * slow (under TCG each patch waits for every CPU): a rate the
 * machine cannot patch for must not turn a real-time thread into a CPU
 * hog, so after a round that worked longer than the wait, arming pauses
 * as long; retiring does not: a spent probe traps on every pass until it
 * is out.
 */
static u64 kc_round_wait_ns(u64 worked)
{
	u64 wait = kc_until_credit_ns(kc_paced_rate());

	if (!READ_ONCE(kc_running) || kc_stall_over_budget())
		wait = KC_ARMER_IDLE_MS * NSEC_PER_MSEC;
	else if (kc_pool_armed() >= kc_max_armed())
		/* visits are due to expire long before the idle period ends */
		wait = kc_pool_visits_on() ? KC_VISIT_MS * NSEC_PER_MSEC / 3 :
					     KC_ARMER_IDLE_MS * NSEC_PER_MSEC;
	else if (kc_limit == KC_LIMIT_RESERVE)
		/* no site could be armed: not again at once */
		wait = max_t(u64, wait, KC_RETRY_MS * NSEC_PER_MSEC);
	wait = clamp_t(u64, wait, 200 * NSEC_PER_USEC,
		       KC_ARMER_IDLE_MS * NSEC_PER_MSEC);
	if (worked > wait) {
		kc_busy_ns += worked;
		wait = worked;
		kc_arm_after_ns = ktime_get_ns() + worked;
	}
	return wait;
}

/* After a whole round (@whole), or a retiring one that keeps its time. */
static void kc_armer_sleep(u64 worked, bool whole)
{
	u64 now = ktime_get_ns(), wait;
	ktime_t t;

	if (whole)
		kc_round_due_ns = now + kc_round_wait_ns(worked);
	wait = kc_round_due_ns > now ? kc_round_due_ns - now : 0;
	/* a removal's second write, whose thread waits for it */
	wait = min_t(u64, wait, max_t(u64, kc_pool_settle_in_ns(),
				     50 * NSEC_PER_USEC));
	t = ns_to_ktime(wait);
	set_current_state(TASK_INTERRUPTIBLE);
	/*
	 * A hit while the round ran found us running: its wake-up was a
	 * no-op. After set_current_state() a later one wakes us; this sees
	 * the earlier ones (the hit's cmpxchg is ordered before its wake).
	 */
	if (!kthread_should_stop() && !kc_pool_spent_any())
		schedule_hrtimeout_range(&t, min_t(u64, wait / 4,
						   2 * NSEC_PER_MSEC),
					 HRTIMER_MODE_REL);
	__set_current_state(TASK_RUNNING);
}

static int kc_armer_fn(void *unused)
{
	u64 worked;
	bool whole;

	while (!kthread_should_stop()) {
		whole = ktime_get_ns() >= kc_round_due_ns;
		worked = whole ? kc_armer_round() : kc_armer_retire_round();
		WRITE_ONCE(kc_rounds, kc_rounds + 1);
		if (!whole)
			WRITE_ONCE(kc_retire_rounds, kc_retire_rounds + 1);
		WRITE_ONCE(kc_rounds_ns, kc_rounds_ns + worked);
		kc_armer_sleep(worked, whole);
	}
	return 0;
}

/*
 * Low sampling rates need the reserve to move less: overhead follows.
 * Each registered probe serves several samples before it ages out, so
 * the reserve still moves over the whole table. Budget earned over @ns.
 */
static u64 kc_register_earned(u64 ns)
{
	unsigned int rate = clamp(READ_ONCE(kc_settings.sample_rate),
				  (unsigned int)KC_REG_RATE_MIN,
				  (unsigned int)KC_REG_RATE_MAX);

	return div_u64(ns * rate, KC_SAMPLES_PER_REG);
}

/* Unregister what the armer disabled; refuse condemned sites for good. */
static void kc_refuse_condemned(void)
{
	unsigned long condemned[16];
	unsigned int n = 0, i;

	kc_pool_reap(condemned, ARRAY_SIZE(condemned), &n);
	for (i = 0; i < n; i++)
		kc_sites_refuse(condemned[i]);
}

/*
 * Until a kick or KC_KEEPER_IDLE_MS after the round that began at
 * @round_start; a kick in its first KC_KEEPER_MIN_MS waits out the rest.
 * One sleep a round when nothing kicks: under TCG a wake-up costs the
 * keeper about what its round does.
 */
static void kc_keeper_sleep(unsigned long round_start)
{
	unsigned long due_at = round_start + msecs_to_jiffies(KC_KEEPER_MIN_MS);

	wait_event_interruptible_timeout(kc_keeper_wait,
					 READ_ONCE(kc_keeper_due) ||
					 kthread_should_stop(),
					 msecs_to_jiffies(KC_KEEPER_IDLE_MS));
	if (time_before(jiffies, due_at) && !kthread_should_stop())
		schedule_timeout_interruptible(due_at - jiffies);
	WRITE_ONCE(kc_keeper_due, false);
}

/*
 * The keeper keeps the reserve filled and moving, and unregisters what
 * the armer disabled: the slow kprobes calls, away from the armer so that
 * a spent breakpoint never waits for a grace period to leave the text.
 */
static int kc_keeper_fn(void *unused)
{
	u64 last = ktime_get_ns(), now;
	bool added;

	while (!kthread_should_stop()) {
		unsigned int target = READ_ONCE(kc_settings.max_probes) +
				      KC_RESERVE_EXTRA;
		unsigned long started = jiffies;

		now = ktime_get_ns();
		kc_register_ns = min_t(u64, kc_register_ns +
				       kc_register_earned(now - last),
				       NSEC_PER_SEC);
		last = now;
		added = kc_refill(target);
		kc_pool_scrub_disabled();
		kc_refuse_condemned();
		kc_watch_repair_local();
		kc_percpu_learn();
		kc_stall_expire_marks();
		WRITE_ONCE(kc_keeper_rounds, kc_keeper_rounds + 1);
		WRITE_ONCE(kc_keeper_rounds_ns,
			   kc_keeper_rounds_ns + ktime_get_ns() - now);
		/*
		 * Back at once while the pool fills up to its minimum; a
		 * table smaller than that (a probe on each of its sites
		 * already) must not keep us spinning.
		 */
		if (!added || kc_floor_probes() >= KC_RESERVE_MIN)
			kc_keeper_sleep(started);
	}
	return 0;
}

/*
 * Stop sampling: nothing armed, no thread inside a stall. Afterwards the
 * table may change. Callers hold kc_state_lock.
 */
void kc_sampler_stop(void)
{
	WRITE_ONCE(kc_running, false);
	kc_profile_stop();
	kc_stall_block();
	if (kc_armer) {
		struct task_struct *t = kc_armer;

		/* no wake-up of a task that kthread_stop() let go */
		WRITE_ONCE(kc_armer, NULL);
		kc_wakers_sync();
		kthread_stop(t);
	}
	if (kc_keeper) {
		kthread_stop(kc_keeper);
		kc_keeper = NULL;
	}
	kc_wakers_sync();
	kc_pool_disarm_all();
	kc_pool_stop();
	kc_watch_repair_local();
}

/*
 * debugfs "fail_thread_start", for the tests: the Nth start of a sampler
 * thread from now on fails as kthread_run() does when memory is short, so
 * that the path that must leave nothing running is taken on purpose.
 */
static atomic_t kc_thread_fail_in;

void kc_sampler_fail_thread_start(int nth)
{
	atomic_set(&kc_thread_fail_in, nth);
}

int kc_sampler_thread_fail_in(void)
{
	return atomic_read(&kc_thread_fail_in);
}

static struct task_struct *kc_thread_start(int (*fn)(void *),
					   const char *name)
{
	if (!atomic_dec_if_positive(&kc_thread_fail_in))
		return ERR_PTR(-ENOMEM);
	return kthread_run(fn, NULL, "%s", name);
}

/* Its threads could not start: nothing is left running, -errno. */
int kc_sampler_start(void)
{
	struct task_struct *t;

	kc_last_ns = ktime_get_ns();
	kc_arm_after_ns = 0;
	kc_round_due_ns = 0;
	kc_limit = KC_LIMIT_PATCHING;
	kc_stall_seen_ns = kc_last_ns;
	kc_stall_seen_us = atomic_long_read(&kc_stats.stall_us);
	kc_stall_permille = 0;
	kc_stall_thread_full = false;
	kc_stall_restart_period();
	WRITE_ONCE(kc_pace, KC_PACE_FULL);
	/* the budget's pace falls within a period if the cost is too high */
	WRITE_ONCE(kc_budget_pace, KC_BUDGET_FULL);
	kc_budget_balance_ns = 0;
	kc_cost_parts(kc_cost_part_seen_ns, false);
	kc_cost_seen_ns = kc_cost_sum(kc_cost_part_seen_ns);
	memset(kc_cost_part_total_ns, 0, sizeof(kc_cost_part_total_ns));
	kc_cost_total_ns = 0;
	kc_budget_total_ns = 0;
	kc_bought_fired_seen = kc_sampler_fired();
	kc_pace_fired_seen = kc_sampler_fired();
	kc_pace_skips_seen = atomic_long_read(&kc_stats.skipped[KC_SKIP_HELD]);
	/* the first breakpoint at once, not a period after enabling */
	kc_credit_ns = NSEC_PER_SEC;
	kc_register_ns = 0;
	kc_pool_start();
	/* a few visits at once; the budget has not seen a period yet */
	if (kc_pool_visits_on())
		kc_credit_ns *= KC_VISIT_SEED;
	WRITE_ONCE(kc_running, true);
	kc_stall_unblock();
	kc_profile_start();
	t = kc_thread_start(kc_armer_fn, "kcollider_armer");
	if (IS_ERR(t))
		goto fail;
	/*
	 * Real-time, lowest priority: a spent breakpoint must leave the text
	 * before the code it sits in comes round again, not when the
	 * scheduler gets to a kthread among busy tasks.
	 */
	sched_set_fifo_low(t);
	WRITE_ONCE(kc_armer, t);
	t = kc_thread_start(kc_keeper_fn, "kcollider_keeper");
	if (IS_ERR(t))
		goto fail;
	kc_keeper = t;
	return 0;

fail:
	pr_err("cannot start sampling: no thread: %ld\n", PTR_ERR(t));
	kc_sampler_stop();
	return PTR_ERR(t);
}

void kc_sampler_stats(struct seq_file *m)
{
	unsigned long arms = READ_ONCE(kc_arms);
	int i;

	for (i = 0; i < KC_NR_LIMITS; i++)
		seq_printf(m, "rate_lost_%s %llu\n", kc_limit_names[i],
		     div_u64(READ_ONCE(kc_lost_ns[i]), NSEC_PER_SEC));
	for (i = 0; i < KC_NR_COSTS; i++)
		seq_printf(m, "cost_%s_ms %llu\n", kc_cost_names[i],
			   div_u64(READ_ONCE(kc_cost_part_total_ns[i]),
				   NSEC_PER_MSEC));
	seq_printf(m, "hits_passed %lu\n",
		   kc_sum(offsetof(struct kc_cpu_counts, passed)));
	seq_printf(m, "hits %lu\nfired %lu\nhits_spent %lu\narms %lu\n"
		   "register_failures %lu\narmed_expired %lu\n"
		   "armed_expired_kept %lu\n"
		   "retired %lu\narm_us_mean %llu\nretire_us_mean %llu\n"
		   "armer_throttled_ms %llu\narm_pace_permille %u\n"
		   "budget_pace_permille %u\ncost_permille %u\n"
		   "budget_periods_over %lu\ncost_ms %llu\nbudget_ms %llu\n"
		   "rate_bought %u\narmer_rounds %lu\n"
		   "armer_round_us_mean %llu\narmer_retire_rounds %lu\n"
		   "keeper_rounds %lu\n"
		   "keeper_round_us_mean %llu\nbudget_balance_us %lld\n",
		   kc_sum(offsetof(struct kc_cpu_counts, hits)),
		   kc_sampler_fired(),
		   kc_sum(offsetof(struct kc_cpu_counts, spent_hits)),
		   arms, READ_ONCE(kc_add_fail), READ_ONCE(kc_expired),
		   READ_ONCE(kc_expired_kept),
		   READ_ONCE(kc_retired),
		   arms ? div_u64(READ_ONCE(kc_arm_ns), arms * 1000) : 0,
		   kc_retired ? div_u64(READ_ONCE(kc_retire_ns),
					      kc_retired * 1000) : 0,
		   div_u64(READ_ONCE(kc_busy_ns), NSEC_PER_MSEC),
		   READ_ONCE(kc_pace) * 1000 / KC_PACE_FULL,
		   (unsigned int)div_u64((u64)READ_ONCE(kc_budget_pace) *
					       1000, KC_BUDGET_FULL),
		   READ_ONCE(kc_cost_permille),
		   READ_ONCE(kc_budget_periods_over),
		   div_u64(READ_ONCE(kc_cost_total_ns), NSEC_PER_MSEC),
		   div_u64(READ_ONCE(kc_budget_total_ns), NSEC_PER_MSEC),
		   READ_ONCE(kc_rate_bought), READ_ONCE(kc_rounds),
		   kc_rounds ? div_u64(READ_ONCE(kc_rounds_ns),
				       kc_rounds * 1000) : 0,
		   READ_ONCE(kc_retire_rounds),
		   READ_ONCE(kc_keeper_rounds),
		   kc_keeper_rounds ? div_u64(READ_ONCE(kc_keeper_rounds_ns),
					      kc_keeper_rounds * 1000) : 0,
		   div_s64(READ_ONCE(kc_budget_balance_ns), NSEC_PER_USEC));
}

int kc_sampler_init(void)
{
	hrtimer_init(&kc_settle_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	kc_settle_timer.function = kc_settle_due;
	kc_profile_init();
	kc_pool_init(kc_probe_hit);
	return 0;
}

/* Unload: no breakpoint of ours stays in the text. */
void kc_sampler_exit(void)
{
	kc_sampler_stop();
	kc_pool_drain();
	/* a hit racing with the stop may have queued one more wake-up */
	kc_wakers_sync();
	kc_pool_exit();
}
