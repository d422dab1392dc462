// SPDX-License-Identifier: GPL-2.0
/*
 * The watchpoint engine: hardware data watchpoints retargeted from any
 * non-NMI context.
 *
 * No kernel API retargets a breakpoint from atomic code, so at load we
 * reserve K wide breakpoints on private placeholder words (perf then owns
 * one debug register per slot on every CPU) and afterwards write targets
 * straight into that register: locally, and on the other CPUs through
 * async IPIs that apply the slot's latest state and acknowledge it. The
 * arming thread waits a bounded time and counts on how many CPUs the watch
 * took. Anything that reloads the debug registers behind our back
 * (text_poke, perf reinstalling the event) puts the placeholder back; the
 * IPI callback notices and repairs it.
 *
 * The #DB callback runs NMI-like: lock-free and printk-free, it only
 * records the trap into the slot for the stalled thread to collect.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/hw_breakpoint.h>
#include <linux/kasan.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/smp.h>
#include <asm/debugreg.h>
#include <asm/hw_breakpoint.h>
#include <asm/unwind.h>

#include "kcollider.h"

struct kc_slot {
	unsigned int index;
	struct perf_event * __percpu *bp;
	/* Published state; seq is odd while the owner rewrites it. */
	unsigned int seq;
	bool active;
	unsigned long addr;
	u8 len;				/* X86_BREAKPOINT_LEN_* */
	u8 type;			/* X86_BREAKPOINT_WRITE / _RW */
	/* the owner's: when the watch was published, and latency recorded */
	u64 armed_ns;
	bool latency_noted;
	/* a self-test's: the module's own write is the racer it awaits */
	bool selftest;
	/*
	 * The owner's acknowledgement scan of state scan_seq: every online
	 * CPU below scan_cpu was seen watching, and checks counts the CPUs
	 * it examined.
	 */
	unsigned int scan_seq;
	int scan_cpu;
	unsigned long scan_checks;
	atomic_t claimed;
	atomic_t open;			/* traps accepted */
	atomic_t nr_traps;
	/* the first trap's ip; traps_mixed once another ip trapped too */
	atomic_long_t trap_site;
	atomic_t traps_mixed;
	atomic_t trap_done[KC_MAX_TRAPS];
	/*
	 * Watching reads only to see writes first (kc_watch_split_hazard()):
	 * a trap that leaves the value as the last one saw it was a read.
	 */
	bool reads_unwanted;
	unsigned int value_size;
	atomic64_t value_seen;
	struct kc_side traps[KC_MAX_TRAPS];
	struct kc_regs trap_regs[KC_MAX_TRAPS];
	/*
	 * The register parks on the first word between windows, never
	 * accessed; the second, on the same page, is stored to right after
	 * (kc_watch_retire_stale_hit()).
	 */
	unsigned long placeholder[2] __aligned(16);
};

struct kc_watch_cpu {
	call_single_data_t csd[KC_MAX_SLOTS];
	unsigned int acked[KC_MAX_SLOTS];	/* seq applied last */
	bool holds[KC_MAX_SLOTS];		/* ... with a register */
	int drn[KC_MAX_SLOTS];			/* DR holding the slot */
	unsigned long written[KC_MAX_SLOTS];	/* what we put in it */
};

/* An odd value: never a published seq, so a fresh CPU counts as unarmed. */
#define KC_SEQ_NONE	UINT_MAX

static DEFINE_PER_CPU(struct kc_watch_cpu, kc_watch_cpu);

/* Recent arm latencies (all CPUs acked, or the timeout), for benchmarks. */
#define KC_LATENCY_RING	4096
static u32 kc_arm_latency_ns[KC_LATENCY_RING];
static atomic_t kc_arm_latency_next = ATOMIC_INIT(0);

/*
 * The ranges recently watched, for tests that check what the address
 * policy let through (no per-CPU variable of the trap paths, ever).
 */
#define KC_WATCHED_RING	1024
static unsigned long kc_watched_addr[KC_WATCHED_RING];
static u8 kc_watched_size[KC_WATCHED_RING];
static atomic_t kc_watched_next = ATOMIC_INIT(0);
static struct kc_slot kc_slots[KC_MAX_SLOTS];
static unsigned int kc_nr_slots;
static atomic_t kc_ipis_in_flight = ATOMIC_INIT(0);
static int kc_cpuhp_state;

/*
 * Where perf keeps this CPU's copy of DR0-3 (cpu_debugreg[], static in
 * arch/x86/kernel/hw_breakpoint.c), as a per-CPU offset; 0 if unknown.
 * text_poke() and KVM reload the registers from that copy: a watch
 * mirrored into it survives them instead of waiting to be repaired.
 */
static unsigned long kc_cpu_debugreg;

static void kc_dr_write(int n, unsigned long v)
{
	set_debugreg(v, n);
	if (kc_cpu_debugreg)
		this_cpu_write(((unsigned long __percpu *)
				(void __percpu __force *)kc_cpu_debugreg)[n], v);
}
NOKPROBE_SYMBOL(kc_dr_write);

/*
 * hw_breakpoint_restore() (exported) loads cpu_debugreg[0..3] and then
 * cpu_dr7 through %gs: its first five per-CPU loads must be four words
 * eight bytes apart and then &cpu_dr7, or nothing is mirrored.
 */
static void kc_find_cpu_debugreg(void)
{
	u8 code[192];
	unsigned long gs[5];
	unsigned int n = 0, off = 0, i;
	struct kc_insn insn;

	if (copy_from_kernel_nofault(code, (void *)hw_breakpoint_restore,
				     sizeof(code)))
		return;
	while (n < ARRAY_SIZE(gs) && off < sizeof(code)) {
		if (kc_decode(code + off, sizeof(code) - off, &insn))
			return;
		off += insn.length;
		/* %gs:sym, or %gs:sym(%rip) as 6.1 builds it */
		if ((insn.flags & KC_INSN_MEM) &&
		    insn.mem[0].seg == KC_SEG_GS &&
		    insn.mem[0].index == KC_REG_NONE &&
		    (insn.mem[0].base == KC_REG_NONE ||
		     insn.mem[0].base == KC_REG_RIP))
			gs[n++] = (long)insn.mem[0].disp +
				  (insn.mem[0].base == KC_REG_RIP ?
				   (unsigned long)hw_breakpoint_restore + off : 0);
		if (insn.op == KC_OP_RET || insn.op == KC_OP_JMP)
			break;
	}
	if (n < ARRAY_SIZE(gs) ||
	    gs[4] != (unsigned long)(void __force *)&cpu_dr7)
		return;
	for (i = 1; i < HBP_NUM; i++)
		if (gs[i] != gs[0] + i * sizeof(long))
			return;
	kc_cpu_debugreg = gs[0];
}

static unsigned long kc_dr_read(int n)
{
	unsigned long v;

	get_debugreg(v, n);
	return v;
}

static unsigned long kc_slot_parked(struct kc_slot *slot)
{
	return (unsigned long)&slot->placeholder[0];
}

static int kc_dr_holding_parked(struct kc_slot *slot)
{
	int i;

	for (i = 0; i < HBP_NUM; i++)
		if (kc_dr_read(i) == kc_slot_parked(slot))
			return i;
	return -1;
}
NOKPROBE_SYMBOL(kc_dr_holding_parked);

/*
 * Which DRn perf gave this slot on this CPU. It can move: a pinned event
 * added on this CPU makes perf take every event out and put them back,
 * ours first into the lowest free register, with the parking address, and
 * the newcomer may land in the register ours had. So the register cached
 * is ours when it parks on the placeholder, or when it holds what we
 * wrote and no other register parks ours: another breakpoint on the
 * address we watch (perf, a debugger) holds the same value and is not
 * ours to rewrite.
 */
