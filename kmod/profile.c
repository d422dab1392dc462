// SPDX-License-Identifier: GPL-2.0
/*
 * Where the CPUs run: a timer on each CPU notes the kernel code it
 * interrupted, the instruction and a few callers, so that the sampler can
 * arm sites in functions that are running now.
 *
 * Uniform picks over static sites spend most breakpoints on code that does
 * not run while they are armed (error paths, other drivers, the rest of
 * vmlinux under "all"): each such visit costs its text writes and finds
 * nothing. A breakpoint in a running function fires at once, so the same
 * budget buys samples instead of expiries. The callers matter as much as
 * the instruction: a tick often lands in a helper (a delay, a copy, a
 * lock) called by the targeted function.
 *
 * Code that runs in bursts and blocks between them (a thread pacing
 * itself with a timer, a driver waiting for its device, a path that takes
 * a sleeping lock) is seldom what a tick interrupts, however often it
 * runs: the tick finds its CPU idle or running another task. A blocked
 * task's stack says where it ran last, so the tasks that ran lately and
 * block now are heard too (see KC_SLEEPERS_PERIOD_MS).
 *
 * The timer's callback is hard interrupt context on every kernel,
 * PREEMPT_RT included: it writes its own CPU's ring and nothing else. A
 * reader on another CPU may read an entry while it is rewritten and get
 * the frames of two ticks: each is still code that ran, which is all a
 * pick needs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <asm/irq_regs.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>

#include "kcollider.h"

/*
 * A tick every 10 ms finds a newly running function within a few ticks.
 * Its cost, the unwinding above all, is slow under QEMU's TCG: on busy
 * CPUs ticks that often take a good share of the default overhead budget,
 * which the samples need, so their period stretches until they take at
 * most an eighth of it (KC_PROFILE_SHARE). Up to four times longer only:
 * the ring must still hold the ticks the sampler has not taken, and a
 * function ticked once must be seen again before the sites' notion of
 * running lately ends. An idle CPU, which has nothing to say, is woken
 * less often.
 */
#define KC_PROFILE_TICK_US	10000
#define KC_PROFILE_SLOW_US	(4 * KC_PROFILE_TICK_US)
#define KC_PROFILE_IDLE_US	50000
#define KC_PROFILE_SHARE	8
#define KC_PROFILE_RING		32

struct kc_profile_entry {
	unsigned long frames[KC_PROFILE_DEPTH];
	unsigned long stamp;		/* jiffies of the tick */
};

struct kc_profile_cpu {
	struct hrtimer timer;
	struct kc_profile_entry ring[KC_PROFILE_RING];
	unsigned int next;
	unsigned long ticks;
	unsigned long noted;		/* ticks that interrupted the kernel */
	u64 noted_ns;			/* local_clock() of the last noted */
	u64 ns;				/* the callbacks' time */
	unsigned long tick_at;		/* jiffies of the last tick */
	unsigned long busy_at;		/* of the last that found it busy */
};

static DEFINE_PER_CPU(struct kc_profile_cpu, kc_profile);

/*
 * Every KC_SLEEPERS_PERIOD_MS, when the sampler takes the ticks, a walk
 * over the tasks unwinds up to KC_SLEEPERS_MAX of those that ran since the
 * last walk and block now, uniform among them: their frames below the
 * scheduler's are code that ran. The walk runs in the sampler's context,
 * whose time the overhead budget counts; its size bounds its cost.
 */
#define KC_SLEEPERS_PERIOD_MS	250
#define KC_SLEEPERS_MAX		8
/*
 * The function that blocked and its caller (a sleep or wait helper outside
 * the scheduler's text, msleep() say, calls the scheduler for it); the
 * frames further out are a thread's loop or a system call's way in, which
 * ran once, long ago.
 */
#define KC_SLEEPER_DEPTH	2

static struct kc_profile_entry kc_sleepers[KC_SLEEPERS_MAX];
static unsigned int kc_nr_sleepers;
static unsigned int kc_sleepers_taken;
static unsigned long kc_sleepers_walked;	/* jiffies of the last walk */
static u64 kc_sleepers_since;		/* local_clock() of the last walk */
static unsigned int kc_sleepers_found;	/* the last walk's candidates */
static unsigned long kc_sleepers_walks;
static unsigned long kc_sleepers_noted;
static unsigned int (*kc_save_tsk)(struct task_struct *t, unsigned long *store,
				   unsigned int size, unsigned int skipnr);
