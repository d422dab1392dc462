// SPDX-License-Identifier: GPL-2.0
/*
 * Which context an access ran in, and its stack: for both sides of a
 * report, from the int3 (sampled) and from the #DB (racer). NMI-safe:
 * the unwinder is ORC's, started from a register set.
 */
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <asm/unwind.h>

#include "kcollider.h"

/*
 * The threads stalled in a window now, one per sample: their own accesses
 * in task context are the detector's, not racers (the #DB handler asks),
 * and a thread in a window is not sampled again (the int3 handler asks).
 * Here rather than with the stall, so that the watch asks without calling
 * back up into it.
 */
static struct task_struct *kc_sampled_tasks[KC_MAX_SLOTS];

/* @task stalls in window @i now, or (NULL) no longer. */
void kc_ctx_sampling(unsigned int i, struct task_struct *task)
{
	WRITE_ONCE(kc_sampled_tasks[i], task);
}
NOKPROBE_SYMBOL(kc_ctx_sampling);

bool kc_task_is_sampled(struct task_struct *task)
{
	int i;

	for (i = 0; i < KC_MAX_SLOTS; i++)
		if (READ_ONCE(kc_sampled_tasks[i]) == task)
			return true;
	return false;
}
NOKPROBE_SYMBOL(kc_task_is_sampled);

/* True when current serves softirqs; PREEMPT_RT counts them per task. */
static bool kc_serving_softirq(unsigned long pc)
{
#ifdef CONFIG_PREEMPT_RT
	return current->softirq_disable_cnt & SOFTIRQ_OFFSET;
#else
	return pc & SOFTIRQ_OFFSET;
#endif
}

u8 kc_ctx_of(unsigned long pc)
{
	if (pc & NMI_MASK)
		return KC_CTX_NMI;
	if (pc & HARDIRQ_MASK)
		return KC_CTX_HARDIRQ;
	if (kc_serving_softirq(pc))
		return KC_CTX_SOFTIRQ;
	return KC_CTX_TASK;
}
NOKPROBE_SYMBOL(kc_ctx_of);

/* ORC from a register set: NMI-safe, no handler frames. */
void kc_unwind_regs(struct pt_regs *regs, struct kc_side *a)
{
	struct unwind_state state;
	unsigned long addr;

	/* ORC skips the frame of @regs itself: its ip is the first entry */
	a->stack[0] = regs->ip;
	a->nr_stack = 1;
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && a->nr_stack < KC_STACK_DEPTH;
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		a->stack[a->nr_stack++] = addr;
	}
}
NOKPROBE_SYMBOL(kc_unwind_regs);

static unsigned long kc_int3_entry;

/*
 * The racer may have been single-stepping one of our own probes: its trap
 * ip then lies in the probe's instruction slot, where ORC knows nothing.
 * Under TCG the #DB can even arrive at the entry of the int3 that ends the
 * slot, with the slot address in the int3's hardware frame. Rebuild the
 * registers as they were at the probed instruction so the unwind works.
 */
struct pt_regs *kc_racer_regs(struct pt_regs *regs,
				     struct pt_regs *fixed)
{
	unsigned long ip = regs->ip, orig, *frame;

	if (kc_int3_entry && ip == kc_int3_entry) {
		frame = (unsigned long *)regs->sp;
		if (!kc_pool_map_slot_ip(frame[0] - 1, &orig))
			return regs;
		*fixed = *regs;
		fixed->ip = orig;
		fixed->flags = frame[2];
		fixed->sp = frame[3];
		return fixed;
	}
	if (!kc_pool_map_slot_ip(ip, &orig))
		return regs;
	*fixed = *regs;
	fixed->ip = orig;
	return fixed;
}
NOKPROBE_SYMBOL(kc_racer_regs);

void kc_context_init(void)
{
	kc_int3_entry = kc_lookup_symbol("asm_exc_int3");
}