static int kc_watch_find_drn(struct kc_slot *slot, struct kc_watch_cpu *wc)
{
	int i = wc->drn[slot->index], parked;
	unsigned long dr = i >= 0 ? kc_dr_read(i) : 0;

	/* A CPU brought up zeroes its registers: 0 is never ours. */
	if (dr && dr == kc_slot_parked(slot))
		return i;
	parked = kc_dr_holding_parked(slot);
	if (parked < 0 && dr && dr == wc->written[slot->index])
		return i;
	wc->drn[slot->index] = parked;
	return parked;
}
NOKPROBE_SYMBOL(kc_watch_find_drn);

/*
 * Type and length live in DR7 and in perf's copy of it: change both, and
 * perf's own bookkeeping (bp->hw.info) so its uninstall clears the right
 * bits. cpu_dr7 first so an NMI never restores a stale DR7.
 */
static void kc_watch_set_kind(struct kc_slot *slot, int drn, u8 len, u8 type)
{
	struct perf_event *bp = *this_cpu_ptr(slot->bp);
	struct arch_hw_breakpoint *info = counter_arch_bp(bp);
	unsigned int shift = DR_CONTROL_SHIFT + drn * DR_CONTROL_SIZE;
	unsigned long dr7;

	if (info->len == len && info->type == type)
		return;
	dr7 = this_cpu_read(cpu_dr7);
	dr7 &= ~(0xfUL << shift);
	dr7 |= ((unsigned long)(len | type) & 0xf) << shift;
	info->len = len;
	info->type = type;
	this_cpu_write(cpu_dr7, dr7);
	barrier();
	set_debugreg(dr7, 7);
}

/*
 * QEMU's TCG runs an unlocked CMPXCHG16B (this_cpu_cmpxchg_double(), in
 * SLUB's fast paths; a LOCK'd one too, when it executes it alone) as two
 * loads, then two stores. A write watchpoint on the upper half stops it at
 * the second store, after the first landed, and restarts it: the compare
 * then fails against the half it wrote itself, the caller retries with a
 * freelist that already holds its object, and SLUB panics on a double
 * free. Watching reads as well stops it at its second load, before any
 * store, and the restart is clean; the traps of reads are then told from
 * those of writes by the value (kc_trap_kept_value()). Hardware and KVM
 * trap after the whole instruction: there the probe at load finds nothing
 * to avoid.
 */
static bool kc_split_rmw;
static u64 kc_split_probe_pair[2] __aligned(16);

bool kc_watch_splits_rmw(void)
{
	return kc_split_rmw;
}

/*
 * Only per-CPU data takes unlocked 16-byte exchanges, and a watch that
 * sees reads misses the LOCK'd read-modify-writes under TCG: elsewhere
 * the watch stays as it was. Per-CPU data outside the first chunk lies in
 * vmalloc space.
 */
static bool kc_watch_split_hazard(unsigned long addr, unsigned int size,
				  bool watch_reads)
{
	/* @addr is aligned to the watch's length: within one half */
	return kc_split_rmw && !watch_reads && (addr & 8) &&
	       (kc_percpu_in_first_chunk(addr, size) ||
		is_vmalloc_addr((void *)addr));
}

/*
 * Non-zero while this CPU makes an access of the detector's own that a
 * watch may see: its trap is no race. Reading a watched value counts: the
 * pagefault_disable() of copy_from_kernel_nofault() writes the
 * pagefault_disabled of the task it interrupts, which may be the stalled
 * thread whose sample is watching it. A count, as an IPI nests in a read.
 * Preemption off.
 */
static DEFINE_PER_CPU(int, kc_cpu_reading);

static void kc_own_access_begin(void)
{
	this_cpu_inc(kc_cpu_reading);
}

static void kc_own_access_end(void)
{
	this_cpu_dec(kc_cpu_reading);
}

/*
 * A trap of a watch that sees reads only for the sake of the writes: a
 * write is one that changed the value since the last trap (or the arming).
 * A write of the value already there passes for a read.
 */
static bool kc_split_value(struct kc_slot *slot, unsigned long addr, u64 *v)
{
	*v = 0;
	return !copy_from_kernel_nofault(v, (void *)addr, slot->value_size);
}
NOKPROBE_SYMBOL(kc_split_value);

/*
 * As each CPU takes the watch (and at the arming): writes it made before
 * were never trapped, and a read it traps on next must not pass for them.
 */
static void kc_trap_note_value(struct kc_slot *slot, unsigned long addr)
{
	u64 v;
	bool read;

	get_cpu();
	kc_own_access_begin();
	read = kc_split_value(slot, addr, &v);
	kc_own_access_end();
	put_cpu();
	if (read)
		atomic64_set(&slot->value_seen, v);
}
NOKPROBE_SYMBOL(kc_trap_note_value);

static bool kc_trap_kept_value(struct kc_slot *slot)
{
	u64 v;

	return kc_split_value(slot, READ_ONCE(slot->addr), &v) &&
	       atomic64_xchg(&slot->value_seen, v) == v;
}
NOKPROBE_SYMBOL(kc_trap_kept_value);

/*
 * Debian 12's QEMU (7.2, multi-threaded TCG) runs a LOCK'd
 * read-modify-write on a write-watched page alone, notes the hit there,
 * then runs the instruction once more the usual way, which checks no
 * watchpoint: the hit is never raised, and QEMU keeps pointing at the
 * watchpoint until an access of this CPU checks a watched page again.
 * A debug register write frees that watchpoint; had something else
 * reused the memory by the next check, QEMU would take the hit for its
 * gdbstub's and crash. A store next to the placeholder right after the
 * register writes, while the slot parks there, is such a check: the
 * pointer is retired while what it points to is still a watchpoint's.
 * The debug exception it may raise meanwhile (a hit flag QEMU left on
 * another watch) is the detector's own.
 */
static noinline void kc_watch_store_beside(struct kc_slot *slot)
{
	WRITE_ONCE(slot->placeholder[1], 0);
}
NOKPROBE_SYMBOL(kc_watch_store_beside);

static void kc_watch_retire_stale_hit(struct kc_slot *slot)
{
	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return;
	kc_own_access_begin();
	/* a return ends the translated block: QEMU acts before the reset */
	kc_watch_store_beside(slot);
	kc_own_access_end();
}

/* Runs with IRQs off on the CPU it updates. */
static void kc_watch_apply_local(struct kc_slot *slot)
{
	struct kc_watch_cpu *wc = this_cpu_ptr(&kc_watch_cpu);
	unsigned long addr, dr;
	unsigned int seq;
	bool active;
	u8 len, type;
	int drn;

	do {
		/* pairs with the release in kc_watch_publish() */
		seq = smp_load_acquire(&slot->seq);
		active = READ_ONCE(slot->active);
		addr = READ_ONCE(slot->addr);
		len = READ_ONCE(slot->len);
		type = READ_ONCE(slot->type);
		/* pairs with kc_watch_publish(): fields before the re-check */
		smp_rmb();
	} while ((seq & 1) || seq != READ_ONCE(slot->seq));

	/* no perf event here (a CPU onlined since): no register to use */
	drn = *this_cpu_ptr(slot->bp) ? kc_watch_find_drn(slot, wc) : -1;
	wc->holds[slot->index] = drn >= 0;
	if (drn < 0)
		goto ack;
	dr = kc_dr_read(drn);
	if (!active) {
		kc_dr_write(drn, kc_slot_parked(slot));
		kc_watch_retire_stale_hit(slot);
		wc->written[slot->index] = kc_slot_parked(slot);
		goto ack;
	}
	/* Armed for this very state before, and reverted since: repair. */
	if (wc->acked[slot->index] == seq && wc->written[slot->index] == addr &&
	    dr != addr)
		atomic_long_inc(&kc_stats.dr_repaired);
	/* Kind first, while the register still parks on the placeholder. */
	if (dr != addr) {
		kc_dr_write(drn, kc_slot_parked(slot));
		kc_watch_set_kind(slot, drn, len, type);
		kc_watch_retire_stale_hit(slot);
		if (READ_ONCE(slot->reads_unwanted))
			kc_trap_note_value(slot, addr);
	}
	wc->written[slot->index] = addr;
	kc_dr_write(drn, addr);
ack:
	/* the register write is done before the arming CPU counts us */
	smp_store_release(&wc->acked[slot->index], seq);
}
NOKPROBE_SYMBOL(kc_watch_apply_local);