/* the reader's: how far into each CPU's ring it has taken, whose turn */
static DEFINE_PER_CPU(unsigned int, kc_profile_taken);
static unsigned int kc_profile_turn;
static bool kc_profile_on;
/* the busy CPUs' period; the armer's to change, the ticks' to read */
static unsigned int kc_profile_period_us = KC_PROFILE_TICK_US;
static u64 kc_profile_seen_ns;	/* kc_profile_ns() at the last budget */
static unsigned int (*kc_save_regs)(struct pt_regs *regs, unsigned long *store,
				    unsigned int size, unsigned int skipnr);

static void kc_profile_note(struct kc_profile_cpu *pc, struct pt_regs *regs)
{
	struct kc_profile_entry *e = &pc->ring[pc->next % KC_PROFILE_RING];
	unsigned int n = 1;

	if (kc_save_regs)
		n = kc_save_regs(regs, e->frames, KC_PROFILE_DEPTH, 0);
	else
		e->frames[0] = instruction_pointer(regs);
	while (n < KC_PROFILE_DEPTH)
		e->frames[n++] = 0;
	WRITE_ONCE(e->stamp, jiffies);
	WRITE_ONCE(pc->next, pc->next + 1);
	pc->noted++;
}

static enum hrtimer_restart kc_profile_tick(struct hrtimer *timer)
{
	struct kc_profile_cpu *pc = this_cpu_ptr(&kc_profile);
	struct pt_regs *regs = get_irq_regs();
	u64 t0 = local_clock();
	bool idle = is_idle_task(current);
	u64 period = (u64)max_t(unsigned int, READ_ONCE(kc_profile_period_us),
				idle ? KC_PROFILE_IDLE_US : 0) * NSEC_PER_USEC;

	if (!READ_ONCE(kc_profile_on))
		return HRTIMER_NORESTART;
	pc->ticks++;
	WRITE_ONCE(pc->tick_at, jiffies);
	if (!idle)
		WRITE_ONCE(pc->busy_at, jiffies);
	/* a timer that ran late runs again at once for each period missed */
	if (regs && !user_mode(regs) && !idle &&
	    t0 - pc->noted_ns >= period / 2) {
		kc_profile_note(pc, regs);
		pc->noted_ns = t0;
	}
	/*
	 * From the expiry, not from now: reading now reads the clocksource,
	 * which under QEMU's TCG is an emulated HPET, and that read was most
	 * of what a tick cost.
	 */
	hrtimer_forward(timer, hrtimer_get_expires(timer), ns_to_ktime(period));
	pc->ns += local_clock() - t0;
	return HRTIMER_RESTART;
}

