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
 *
 * The same watchdogs break the loops nothing is due to end. A vCPU can
 * keep a translation holding one of our int3s after every planned write
 * of its page is done, and kprobes retries such an int3 forever: a hunt
 * hung with three CPUs at the instruction after a call in a module, their
 * interrupts on, the byte there no int3. Such a CPU takes each of its
 * watchdog's ticks at the int3's address. So in a virtual machine (only
 * an emulator translates code: on bare metal nothing is watched), while
 * sampling and for a while after it, every CPU ticks, and a tick that
 * finds its CPU
 * interrupted at the very address of its last tick, an address we armed
 * since load whose byte is no int3, writes that page again (the same
 * byte, with cmpxchg) through a mapping of its own: a write QEMU notices
 * drops every translation that holds the byte. A hard interrupt cannot
 * map a page with vmap(), so each CPU owns a page of address space mapped
 * at load, whose PTE it points at the page for the write and back. A CPU running
 * legitimately at one site on two ticks costs one write of a byte with
 * its own value.
 *
 * A CPU that loops so with its interrupts off takes no tick at all. It
 * shows only by its silence: a watchdog that finds a CPU without a tick
 * for a while writes the sites armed last again, where such a
 * translation most likely comes from, and backs off while the silence
 * lasts, since a CPU may keep its interrupts off that long on its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <asm/irq_regs.h>
#include <asm/pgtable.h>
#include <asm/text-patching.h>

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
/* going down or down: no watchdog of its own, never silent */
static DEFINE_PER_CPU(bool, kc_rescue_parked);
static int kc_rescue_hp_state;

/* after sampling stops its stale int3s may still run: watch this long */
#define KC_LOOP_TAIL_MS		30000
#define KC_LOOP_WATCH_ALWAYS	ULONG_MAX
/* how long the loop self-test spins at most */
#define KC_LOOP_TEST_MS		2000
/*
 * How long the silent self-test waits with interrupts off at most: the
 * silence takes KC_SILENT_MS to be seen, and on a loaded host a vCPU may
 * wait that long again to run the watchdog that writes. Well within the
 * lockup detectors' ten seconds.
 */
#define KC_SILENT_TEST_MS	5000
#define KC_LOOP_SITE_BITS	20

/* jiffies loops are watched until; 0: not watched */
static unsigned long kc_loop_until;
/* every site armed since load, hashed: false hits cost a harmless write */
static unsigned long kc_loop_sites[BITS_TO_LONGS(1UL << KC_LOOP_SITE_BITS)];
static DEFINE_PER_CPU(unsigned long, kc_loop_last_ip);
static DEFINE_PER_CPU(unsigned long, kc_loops_broken);
/* a page of address space per CPU, and the PTE that maps it */
static u8 *kc_loop_slots;
static struct page *kc_loop_blank;
static DEFINE_PER_CPU(pte_t *, kc_loop_slot_pte);
/* the sites armed last, for a CPU that stays silent */
#define KC_LOOP_RECENT		1024
static unsigned long kc_loop_recent[KC_LOOP_RECENT];
static atomic_t kc_loop_recent_next = ATOMIC_INIT(0);
/* silent: no tick for this long, interrupts off all along */
#define KC_SILENT_MS		500
#define KC_SILENT_BACKOFF_MAX_MS	8000
/*
 * In the fast monotonic clock's ns, not jiffies: the silent CPU may be
 * the one that keeps jiffies going.
 */
static DEFINE_PER_CPU(u64, kc_loop_ticked);
/* before this no watchdog writes for a silent CPU again */
static u64 kc_silent_next;
static u64 kc_silent_backoff;
static DEFINE_PER_CPU(unsigned long, kc_silent_rewrites);
/*
 * The silent-CPU self-test's two sites, on one page, and which of them a
 * silent round wrote (bit 0, bit 1).
 */