static void kc_watch_ipi(void *info)
{
	kc_watch_apply_local(info);
	atomic_dec(&kc_ipis_in_flight);
}
NOKPROBE_SYMBOL(kc_watch_ipi);

static void kc_watch_kick(struct kc_slot *slot, int cpu)
{
	call_single_data_t *csd = &per_cpu(kc_watch_cpu, cpu).csd[slot->index];

	atomic_inc(&kc_ipis_in_flight);
	/* -EBUSY: one is still queued and will apply the latest state. */
	if (smp_call_function_single_async(cpu, csd))
		atomic_dec(&kc_ipis_in_flight);
}

/*
 * Readers spin while seq is odd, with IRQs off (the arming IPI, the
 * armer's and keeper's repairs): an update interrupted or preempted
 * half-way on this CPU would have them spin forever under it (an RCU
 * stall, with CPUs spinning in kc_watch_apply_local()).
 * With IRQs off here an odd seq lasts a few stores.
 */
static void kc_watch_publish(struct kc_slot *slot, bool active,
			     unsigned long addr, u8 len, u8 type)
{
	unsigned long flags;

	local_irq_save(flags);
	WRITE_ONCE(slot->seq, slot->seq + 1);
	/* pairs with kc_watch_apply_local(): odd seq before the fields */
	smp_wmb();
	WRITE_ONCE(slot->active, active);
	WRITE_ONCE(slot->addr, addr);
	WRITE_ONCE(slot->len, len);
	WRITE_ONCE(slot->type, type);
	/* even seq: the fields above are complete */
	smp_store_release(&slot->seq, slot->seq + 1);
	local_irq_restore(flags);
}

/* From publishing an armed state to its last acknowledgement, once. */
static void kc_watch_note_latency(struct kc_slot *slot)
{
	unsigned int i;

	if (!READ_ONCE(slot->active) || slot->latency_noted)
		return;
	slot->latency_noted = true;
	i = (unsigned int)atomic_inc_return(&kc_arm_latency_next);
	kc_arm_latency_ns[i % KC_LATENCY_RING] =
		min_t(u64, ktime_get_mono_fast_ns() - slot->armed_ns, U32_MAX);
}

static void kc_watch_note_range(unsigned long addr, unsigned int size)
{
	unsigned int i = (unsigned int)atomic_inc_return(&kc_watched_next);

	kc_watched_addr[i % KC_WATCHED_RING] = addr;
	kc_watched_size[i % KC_WATCHED_RING] = size;
}

/*
 * A CPU running its idle task runs nothing but interrupt handlers before
 * a pending arming IPI lands: its first task after the idle loop is
 * switched in with IRQs off and takes the IPI as it enables them. Waiting
 * for its acknowledgement buys nothing but the wake-up, and under QEMU
 * TCG that is a halted vCPU's wait for a host core: milliseconds a
 * window with IRQs off would spin, for every sample. The task the CPU
 * runs is read without its lock, only to test PF_IDLE; RCU keeps it
 * from being freed meanwhile.
 */
static bool kc_watch_cpu_idle(int cpu)
{
	struct task_struct *curr;
	bool idle;

	rcu_read_lock();
	curr = READ_ONCE(per_cpu(current_task, cpu));
	idle = curr && is_idle_task(curr);
	rcu_read_unlock();
	return idle;
}

/*
 * Whether state @seq of @slot is in a debug register of @cpu, or (with
 * @idle_joins) is sure to be before the CPU runs a task.
 */
static bool kc_watch_cpu_joined(struct kc_slot *slot, unsigned int seq,
				int cpu, bool idle_joins)
{
	struct kc_watch_cpu *wc = per_cpu_ptr(&kc_watch_cpu, cpu);

	/* pairs with the ack in kc_watch_apply_local() */
	if (smp_load_acquire(&wc->acked[slot->index]) == seq &&
	    READ_ONCE(wc->holds[slot->index]))
		return true;
	return idle_joins && kc_watch_cpu_idle(cpu);
}

/* On how many CPUs state @seq of @slot holds: a scan of them all. */
static unsigned int kc_watch_count_acked(struct kc_slot *slot,
					 unsigned int seq, bool idle_joins)
{
	unsigned int done = 0;
	int cpu;

	for_each_online_cpu(cpu)
		if (kc_watch_cpu_joined(slot, seq, cpu, idle_joins))
			done++;
	return done;
}

/* On how many CPUs the open window's watch holds now. */
unsigned int kc_watch_holding(struct kc_slot *slot)
{
	return kc_watch_count_acked(slot, READ_ONCE(slot->seq), false);
}

/*
 * A window that must not sleep polls for the acknowledgements every
 * microsecond, preemption off: a scan of every CPU at each poll would make
 * a window on a large machine last many times its length whenever one CPU
 * is late. The scan goes on from the CPU it stopped at, a few CPUs a poll:
 * a CPU once seen watching keeps the state until the slot is published
 * again (an idle one takes the IPI before it runs a task), so the window
 * examines each CPU once, and the late one once a poll.
 */
#define KC_ACK_SCAN_BATCH	16

static bool kc_watch_scan_acks(struct kc_slot *slot, unsigned int seq)
{
	unsigned int n;

	if (slot->scan_seq != seq) {
		slot->scan_seq = seq;
		slot->scan_cpu = cpumask_first(cpu_online_mask);
	}
	for (n = 0; n < KC_ACK_SCAN_BATCH && slot->scan_cpu < nr_cpu_ids; n++) {
		slot->scan_checks++;
		if (!kc_watch_cpu_joined(slot, seq, slot->scan_cpu, true))
			return false;
		slot->scan_cpu = cpumask_next(slot->scan_cpu, cpu_online_mask);
	}
	return slot->scan_cpu >= nr_cpu_ids;
}

/*
 * Whether the open window now watches on every online CPU, an idle one
 * counting as watching: arming IPIs that missed kc_watch_arm()'s deadline
 * (a vCPU descheduled by the host) still land during the window.
 */
bool kc_watch_complete(struct kc_slot *slot)
{
	if (!kc_watch_scan_acks(slot, READ_ONCE(slot->seq)))
		return false;
	kc_watch_note_latency(slot);
	return true;
}

/* Apply the slot's state here, and ask every other online CPU to. */
static void kc_watch_send(struct kc_slot *slot, int this_cpu)
{
	unsigned long flags;
	int cpu;

	local_irq_save(flags);
	kc_watch_apply_local(slot);
	local_irq_restore(flags);
	for_each_online_cpu(cpu)
		if (cpu != this_cpu)
			kc_watch_kick(slot, cpu);
}