static void kc_profile_start_local(void *unused)
{
	struct kc_profile_cpu *pc = this_cpu_ptr(&kc_profile);

	hrtimer_start(&pc->timer, ns_to_ktime(KC_PROFILE_TICK_US * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * int3: whether @cpu's timer found it idle at every tick lately, ticking
 * meanwhile (a CPU whose timer did not run is not known to be idle). Its
 * interrupts may still write its per-CPU data, its tasks do not.
 */
bool kc_profile_cpu_idle(unsigned int cpu)
{
	unsigned long window = msecs_to_jiffies(3 * KC_PROFILE_IDLE_US /
						USEC_PER_MSEC);
	struct kc_profile_cpu *pc;
	unsigned long now = jiffies;

	if (cpu >= nr_cpu_ids || !READ_ONCE(kc_profile_on))
		return false;
	pc = per_cpu_ptr(&kc_profile, cpu);
	return time_before(now, READ_ONCE(pc->tick_at) + window) &&
	       time_after(now, READ_ONCE(pc->busy_at) + window);
}
NOKPROBE_SYMBOL(kc_profile_cpu_idle);

/* With sampling: the online CPUs' timers. */
void kc_profile_start(void)
{
	WRITE_ONCE(kc_profile_period_us, KC_PROFILE_TICK_US);
	kc_profile_seen_ns = kc_profile_ns();
	kc_nr_sleepers = 0;
	kc_sleepers_found = 0;
	kc_sleepers_since = local_clock();
	kc_sleepers_walked = jiffies;
	WRITE_ONCE(kc_profile_on, true);
	on_each_cpu(kc_profile_start_local, NULL, 1);
}

/* Every timer stopped, none running. */
void kc_profile_stop(void)
{
	int cpu;

	WRITE_ONCE(kc_profile_on, false);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&kc_profile, cpu)->timer);
}

/*
 * @cpu's oldest tick not taken yet, at most @max_age jiffies old, or NULL.
 * Ticks the ring lost before they were taken stay lost; the slot being
 * written next is left alone.
 */
static struct kc_profile_entry *kc_profile_untaken(unsigned int cpu,
						  unsigned long max_age)
{
	struct kc_profile_cpu *pc = per_cpu_ptr(&kc_profile, cpu);
	unsigned int next = READ_ONCE(pc->next);
	unsigned int *taken = per_cpu_ptr(&kc_profile_taken, cpu);
	struct kc_profile_entry *e;

	if (next - *taken >= KC_PROFILE_RING)
		*taken = next - KC_PROFILE_RING + 1;
	while (*taken != next) {
		e = &pc->ring[(*taken)++ % KC_PROFILE_RING];
		if (!time_after(jiffies, READ_ONCE(e->stamp) + max_age))
			return e;
	}
	return NULL;
}

/*
 * When @t last ran, in local_clock()'s time: when it last arrived on a
 * CPU, or without the scheduler's info (tinyconfig-based kernels), its
 * last runtime update, in the task clock, which falls behind this one by
 * interrupt and steal time only where those are accounted apart.
 */
static u64 kc_task_ran_at(struct task_struct *t)
{
#ifdef CONFIG_SCHED_INFO
	return READ_ONCE(t->sched_info.last_arrival);
#else
	return READ_ONCE(t->se.exec_start);
#endif
}

/* Whether @t ran since @since and blocks now: where it sleeps from ran. */
static bool kc_sleeper_candidate(struct task_struct *t, u64 since)
{
	if (t == current || (READ_ONCE(t->flags) & (PF_IDLE | PF_EXITING)) ||
	    task_is_running(t))
		return false;
	return (s64)(kc_task_ran_at(t) - since) > 0;
}

/*
 * @t's innermost frames outside the scheduler and the locks (the unwinder
 * leaves those out) into @e; whether it has any. A task that wakes meanwhile
 * gives the unwinder a stack in motion: the walk is bounded and checked,
 * and at worst gives frames that do not run.
 */
static bool kc_sleeper_note(struct kc_profile_entry *e, struct task_struct *t)
{
	unsigned long frames[KC_SLEEPER_DEPTH];
	unsigned int n, i;

	n = kc_save_tsk(t, frames, ARRAY_SIZE(frames), 0);
	if (!n)
		return false;
	for (i = 0; i < KC_PROFILE_DEPTH; i++)
		e->frames[i] = i < n ? frames[i] : 0;
	e->stamp = jiffies;
	return true;
}

static void kc_sleepers_walk(void)
{
	struct task_struct *p, *t;
	unsigned int found = 0, n = 0;
	u64 since = kc_sleepers_since;

	kc_sleepers_since = local_clock();
	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (!kc_sleeper_candidate(t, since))
			continue;
		found++;
		/* the last walk's count makes the draw uniform, near enough */
		if (n == KC_SLEEPERS_MAX ||
		    (kc_sleepers_found > KC_SLEEPERS_MAX &&
		     get_random_u32() % kc_sleepers_found >= KC_SLEEPERS_MAX))
			continue;
		n += kc_sleeper_note(&kc_sleepers[n], t);
	}
	rcu_read_unlock();
	kc_sleepers_found = found;
	kc_nr_sleepers = n;
	kc_sleepers_taken = 0;
	WRITE_ONCE(kc_sleepers_walks, kc_sleepers_walks + 1);
	WRITE_ONCE(kc_sleepers_noted, kc_sleepers_noted + n);
}

/* A sleeper's frames not taken before, walking first when one is due. */
static struct kc_profile_entry *kc_sleeper_untaken(unsigned long max_age)
{
	struct kc_profile_entry *e;

