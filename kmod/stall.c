// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled thread: the kprobe pre-handler decides whether a hit becomes
 * a sample and, if so, sends the thread through the trampoline so that the
 * watch window is held open in the thread's own context (IRQ state,
 * preempt count, RCU state), never inside the NMI-like int3 handler.
 *
 * When the stall ends, the trampoline IRETs back to the probed instruction,
 * which hits the int3 again; a mark keyed by (address, stack pointer, task)
 * tells the pre-handler to let it execute. Per-CPU marks would be wrong: an
 * IRQ can run the same probe between the IRET and the re-executed int3.
 * A thread that comes straight back to the spent breakpoint goes through
 * the trampoline once more, to wait for it to leave (kc_stall_rehit()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/prandom.h>
#include <linux/preempt.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched/task_stack.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <asm/processor.h>

#include "kcollider.h"

#define KC_NR_MARKS	64
#define KC_NR_WAITERS	4
#define KC_RETIRE_POLL_US	100
#define KC_RETIRE_WAIT_US	20000
#define KC_REHIT_NS	NSEC_PER_MSEC
#define KC_MAX_LOOP_WAITS	4

enum { KC_MARK_FREE, KC_MARK_CLAIMED, KC_MARK_READY };

struct kc_mark {
	atomic_t state;
	unsigned long addr;
	unsigned long sp;
	struct task_struct *task;
	unsigned long stamp;
	unsigned int loop_waits;	/* its thread waited this often */
};

/*
 * A sampled thread that came straight back to its spent breakpoint (a
 * loop): it is sent through the trampoline once more, to wait there until
 * the armer has taken the breakpoint out of the text.
 */
struct kc_waiter {
	atomic_t busy;
	struct task_struct *task;
	unsigned long sp;
	unsigned long ip;
	struct kc_mark *mark;
};

/* The last sampled thread this CPU let through its spent breakpoint. */
struct kc_passed {
	unsigned long addr;
	struct task_struct *task;
	u64 ns;
	unsigned int late_rehits;
	unsigned int loop_waits;
};

/* What the pre-handler learnt, for the stall that follows. */
struct kc_sample {
	atomic_t busy;
	struct task_struct *task;
	unsigned long sp;
	unsigned long ip;		/* the sampled instruction */
	struct kc_insn insn;		/* a copy: the probe may be reused */
	struct kc_slot *slot;
	struct kc_mark *mark;
	unsigned long addr;
	unsigned int size;
	unsigned long watch_addr;	/* the aligned range that covers it */
	unsigned int watch_len;
	unsigned long preempt;
	bool irqs_on;
	int cpu;
	unsigned long obj_start;	/* slab object watched, or 0 */
	unsigned int obj_size;
	atomic_t freed;
	struct kc_report report;
};

static struct kc_mark kc_marks[KC_NR_MARKS];
/* Every int3 of ours checks the marks: skip the scan when none is ready. */
static atomic_t kc_marks_ready = ATOMIC_INIT(0);
static struct kc_sample kc_samples[KC_MAX_SLOTS];
static struct kc_waiter kc_waiters[KC_NR_WAITERS];
static DEFINE_PER_CPU(struct kc_passed, kc_passed);
static DEFINE_PER_CPU(int, kc_cpu_busy);
/* Window lengths are random; get_random_u32() may take a lock here. */
static DEFINE_PER_CPU(struct rnd_state, kc_rnd);

static atomic_t kc_blocked = ATOMIC_INIT(1);
static atomic_t kc_windows_open = ATOMIC_INIT(0);
static atomic_t kc_stalls_in_flight = ATOMIC_INIT(0);

static bool kc_text_restored(unsigned long ip)
{
	u8 b;

	return !copy_from_kernel_nofault(&b, (void *)ip, 1) && b != 0xcc;
}

static struct kc_mark *kc_mark_claim(unsigned long addr, unsigned long sp,
				     unsigned int loop_waits)
{
	int i;

	for (i = 0; i < KC_NR_MARKS; i++) {
		struct kc_mark *m = &kc_marks[i];

		if (atomic_cmpxchg(&m->state, KC_MARK_FREE, KC_MARK_CLAIMED))
			continue;
		m->addr = addr;
		m->sp = sp;
		m->task = current;
		m->loop_waits = loop_waits;
		return m;
	}
	return NULL;
}
NOKPROBE_SYMBOL(kc_mark_claim);

static void kc_note_passed(unsigned long addr, unsigned int loop_waits)
{
	struct kc_passed *p = this_cpu_ptr(&kc_passed);

	p->addr = addr;
	p->task = current;
	p->ns = ktime_get_mono_fast_ns();
	p->late_rehits = 0;
	p->loop_waits = loop_waits;
}

/* A claimed mark, once its thread is about to go back to @ip. */
static void kc_mark_settle(struct kc_mark *m, unsigned long ip)
{
	if (kc_text_restored(ip)) {
		/*
		 * No int3 to come back to (its first hit took it out): the
		 * mark is not needed, but a stale translation of it under
		 * TCG is the thread's own loop, as after a resume.
		 */
		preempt_disable();
		kc_note_passed(ip, m->loop_waits);
		preempt_enable();
		atomic_set_release(&m->state, KC_MARK_FREE);
		return;
	}
	m->stamp = jiffies;
	atomic_inc(&kc_marks_ready);
	atomic_set_release(&m->state, KC_MARK_READY);
}

/* The stalled thread's own int3 on the way back: let it execute. */
bool kc_stall_resume(unsigned long addr, unsigned long sp)
{
	unsigned int loop_waits;
	int i;

	if (!atomic_read(&kc_marks_ready))
		return false;
	for (i = 0; i < KC_NR_MARKS; i++) {
		struct kc_mark *m = &kc_marks[i];

		if (atomic_read_acquire(&m->state) != KC_MARK_READY)
			continue;
		if (m->addr != addr || m->sp != sp || m->task != current)
			continue;
		loop_waits = m->loop_waits;
		if (atomic_cmpxchg(&m->state, KC_MARK_READY, KC_MARK_FREE) ==
		    KC_MARK_READY) {
			atomic_dec(&kc_marks_ready);
			kc_note_passed(addr, loop_waits);
			return true;
		}
	}
	return false;
}
NOKPROBE_SYMBOL(kc_stall_resume);

/* Marks whose probe was disarmed before the thread came back. */
void kc_stall_expire_marks(void)
{
	int i;

	for (i = 0; i < KC_NR_MARKS; i++) {
		struct kc_mark *m = &kc_marks[i];

		if (atomic_read_acquire(&m->state) == KC_MARK_READY &&
		    time_after(jiffies, m->stamp + HZ) &&
		    atomic_cmpxchg(&m->state, KC_MARK_READY, KC_MARK_FREE) ==
		    KC_MARK_READY)
			atomic_dec(&kc_marks_ready);
	}
}

/* kfree()/kmem_cache_free() of a watched object, NMI-like context. */
void kc_stall_note_free(unsigned long ptr)
{
	int i;

	for (i = 0; i < KC_MAX_SLOTS; i++) {
		struct kc_sample *s = &kc_samples[i];
		unsigned long start = READ_ONCE(s->obj_start);

		if (start && ptr >= start && ptr < start + s->obj_size &&
		    atomic_read(&s->busy))
			atomic_set(&s->freed, 1);
	}
}

/* Two windows on one address would catch each other's value reads. */
static bool kc_addr_sampled(unsigned long addr, unsigned int size)
{
	int i;

	for (i = 0; i < KC_MAX_SLOTS; i++) {
		struct kc_sample *s = &kc_samples[i];

		if (atomic_read(&s->busy) && READ_ONCE(s->task) &&
		    addr < s->watch_addr + s->watch_len &&
		    s->watch_addr < addr + size)
			return true;
	}
	return false;
}

static struct kc_sample *kc_sample_claim(void)
{
	int i;

	for (i = 0; i < KC_MAX_SLOTS; i++)
		if (!atomic_cmpxchg(&kc_samples[i].busy, 0, 1))
			return &kc_samples[i];
	return NULL;
}

static struct kc_sample *kc_sample_find(struct task_struct *task,
					unsigned long sp)
{
	int i;

	for (i = 0; i < KC_MAX_SLOTS; i++)
		if (atomic_read(&kc_samples[i].busy) &&
		    kc_samples[i].task == task && kc_samples[i].sp == sp)
			return &kc_samples[i];
	return NULL;
}

static bool kc_addr_on_stack(unsigned long addr, unsigned long sp)
{
	unsigned long stack = (unsigned long)task_stack_page(current);

	if (addr >= stack && addr < stack + THREAD_SIZE)
		return true;
	/* IRQ and exception stacks: whatever stack we were running on */
	return addr + IRQ_STACK_SIZE > sp && addr < sp + IRQ_STACK_SIZE;
}

/*
 * The aligned 1/2/4/8-byte range a debug register can watch that covers
 * the access: the access itself when aligned, a wider one around an
 * unaligned field. Wider ones (SSE) are watched on their first 8.
 *
 * An access crossing an 8-byte boundary would need two registers, which
 * a window does not hold: its larger part is watched. Whoever accesses
 * the same field touches both parts and is caught; an access to the
 * other part alone is missed (the report's cover= line says what was
 * watched); the value is still compared over the whole access.
 */
static bool kc_watch_cover(unsigned long addr, unsigned int size,
			   unsigned long *base, unsigned int *len)
{
	unsigned long boundary = ALIGN(addr + 1, 8);
	unsigned int l;

	size = min(size, 8U);
	if (addr + size > boundary) {
		if (boundary - addr >= addr + size - boundary) {
			size = boundary - addr;
		} else {
			size = addr + size - boundary;
			addr = boundary;
		}
	}
	for (l = roundup_pow_of_two(max(size, 1U)); l <= 8; l *= 2) {
		*base = addr & ~(unsigned long)(l - 1);
		*len = l;
		if (*base + l >= addr + size)
			return true;
	}
	return false;
}
NOKPROBE_SYMBOL(kc_watch_cover);

/*
 * -1 if the access can be watched, else why not (a kc_skip); @on_stack
 * set where that is the stack.
 */
static int kc_addr_refused(unsigned long addr, unsigned int size,
			   unsigned long sp, bool *on_stack)
{
	unsigned long base;
	unsigned int len;
	int why;

	if (!kc_watch_cover(addr, size, &base, &len))
		return KC_SKIP_FORBIDDEN;
	why = kc_addr_refusal(base, len);
	if (why >= 0)
		return why;
	*on_stack = kc_addr_on_stack(base, sp);
	return *on_stack ? KC_SKIP_FORBIDDEN : -1;
}

static void kc_redirect(unsigned long ip, struct pt_regs *regs)
{
	unsigned long *frame = (unsigned long *)(regs->sp - 5 * sizeof(long));

	frame[0] = ip;
	frame[1] = regs->cs;
	frame[2] = regs->flags & ~X86_EFLAGS_TF;
	frame[3] = regs->sp;
	frame[4] = regs->ss;
	regs->sp -= 5 * sizeof(long);
	regs->ip = (unsigned long)kc_trampoline;
	regs->flags &= ~(X86_EFLAGS_TF | X86_EFLAGS_AC | X86_EFLAGS_DF);
}
NOKPROBE_SYMBOL(kc_redirect);

/*
 * Who was held, for the sampler's stall governor. A workload slows down by
 * the share of its own threads' time they are held, not by the CPUs': a
 * share of all CPUs' time can be most of a pipe's two threads' time, and
 * on a large machine it is all of a single hot thread's. Open addressing,
 * lock-free: a stall may end in an interrupt, and the int3 handler reads
 * it. A thread with no room left is governed by the CPUs' share only.
 */
#define KC_HELD_BITS	6
#define KC_HELD_PROBES	4

struct kc_held {
	atomic_t key;		/* pid + 1; outside a task, -1 - cpu; 0: free */
	atomic_long_t us;	/* since the sampler's last restart */
};

static struct kc_held kc_held[1 << KC_HELD_BITS];
static unsigned long kc_held_max_us = ULONG_MAX;

/*
 * @preempt: the preempt count of the context that was (or is) held; the
 * reports' own classification (softirqs served in a thread on RT too).
 */
static int kc_held_key(unsigned long preempt)
{
	if (kc_ctx_of(preempt) != KC_CTX_TASK)
		return -1 - (int)raw_smp_processor_id();
	return task_pid_nr(current) + 1;
}

/*
 * @key's slot; with @claim, a free one if it has none. Looked for past
 * free slots: a restart frees an idle slot before a busy one.
 */
static struct kc_held *kc_held_slot(int key, bool claim)
{
	u32 h = hash_32(key, KC_HELD_BITS);
	int i, pass, old;

	for (pass = 0; pass <= claim; pass++) {
		for (i = 0; i < KC_HELD_PROBES; i++) {
			struct kc_held *e = &kc_held[(h + i) &
						     (ARRAY_SIZE(kc_held) - 1)];

			old = atomic_read(&e->key);
			if (pass && !old)
				old = atomic_cmpxchg(&e->key, 0, key) ?: key;
			if (old == key)
				return e;
		}
	}
	return NULL;
}

static void kc_held_add(long us)
{
	struct kc_held *e = kc_held_slot(kc_held_key(preempt_count()), true);

	if (e)
		atomic_long_add(us, &e->us);
}

/*
 * int3: whether the interrupted thread already had its share. The armer
 * stops arming once one thread has, but breakpoints armed before still
 * fire, and at high rates they would hold busy threads well past their
 * share.
 */
static bool kc_held_over(unsigned long preempt)
{
	struct kc_held *e = kc_held_slot(kc_held_key(preempt), false);

	return e && atomic_long_read(&e->us) > READ_ONCE(kc_held_max_us);
}

/* For the sampler's governor: whether one thread had its share. */
bool kc_stall_held_full(void)
{
	unsigned long max = READ_ONCE(kc_held_max_us);
	int i;

	for (i = 0; i < ARRAY_SIZE(kc_held); i++)
		if (atomic_long_read(&kc_held[i].us) > max)
			return true;
	return false;
}

/*
 * The sampler's next period: each thread may be held @max_us in it. A
 * slot nobody was held in since the restart before is given back (a
 * thread adding to it meanwhile lends its time to the slot's next owner:
 * an estimate, not an account).
 */
void kc_stall_held_restart(unsigned long max_us)
{
	int i;

	WRITE_ONCE(kc_held_max_us, max_us);
	for (i = 0; i < ARRAY_SIZE(kc_held); i++)
		if (!atomic_long_xchg(&kc_held[i].us, 0))
			atomic_set(&kc_held[i].key, 0);
}

/* int3 runs as an NMI: the preempt count of what it interrupted. */
static unsigned long kc_interrupted_preempt(void)
{
	return preempt_count() - (NMI_OFFSET + HARDIRQ_OFFSET);
}

/* Returns the reason not to sample this hit, or -1 to sample it. */
static int kc_should_skip(unsigned long preempt)
{
	if (!READ_ONCE(kc_settings.enabled))
		return KC_SKIP_DISABLED;
	if (preempt & NMI_MASK)
		return KC_SKIP_NMI;
	if (this_cpu_read(kc_cpu_busy) || kc_task_is_sampled(current))
		return KC_SKIP_RECURSION;
	if (kc_held_over(preempt))
		return KC_SKIP_HELD;
	return -1;
}

static bool kc_claim_window(void)
{
	atomic_inc(&kc_windows_open);
	/* pairs with kc_quiesce_windows(): one of us sees the other */
	smp_mb__after_atomic();
	if (!atomic_read(&kc_blocked))
		return true;
	atomic_dec(&kc_windows_open);
	return false;
}

/*
 * int3, NMI-like: no locks, no printk, no sleeping, no IPIs. @addr is
 * what the access at @ip is about to touch, 0 where the decoder could not
 * work it out. KC_STALL_REDIRECTED when the thread was sent through the
 * trampoline into a stall.
 */
int kc_stall_try(unsigned long ip, const struct kc_insn *insn,
		 struct pt_regs *regs, unsigned long addr)
{
	unsigned long preempt = kc_interrupted_preempt();
	unsigned int size = insn->mem[0].size;
	struct kc_sample *s;
	unsigned long watch_addr;
	unsigned int watch_len;
	bool never = false, on_stack = false;
	int skip;

	skip = kc_should_skip(preempt);
	if (skip >= 0)
		goto skipped;
	skip = KC_SKIP_FORBIDDEN;
	if (!addr)
		goto skipped;
	if (kc_addr_is_kasan_shadow(addr)) {
		never = true;
		goto skipped;
	}
	skip = kc_addr_refused(addr, size, regs->sp, &on_stack);
	if (skip >= 0)
		goto skipped;
	kc_watch_cover(addr, size, &watch_addr, &watch_len);
	skip = KC_SKIP_NO_SLOT;
	if (kc_addr_sampled(watch_addr, watch_len))
		goto skipped;
	skip = KC_SKIP_ROTATION;
	if (!kc_claim_window())
		goto skipped;
	skip = KC_SKIP_NO_SLOT;
	s = kc_sample_claim();
	if (!s)
		goto unwindow;
	s->slot = kc_watch_claim();
	if (!s->slot)
		goto unsample;
	skip = KC_SKIP_NO_MARK;
	s->mark = kc_mark_claim(ip, regs->sp, 0);
	if (!s->mark)
		goto unslot;
	s->ip = ip;
	s->insn = *insn;
	s->addr = addr;
	s->size = min(size, 8U);
	s->watch_addr = watch_addr;
	s->watch_len = watch_len;
	s->preempt = preempt;
	s->irqs_on = !!(regs->flags & X86_EFLAGS_IF);
	s->cpu = raw_smp_processor_id();
	s->sp = regs->sp;
	WRITE_ONCE(s->task, current);
	kc_ctx_sampling(s - kc_samples, current);
	atomic_inc(&kc_stalls_in_flight);
	kc_redirect(ip, regs);
	return KC_STALL_REDIRECTED;

unslot:
	kc_watch_release(s->slot);
unsample:
	atomic_set_release(&s->busy, 0);
unwindow:
	atomic_dec(&kc_windows_open);
skipped:
	kc_count_skip(skip);
	/*
	 * The thread goes on past a breakpoint that stays in the text until
	 * the armer takes it out: in a loop, as after a stall, it is back
	 * at once (a loop over the stack trapped on every pass until the
	 * retire). Where the address can never be watched, it waits there
	 * as after a stall. Not where the skip is for now only (another
	 * window watches the address, or holds the slots): a waiting
	 * thread is no racer, and the window open meanwhile may be on the
	 * very field it would have touched (two threads racing on a counter).
	 */
	if (skip == KC_SKIP_FORBIDDEN || skip == KC_SKIP_PERCPU_DENIED)
		kc_note_passed(ip, 0);
	if (never)
		return KC_STALL_NEVER;
	if (skip == KC_SKIP_PERCPU_DENIED)
		return KC_STALL_DENIED;
	return on_stack ? KC_STALL_ON_STACK : KC_STALL_SKIPPED;
}
NOKPROBE_SYMBOL(kc_stall_try);

static bool kc_claim_flight(void)
{
	atomic_inc(&kc_stalls_in_flight);
	/* pairs with kc_stall_block(): one of us sees the other */
	smp_mb__after_atomic();
	if (!atomic_read(&kc_blocked))
		return true;
	atomic_dec(&kc_stalls_in_flight);
	return false;
}

static struct kc_waiter *kc_waiter_claim(void)
{
	int i;

	for (i = 0; i < KC_NR_WAITERS; i++)
		if (!atomic_cmpxchg(&kc_waiters[i].busy, 0, 1))
			return &kc_waiters[i];
	return NULL;
}

static struct kc_waiter *kc_waiter_find(struct task_struct *task,
					unsigned long sp)
{
	int i;

	for (i = 0; i < KC_NR_WAITERS; i++)
		if (atomic_read(&kc_waiters[i].busy) &&
		    kc_waiters[i].task == task && kc_waiters[i].sp == sp)
			return &kc_waiters[i];
	return NULL;
}

/*
 * This CPU let @ip's sampled thread through, and the thread is back while
 * the breakpoint is still in the text: at once, or for the second time.
 * The second time catches a loop whose passes a loaded host has spread
 * out. A slow armer can outlast one wait: a few more, then it traps.
 */
static bool kc_back_in_loop(unsigned long ip, unsigned int *loop_waits)
{
	struct kc_passed *p = this_cpu_ptr(&kc_passed);

	if (p->addr != ip || p->task != current ||
	    p->loop_waits >= KC_MAX_LOOP_WAITS)
		return false;
	if (ktime_get_mono_fast_ns() - p->ns > KC_REHIT_NS &&
	    ++p->late_rehits < 2)
		return false;
	*loop_waits = p->loop_waits;
	p->addr = 0;
	return true;
}

/*
 * int3, NMI-like, on a spent hit. A sampled thread back at its breakpoint
 * within KC_REHIT_NS of passing it is in a loop: it would trap on every
 * pass until the armer has taken the breakpoint out of the text, and under
 * TCG a trap and its single-step are expensive enough for that to cost it
 * more than waiting. Where it may sleep, it waits for that in the
 * trampoline instead. A thread that comes back later may pass the
 * breakpoint seldom: one trap costs it less than a wait would, but the
 * second means a loop slowed down by a loaded host, not a rare path.
 * Returns 1 when the thread was redirected.
 */
int kc_stall_rehit(unsigned long ip, struct pt_regs *regs)
{
	unsigned int loop_waits;
	struct kc_waiter *w;

	/* kc_can_sleep() decides in the trampoline; this is its cheap part */
	if (kc_interrupted_preempt() || !(regs->flags & X86_EFLAGS_IF) ||
	    this_cpu_read(kc_cpu_busy) || !kc_back_in_loop(ip, &loop_waits))
		return 0;
	if (!kc_claim_flight())
		return 0;
	w = kc_waiter_claim();
	if (!w)
		goto unflight;
	w->mark = kc_mark_claim(ip, regs->sp, loop_waits + 1);
	if (!w->mark)
		goto unwaiter;
	w->ip = ip;
	w->sp = regs->sp;
	WRITE_ONCE(w->task, current);
	kc_redirect(ip, regs);
	return 1;

unwaiter:
	atomic_set_release(&w->busy, 0);
unflight:
	atomic_dec(&kc_stalls_in_flight);
	return 0;
}
NOKPROBE_SYMBOL(kc_stall_rehit);

/* Documentation/design.rst, the stall: sleeping is legal only here. */
static bool kc_can_sleep(void)
{
	return preemptible() && !rcu_preempt_depth() &&
	       READ_ONCE(current->__state) == TASK_RUNNING &&
	       !pagefault_disabled();
}

/*
 * The sampled thread could only have been preempted where it stands, and
 * preemption leaves its block plug alone; a voluntary sleep flushes it
 * (sched_submit_work()). Code between blk_start_plug() and its finish
 * may be halfway through a merge into a request on that plug: flushed
 * under it, the request is issued and completed while it still merges
 * (a NULL bio in ll_back_merge_fn() from blk_attempt_plug_merge() is
 * what that looks like). The plug is set aside while the stall
 * sleeps.
 */
static void kc_sleep_range(unsigned long min_us, unsigned long max_us)
{
	u64 start = ktime_get_mono_fast_ns(), us;
#ifdef CONFIG_BLOCK
	struct blk_plug *plug = current->plug;

	current->plug = NULL;
	usleep_range(min_us, max_us);
	current->plug = plug;
#else
	usleep_range(min_us, max_us);
#endif
	/* a loaded machine runs the woken thread late: what that costs */
	us = div_u64(ktime_get_mono_fast_ns() - start, NSEC_PER_USEC);
	atomic_long_inc(&kc_stats.stall_sleeps);
	if (us > max_us)
		atomic_long_add(us - max_us, &kc_stats.stall_sleep_late_us);
}

static unsigned int kc_window_us(bool sleep)
{
	unsigned int w = sleep ? READ_ONCE(kc_settings.window_sleep_us) :
				 READ_ONCE(kc_settings.window_atomic_us);

	struct rnd_state *rnd = get_cpu_ptr(&kc_rnd);
	u32 r = prandom_u32_state(rnd);

	put_cpu_ptr(&kc_rnd);
	/* randomized downward, as KCSAN does, so windows do not phase-lock */
	return w / 2 + r % (w / 2 + 1);
}

#define KC_REFRESH_US	500
#define KC_ACK_POLL_US	50

static u64 kc_now_us(void)
{
	return div_u64(ktime_get_mono_fast_ns(), NSEC_PER_USEC);
}

/*
 * The values a window compares. @baseline is read once every online CPU
 * watches the address: a change after it and no trap means a writer the
 * watch could not see (an alias), or a trap still on its way (TCG), which
 * is awaited. @first is read before arming: a change between the two was
 * made by a CPU the watch had not reached yet, while the sampled thread
 * stood at its access, and is as much a race as one in the window (KCSAN,
 * whose watchpoints take at once, compares from its own start too). Under
 * TCG the acknowledgements take as long as a window, and a racer a few
 * microseconds behind the sampled thread lands in them.
 */
struct kc_window {
	struct kc_slot *slot;
	unsigned long addr;
	unsigned int size;
	bool complete;
	u64 first;
	u64 baseline;
};

static void kc_window_check(struct kc_window *w)
{
	if (w->complete || !kc_watch_complete(w->slot))
		return;
	w->complete = true;
	if (!kc_watch_trapped(w->slot))
		w->baseline = kc_watch_read_value(w->addr, w->size);
}

/*
 * A sleeping window opens once the watch holds everywhere, as a spinning
 * one does; the IPIs' vCPUs get the host core meanwhile. Bounded by
 * arm_timeout_us: a CPU that acknowledges later still joins the window.
 */
static void kc_wait_armed(struct kc_window *w)
{
	u64 end = kc_now_us() + READ_ONCE(kc_settings.arm_timeout_us);

	while (!w->complete && kc_now_us() < end) {
		kc_sleep_range(KC_ACK_POLL_US, 2 * KC_ACK_POLL_US);
		kc_window_check(w);
	}
}

/*
 * A sleeping window counts from the arming: the thread is held @us in
 * all (longer while the acknowledgements are awaited), each CPU watching
 * from its own on. Counted after the last one, under TCG (the vCPUs the
 * IPIs go to wait for a host core) the wait for the acknowledgements would
 * be added to every hold, a large part of it.
 */
static unsigned int kc_window_left(u64 armed_us, unsigned int us)
{
	u64 now = kc_now_us();

	return now < armed_us + us ? armed_us + us - now : 0;
}

static void kc_wait_window(struct kc_window *w, bool sleep, unsigned int us)
{
	u64 now, end = kc_now_us() + us;
	unsigned int i, step;

	if (sleep) {
		/*
		 * Sleeping windows are long: repair reset registers midway.
		 * Bounded by the clock: a loaded host wakes sleepers late,
		 * and counted steps would stretch the window several times.
		 */
		for (now = kc_now_us(); now < end; now = kc_now_us()) {
			step = min_t(u64, end - now, KC_REFRESH_US);
			kc_sleep_range(step, step + step / 8 + 1);
			if (kc_now_us() < end && !kc_watch_trapped(w->slot))
				kc_watch_refresh(w->slot);
			kc_window_check(w);
		}
		return;
	}
	/*
	 * Counted in steps, not by the clock: under TCG the steps of a real
	 * workload's windows often take several microseconds each (a vCPU
	 * waits for a host core), and a clock bound, even at a few times the
	 * length, cuts many of those windows short.
	 */
	for (i = 0; i < us && !kc_watch_trapped(w->slot); i++) {
		udelay(1);
		kc_window_check(w);
	}
}

/*
 * Under QEMU TCG a racer's store is visible before its #DB runs (the
 * exception is raised after the instruction, and the host may deschedule
 * that vCPU in between). Disarming at once would make the trap late and
 * the report one of unknown origin, even for a LOCK'd writer that traps
 * in every other window. A changed value keeps the watch until
 * its trap lands, bounded: an invisible writer (an alias) never traps.
 */
#define KC_LATE_TRAP_SLEEP_US	10000
#define KC_LATE_TRAP_ATOMIC_US	1000

static void kc_await_trap(struct kc_window *w, bool sleep)
{
	unsigned int max = sleep ? KC_LATE_TRAP_SLEEP_US : KC_LATE_TRAP_ATOMIC_US;
	u64 end = kc_now_us() + max;
	unsigned int i;

	for (i = 0; i < max && !kc_watch_trapped(w->slot) &&
	     kc_now_us() < end; i++) {
		if (sleep)
			kc_sleep_range(KC_ACK_POLL_US, 2 * KC_ACK_POLL_US);
		else
			udelay(1);
	}
	if (kc_watch_trapped(w->slot))
		atomic_long_inc(&kc_stats.traps_awaited);
}

/*
 * What the window's values say, into @r (struct kc_window's comment). The
 * sampled task's own task_struct is left out before the watch held: its
 * sleep there, awaiting the acknowledgements, is the detector's doing.
 */
static void kc_window_values(const struct kc_window *w, struct kc_report *r)
{
	r->old_value = w->baseline;
	if (w->complete) {
		r->armed_cpus = max(r->armed_cpus, r->online_cpus);
		r->value_changed = w->baseline != r->new_value;
	} else {
		atomic_long_inc(&kc_stats.window_partial);
	}
	if (r->value_changed || w->first == r->new_value || r->own_task_slept)
		return;
	r->old_value = w->first;
	r->value_changed = true;
	r->changed_arming = true;
	atomic_long_inc(&kc_stats.changed_arming);
}

static void kc_fill_sampled(struct kc_sample *s, struct pt_regs *regs,
			    struct kc_side *a)
{
	a->ip = s->ip;
	a->cpu = s->cpu;
	a->ctx = kc_ctx_of(s->preempt);
	a->irqs_on = s->irqs_on;
	a->pid = a->ctx == KC_CTX_TASK ? task_pid_nr(current) : 0;
	memcpy(a->comm, current->comm, sizeof(a->comm));
	a->access = s->insn.mem[0].access;
	a->gs_relative = s->insn.mem[0].seg == KC_SEG_GS;
	a->size = s->size;
	a->op = s->insn.op;
	a->has_imm = s->insn.has_imm;
	a->imm = s->insn.imm;
	a->insn_len = s->insn.length;
	a->dest_reg = a->access == KC_ACC_READ ? s->insn.reg : 0xff;
	kc_unwind_regs(regs, a);
	kc_locks_capture(a);
}

static void kc_sample_run(struct kc_sample *s, struct pt_regs *regs)
{
	bool sleep = kc_can_sleep();
	bool writes = s->insn.mem[0].access & KC_ACC_WRITE;
	unsigned int us = kc_window_us(sleep);
	u64 armed_us, entered_us = kc_now_us(), opened_us;
	/* not on the stack: the interrupted context's stack may be small */
	struct kc_report *r = &s->report;
	struct kc_window w = {
		.slot = s->slot, .addr = s->addr, .size = s->size,
	};

	memset(r, 0, sizeof(*r));
	atomic_long_inc(&kc_stats.samples);
	if (writes)
		atomic_long_inc(&kc_stats.samples_writes);
	r->addr = s->addr;
	r->size = s->size;
	r->watch_rw = writes;
	r->window_us = us;
	r->online_cpus = num_online_cpus();
	/* while the object is surely alive; frees during the window are seen */
	kc_report_describe_object(r);
	atomic_set(&s->freed, 0);
	s->obj_size = max(r->obj_size, 1U);
	WRITE_ONCE(s->obj_start, r->obj_kind == KC_OBJ_SLAB ? r->obj_start : 0);

	/* a busy-waiting window must not migrate: the flag is per CPU */
	if (!sleep) {
		preempt_disable();
		this_cpu_write(kc_cpu_busy, 1);
	}
	r->watch_addr = s->watch_addr;
	r->watch_len = s->watch_len;
	/*
	 * The first value and the local watch in one go: a task that ran
	 * here between them would change the value unseen, and be taken
	 * for a CPU the watch had not reached.
	 */
	preempt_disable();
	w.first = kc_watch_read_value(s->addr, s->size);
	armed_us = kc_now_us();
	r->armed_cpus = kc_watch_arm(s->slot, s->watch_addr, s->watch_len,
				     writes, !sleep);
	preempt_enable();
	/* after arming: a write between the read and the watch is caught */
	w.baseline = kc_watch_read_value(s->addr, s->size);
	w.complete = r->armed_cpus >= r->online_cpus;
	if (sleep) {
		kc_wait_armed(&w);
		/*
		 * Not complete within arm_timeout_us: a whole window more
		 * for the late ones to join and the values to be compared:
		 * on a busy machine many windows would otherwise never
		 * complete.
		 */
		if (w.complete)
			us = kc_window_left(armed_us, us);
	}
	atomic_long_inc(w.complete ? &kc_stats.watch_full :
				     &kc_stats.watch_partial);
	if (w.complete && kc_watch_holding(s->slot) < r->online_cpus)
		atomic_long_inc(&kc_stats.watch_idle_joined);
	opened_us = kc_now_us();
	atomic_long_add(opened_us - entered_us, &kc_stats.stall_arm_us);
	kc_wait_window(&w, sleep, us);
	atomic_long_add(kc_now_us() - opened_us, &kc_stats.stall_window_us);
	kc_window_check(&w);
	/*
	 * Read while still watched everywhere: disarming takes as long as
	 * arming, and a write seen after that has no racer to name.
	 */
	r->new_value = kc_watch_read_value(s->addr, s->size);
	if (w.complete && r->new_value != w.baseline &&
	    !kc_watch_trapped(w.slot))
		kc_await_trap(&w, sleep);
	/* acknowledgements that came after the arming wait count too */
	if (!w.complete)
		r->armed_cpus = max(r->armed_cpus, kc_watch_holding(s->slot));
	kc_watch_disarm(s->slot);
	if (!sleep) {
		this_cpu_write(kc_cpu_busy, 0);
		preempt_enable();
	}

	WRITE_ONCE(s->obj_start, 0);
	r->obj_freed = atomic_read(&s->freed);
	/*
	 * A SLAB_TYPESAFE_BY_RCU object may be freed and reused under a
	 * reader: only its re-initialisation by the next owner can race
	 * with the reader, and that race is real (KCSAN reports it too;
	 * the free itself it exempts for such caches).
	 */
	if (r->obj_freed && !r->obj_typesafe && kc_filter_memory_reuse_on()) {
		kc_filter_count(KC_FILTER_MEMORY_REUSE);
		return;
	}
	r->own_task_slept = sleep &&
			    s->addr + s->size > (unsigned long)current &&
			    s->addr < (unsigned long)(current + 1);
	kc_window_values(&w, r);
	r->has_racer = kc_watch_take_trap(s->slot, &r->racer, &r->racer_regs);
	r->nr_traps = min(kc_watch_nr_traps(s->slot), 255U);
	r->traps_one_site = kc_watch_traps_one_site(s->slot);
	r->racer_has_regs = r->has_racer;
	if (!r->has_racer && !r->value_changed)
		return;
	kc_fill_sampled(s, regs, &r->sampled);
	kc_report_submit(r);
}

/*
 * Until the spent breakpoint is out: the armer may arm the site again at
 * once (a target of one site), and the int3 is then a new sample's.
 * Out means the pool says so (its removal done and the page written a
 * second time), not that the byte reads back restored: a thread let go
 * at that point trapped on every pass under QEMU TCG, on a translation
 * that still held the int3, where one let go after the disable does not.
 * Bounded: the armer may be held back (patching, the stall governor).
 */
static void kc_wait_retired(unsigned long ip, unsigned int max_us)
{
	u64 end = kc_now_us() + max_us;

	while (kc_now_us() < end && kc_pool_spent_at(ip))
		kc_sleep_range(KC_RETIRE_POLL_US, KC_RETIRE_POLL_US + 50);
}

/*
 * The time the current thread has waited, runnable, for a CPU that ran
 * other work. 0 without the scheduler's accounting: then a hold counts
 * whole.
 */
static u64 kc_run_delay_ns(void)
{
#ifdef CONFIG_SCHED_INFO
	return READ_ONCE(current->sched_info.run_delay);
#else
	return 0;
#endif
}

static void kc_count_stall(u64 start, u64 run_delay)
{
	long us = div_u64(ktime_get_mono_fast_ns() - start, NSEC_PER_USEC);
	long queued = div_u64(kc_run_delay_ns() - run_delay, NSEC_PER_USEC);

	/* what the sampled thread paid: the stall the benchmarks report */
	atomic_long_add(us, &kc_stats.stall_us);
	/*
	 * A sleeping window's thread, woken on a busy machine, queues behind
	 * other threads: those CPUs were not idle, so the workload as a
	 * whole lost nothing meanwhile. The overhead budget leaves that part
	 * out; the stall governor, which keeps each thread's own slowdown,
	 * counts the whole hold.
	 */
	queued = clamp(queued, 0L, us);
	atomic_long_add(queued, &kc_stats.stall_queued_us);
	/* one counter: the budget's differences must never go down */
	atomic_long_add(us - queued, &kc_stats.stall_charged_us);
	kc_held_add(us);
}

static void kc_wait_out(struct kc_waiter *w)
{
	u64 start = ktime_get_mono_fast_ns(), run_delay = kc_run_delay_ns();

	if (kc_can_sleep()) {
		kc_wait_retired(w->ip, KC_RETIRE_WAIT_US);
		atomic_long_inc(&kc_stats.loop_waits);
	}
	kc_mark_settle(w->mark, w->ip);
	kc_count_stall(start, run_delay);
	WRITE_ONCE(w->task, NULL);
	atomic_set_release(&w->busy, 0);
	atomic_dec(&kc_stalls_in_flight);
}

/* Called by the trampoline, in the sampled thread's own context. */
__visible void kc_stall(struct pt_regs *regs)
{
	struct kc_waiter *w = kc_waiter_find(current, regs->sp);
	struct kc_sample *s;
	u64 start = ktime_get_mono_fast_ns(), run_delay = kc_run_delay_ns();

	if (w) {
		kc_wait_out(w);
		return;
	}
	s = kc_sample_find(current, regs->sp);
	if (WARN_ON_ONCE(!s)) {
		/* its slot stays lost; the counts unload waits on must not */
		atomic_dec(&kc_windows_open);
		atomic_dec(&kc_stalls_in_flight);
		return;
	}
	if (rcu_is_watching())
		kc_sample_run(s, regs);
	else
		kc_count_skip(KC_SKIP_RCU);
	kc_mark_settle(s->mark, s->ip);
	kc_count_stall(start, run_delay);
	kc_watch_release(s->slot);
	kc_ctx_sampling(s - kc_samples, NULL);
	WRITE_ONCE(s->task, NULL);
	atomic_set_release(&s->busy, 0);
	atomic_dec(&kc_windows_open);
	atomic_dec(&kc_stalls_in_flight);
}

bool kc_stall_any_open(void)
{
	return atomic_read(&kc_windows_open);
}

/* No new stall; returns when every open one has ended. */
void kc_stall_block(void)
{
	atomic_set(&kc_blocked, 1);
	/* pairs with kc_claim_window(): it sees the flag or we its count */
	smp_mb__after_atomic();
	while (atomic_read(&kc_windows_open) ||
	       atomic_read(&kc_stalls_in_flight))
		usleep_range(1000, 2000);
}

void kc_stall_unblock(void)
{
	atomic_set(&kc_blocked, 0);
}

int kc_stall_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		prandom_seed_state(per_cpu_ptr(&kc_rnd, cpu), get_random_u64());
	return 0;
}

/* Unload: every thread redirected into the trampoline has left it. */
void kc_stall_exit(void)
{
	while (atomic_read(&kc_stalls_in_flight))
		usleep_range(1000, 2000);
	synchronize_rcu_tasks();
}