static unsigned long kc_silent_test_sites[2];
static unsigned long kc_silent_test_written;
/* the self-tests share their timer and flags: one at a time */
static DEFINE_MUTEX(kc_loop_test_lock);
static bool kc_loop_test_done;
static struct hrtimer kc_loop_test_timer;
static unsigned long kc_loop_test_from;
static unsigned long kc_loop_test_end;

static bool kc_rescue_overdue(void)
{
	unsigned long due = READ_ONCE(kc_rescue_due);

	return due && time_after(jiffies,
				 due + msecs_to_jiffies(KC_RESCUE_GRACE_MS));
}

static bool kc_loop_watched(void)
{
	unsigned long until = READ_ONCE(kc_loop_until);

	return until == KC_LOOP_WATCH_ALWAYS ||
	       (until && time_before(jiffies, until));
}

void kc_rescue_note_site(unsigned long addr)
{
	unsigned int i = atomic_inc_return(&kc_loop_recent_next);

	set_bit(hash_long(addr, KC_LOOP_SITE_BITS), kc_loop_sites);
	WRITE_ONCE(kc_loop_recent[i % KC_LOOP_RECENT], addr);
}

static bool kc_loop_site_noted(unsigned long addr)
{
	return test_bit(hash_long(addr, KC_LOOP_SITE_BITS), kc_loop_sites);
}

/* The kernel text page at @addr, or NULL. Lock-free. */
static struct page *kc_loop_text_page(unsigned long addr)
{
	if (addr >= MODULES_VADDR && addr < MODULES_END)
		return vmalloc_to_page((void *)addr);
	if (addr >= __START_KERNEL_map &&
	    addr < __START_KERNEL_map + KERNEL_IMAGE_SIZE)
		return virt_to_page((void *)addr);
	return NULL;
}

/*
 * Writes the byte at @addr, which holds @old, with @old again through
 * this CPU's slot, lock-free: no other byte is touched and a concurrent
 * patch is never undone. The slot's TLB entry is filled afresh, as every
 * write of text needs under TCG (see the pool's kc_alias_cmpxchg()).
 * Whether the byte there was still @old. Interrupts off.
 */
static bool kc_loop_rewrite(unsigned long addr, u8 old)
{
	pte_t *ptep = __this_cpu_read(kc_loop_slot_pte);
	struct page *page = kc_loop_text_page(addr);
	bool same;
	u8 *slot;
	pte_t was;

	if (!ptep || !page)
		return false;
	slot = kc_loop_slots + smp_processor_id() * PAGE_SIZE;
	was = *ptep;
	set_pte(ptep, mk_pte(page, PAGE_KERNEL));
	asm volatile("invlpg (%0)" : : "r" (slot) : "memory");
	same = cmpxchg(slot + offset_in_page(addr), old, old) == old;
	set_pte(ptep, was);
	asm volatile("invlpg (%0)" : : "r" (slot) : "memory");
	/* the slot showed the byte the text holds: it mapped the right page */
	return same;
}
NOKPROBE_SYMBOL(kc_loop_rewrite);

/* From this CPU's watchdog: is it looping on a stale int3? */
static void kc_loop_check(void)
{
	struct pt_regs *regs = get_irq_regs();
	unsigned long ip = 0;
	u8 op;

	/*
	 * Idle waits at one address all day, never a site; a softirq run on
	 * an idle CPU is the idle task's too, and may loop.
	 */
	if (regs && !user_mode(regs) &&
	    (!is_idle_task(current) || in_serving_softirq()))
		ip = regs->ip;
	if (ip && ip == __this_cpu_read(kc_loop_last_ip) &&
	    kc_loop_site_noted(ip) &&
	    !get_kernel_nofault(op, (u8 *)ip) && op != INT3_INSN_OPCODE &&
	    kc_loop_rewrite(ip, op)) {
		__this_cpu_inc(kc_loops_broken);
		/* another write only after two more ticks there */
		ip = 0;
	}
	__this_cpu_write(kc_loop_last_ip, ip);
}