	if (!kc_save_tsk)
		return NULL;
	if (time_after_eq(jiffies, kc_sleepers_walked +
				   msecs_to_jiffies(KC_SLEEPERS_PERIOD_MS))) {
		kc_sleepers_walked = jiffies;
		kc_sleepers_walk();
	}
	while (kc_sleepers_taken < kc_nr_sleepers) {
		e = &kc_sleepers[kc_sleepers_taken++];
		if (!time_after(jiffies, e->stamp + max_age))
			return e;
	}
	return NULL;
}

/*
 * The frames of a tick not taken before, at most @max_age jiffies old;
 * the number copied into @frames (KC_PROFILE_DEPTH of them), 0 when every
 * tick was taken; @slept says whether they are a blocked task's. The CPUs take turns, so that each busy one is heard
 * when a caller takes only a few; the sleepers come after them. One
 * caller at a time: the sites' lock serializes them.
 */
unsigned int kc_profile_take(unsigned long *frames, unsigned long max_age,
			     bool *slept)
{
	struct kc_profile_entry *e = NULL;
	unsigned int cpu, k, i, n = 0;

	if (!READ_ONCE(kc_profile_on))
		return 0;
	for (k = 0; k < nr_cpu_ids && !e; k++) {
		cpu = kc_profile_turn;
		kc_profile_turn = (cpu + 1) % nr_cpu_ids;
		if (cpu_online(cpu))
			e = kc_profile_untaken(cpu, max_age);
	}
	*slept = !e;
	if (!e)
		e = kc_sleeper_untaken(max_age);
	if (!e)
		return 0;
	for (i = 0; i < KC_PROFILE_DEPTH; i++) {
		frames[i] = READ_ONCE(e->frames[i]);
		if (frames[i])
			n = i + 1;
	}
	return n;
}

static u64 kc_profile_sum(size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((void *)per_cpu_ptr(&kc_profile, cpu) + offset);
	return sum;
}

/* The timers' time, in ns: it counts against the overhead budget. */
u64 kc_profile_ns(void)
{
	return kc_profile_sum(offsetof(struct kc_profile_cpu, ns));
}

/*
 * The armer's, once a period, with the overhead budget of that period in
 * ns: the ticks' period doubles while they took more than their share of
 * it, and halves back when twice their cost would take half their share
 * at most (the margin keeps it from flapping between two periods).
 */
void kc_profile_budget(u64 budget_ns)
{
	u64 ns = kc_profile_ns(), spent = ns - kc_profile_seen_ns;
	unsigned int us = kc_profile_period_us;

	kc_profile_seen_ns = ns;
	if (spent * KC_PROFILE_SHARE > budget_ns)
		us = min_t(unsigned int, us * 2, KC_PROFILE_SLOW_US);
	else if (2 * spent * KC_PROFILE_SHARE < budget_ns / 2)
		us = max_t(unsigned int, us / 2, KC_PROFILE_TICK_US);
	WRITE_ONCE(kc_profile_period_us, us);
}

void kc_profile_stats(struct seq_file *m)
{
	seq_printf(m, "profile_ticks %llu\nprofile_noted %llu\n"
		   "profile_ms %llu\nprofile_callers %u\n"
		   "profile_period_us %u\nprofile_period_min_us %u\n"
		   "profile_period_max_us %u\n"
		   "profile_sleeper_walks %lu\nprofile_sleepers %lu\n",
		   kc_profile_sum(offsetof(struct kc_profile_cpu, ticks)),
		   kc_profile_sum(offsetof(struct kc_profile_cpu, noted)),
		   div_u64(kc_profile_ns(), NSEC_PER_MSEC), !!kc_save_regs,
		   READ_ONCE(kc_profile_period_us), KC_PROFILE_TICK_US,
		   KC_PROFILE_SLOW_US, READ_ONCE(kc_sleepers_walks),
		   READ_ONCE(kc_sleepers_noted));
}

void kc_profile_init(void)
{
	int cpu;

	/* not exported; without it, the interrupted instruction alone */
	kc_save_regs = (void *)kc_lookup_function("stack_trace_save_regs");
	kc_save_tsk = (void *)kc_lookup_function("stack_trace_save_tsk");
	for_each_possible_cpu(cpu) {
		struct hrtimer *t = &per_cpu_ptr(&kc_profile, cpu)->timer;

		hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->function = kc_profile_tick;
	}
}
