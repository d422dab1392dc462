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
#include <linux/sched.h>
#include <linux/sched/clock.h>
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
 * The frames of a tick not taken before, at most @max_age jiffies old;
 * the number copied into @frames (KC_PROFILE_DEPTH of them), 0 when every
 * tick was taken. The CPUs take turns, so that each busy one is heard
 * when a caller takes only a few. One caller at a time: the sites' lock
 * serializes them.
 */
unsigned int kc_profile_take(unsigned long *frames, unsigned long max_age)
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
		   "profile_period_max_us %u\n",
		   kc_profile_sum(offsetof(struct kc_profile_cpu, ticks)),
		   kc_profile_sum(offsetof(struct kc_profile_cpu, noted)),
		   div_u64(kc_profile_ns(), NSEC_PER_MSEC), !!kc_save_regs,
		   READ_ONCE(kc_profile_period_us), KC_PROFILE_TICK_US,
		   KC_PROFILE_SLOW_US);
}

void kc_profile_init(void)
{
	int cpu;

	/* not exported; without it, the interrupted instruction alone */
	kc_save_regs = (void *)kc_lookup_function("stack_trace_save_regs");
	for_each_possible_cpu(cpu) {
		struct hrtimer *t = &per_cpu_ptr(&kc_profile, cpu)->timer;

		hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->function = kc_profile_tick;
	}
}