/*
 * A CPU that loops on a stale int3 with interrupts off takes no tick, and
 * its address is not to be seen; it has not ticked for a while. The sites
 * armed last are where such a translation most likely comes from: a
 * watchdog that finds a CPU silent writes them again, then waits
 * twice as long before it does so for a CPU still silent (a CPU may also
 * keep its interrupts off that long for reasons of its own).
 */
static bool kc_cpu_silent(u64 now)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (!READ_ONCE(per_cpu(kc_rescue_parked, cpu)) &&
		    now > READ_ONCE(per_cpu(kc_loop_ticked, cpu)) +
			  KC_SILENT_MS * NSEC_PER_MSEC)
			return true;
	return false;
}

static void kc_silent_test_count(unsigned long addr)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kc_silent_test_sites); i++)
		if (addr == READ_ONCE(kc_silent_test_sites[i]))
			set_bit(i, &kc_silent_test_written);
}

/*
 * The sites written. Every site is written, not one per page: a write
 * drops only the translations that hold its own bytes, and the stale int3
 * may be at any site of a page the sampler armed again and again. A site
 * twice in the ring is written once more unless the two are neighbours;
 * that write finds nothing to drop, and costs little.
 */
static unsigned int kc_loop_rewrite_recent(void)
{
	unsigned long addr, last = 0;
	unsigned int written = 0;
	int i;
	u8 op;

	for (i = 0; i < KC_LOOP_RECENT; i++) {
		addr = READ_ONCE(kc_loop_recent[i]);
		if (!addr || addr == last ||
		    get_kernel_nofault(op, (u8 *)addr) ||
		    op == INT3_INSN_OPCODE)
			continue;
		last = addr;
		if (kc_loop_rewrite(addr, op)) {
			written++;
			kc_silent_test_count(addr);
		}
	}
	return written;
}

static void kc_silent_check(u64 now)
{
	u64 next = READ_ONCE(kc_silent_next), backoff;

	if (!kc_cpu_silent(now)) {
		if (READ_ONCE(kc_silent_backoff)) {
			WRITE_ONCE(kc_silent_backoff, 0);
			WRITE_ONCE(kc_silent_next, 0);
		}
		return;
	}
	if (now < next)
		return;
	backoff = clamp_t(u64, 2 * READ_ONCE(kc_silent_backoff),
			  KC_SILENT_MS * NSEC_PER_MSEC,
			  KC_SILENT_BACKOFF_MAX_MS * NSEC_PER_MSEC);
	/* one watchdog writes for all */
	if (cmpxchg(&kc_silent_next, next, now + backoff) != next)
		return;
	WRITE_ONCE(kc_silent_backoff, backoff);
	if (kc_loop_rewrite_recent())
		__this_cpu_inc(kc_silent_rewrites);
}

/* Every CPU's watchdog counts as just ticked: it starts now. */
static void kc_loop_ticked_now(void)
{
	u64 now = ktime_get_mono_fast_ns();
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(kc_loop_ticked, cpu), now);
}

static bool kc_rescue_wanted(void)
{
	return READ_ONCE(kc_rescue_enabled) &&
	       (READ_ONCE(kc_rescue_due) || kc_loop_watched());
}

static enum hrtimer_restart kc_rescue_tick(struct hrtimer *t)
{
	/* moved here when its CPU went down: its CPU starts its own again */
	if (t != this_cpu_ptr(&kc_rescue_timer))
		return HRTIMER_NORESTART;
	if (kc_loop_watched()) {
		u64 now = ktime_get_mono_fast_ns();

		__this_cpu_write(kc_loop_ticked, now);
		kc_loop_check();
		kc_silent_check(now);
	}
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
	if (!kc_rescue_wanted())
		return HRTIMER_NORESTART;
	this_cpu_write(kc_rescue_ticking, true);
	hrtimer_forward_now(t, ms_to_ktime(KC_RESCUE_TICK_MS));
	return HRTIMER_RESTART;
}
NOKPROBE_SYMBOL(kc_rescue_tick);