/* Sends without waiting for the acknowledgements. */
static void kc_watch_post(struct kc_slot *slot)
{
	kc_watch_send(slot, get_cpu());
	put_cpu();
}

/* Apply the slot's state everywhere; returns on how many CPUs it took. */
static unsigned int kc_watch_propagate(struct kc_slot *slot)
{
	unsigned int seq = slot->seq, timeout, spins;
	bool complete = false;
	u64 start, deadline;

	/*
	 * Not local_clock(): with an unstable TSC (QEMU TCG) it is clamped to
	 * the last tick, and with IRQs off there is no next tick: the wait
	 * would never end. The fast monotonic clock reads the clocksource.
	 */
	start = ktime_get_mono_fast_ns();
	kc_watch_send(slot, get_cpu());
	timeout = READ_ONCE(kc_settings.arm_timeout_us);
	deadline = start + (u64)timeout * NSEC_PER_USEC;
	/* bounded twice: by the clock, and by counting microsecond delays */
	for (spins = 0; spins <= timeout; spins++) {
		complete = kc_watch_scan_acks(slot, seq);
		if (complete || ktime_get_mono_fast_ns() > deadline)
			break;
		udelay(1);
	}
	put_cpu();
	if (!complete)
		return kc_watch_count_acked(slot, seq, true);
	kc_watch_note_latency(slot);
	return num_online_cpus();
}

/* Debugfs: the recorded arm latencies, one per line, oldest first. */
int kc_watch_latency_show(struct seq_file *m, void *v)
{
	unsigned int next = atomic_read(&kc_arm_latency_next), i, n;

	n = min_t(unsigned int, next, KC_LATENCY_RING);
	for (i = next - n + 1; n--; i++)
		seq_printf(m, "%u\n", kc_arm_latency_ns[i % KC_LATENCY_RING]);
	return 0;
}

/* Debugfs: the recently watched ranges, "address size", oldest first. */
int kc_watch_watched_show(struct seq_file *m, void *v)
{
	unsigned int next = atomic_read(&kc_watched_next), i, n;

	n = min_t(unsigned int, next, KC_WATCHED_RING);
	for (i = next - n + 1; n--; i++)
		seq_printf(m, "%lx %u\n", kc_watched_addr[i % KC_WATCHED_RING],
			   kc_watched_size[i % KC_WATCHED_RING]);
	return 0;
}

/*
 * Re-apply an open window everywhere: text_poke on any CPU (a probe
 * rotated by another tool, a static key) reloads its debug registers with
 * the placeholder; the IPI callback counts and repairs that.
 */
void kc_watch_refresh(struct kc_slot *slot)
{
	/*
	 * With perf's copy mirrored, text_poke() restores the watch itself:
	 * the IPIs would only interrupt every CPU each time. A reinstall of
	 * perf's event (rare) is then repaired by the slot's next window.
	 */
	if (kc_cpu_debugreg)
		return;
	/*
	 * Not waiting for the acks: a sleeping window must not spin with
	 * preemption off; kc_watch_complete() sees them land.
	 */
	kc_watch_post(slot);
}

/*
 * The sampler's text patching reloaded this CPU's debug registers from
 * perf's copy: put the open windows' watches back at once.
 */
void kc_watch_repair_local(void)
{
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	for (i = 0; i < kc_nr_slots; i++)
		if (atomic_read(&kc_slots[i].open))
			kc_watch_apply_local(&kc_slots[i]);
	local_irq_restore(flags);
}

static u8 kc_len_bits(unsigned int size)
{
	switch (size) {
	case 1:
		return X86_BREAKPOINT_LEN_1;
	case 2:
		return X86_BREAKPOINT_LEN_2;
	case 4:
		return X86_BREAKPOINT_LEN_4;
	default:
		return X86_BREAKPOINT_LEN_8;
	}
}

/*
 * Watch @addr on every online CPU. With @wait, spins until they have all
 * acknowledged or arm_timeout_us passed (a window that must not sleep);
 * without, returns at once and kc_watch_complete() says when the watch
 * has taken everywhere: a thread that may sleep waits for that sleeping,
 * which under QEMU TCG leaves its host core to the vCPUs the IPIs went to.
 * Returns on how many CPUs the watch is known to hold.
 */
unsigned int kc_watch_arm(struct kc_slot *slot, unsigned long addr,
			  unsigned int size, bool watch_reads, bool wait)
{
	bool reads_unwanted = kc_watch_split_hazard(addr, size, watch_reads);
	unsigned int armed;
	int i;

	for (i = 0; i < KC_MAX_TRAPS; i++)
		atomic_set(&slot->trap_done[i], 0);
	atomic_set(&slot->nr_traps, 0);
	atomic_long_set(&slot->trap_site, 0);
	atomic_set(&slot->traps_mixed, 0);
	slot->armed_ns = ktime_get_mono_fast_ns();
	slot->latency_noted = false;
	slot->scan_seq = KC_SEQ_NONE;
	slot->scan_checks = 0;
	kc_watch_note_range(addr, size);
	slot->reads_unwanted = reads_unwanted;
	if (reads_unwanted) {
		slot->value_size = size;
		kc_trap_note_value(slot, addr);
	}
	kc_watch_publish(slot, true, addr, kc_len_bits(size),
			 watch_reads || reads_unwanted ? X86_BREAKPOINT_RW :
							 X86_BREAKPOINT_WRITE);
	atomic_set_release(&slot->open, 1);
	if (wait) {
		armed = kc_watch_propagate(slot);
	} else {
		kc_watch_post(slot);
		armed = kc_watch_count_acked(slot, READ_ONCE(slot->seq), true);
	}
	return armed;
}

/*
 * Not waiting for the acknowledgements: the #DB callback's generation
 * check already refuses any trap of a CPU that has not parked the
 * register yet, and a later arming of the slot finds such a CPU's IPI
 * still queued, which then applies the newer state.
 */
void kc_watch_disarm(struct kc_slot *slot)
{
	kc_watch_publish(slot, false, slot->addr, slot->len, slot->type);
	atomic_set_release(&slot->open, 0);
	kc_watch_post(slot);
}

bool kc_watch_trapped(struct kc_slot *slot)
{
	return atomic_read(&slot->nr_traps) > 0;
}

unsigned int kc_watch_nr_traps(struct kc_slot *slot)
{
	return atomic_read(&slot->nr_traps);
}

#define KC_TRAP_RECORD_WAIT_NS	(10 * NSEC_PER_MSEC)

/*
 * The first complete trap record of the window just closed. A #DB handler
 * still writing its record (its vCPU descheduled by the host, past the
 * disarm timeout) is waited for, bounded: without it the report would
 * lose its racer and read as a write of unknown origin.
 */
bool kc_watch_take_trap(struct kc_slot *slot, struct kc_side *racer,
			struct kc_regs *regs)
{
	int i, n = min(atomic_read(&slot->nr_traps), KC_MAX_TRAPS);
	u64 deadline = ktime_get_mono_fast_ns() + KC_TRAP_RECORD_WAIT_NS;

	if (!n)
		return false;
	do {
		for (i = 0; i < n; i++) {
			if (atomic_read_acquire(&slot->trap_done[i])) {
				*racer = slot->traps[i];
				*regs = slot->trap_regs[i];
				return true;
			}
		}
		udelay(1);
	} while (ktime_get_mono_fast_ns() < deadline);
	return false;
}

struct kc_slot *kc_watch_claim(void)
{
	unsigned int i;

	for (i = 0; i < kc_nr_slots; i++)
		if (!atomic_cmpxchg(&kc_slots[i].claimed, 0, 1))
			return &kc_slots[i];
	return NULL;
}
NOKPROBE_SYMBOL(kc_watch_claim);

void kc_watch_release(struct kc_slot *slot)
{
	atomic_set_release(&slot->claimed, 0);
}
NOKPROBE_SYMBOL(kc_watch_release);

/* Another online CPU than the caller's, one that can go offline if any. */
static int kc_watch_selftest_cpu(void)
{
	int self = raw_smp_processor_id(), cpu, other = nr_cpu_ids;

	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		if (cpu_is_hotpluggable(cpu))
			return cpu;
		other = cpu;
	}
	return other;
}

/*
 * A self-test's tries, each on a CPU other than the caller's, for as long
 * as a try could not make its setting (-EAGAIN). The caller stays on its
 * CPU so that the other one stays other: its thread is the one the test
 * holds or lets idle.
 */
static int kc_watch_selftest_run(size_t size, int tries,
				 int (*once)(struct kc_slot *slot, void *arg,
					     int cpu))
{
	struct kc_slot *slot;
	int cpu, i, ret = -EAGAIN;
	void *arg;

	arg = kzalloc(size, GFP_KERNEL);
	if (!arg)
		return -ENOMEM;
	slot = kc_watch_claim();
	if (!slot) {
		kfree(arg);
		return -EBUSY;
	}
	WRITE_ONCE(slot->selftest, true);
	migrate_disable();
	cpu = kc_watch_selftest_cpu();
	for (i = 0; i < tries && ret == -EAGAIN && cpu < nr_cpu_ids; i++)
		ret = once(slot, arg, cpu);
	migrate_enable();
	WRITE_ONCE(slot->selftest, false);
	kc_watch_release(slot);
	kfree(arg);
	return cpu < nr_cpu_ids ? ret : -ENODEV;
}

/*
 * The idle self-test: a thread on another CPU waits, that CPU idles, a
 * watch is armed without waiting for it, and the thread, woken, writes
 * the watched word. Its write must trap: the arming IPI lands before the
 * woken thread runs.
 */
struct kc_idle_test {
	struct completion go;
	atomic_t waiting;
	unsigned long word;
	struct kc_side racer;
	struct kc_regs regs;
};

#define KC_IDLE_TEST_MS		1000
#define KC_IDLE_TEST_TRIES	5

static int kc_idle_test_writer(void *data)
{
	struct kc_idle_test *t = data;

	atomic_set(&t->waiting, 1);
	wait_for_completion(&t->go);
	WRITE_ONCE(t->word, t->word + 1);
	return 0;
}

/* The writer waits for its go, and its CPU runs the idle task. */
static bool kc_idle_test_ready(struct kc_idle_test *t, int cpu)
{
	return atomic_read(&t->waiting) && kc_watch_cpu_idle(cpu);
}

static bool kc_idle_test_wait_idle(struct kc_idle_test *t, int cpu)
{
	u64 end = ktime_get_mono_fast_ns() + KC_IDLE_TEST_MS * NSEC_PER_MSEC;

	while (!kc_idle_test_ready(t, cpu) && ktime_get_mono_fast_ns() < end)
		usleep_range(1000, 1100);
	return kc_idle_test_ready(t, cpu);
}

/*
 * One try: 0 when the write trapped on @cpu, -EAGAIN when the setting
 * could not be made (@cpu never idle, a busy CPU never acknowledged),
 * -EIO when the write went uncaught.
 */
static int kc_idle_test_once(struct kc_slot *slot, void *arg, int cpu)
{
	struct kc_idle_test *t = arg;
	unsigned long before = t->word;
	struct task_struct *writer;
	unsigned int armed;
	int ret = -EAGAIN;

	init_completion(&t->go);
	atomic_set(&t->waiting, 0);
	writer = kthread_create(kc_idle_test_writer, t, "kc_idle_test");
	if (IS_ERR(writer))
		return PTR_ERR(writer);
	kthread_bind(writer, cpu);
	get_task_struct(writer);
	wake_up_process(writer);
	if (kc_idle_test_wait_idle(t, cpu)) {
		armed = kc_watch_arm(slot, (unsigned long)&t->word,
				     sizeof(t->word), false, true);
		if (armed >= num_online_cpus())
			ret = 0;
	}
	complete(&t->go);
	/* the writer's #DB has run when it has exited */
	kthread_stop(writer);
	put_task_struct(writer);
	/* a writer stopped before it ran never wrote */
	if (READ_ONCE(t->word) == before)
		ret = -EAGAIN;
	if (!ret && (!kc_watch_take_trap(slot, &t->racer, &t->regs) ||
		     t->racer.cpu != cpu))
		ret = -EIO;
	kc_watch_disarm(slot);
	return ret;
}

/* From process context: 0, or why the write went uncaught (-EIO). */
int kc_watch_idle_selftest(void)
{
	return kc_watch_selftest_run(sizeof(struct kc_idle_test),
				     KC_IDLE_TEST_TRIES, kc_idle_test_once);
}

/*
 * The acknowledgement scan's self-test: a thread on another CPU keeps its
 * interrupts off, so that CPU neither takes the arming IPI nor counts as
 * idle. While it is held, polling the watch must not find it complete
 * and must examine each CPU once and the held one once a poll, not every
 * CPU a poll; let go, the CPU takes the IPI and the watch completes.
 */
#define KC_ACKSCAN_HOLD_MS	500
#define KC_ACKSCAN_POLLS	200
#define KC_ACKSCAN_TRIES	5

enum kc_ackscan_state {
	KC_ACKSCAN_ASKED,
	KC_ACKSCAN_HOLDING,
	KC_ACKSCAN_LET_GO,
	KC_ACKSCAN_DONE,
};

struct kc_ackscan_test {
	atomic_t state;
	unsigned long word;
};

static int kc_ackscan_holder(void *arg)
{
	struct kc_ackscan_test *t = arg;
	u64 end = ktime_get_mono_fast_ns() + KC_ACKSCAN_HOLD_MS * NSEC_PER_MSEC;
	unsigned long flags;

	local_irq_save(flags);
	if (atomic_cmpxchg(&t->state, KC_ACKSCAN_ASKED,
			   KC_ACKSCAN_HOLDING) == KC_ACKSCAN_ASKED)
		while (atomic_read(&t->state) == KC_ACKSCAN_HOLDING &&
		       ktime_get_mono_fast_ns() < end)
			cpu_relax();
	/*
	 * Done before the interrupts are back: the arming IPI's ack comes
	 * after, and a poller that sees it sees this too. Held until the
	 * deadline, the other order let a late poller find the watch
	 * complete while the state still said held.
	 */
	atomic_set(&t->state, KC_ACKSCAN_DONE);
	local_irq_restore(flags);
	return 0;
}

/* The holder is told to let go, or not to hold if it has not started. */
static void kc_ackscan_let_go(struct kc_ackscan_test *t)
{
	int seen = atomic_read(&t->state);

	while (seen < KC_ACKSCAN_LET_GO &&
	       !atomic_try_cmpxchg(&t->state, &seen, KC_ACKSCAN_LET_GO))
		;
}

static bool kc_ackscan_wait_state(struct kc_ackscan_test *t, int state)
{
	u64 end = ktime_get_mono_fast_ns() + KC_ACKSCAN_HOLD_MS * NSEC_PER_MSEC;

	while (atomic_read(&t->state) != state &&
	       ktime_get_mono_fast_ns() < end)
		usleep_range(100, 200);
	return atomic_read(&t->state) == state;
}