/* On the watchdog's own CPU, interrupts off. */
static void kc_rescue_start_here(void)
{
	struct hrtimer *t = this_cpu_ptr(&kc_rescue_timer);

	if (READ_ONCE(kc_rescue_enabled) && !__this_cpu_read(kc_rescue_parked) &&
	    !hrtimer_is_queued(t)) {
		/* a CPU back online is not silent before its first tick */
		__this_cpu_write(kc_loop_ticked, ktime_get_mono_fast_ns());
		this_cpu_write(kc_rescue_ticking, true);
		hrtimer_start(t, ms_to_ktime(KC_RESCUE_TICK_MS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
}
NOKPROBE_SYMBOL(kc_rescue_start_here);

static void kc_rescue_start_local(void *unused)
{
	kc_rescue_start_here();
	/* our text's last access but the return: see kc_rescue_exit() */
	atomic_dec(&kc_rescue_csds_in_flight);
}
NOKPROBE_SYMBOL(kc_rescue_start_local);

/* Any context but int3 and NMI, interrupts off too. */
static void kc_rescue_start_all(void)
{
	int cpu;

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

/*
 * The watched work was queued to run @delay jiffies from now. Call after
 * queueing it: the work may already be running and clear the mark. Any
 * context but int3 and NMI, interrupts off too.
 */
void kc_rescue_expect(unsigned long delay)
{
	WRITE_ONCE(kc_rescue_due, (jiffies + delay) ?: 1);
	kc_rescue_start_all();
}

/*
 * Sampling starts (@sampling) or stops: loops are watched from now until
 * a while after it stops. Sleeps.
 */
void kc_rescue_watch_loops(bool sampling)
{
	unsigned long until = jiffies + msecs_to_jiffies(KC_LOOP_TAIL_MS);

	if (!kc_loop_slots || !boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return;
	if (sampling && !kc_loop_watched())
		kc_loop_ticked_now();
	WRITE_ONCE(kc_loop_until, sampling ? KC_LOOP_WATCH_ALWAYS : until ?: 1);
	kc_rescue_start_all();
}

/* Counters are per-CPU so that the watchdogs' hard interrupts never share one. */
static unsigned long kc_rescue_sum(unsigned long __percpu *counter)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += *per_cpu_ptr(counter, cpu);
	return n;
}

unsigned long kc_rescue_loops_broken(void)
{
	return kc_rescue_sum(&kc_loops_broken);
}

unsigned long kc_rescue_silent_rewrites(void)
{
	return kc_rescue_sum(&kc_silent_rewrites);
}

/* Ends the self-test's spin once its CPU's watchdog wrote, or too late. */
static enum hrtimer_restart kc_loop_test_tick(struct hrtimer *t)
{
	if (__this_cpu_read(kc_loops_broken) != kc_loop_test_from ||
	    time_after(jiffies, kc_loop_test_end)) {
		WRITE_ONCE(kc_loop_test_done, true);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(t, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

/* A self-test's: loops are watched for @ms at least from now. */
static void kc_loop_watch_for(unsigned int ms)
{
	unsigned long until = jiffies + msecs_to_jiffies(ms);
	unsigned long was = READ_ONCE(kc_loop_until);

	if (!kc_loop_watched())
		kc_loop_ticked_now();
	/* sampling's watch, or a longer one, stays */
	if (was != KC_LOOP_WATCH_ALWAYS && (!was || time_after(until, was)))
		cmpxchg(&kc_loop_until, was, until);
	kc_rescue_start_all();
}

/*
 * A loop on one instruction, the site kc_loop_spin_site, with interrupts
 * on: every interrupt lands at the site, as on a stale int3 kprobes
 * retries (under TCG, where interrupts land where a translated block
 * starts, and this one starts there).
 */
static noinline void kc_loop_spin(void)
{
	/* aligned: its two instructions share a page (the silent self-test) */
	asm volatile(".p2align 4\n"
		     "kc_loop_spin_site:\n\t"
		     "cmpb $0, %0\n"
		     "kc_loop_spin_branch:\n\t"
		     "je kc_loop_spin_site"
		     : : "m" (kc_loop_test_done) : "memory", "cc");
}

static unsigned long kc_loop_spin_addr(void)
{
	unsigned long site;

	asm("lea kc_loop_spin_site(%%rip), %0" : "=r" (site));
	return site;
}

static unsigned long kc_loop_spin_branch_addr(void)
{
	unsigned long site;

	asm("lea kc_loop_spin_branch(%%rip), %0" : "=r" (site));
	return site;
}

/*
 * The loop breaker's self-test: this CPU loops at a noted site with
 * interrupts on until its own watchdog wrote that site's page. 0, -EIO if
 * it did not in time, -ENODEV without the slots.
 */
int kc_rescue_loop_selftest(void)
{
	int ret;

	if (!kc_loop_slots)
		return -ENODEV;
	mutex_lock(&kc_loop_test_lock);
	kc_rescue_note_site(kc_loop_spin_addr());
	kc_loop_watch_for(2 * KC_LOOP_TEST_MS);
	preempt_disable();
	WRITE_ONCE(kc_loop_test_done, false);
	kc_loop_test_from = __this_cpu_read(kc_loops_broken);
	kc_loop_test_end = jiffies + msecs_to_jiffies(KC_LOOP_TEST_MS);
	hrtimer_start(&kc_loop_test_timer, ms_to_ktime(1),
		      HRTIMER_MODE_REL_PINNED_HARD);
	kc_loop_spin();
	ret = __this_cpu_read(kc_loops_broken) != kc_loop_test_from ?
	      0 : -EIO;
	preempt_enable();
	hrtimer_cancel(&kc_loop_test_timer);
	mutex_unlock(&kc_loop_test_lock);
	return ret;
}

/*
 * The silent-CPU rescue's self-test: this CPU keeps its interrupts off, as
 * one looping on a stale int3 inside spin_lock_irqsave() does, until
 * another CPU's watchdog has written the recent sites for it: both of two
 * sites noted on one page, since a write drops only the translations
 * holding its bytes. 0; -EIO if rounds were written but not both sites;
 * -ETIME if no watchdog wrote in time; -ENODEV on a single CPU or without
 * the slots.
 */
int kc_rescue_silent_selftest(void)
{
	unsigned long flags, from;
	int ms, ret = -EIO;

	if (!kc_loop_slots || num_online_cpus() < 2)
		return -ENODEV;
	mutex_lock(&kc_loop_test_lock);
	WRITE_ONCE(kc_silent_test_sites[0], kc_loop_spin_addr());
	WRITE_ONCE(kc_silent_test_sites[1], kc_loop_spin_branch_addr());
	WRITE_ONCE(kc_silent_test_written, 0);
	kc_rescue_note_site(kc_silent_test_sites[0]);
	kc_rescue_note_site(kc_silent_test_sites[1]);
	kc_loop_watch_for(2 * KC_SILENT_TEST_MS);
	/* a backoff left by an earlier silence would outlast the test */
	WRITE_ONCE(kc_silent_next, 0);
	WRITE_ONCE(kc_silent_backoff, 0);
	local_irq_save(flags);
	from = kc_rescue_silent_rewrites();
	for (ms = 0; ms < KC_SILENT_TEST_MS && ret; ms++) {
		mdelay(1);
		if (kc_rescue_silent_rewrites() == from)
			continue;
		/* a round begun before the sites were noted may miss one */
		ret = READ_ONCE(kc_silent_test_written) == 3 ? 0 : -EIO;
	}
	if (ret && kc_rescue_silent_rewrites() == from)
		ret = -ETIME;
	local_irq_restore(flags);
	WRITE_ONCE(kc_silent_test_sites[0], 0);
	WRITE_ONCE(kc_silent_test_sites[1], 0);
	mutex_unlock(&kc_loop_test_lock);
	return ret;
}

/* The watched work is running: what it queues again it expects again. */
void kc_rescue_ran(void)
{
	WRITE_ONCE(kc_rescue_due, 0);
}

unsigned long kc_rescue_pulled(void)
{
	return kc_rescue_sum(&kc_rescue_pulls);
}

static void kc_loop_slots_unmap(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(kc_loop_slot_pte, cpu) = NULL;
	if (kc_loop_slots)
		vunmap(kc_loop_slots);
	kc_loop_slots = NULL;
	if (kc_loop_blank)
		__free_page(kc_loop_blank);
	kc_loop_blank = NULL;
}

/*
 * A CPU going down cancels its own watchdog, which would otherwise move
 * to another CPU and run there for good; one coming up starts its own.
 */
static int kc_rescue_cpu_down(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(kc_rescue_parked, cpu), true);
	/* pairs with kc_rescue_start_here(): parked seen, or its timer here */
	smp_mb();
	hrtimer_cancel(this_cpu_ptr(&kc_rescue_timer));
	this_cpu_write(kc_rescue_ticking, false);
	return 0;
}

static int kc_rescue_cpu_up(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(kc_rescue_parked, cpu), false);
	local_irq_disable();
	if (kc_rescue_wanted())
		kc_rescue_start_here();
	local_irq_enable();
	return 0;
}

/*
 * Each CPU's slot, mapped to a blank page until a write points it
 * elsewhere. Without them loops are not watched.
 */
static void kc_loop_slots_map(void)
{
	struct page **pages;
	unsigned int level;
	int cpu;

	kc_loop_blank = alloc_page(GFP_KERNEL | __GFP_ZERO);
	pages = kmalloc_array(nr_cpu_ids, sizeof(*pages), GFP_KERNEL);
	if (!kc_loop_blank || !pages)
		goto fail;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		pages[cpu] = kc_loop_blank;
	kc_loop_slots = vmap(pages, nr_cpu_ids, VM_MAP, PAGE_KERNEL);
	kfree(pages);
	pages = NULL;
	if (!kc_loop_slots)
		goto fail;
	for_each_possible_cpu(cpu) {
		pte_t *ptep = lookup_address((unsigned long)kc_loop_slots +
					     cpu * PAGE_SIZE, &level);

		if (!ptep || level != PG_LEVEL_4K)
			goto fail;
		per_cpu(kc_loop_slot_pte, cpu) = ptep;
	}
	return;
fail:
	kfree(pages);
	pr_info("stale int3 loops not watched: no slots\n");
	kc_loop_slots_unmap();
}

/*
 * @write: writes the pages the work would, lock-free, from a watchdog's
 * hard interrupt.
 */
void kc_rescue_init(struct delayed_work *work, void (*write)(void))
{
	int cpu, ret;

	kc_loop_slots_map();
	hrtimer_init(&kc_loop_test_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	for_each_possible_cpu(cpu)
		per_cpu(kc_rescue_parked, cpu) = true;
	kc_loop_test_timer.function = kc_loop_test_tick;

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
	/* unparks every online CPU, on that CPU */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "kcollider/rescue:online",
				kc_rescue_cpu_up, kc_rescue_cpu_down);
	if (ret > 0) {
		kc_rescue_hp_state = ret;
		return;
	}
	pr_warn("watchdogs do not follow CPU hotplug: %d\n", ret);
	for_each_online_cpu(cpu)
		per_cpu(kc_rescue_parked, cpu) = false;
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
	if (kc_rescue_hp_state > 0)
		cpuhp_remove_state_nocalls(kc_rescue_hp_state);
	kc_rescue_hp_state = 0;
	/* a start runs with interrupts off: an RCU reader to its return */
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&kc_rescue_timer, cpu));
	kc_loop_slots_unmap();
}