/* Polls while the other CPU is held: 0, or -EPROTO or -EIO as above. */
static int kc_ackscan_poll_held(struct kc_slot *slot, struct kc_ackscan_test *t)
{
	unsigned int i;
	bool complete = false;

	kc_watch_arm(slot, (unsigned long)&t->word, sizeof(t->word), false,
		     false);
	for (i = 0; i < KC_ACKSCAN_POLLS && !complete; i++) {
		complete = kc_watch_complete(slot);
		udelay(1);
	}
	if (atomic_read(&t->state) != KC_ACKSCAN_HOLDING)
		return -EAGAIN;
	if (complete)
		return -EPROTO;
	if (slot->scan_checks > num_online_cpus() + KC_ACKSCAN_POLLS)
		return -EIO;
	return 0;
}

static int kc_ackscan_test_once(struct kc_slot *slot, void *arg, int cpu)
{
	struct kc_ackscan_test *t = arg;
	struct task_struct *holder;
	u64 end;
	int ret = -EAGAIN;

	atomic_set(&t->state, KC_ACKSCAN_ASKED);
	holder = kthread_create(kc_ackscan_holder, t, "kc_ackscan_test");
	if (IS_ERR(holder))
		return PTR_ERR(holder);
	kthread_bind(holder, cpu);
	get_task_struct(holder);
	wake_up_process(holder);
	if (kc_ackscan_wait_state(t, KC_ACKSCAN_HOLDING)) {
		ret = kc_ackscan_poll_held(slot, t);
		kc_ackscan_let_go(t);
		end = ktime_get_mono_fast_ns() +
		      KC_ACKSCAN_HOLD_MS * NSEC_PER_MSEC;
		while (ret == 0 && !kc_watch_complete(slot)) {
			if (ktime_get_mono_fast_ns() > end) {
				ret = -ETIMEDOUT;
				break;
			}
			usleep_range(100, 200);
		}
		kc_watch_disarm(slot);
	}
	kc_ackscan_let_go(t);
	kthread_stop(holder);
	put_task_struct(holder);
	return ret;
}

/*
 * From process context: 0; -EPROTO if the watch was complete with a CPU
 * that cannot have taken it, -EIO if the polls examined every CPU each
 * time, -ETIMEDOUT if it never completed once the CPU was let go.
 */
int kc_watch_ackscan_selftest(void)
{
	return kc_watch_selftest_run(sizeof(struct kc_ackscan_test),
				     KC_ACKSCAN_TRIES, kc_ackscan_test_once);
}

/*
 * The hotplug self-test: another CPU taken offline, a watch armed
 * meanwhile, the CPU brought back while the window is open. A thread
 * bound to it then writes the watched word, and the write must trap
 * there: the CPU took the open window's watch as it came up.
 */
struct kc_hotplug_test {
	struct completion written;
	unsigned long word;
	struct kc_side racer;
	struct kc_regs regs;
};

#define KC_HOTPLUG_TEST_MS	5000
#define KC_HOTPLUG_TEST_TRIES	5

static int kc_hotplug_test_writer(void *data)
{
	struct kc_hotplug_test *t = data;

	WRITE_ONCE(t->word, t->word + 1);
	complete(&t->written);
	return 0;
}

/* The write of a thread bound to @cpu: 0 once it is done. */
static int kc_hotplug_test_write_on(struct kc_hotplug_test *t, int cpu)
{
	struct task_struct *writer;
	int ret = 0;

	init_completion(&t->written);
	writer = kthread_create(kc_hotplug_test_writer, t, "kc_hotplug_test");
	if (IS_ERR(writer))
		return PTR_ERR(writer);
	kthread_bind(writer, cpu);
	get_task_struct(writer);
	wake_up_process(writer);
	if (!wait_for_completion_timeout(&t->written,
					 msecs_to_jiffies(KC_HOTPLUG_TEST_MS)))
		ret = -ETIMEDOUT;
	kthread_stop(writer);
	put_task_struct(writer);
	return ret;
}

/*
 * One try: 0 when the write trapped on @cpu; -EAGAIN when the CPU could
 * not go offline for now; -EIO when the write went uncaught.
 */
static int kc_hotplug_test_once(struct kc_slot *slot, void *arg, int cpu)
{
	struct kc_hotplug_test *t = arg;
	int ret;

	if (!cpu_is_hotpluggable(cpu))
		return -ENODEV;
	ret = remove_cpu(cpu);
	if (ret)
		return ret == -EBUSY ? -EAGAIN : ret;
	kc_watch_arm(slot, (unsigned long)&t->word, sizeof(t->word), false,
		     true);
	ret = add_cpu(cpu);
	if (!ret)
		ret = kc_hotplug_test_write_on(t, cpu);
	if (!ret && (!kc_watch_take_trap(slot, &t->racer, &t->regs) ||
		     t->racer.cpu != cpu))
		ret = -EIO;
	kc_watch_disarm(slot);
	/* a CPU that did not come back is left as the test found it */
	if (!cpu_online(cpu) && add_cpu(cpu) && !ret)
		ret = -EREMOTEIO;
	return ret;
}

/*
 * From process context: 0; -EIO if the CPU brought up during the window
 * did not watch, -ENODEV if no other CPU can go offline.
 */
int kc_watch_hotplug_selftest(void)
{
	return kc_watch_selftest_run(sizeof(struct kc_hotplug_test),
				     KC_HOTPLUG_TEST_TRIES,
				     kc_hotplug_test_once);
}

u64 kc_watch_read_value(unsigned long addr, unsigned int size)
{
	u64 v = 0;

	get_cpu();
	kc_own_access_begin();
	if (copy_from_kernel_nofault(&v, (void *)addr, size))
		v = 0;
	kc_own_access_end();
	put_cpu();
	return v;
}
NOKPROBE_SYMBOL(kc_watch_read_value);

/*
 * Whether every access the window caught came from one instruction, beyond
 * the few traps recorded whole: the lossy-counter filter trusts a count
 * that went down only when no other code (a reset) wrote it meanwhile.
 */
static void kc_note_trap_site(struct kc_slot *slot, unsigned long ip)
{
	long first = atomic_long_cmpxchg(&slot->trap_site, 0, ip);

	if (first && first != ip)
		atomic_set(&slot->traps_mixed, 1);
}

bool kc_watch_traps_one_site(struct kc_slot *slot)
{
	return atomic_read(&slot->nr_traps) &&
	       !atomic_read(&slot->traps_mixed);
}

/*
 * What the racer's store left, and what a load that started before the
 * watch could have read, in one copy (#DB runs with DR7 cleared: no
 * trap). A neighbour that faults (an object next to a guard page) costs
 * the bytes around, not the watched ones.
 */
static void kc_copy_trap_bytes(struct kc_side *a, unsigned long addr)
{
	a->has_trap_around =
		!copy_from_kernel_nofault(a->trap_around,
					  (void *)(addr - KC_TRAP_BEFORE),
					  sizeof(a->trap_around));
	a->has_trap_value = a->has_trap_around ||
		!copy_from_kernel_nofault(a->trap_around + KC_TRAP_BEFORE,
					  (void *)addr, sizeof(u64));
}
NOKPROBE_SYMBOL(kc_copy_trap_bytes);

/* #DB, NMI-like: record only; decoding and printing happen later. */
static void kc_watch_hit(struct perf_event *bp, struct perf_sample_data *data,
			 struct pt_regs *regs)
{
	struct kc_slot *slot = bp->overflow_handler_context;
	struct kc_watch_cpu *wc = this_cpu_ptr(&kc_watch_cpu);
	int drn = wc->drn[slot->index];
	unsigned long pc = preempt_count() - (NMI_OFFSET + HARDIRQ_OFFSET);
	struct pt_regs fixed;
	struct kc_side *a;
	bool emulated;
	int n;

	/*
	 * The generation check: this CPU's register must hold the state
	 * published for the window now open. A #DB whose vCPU the host
	 * descheduled until after the window closed and the slot's next
	 * one opened (on the same address, even) belongs to no window.
	 * No IPI can update the register while we run with IRQs off.
	 */
	if (!atomic_read_acquire(&slot->open) || drn < 0 ||
	    READ_ONCE(wc->acked[slot->index]) != READ_ONCE(slot->seq) ||
	    kc_dr_read(drn) != READ_ONCE(slot->addr) ||
	    !READ_ONCE(slot->active)) {
		atomic_long_inc(&kc_stats.late_traps);
		return;
	}
	if (READ_ONCE(slot->reads_unwanted) && kc_trap_kept_value(slot)) {
		atomic_long_inc(&kc_stats.split_read_traps);
		return;
	}
	/*
	 * A load an int3 carries out: the context it interrupted raced. An
	 * NMI that came in meanwhile nests one level deeper, and raced itself.
	 */
	emulated = !((pc - (NMI_OFFSET + HARDIRQ_OFFSET)) & NMI_MASK) &&
		   kc_emulating(&fixed);
	if (emulated) {
		regs = &fixed;
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	}
	/* A stalled thread's own task-context accesses are the detector's. */
	if ((kc_ctx_of(pc) == KC_CTX_TASK && kc_task_is_sampled(current)) ||
	    this_cpu_read(kc_cpu_reading))
		return;
	if (!emulated)
		regs = kc_racer_regs(regs, &fixed);
	/*
	 * The detector's own code reads shared state of its own accord (the
	 * profile reads a sleeping task's state): never a racer to report.
	 */
	if (within_module_core(regs->ip, THIS_MODULE) &&
	    !READ_ONCE(slot->selftest)) {
		atomic_long_inc(&kc_stats.traps_own);
		return;
	}
	kc_note_trap_site(slot, regs->ip);
	n = atomic_inc_return(&slot->nr_traps) - 1;
	if (n >= KC_MAX_TRAPS)
		return;
	a = &slot->traps[n];
	memset(a, 0, sizeof(*a));
	kc_regs_from_pt(regs, &slot->trap_regs[n]);
	a->trap_ip = regs->ip;
	a->stepping = regs == &fixed && !emulated;
	a->carried = emulated;
	kc_copy_trap_bytes(a, READ_ONCE(slot->addr));
	a->cpu = raw_smp_processor_id();
	a->ctx = kc_ctx_of(pc);
	a->irqs_on = !!(regs->flags & X86_EFLAGS_IF);
	a->pid = a->ctx == KC_CTX_TASK ? task_pid_nr(current) : 0;
	memcpy(a->comm, current->comm, sizeof(a->comm));
	kc_unwind_regs(regs, a);
	kc_locks_capture(a);
	atomic_set_release(&slot->trap_done[n], 1);
}
NOKPROBE_SYMBOL(kc_watch_hit);

/* The module's own memory: never a watch target. */
bool kc_addr_is_detector(unsigned long addr, unsigned int size)
{
	unsigned long base = (unsigned long)THIS_MODULE->core_layout.base;
	unsigned long end = base + THIS_MODULE->core_layout.size;

	return addr + size > base && addr < end;
}

/*
 * The per-CPU pointers of our breakpoints, read by the arming IPI: dynamic
 * per-CPU data, in the first chunk or in a later one (vmalloc space).
 */
static bool kc_addr_own_percpu(unsigned long addr, unsigned int size)
{
	unsigned long p;
	unsigned int i;
	int cpu;

	if (!kc_percpu_in_first_chunk(addr, size) && !is_vmalloc_addr((void *)addr))
		return false;
	for (i = 0; i < kc_nr_slots; i++) {
		if (!kc_slots[i].bp)
			continue;
		for_each_possible_cpu(cpu) {
			p = (unsigned long)per_cpu_ptr(kc_slots[i].bp, cpu);
			if (addr + size > p && addr < p + sizeof(void *))
				return true;
		}
	}
	return false;
}

/*
 * ioremap()ed device memory lives in the vmalloc area too. A watch on it
 * would be harmless, but a window reads the value twice and the #DB
 * callback once, and reading a device register can act on the device
 * (virtio's ISR status clears on read, FIFOs pop). Only memory mapped
 * write-back onto RAM is watched. A lockless walk of init_mm's tables:
 * int3 context.
 */
static bool kc_addr_is_wb_ram(unsigned long addr)
{
	unsigned int level;
	pte_t *pte = lookup_address(addr, &level);
	pte_t entry;

	if (!pte)
		return false;
	entry = READ_ONCE(*pte);
	if (!pte_present(entry) ||
	    (pte_flags(entry) & (_PAGE_PCD | _PAGE_PWT)) ||
	    (pte_flags(entry) & (level == PG_LEVEL_4K ? _PAGE_PAT :
						      _PAGE_PAT_LARGE)))
		return false;
	return pfn_valid(pte_pfn(entry));
}
NOKPROBE_SYMBOL(kc_addr_is_wb_ram);

/*
 * KASAN's inline check before each access reads the access's shadow
 * byte: that instruction only ever reads the shadow, never watchable.
 */
bool kc_addr_is_kasan_shadow(unsigned long addr)
{
#ifdef CONFIG_KASAN
	return addr >= KASAN_SHADOW_START && addr < KASAN_SHADOW_END;
#else
	return false;
#endif
}
NOKPROBE_SYMBOL(kc_addr_is_kasan_shadow);

/*
 * Only memory a data race can live in: the direct map (slab, pages,
 * dynamic per-CPU data), vmalloc space (RAM there, not device registers:
 * every page the access touches is looked up, in int3 context), module
 * data and the kernel image; never what the #DB entry path itself reads
 * (see within_cpu_entry()) or the per-CPU data the trap paths touch.
 * Returns -1 for a watchable range, else the skip reason.
 */
int kc_addr_refusal(unsigned long addr, unsigned int size)
{
	unsigned long offs = (unsigned long)&__per_cpu_offset[0];

	if (addr < TASK_SIZE_MAX || addr + size < addr)
		return KC_SKIP_FORBIDDEN;
	if (addr + size > offs && addr < offs + sizeof(__per_cpu_offset))
		return KC_SKIP_FORBIDDEN;
	if (kc_addr_is_detector(addr, size))
		return KC_SKIP_FORBIDDEN;
	if (kc_addr_own_percpu(addr, size) ||
	    kc_percpu_denied(addr, size))
		return KC_SKIP_PERCPU_DENIED;
	if (addr >= PAGE_OFFSET && addr < (unsigned long)high_memory)
		return -1;
	if (is_vmalloc_addr((void *)addr))
		return !kc_addr_is_wb_ram(addr) ||
		       (((addr ^ (addr + size - 1)) & PAGE_MASK) &&
			!kc_addr_is_wb_ram(addr + size - 1)) ?
		       KC_SKIP_FORBIDDEN : -1;
	if (addr >= MODULES_VADDR && addr < MODULES_END)
		return -1;
	if (addr >= __START_KERNEL_map &&
	    addr < __START_KERNEL_map + KERNEL_IMAGE_SIZE)
		return -1;
	return KC_SKIP_FORBIDDEN;
}
NOKPROBE_SYMBOL(kc_addr_refusal);

static void kc_watch_scan_cpu(void *unused)
{
	struct kc_watch_cpu *wc = this_cpu_ptr(&kc_watch_cpu);
	unsigned int i;

	for (i = 0; i < kc_nr_slots; i++) {
		wc->written[i] = kc_slot_parked(&kc_slots[i]);
		wc->drn[i] = -1;
		wc->holds[i] = false;
		wc->acked[i] = KC_SEQ_NONE;
		if (*this_cpu_ptr(kc_slots[i].bp))
			kc_watch_find_drn(&kc_slots[i], wc);
	}
}

static struct perf_event *kc_watch_event_new(struct kc_slot *slot, int cpu)
{
	struct perf_event_attr attr;

	hw_breakpoint_init(&attr);
	attr.bp_addr = kc_slot_parked(slot);
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	return perf_event_create_kernel_counter(&attr, cpu, NULL, kc_watch_hit,
						slot);
}

/*
 * CPU hotplug, on the CPU itself. A wide breakpoint has events only for
 * the CPUs online when it was registered, and an offlined CPU's event is
 * detached for good: each CPU coming up gets events of its own, each
 * going down gives them back. Until then the CPU holds no register and
 * is never counted as armed.
 *
 * The CPU is online before this runs, so an arming IPI may already have
 * found it without events; and a window's acknowledgement scan may be
 * past its number. It applies every slot's published state itself, so a
 * window open as it comes up watches here too; a later arming reaches it
 * by IPI like any CPU.
 */
static int kc_watch_cpu_up(unsigned int cpu)
{
	struct perf_event *bp;
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < kc_nr_slots; i++) {
		if (*per_cpu_ptr(kc_slots[i].bp, cpu))
			continue;
		bp = kc_watch_event_new(&kc_slots[i], cpu);
		if (IS_ERR(bp)) {
			pr_warn("CPU %u: no watch slot %u: %ld\n", cpu, i,
				PTR_ERR(bp));
			continue;
		}
		*per_cpu_ptr(kc_slots[i].bp, cpu) = bp;
	}
	local_irq_save(flags);
	kc_watch_scan_cpu(NULL);
	for (i = 0; i < kc_nr_slots; i++)
		kc_watch_apply_local(&kc_slots[i]);
	local_irq_restore(flags);
	return 0;
}

static int kc_watch_cpu_down(unsigned int cpu)
{
	struct kc_watch_cpu *wc = per_cpu_ptr(&kc_watch_cpu, cpu);
	struct perf_event *bp;
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < kc_nr_slots; i++) {
		local_irq_save(flags);
		bp = *per_cpu_ptr(kc_slots[i].bp, cpu);
		*per_cpu_ptr(kc_slots[i].bp, cpu) = NULL;
		wc->drn[i] = -1;
		wc->holds[i] = false;
		local_irq_restore(flags);
		if (bp)
			perf_event_release_kernel(bp);
	}
	return 0;
}

static void kc_watch_unregister(unsigned int n)
{
	while (n--) {
		unregister_wide_hw_breakpoint(kc_slots[n].bp);
		kc_slots[n].bp = NULL;
	}
}

static void kc_split_probe_trap(struct perf_event *bp,
				struct perf_sample_data *data,
				struct pt_regs *regs)
{
}

static bool kc_cmpxchg16b_unlocked(u64 *pair, u64 old_lo, u64 old_hi,
				   u64 new_lo, u64 new_hi)
{
	bool ok;

	asm volatile("cmpxchg16b %[pair]"
		     CC_SET(z)
		     : CC_OUT(z) (ok), [pair] "+m" (*(u64 (*)[2])pair),
		       "+a" (old_lo), "+d" (old_hi)
		     : "b" (new_lo), "c" (new_hi)
		     : "memory");
	return ok;
}

static void kc_split_probe_run(void *split)
{
	WRITE_ONCE(kc_split_probe_pair[0], 1);
	WRITE_ONCE(kc_split_probe_pair[1], 2);
	*(bool *)split = !kc_cmpxchg16b_unlocked(kc_split_probe_pair, 1, 2,
						 3, 4) ||
			 READ_ONCE(kc_split_probe_pair[1]) != 4;
}

/*
 * Whether this CPU splits a compare-exchange at a watchpoint: one that
 * must succeed, on a word of ours with its upper half watched.
 */
static void kc_split_probe(void)
{
	struct perf_event_attr attr;
	struct perf_event *bp;
	bool split = false;
	int cpu;

	if (!boot_cpu_has(X86_FEATURE_CX16))
		return;
	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&kc_split_probe_pair[1];
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	bp = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      kc_split_probe_trap, NULL);
	if (!IS_ERR(bp)) {
		smp_call_function_single(cpu, kc_split_probe_run, &split, 1);
		perf_event_release_kernel(bp);
	}
	cpus_read_unlock();
	if (IS_ERR(bp))
		pr_info("no breakpoint to test compare-exchanges with (%ld): taken as whole\n",
			PTR_ERR(bp));
	else if (split)
		pr_info("a watchpoint splits 16-byte compare-exchanges here (QEMU TCG): upper halves are watched for reads too\n");
	kc_split_rmw = split;
}

int kc_watch_init(unsigned int nr_slots)
{
	struct perf_event_attr attr;
	unsigned int i;
	int cpu, ret;

	kc_nr_slots = nr_slots;
	kc_split_probe();
	kc_percpu_init();
	kc_find_cpu_debugreg();
	if (!kc_cpu_debugreg)
		pr_info("perf's debug-register copy not found: watches reset by text patching are repaired late\n");
	for (i = 0; i < nr_slots; i++) {
		struct kc_slot *slot = &kc_slots[i];

		slot->index = i;
		hw_breakpoint_init(&attr);
		attr.bp_addr = kc_slot_parked(slot);
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		attr.bp_type = HW_BREAKPOINT_W;
		slot->bp = register_wide_hw_breakpoint(&attr, kc_watch_hit,
						       slot);
		if (IS_ERR((void __force *)slot->bp)) {
			int ret = PTR_ERR((void __force *)slot->bp);

			pr_err("cannot reserve watch slot %u: %d\n", i, ret);
			slot->bp = NULL;
			kc_watch_unregister(i);
			return ret;
		}
		slot->addr = kc_slot_parked(slot);
		for_each_possible_cpu(cpu)
			INIT_CSD(&per_cpu(kc_watch_cpu, cpu).csd[i],
				 kc_watch_ipi, slot);
	}
	/* the start-up callback also runs now, on every online CPU */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "kcollider/watch:online",
				kc_watch_cpu_up, kc_watch_cpu_down);
	if (ret < 0) {
		kc_watch_unregister(nr_slots);
		return ret;
	}
	kc_cpuhp_state = ret;
	return 0;
}

void kc_watch_exit(void)
{
	unsigned int i;

	for (i = 0; i < kc_nr_slots; i++) {
		kc_watch_publish(&kc_slots[i], false, kc_slot_parked(&kc_slots[i]),
				 kc_slots[i].len, kc_slots[i].type);
		atomic_set(&kc_slots[i].open, 0);
	}
	/* Every queued async IPI must run before its csd memory goes away. */
	while (atomic_read(&kc_ipis_in_flight))
		usleep_range(1000, 2000);
	cpus_read_lock();
	for (i = 0; i < kc_nr_slots; i++)
		on_each_cpu((smp_call_func_t)kc_watch_apply_local, &kc_slots[i], 1);
	cpus_read_unlock();
	/* the events, those of CPUs onlined since included, go with the slots */
	cpuhp_remove_state_nocalls(kc_cpuhp_state);
	kc_watch_unregister(kc_nr_slots);
}
