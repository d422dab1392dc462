// SPDX-License-Identifier: GPL-2.0
/*
 * The live breakpoints: visits (sites armed without a kprobe, see "Visits"
 * below) where the kernel allows them, else a fixed pool of registered
 * probes on random sites of the table. Registering costs far more than
 * patching (kprobes checks the site against its blacklist, jump labels,
 * static calls and bug table, and decodes the function up to it, and its
 * optimizer prepares a jump), so the pool keeps a reserve of registered,
 * disabled probes that the sampler refreshes in the background, and arming
 * a breakpoint is one byte written (kc_probe_insert(): kprobes' enable
 * only where writing it ourselves is not safe).
 *
 * An entry's life: FREE -> RESERVE (registered, disabled) -> ARMED
 * (its int3 in the text) -> SPENT (its first hit, taken by the handler
 * with one cmpxchg) -> RESERVE again (out of the text), until it ages
 * out -> IDLE -> FREE (unregistered in batches: one RCU grace period per
 * batch). A visit goes FREE -> ARMED -> SPENT or expired -> IDLE -> FREE,
 * or ARMED again from IDLE. The reserve is a moving subsample of the
 * table, picked as visits are, so arming follows the table's picks.
 *
 * Disabled entries stay registered until their site has been quiet for a
 * while. A hit on a disabled probe can only be in flight on real hardware,
 * but under QEMU's multi-threaded TCG a vCPU that translated the code
 * while the original byte was being restored keeps a stale int3 for as
 * long as nothing writes to that page again: a registered probe turns such
 * hits into a single-step, an unregistered one into kprobes' "retry the
 * instruction" loop that never ends. So a stale hit gets the site patched
 * again (which makes QEMU drop the stale translation) and postpones the
 * unregistration.
 *
 * Entries are never freed (static), so the lock-free lookups of the #DB
 * path and the report worker never read freed memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/poison.h>
#include <linux/kdebug.h>
#include <linux/rcupdate.h>
#include <asm/text-patching.h>
#include <asm/unaligned.h>

#include <kcollider/x86_emulate.h>

#include "kcollider.h"

#define KC_POOL_SIZE		1024
/* A disabled probe is unregistered once its site was quiet this long. */
#define KC_QUIET_MS		100
/* Hits later than this after the disable are stale, not in flight. */
#define KC_INFLIGHT_MS		10
#define KC_DRAIN_MS		5000
/*
 * A removal's second write waits for every CPU's answer (kmod/cpusync.c)
 * this long at most: a CPU that keeps its interrupts off longer is not
 * translating, it spins on a lock or on the very int3 the write ends.
 */
#define KC_SETTLE_SYNC_NS	(10 * NSEC_PER_MSEC)
#define KC_SETTLE_POLL_NS	(100 * NSEC_PER_USEC)
/* Bytes before a site that another tool's 5-byte jump could cover. */
#define KC_GUARD_BEFORE		4
/* Passes of the hitting CPU's own copy an arming (kc_probe_passes_now()). */
#define KC_OWN_PASSES		64

enum kc_probe_state {
	KC_PROBE_FREE,
	KC_PROBE_RESERVE,
	KC_PROBE_ARMED,
	KC_PROBE_SPENT,
	KC_PROBE_IDLE,
	KC_PROBE_BUSY,		/* being registered or unregistered */
};

struct kc_probe {
	struct kprobe kp;
	struct kc_insn insn;		/* decoded from the original bytes */
	atomic_t state;
	unsigned long born;		/* jiffies: registered */
	unsigned long armed_at;		/* jiffies */
	unsigned long idle_since;	/* jiffies: last disabled */
	unsigned long stale_at;		/* jiffies; plain stores from int3 */
	u64 armed_ns;
	u64 spent_ns;			/* its first hit; a store from int3 */
	u64 settle_ns;			/* its page is to be written again */
	unsigned long settle_sync;	/* after the CPUs answer this kick */
	unsigned long repoked;
	bool scrub;			/* patched since the keeper's scrub */
	bool condemned;			/* its site is never to be armed again */
	bool cold;			/* armed and not run since its last hit */
	bool fresh;			/* not armed since registered */
	bool direct_ok;			/* may be patched without kprobes */
	bool direct;			/* our int3 is in, kprobes' flag is not */
	bool visit;			/* no kprobe: our int3 notifier's */
	bool remote;			/* a read of another CPU's copy */
	atomic_t passes;		/* this arming's hits to carry out */
	bool passed;			/* one was; a store from int3 */
	u8 verdict;			/* its sampled hit's; a store from int3 */
	unsigned long loaded;		/* the word its hit loads; from int3 */
	atomic_t quiet_passes;		/* of idle CPUs' copies */
	atomic_t own_passes;		/* of the hitting CPU's, interrupts off */
	unsigned int scrubs;		/* a visit's page writes since removal */
	unsigned int arm_gen;		/* counts its armings */
	u8 *alias;			/* the site's byte, writable: registered */
	bool alias_open;		/* a first hit may write through it */
	unsigned int alias_gen;		/* the arming that opened it */
	atomic_t alias_users;		/* first hits writing through it */
	bool rescuable;			/* a visit: the rescue may write */
	bool irqs_off;			/* a visit hit with interrupts off */
	u64 out_ns;			/* its first hit took the int3 out */
	u8 guard_len;
	u8 guard[KC_GUARD_BEFORE + KC_INSN_MAX_LEN];
};

static struct kc_probe kc_probes[KC_POOL_SIZE];
static DEFINE_MUTEX(kc_pool_lock);
static kprobe_pre_handler_t kc_pool_handler;
static unsigned long kc_pool_repokes;
static unsigned long kc_pool_dropped;
static unsigned long kc_pool_scrubs;
static unsigned long kc_pool_regs;
static u64 kc_pool_reg_ns;
static unsigned long kc_pool_enables;
static unsigned long kc_pool_direct_patches;
static unsigned long kc_pool_kprobes_patches;
/* direct armings given to kprobes for another tool's probe before them */
static unsigned long kc_pool_direct_refused;
static u64 kc_pool_enable_ns;
/* from a first hit to the armer's retiring it, and to its being out */
static unsigned long kc_pool_spent_n;
static u64 kc_pool_spent_wait_ns;
static u64 kc_pool_spent_life_ns;
static unsigned long kc_pool_settles;
/* second writes made before every CPU answered: at the bound */
static unsigned long kc_pool_settles_unanswered;
/* visits: arming a site that no kprobe is registered for */
static unsigned long kc_pool_visits;
static u64 kc_pool_visit_ns;
/* a site visited again before its last visit's entry was reaped */
static unsigned long kc_pool_revisits;
static u64 kc_pool_revisit_ns;
/* new visits whose function the blacklist was known not to hold */
static unsigned long kc_pool_visits_known_clear;
static unsigned long kc_pool_visits_refused;
static unsigned long kc_pool_visits_withdrawn;
/*
 * A visit's stale int3 under TCG (see kc_probe_scrub()) is retried by
 * kprobes' handler, unseen by us, until its page is written again: no
 * stale hit tells the keeper. So a visit's page is written again at
 * growing intervals after its removal, by a work item of its own that
 * goes on after sampling stops, and its entry is reaped only then:
 * KC_VISIT_SCRUBS writes for a visit that fired (a CPU runs there), fewer
 * (KC_VISIT_COLD_SCRUBS) for one that expired. A page no CPU runs code
 * from costs QEMU nothing to write; a page of hot code costs every vCPU
 * that runs it a new translation per write, a cost the sampled code pays
 * and the budget does not see. Such a translation comes only from a vCPU
 * the host held up in the middle of translating the page since before
 * the removal, rarely for long: the intervals quadruple (the loop a late
 * one ends lasts at most three times as long as it waited, and the
 * rescue's watch of the ticks ends one with interrupts on sooner), so
 * that the last write is as late as with doubling, for half the writes.
 */
#define KC_VISIT_SCRUBS		5
#define KC_VISIT_COLD_SCRUBS	2
#define KC_VISIT_SCRUB_FIRST_MS	4
#define KC_REVISIT_JIFFIES	2
static void kc_pool_scrub_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(kc_pool_scrub_work, kc_pool_scrub_fn);

static unsigned int kc_visit_scrubs(const struct kc_probe *p)
{
	return p->cold ? KC_VISIT_COLD_SCRUBS : KC_VISIT_SCRUBS;
}
static u64 kc_pool_scrub_work_ns;
static unsigned long kc_pool_scrub_runs;
/* how long the rescue's self-test keeps its CPU's interrupts off, at most */
#define KC_RESCUE_TEST_MS	2000

/*
 * Its timer may land on a CPU that stops running timers: the very loop
 * the scrub ends can hold such CPUs, so the rescue watches it.
 */
static void kc_pool_scrub_at(unsigned long when)
{
	unsigned long delay = time_after(when, jiffies) ? when - jiffies : 1;

	schedule_delayed_work(&kc_pool_scrub_work, delay);
	kc_rescue_expect(delay);
}

/* A removal: its first write is due before whatever the work waits for. */
static void kc_pool_scrub_soon(unsigned int ms)
{
	unsigned long delay = msecs_to_jiffies(ms);

	mod_delayed_work(system_wq, &kc_pool_scrub_work, delay);
	kc_rescue_expect(delay);
}

/* A visit's next write: at quadrupling intervals after its removal. */
static unsigned long kc_visit_scrub_due(const struct kc_probe *p)
{
	return p->idle_since +
	       msecs_to_jiffies(KC_VISIT_SCRUB_FIRST_MS << (2 * p->scrubs));
}

/* counts kc_pool_drop_range(): a pick made before one may be stale */
static unsigned long kc_pool_drop_gen;
/* the sites visited last, for debugfs: tests check none keeps an int3 */
#define KC_VISITED_LOG		256
static unsigned long kc_visited[KC_VISITED_LOG];
static unsigned int kc_visited_next;
/*
 * Of the sites whose first arming ended lately, the share whose code did
 * not run (expired), per mille, an average over about the last 32: how
 * cold the targets are. Half until seen.
 */
#define KC_COLD_UNKNOWN		500
static unsigned int kc_pool_cold_share = KC_COLD_UNKNOWN;
/* hits on a probe already out of the text: a CPU that ran a stale int3 */
static DEFINE_PER_CPU(unsigned long, kc_pool_stale_hits);
/* hits carried out past the drawn passes: a copy with no writer to catch */
static DEFINE_PER_CPU(unsigned long, kc_pool_own_passes);
static DEFINE_PER_CPU(unsigned long, kc_pool_quiet_passes);

/*
 * The pages that hold our probes' instruction slots (kprobes' insn cache:
 * 256 slots a page). Every #DB trap of a window asks whether its ip lies
 * in one of our slots, and nearly none does: the pages answer that without
 * a scan of the pool. A set only grows, under the pool lock; when full,
 * the other set is rebuilt from the registered probes and published, and
 * a reader still in the old one finds it intact until the next rebuild.
 * nr < 0: too many pages, every ip is checked (and every registration
 * rebuilds). A reader that loses a race with a rebuild leaves one trap
 * unmapped: its stack unwound from the slot, nothing worse.
 */
#define KC_SLOT_PAGES		64

struct kc_slot_pages {
	int nr;
	unsigned long page[KC_SLOT_PAGES];
};

static struct kc_slot_pages kc_slot_sets[2];
static struct kc_slot_pages *kc_slot_set = &kc_slot_sets[0];

/*
 * One past the highest entry ever used: the pool hands out the lowest free
 * entry, so every entry beyond is FREE and scans stop there (the armer and
 * keeper scan several times a round; only max_probes, the reserve's extra
 * entries and the idle ones are in use, of KC_POOL_SIZE). Only grows,
 * under the pool lock.
 */
static unsigned int kc_pool_used;

/* kprobes' internals; see "Visits" below */
static struct kprobe *(*kc_get_kprobe)(void *addr);
static struct mutex *kc_text_mutex;
/*
 * The hooks on kprobes' preparation are in: only then is an int3 written
 * directly (a visit, or a registered probe armed without kprobes).
 */
static bool kc_hooked;

static unsigned int kc_pool_end(void)
{
	return READ_ONCE(kc_pool_used);
}

static int kc_probe_state(const struct kc_probe *p)
{
	return atomic_read(&p->state);
}

/*
 * A post-handler, even empty, keeps kprobes from optimizing a probe: the
 * optimizer would patch in a jump with text_poke_bp(), whose passing int3
 * a TCG vCPU can keep running from a stale translation. Every kprobe of
 * the module's has it, the free hooks' too.
 */
void kc_probe_post_none(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
}
NOKPROBE_SYMBOL(kc_probe_post_none);

/* Lock-free: probes in any of @states (a mask of BIT(KC_PROBE_...)). */
static unsigned int kc_pool_count_in(unsigned long states)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < kc_pool_end(); i++)
		n += !!(states & BIT(kc_probe_state(&kc_probes[i])));
	return n;
}

static unsigned int kc_pool_count(int state)
{
	return kc_pool_count_in(BIT(state));
}

/* Under the pool lock. */
static struct kc_probe *kc_pool_find_free(unsigned long addr)
{
	struct kc_probe *free = NULL;
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];

		if (kc_probe_state(p) == KC_PROBE_FREE) {
			if (!free)
				free = p;
		} else if ((unsigned long)p->kp.addr == addr) {
			return ERR_PTR(-EEXIST);
		}
	}
	if (free)
		return free;
	if (kc_pool_used >= KC_POOL_SIZE)
		return ERR_PTR(-ENOSPC);
	/* the lock-free scans see it from here on, while it is still FREE */
	WRITE_ONCE(kc_pool_used, kc_pool_used + 1);
	return &kc_probes[kc_pool_used - 1];
}

static bool kc_slot_pages_add(struct kc_slot_pages *set, unsigned long insn)
{
	unsigned long page = insn & PAGE_MASK;
	int i, n = set->nr;

	for (i = 0; i < n; i++)
		if (set->page[i] == page)
			return true;
	if (n >= KC_SLOT_PAGES)
		return false;
	WRITE_ONCE(set->page[n], page);
	/* the page before the count that shows it: kc_slot_pages_hold() */
	smp_store_release(&set->nr, n + 1);
	return true;
}

static void kc_slot_pages_rebuild(void)
{
	struct kc_slot_pages *next = &kc_slot_sets[kc_slot_set == kc_slot_sets];
	unsigned long insn;
	int i;

	WRITE_ONCE(next->nr, 0);
	for (i = 0; i < kc_pool_end(); i++) {
		insn = (unsigned long)kc_probes[i].kp.ainsn.insn;
		if (kc_probe_state(&kc_probes[i]) == KC_PROBE_FREE || !insn)
			continue;
		if (!kc_slot_pages_add(next, insn)) {
			/* pairs with the acquire in kc_slot_pages_hold() */
			smp_store_release(&next->nr, -1);
			break;
		}
	}
	/* the whole set before the pointer to it */
	smp_store_release(&kc_slot_set, next);
}

/* Under the pool lock, once @p is registered. */
static void kc_slot_pages_note(const struct kc_probe *p)
{
	unsigned long insn = (unsigned long)p->kp.ainsn.insn;

	if (!insn || (kc_slot_set->nr >= 0 &&
		      kc_slot_pages_add(kc_slot_set, insn)))
		return;
	/* @p is not FREE: the rebuilt set has its page */
	kc_slot_pages_rebuild();
}

/* Lock-free: whether @ip may lie in (or just past) one of our slots. */
static bool kc_slot_pages_hold(unsigned long ip)
{
	const struct kc_slot_pages *set;
	int i, n;

	/* pairs with the release in kc_slot_pages_rebuild() */
	set = smp_load_acquire(&kc_slot_set);
	/* pairs with the release in kc_slot_pages_add() */
	n = smp_load_acquire(&set->nr);

	if (n < 0)
		return true;
	for (i = 0; i < n; i++)
		if (READ_ONCE(set->page[i]) == ((ip - 1) & PAGE_MASK))
			return true;
	return false;
}

/*
 * Every write of text through an alias goes through a TLB entry filled
 * afresh. Under QEMU's TCG a store drops the translations made from its
 * page only when its TLB entry was filled after they were made; an alias
 * kept for a probe's life may hold an older entry, and its writes then
 * leave a translated int3 running that kprobes retries forever. On
 * hardware the caches follow writes to code and the invlpg only costs
 * the next access a page walk.
 */
static u8 kc_alias_cmpxchg(u8 *alias, u8 old, u8 new)
{
	asm volatile("invlpg (%0)" : : "r" (alias) : "memory");
	return cmpxchg(alias, old, new);
}

/*
 * Writes a byte of kernel text through an alias of its page, if it still
 * holds @old: no other byte is touched, and a concurrent patch of the
 * same byte is never undone. Returns whether the byte was @old.
 */
static bool kc_text_cmpxchg(unsigned long addr, u8 old, u8 new)
{
	u8 *alias = kc_textmap_get(addr);
	bool swapped;

	if (!alias)
		return false;
	swapped = kc_alias_cmpxchg(alias, old, new) == old;
	kc_textmap_put(alias);
	return swapped;
}

/*
 * Under QEMU's multi-threaded TCG a vCPU can keep a translation of a page
 * made while one of our int3s was in it, after the byte was restored (it
 * translated while another vCPU patched). Nothing in the guest sees such
 * a stale int3 until it runs, and once its probe is unregistered kprobes
 * retries it forever (a CPU stuck on an int3 that memory no longer
 * holds). Writing the same byte again through an alias
 * of the page is a write QEMU notices: it drops every translation that
 * holds that byte. On hardware nothing changes.
 */
static void kc_probe_scrub(struct kc_probe *p)
{
	unsigned long addr = (unsigned long)p->kp.addr;
	u8 v;

	if (copy_from_kernel_nofault(&v, (void *)addr, 1))
		return;
	if (p->alias)
		kc_alias_cmpxchg(p->alias, v, v);
	else
		kc_text_cmpxchg(addr, v, v);
	kc_pool_scrubs++;
}

/*
 * Arming without kprobes' patching. enable_kprobe() and disable_kprobe()
 * each end with text_poke_sync(), an IPI to every CPU and a wait for all
 * of them: two per sample, each slow under TCG, where the waiting vCPU
 * spins on a host CPU the others need. A sampler needs neither: an
 * int3 is one byte, written atomically; a CPU that runs the old byte a
 * little longer is sampled a little later, and one that runs the int3
 * after its removal finds the probe still registered and single-steps,
 * as for a hit in flight. So where it is safe the pool writes and removes
 * the int3 itself and kprobes' wrapper stays disabled, as if nothing of
 * its were in the text: the probe is ours alone (no other tool's probe on
 * the same address, not ftrace-based) and the code around it is what it
 * was at registration (no other tool's jump patched over it since:
 * kprobes lets an optimized probe's jump cover a disabled probe).
 * Anything else goes through enable_kprobe() as before. Our probe's own
 * flag says enabled while its int3 is in: a wrapper calls only enabled
 * probes, and kprobes reads that flag at no other time we leave it so.
 */
/*
 * kprobes wraps most probes in an aggregate of its own at registration
 * (the one it would optimize, were it not for our post-handler): the
 * aggregate is what an int3 finds, and it calls those of its probes that
 * are enabled. NULL: not wrapped; the wrapper, when ours is alone in it;
 * an error when another tool's probe shares the address.
 */
static struct kprobe *kc_probe_wrapper(struct kc_probe *p)
{
	struct list_head *next = READ_ONCE(p->kp.list.next);
	struct kprobe *w;

	/* hlist_replace_rcu() poisons the node the wrapper took over */
	if (READ_ONCE(p->kp.hlist.pprev) != LIST_POISON2)
		return NULL;
	if (next != READ_ONCE(p->kp.list.prev))
		return ERR_PTR(-EBUSY);
	w = container_of(next, struct kprobe, list);
	return w->addr == p->kp.addr ? w : ERR_PTR(-EBUSY);
}

/* The code around @p's site, our own int3s undone; under the pool lock. */
static unsigned int kc_probe_read_guard(const struct kc_probe *p, u8 *buf)
{
	unsigned long start = (unsigned long)p->kp.addr - KC_GUARD_BEFORE;
	unsigned int len = KC_GUARD_BEFORE + max_t(unsigned int,
						   p->insn.length, 5);

	if (copy_from_kernel_nofault(buf, (void *)start, len))
		return 0;
	kc_pool_patch_original(start, buf, len);
	return len;
}

/*
 * A rel32 jump just before the site into the module area, from vmlinux:
 * an optimized kprobe's, which covers the site's first bytes.
 */
static bool kc_guard_has_detour(const struct kc_probe *p, const u8 *buf)
{
	unsigned long addr = (unsigned long)p->kp.addr, target;
	int k;

	if (addr >= MODULES_VADDR && addr < MODULES_END)
		return false;
	for (k = 0; k < KC_GUARD_BEFORE; k++) {
		if (buf[k] != 0xe9)
			continue;
		target = addr - KC_GUARD_BEFORE + k + 5 +
			 (long)get_unaligned((const s32 *)&buf[k + 1]);
		if (target >= MODULES_VADDR && target < MODULES_END)
			return true;
	}
	return false;
}

/* Once @p is registered, under the pool lock; @first: the byte we read. */
static void kc_probe_note_guard(struct kc_probe *p, u8 first)
{
	p->direct = false;
	p->guard_len = kc_probe_read_guard(p, p->guard);
	p->direct_ok = p->guard_len && first == p->kp.opcode &&
		       !(p->kp.flags & KPROBE_FLAG_FTRACE) &&
		       !kc_guard_has_detour(p, p->guard);
}

/*
 * Another tool's kprobe close enough before @addr for its optimized jump
 * to cover it. kprobes optimizes a probe when it is enabled, which need
 * not be when it was prepared (kprobe_events registers disabled probes):
 * it copies the bytes after its own, our int3 included, and writes them
 * back when unoptimized, maybe after our probe went. Only a probe that
 * kprobes sees enabled keeps a neighbour from being optimized. Ours are
 * never optimized (kc_probe_post_none), so they are no such neighbour.
 * Under text_mutex, which kprobes holds while it prepares a probe; one
 * prepared but not yet listed meets the hooks of "Visits" below.
 */
static bool kc_foreign_kprobe_before(unsigned long addr)
{
	struct kprobe *kp;
	bool found = false;
	int k;

	rcu_read_lock();
	for (k = 1; k <= KC_GUARD_BEFORE && !found; k++) {
		kp = kc_get_kprobe((void *)(addr - k));
		found = kp && !(kp->pre_handler == kc_pool_handler &&
				kp->post_handler == kc_probe_post_none);
	}
	rcu_read_unlock();
	return found;
}

static bool kc_probe_direct_safe(struct kc_probe *p)
{
	u8 now[KC_GUARD_BEFORE + KC_INSN_MAX_LEN];
	struct kprobe *w = kc_probe_wrapper(p);

	if (IS_ERR(w) || (w && !kprobe_disabled(w)))
		return false;
	if (!p->direct_ok || !kprobe_disabled(&p->kp) ||
	    kc_probe_read_guard(p, now) != p->guard_len ||
	    memcmp(now, p->guard, p->guard_len))
		return false;
	if (kc_foreign_kprobe_before((unsigned long)p->kp.addr)) {
		kc_pool_direct_refused++;
		return false;
	}
	return true;
}

/*
 * The first hits of an arming may take its int3 out through @p's alias
 * (kc_probe_take_out()) until it is closed: a hit either finds it closed
 * or is seen here (both sides order their two accesses). A hit holds it
 * for a few instructions with interrupts off.
 */
static void kc_probe_close_alias(struct kc_probe *p)
{
	if (!p->alias_open)
		return;
	WRITE_ONCE(p->alias_open, false);
	/* pairs with kc_probe_take_out(): closed seen there, or its count here */
	smp_mb();
	while (atomic_read(&p->alias_users))
		cpu_relax();
}

/*
 * The alias is mapped for as long as the probe is registered: mapping a
 * page costs a vmap and a vunmap, and each breakpoint writes its page
 * several times (arming, first hit, second write, the keeper's scrub), a
 * mapping each but the first hit's. Mapping in int3 context is not allowed.
 */
static void kc_probe_map_alias(struct kc_probe *p)
{
	p->alias_open = false;
	p->alias = kc_textmap_get((unsigned long)p->kp.addr);
}

/* Once unregistered, or its module's text about to go. */
static void kc_probe_unmap_alias(struct kc_probe *p)
{
	kc_probe_close_alias(p);
	if (p->rescuable) {
		WRITE_ONCE(p->rescuable, false);
		/* pairs with kc_pool_rescue_write() */
		smp_mb();
		while (atomic_read(&p->alias_users))
			cpu_relax();
	}
	if (p->alias)
		kc_textmap_put(p->alias);
	p->alias = NULL;
}

static bool kc_probe_insert_direct(struct kc_probe *p)
{
	if (!p->alias)
		return false;
	WRITE_ONCE(p->out_ns, 0);
	WRITE_ONCE(p->alias_gen, p->arm_gen);
	/* the arming it belongs to, before the alias opens */
	smp_wmb();
	WRITE_ONCE(p->alias_open, true);
	if (kc_alias_cmpxchg(p->alias, p->kp.opcode, INT3_INSN_OPCODE) ==
	    p->kp.opcode)
		return true;
	kc_probe_close_alias(p);
	return false;
}

/*
 * Put @p's int3 in the text: 0 or enable_kprobe()'s error. Directly, the
 * wrapper stays disabled (kprobes' view: nothing of its is in the text)
 * and our probe's own flag says enabled, so that the wrapper calls it.
 */
static int kc_probe_insert(struct kc_probe *p)
{
	bool direct = false;

	kc_rescue_note_site((unsigned long)p->kp.addr);
	/*
	 * Under text_mutex, which kprobes holds while it prepares a probe:
	 * the hook there sees this int3 (direct set) and takes it out.
	 */
	if (READ_ONCE(kc_hooked)) {
		mutex_lock(kc_text_mutex);
		direct = kc_probe_direct_safe(p) && kc_probe_insert_direct(p);
		if (direct)
			WRITE_ONCE(p->direct, true);
		mutex_unlock(kc_text_mutex);
	}
	if (direct) {
		if (kc_probe_wrapper(p))
			WRITE_ONCE(p->kp.flags,
				   p->kp.flags & ~KPROBE_FLAG_DISABLED);
		kc_pool_direct_patches++;
		return 0;
	}
	kc_pool_kprobes_patches++;
	return enable_kprobe(&p->kp);
}

/* Take @p's int3 out of the text, however it went in. */
static void kc_probe_remove(struct kc_probe *p)
{
	if (!p->direct) {
		if (!p->visit)
			disable_kprobe(&p->kp);
		return;
	}
	p->direct = false;
	if (!IS_ERR(kc_probe_wrapper(p))) {
		/*
		 * Its first hit put the byte back (out_ns is set only then):
		 * under TCG a write drops every translation of the code it
		 * lands in, so none that is not needed.
		 */
		if (!READ_ONCE(p->out_ns)) {
			kc_alias_cmpxchg(p->alias, INT3_INSN_OPCODE,
					 p->kp.opcode);
			kc_pool_direct_patches++;
		}
		kc_probe_close_alias(p);
		WRITE_ONCE(p->kp.flags, p->kp.flags | KPROBE_FLAG_DISABLED);
		return;
	}
	kc_probe_close_alias(p);
	/*
	 * Another tool's probe joined ours while armed: kprobes decides
	 * whether the aggregate's int3 stays (theirs is enabled) or goes.
	 */
	WRITE_ONCE(p->kp.flags, p->kp.flags | KPROBE_FLAG_DISABLED);
	if (!enable_kprobe(&p->kp))
		disable_kprobe(&p->kp);
}

/* A new life for @p: registered, or visited. */
/*
 * A read of other CPUs' copies sits in a loop over the CPUs, which starts
 * at CPU 0: its arming carries out a random number of passes, up to one
 * per CPU but the last, before one is sampled (kmod/emulate.c).
 */
static void kc_probe_draw_passes(struct kc_probe *p)
{
	unsigned int cpus = num_online_cpus(), n = 0;

	if (p->remote && cpus > 1 && kc_emulate_possible(&p->insn))
		n = get_random_u32_below(cpus);
	atomic_set(&p->passes, n);
	p->passed = false;
	p->verdict = KC_VERDICT_NONE;
	p->loaded = 0;
	atomic_set(&p->quiet_passes, 0);
	atomic_set(&p->own_passes, 0);
}

static void kc_probe_reset(struct kc_probe *p)
{
	p->born = p->idle_since = p->repoked = jiffies;
	p->stale_at = 0;
	p->settle_ns = 0;
	p->condemned = false;
	p->cold = false;
	p->fresh = true;
}

/*
 * Register a disabled probe on @addr, picked from the table when
 * kc_pool_pick_gen() said @gen, for the reserve. -EINVAL-like errors
 * mean the site can never be armed (kprobes refuses it, or it is no site
 * any more); -EEXIST (@addr has a probe of ours already), -ENOSPC,
 * -EBUSY and -EAGAIN are for now only.
 */
int kc_pool_add(unsigned long addr, unsigned long gen, bool remote)
{
	u8 code[KC_INSN_MAX_LEN];
	struct kc_probe *p;
	u64 t0;
	int ret;

	mutex_lock(&kc_pool_lock);
	/*
	 * Its module went since the pick: the text there may be freed, or
	 * another module's. A module going later waits for this entry
	 * (BUSY below) and then takes it out.
	 */
	ret = -EAGAIN;
	if (gen != kc_pool_drop_gen)
		goto out;
	p = kc_pool_find_free(addr);
	ret = PTR_ERR_OR_ZERO(p);
	if (ret)
		goto out;
	ret = -EAGAIN;
	/* another tool's int3 (ftrace, a static key being patched) */
	if (copy_from_kernel_nofault(code, (void *)addr, sizeof(code)) ||
	    code[0] == 0xcc)
		goto out;
	ret = -EINVAL;
	if (kc_decode(code, sizeof(code), &p->insn) ||
	    !kc_insn_is_site(&p->insn, addr))
		goto out;
	memset(&p->kp, 0, sizeof(p->kp));
	p->kp.addr = (kprobe_opcode_t *)addr;
	p->kp.pre_handler = kc_pool_handler;
	p->kp.post_handler = kc_probe_post_none;
	p->kp.flags = KPROBE_FLAG_DISABLED;
	kc_probe_reset(p);
	p->visit = false;
	p->remote = remote;
	/* registering is slow: the armer retires and arms meanwhile */
	atomic_set(&p->state, KC_PROBE_BUSY);
	mutex_unlock(&kc_pool_lock);
	t0 = ktime_get_ns();
	ret = register_kprobe(&p->kp);
	mutex_lock(&kc_pool_lock);
	if (!ret) {
		kc_pool_reg_ns += ktime_get_ns() - t0;
		kc_pool_regs++;
		kc_slot_pages_note(p);
		kc_probe_note_guard(p, code[0]);
		kc_probe_map_alias(p);
	}
	atomic_set(&p->state, ret ? KC_PROBE_FREE : KC_PROBE_RESERVE);
out:
	mutex_unlock(&kc_pool_lock);
	return ret;
}

/*
 * Visits: DataCollider's breakpoints, one byte written into a site that no
 * kprobe is registered for, and taken out by the first hit. A registration
 * costs kprobes' checks and its optimizer's preparation; a visit costs a
 * page mapping and a byte, so the sampler can
 * rotate through cold code quickly. The int3 comes to our die notifier:
 * kprobes' handler passes on an int3 it has no probe for.
 *
 * Living beside kprobes: a visit is armed under text_mutex, which every
 * kprobes path that reads or writes the text holds, only where no kprobe
 * sits on the site or close enough before it for an optimized probe's jump
 * to cover it. A registration that starts later finds our int3 in the
 * code it decodes or copies; so before kprobes prepares any probe, our
 * hooks on its preparation take every visit out of the text (the visit
 * stays ARMED and expires unrun), and text_mutex, held by kprobes
 * meanwhile, keeps new ones out until it is done.
 */
static bool (*kc_kprobe_blacklisted)(unsigned long addr);
/*
 * Off, every site is a registered kprobe: the fallback where kprobes'
 * internals cannot be found, and for comparing the two.
 */
static bool visits = true;
module_param(visits, bool, 0444);
MODULE_PARM_DESC(visits, "arm sites without registering kprobes (default: on)");

static bool kc_visits_possible;		/* the notifier is in */
static bool kc_visits_on;		/* and the hooks, while sampling */

/* Where kprobes prepares a probe, with text_mutex held. */
static const char * const kc_withdraw_at[] = {
	"arch_prepare_kprobe",
	/* absent without jump optimization */
	"arch_prepare_optimized_kprobe",
};

static struct kprobe kc_withdraw_hooks[ARRAY_SIZE(kc_withdraw_at)];
static bool kc_withdraw_hooked[ARRAY_SIZE(kc_withdraw_at)];

/* No kprobe on @addr, nor where an optimized one's jump would cover it. */
static bool kc_visit_clear_of_kprobes(unsigned long addr)
{
	bool clear = true;
	int k;

	rcu_read_lock();
	for (k = 0; k <= KC_GUARD_BEFORE && clear; k++)
		clear = !kc_get_kprobe((void *)(addr - k));
	rcu_read_unlock();
	return clear;
}

/*
 * int3 or a hook: take @p's int3 out if it is still in. While the alias
 * is open the byte is ours to write; once closed, the armer has taken the
 * int3 out already.
 */
static bool kc_probe_pass(struct kc_probe *p)
{
	bool out = false;

	atomic_inc(&p->alias_users);
	/* pairs with kc_probe_close_alias() */
	smp_mb__after_atomic();
	if (READ_ONCE(p->alias_open))
		out = kc_alias_cmpxchg(p->alias, INT3_INSN_OPCODE,
				       p->kp.opcode) ==
		      INT3_INSN_OPCODE;
	/* the write through the alias is done before it may go */
	smp_mb__before_atomic();
	atomic_dec(&p->alias_users);
	return out;
}
NOKPROBE_SYMBOL(kc_probe_pass);

/*
 * Once withdrawn, a visit never writes its byte again: the byte may be
 * another tool's from now on (a probe on the same address, a jump over
 * it). Its removal finds it taken out (out_ns) and its alias closed.
 */
static bool kc_probe_withdraw(struct kc_probe *p)
{
	bool out = kc_probe_pass(p);

	WRITE_ONCE(p->alias_open, false);
	if (!READ_ONCE(p->out_ns))
		WRITE_ONCE(p->out_ns, ktime_get_mono_fast_ns());
	return out;
}

static int kc_pool_withdraw_hook(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		int s = kc_probe_state(p);

		if ((READ_ONCE(p->visit) || READ_ONCE(p->direct)) &&
		    (s == KC_PROBE_ARMED || s == KC_PROBE_SPENT) &&
		    kc_probe_withdraw(p))
			n++;
	}
	if (n)
		WRITE_ONCE(kc_pool_visits_withdrawn,
			   kc_pool_visits_withdrawn + n);
	return 0;
}

/* Lock-free, int3: the visit whose int3 sits on @addr, if any. */
static struct kc_probe *kc_pool_visit_at(unsigned long addr)
{
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		int s = kc_probe_state(p);

		if (s == KC_PROBE_FREE || s == KC_PROBE_BUSY ||
		    !READ_ONCE(p->visit) ||
		    (unsigned long)READ_ONCE(p->kp.addr) != addr)
			continue;
		/* its fields were written before its state */
		smp_rmb();
		return p;
	}
	return NULL;
}

/*
 * int3 that kprobes passed on. A hit the handler did not send into a stall
 * runs the original instruction where it is: kprobes would single-step it
 * out of line, a visit has no slot, so its int3 goes first.
 */
static int kc_pool_int3(struct notifier_block *nb, unsigned long val,
			void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long addr;
	struct kc_probe *p;

	if (val != DIE_INT3 || user_mode(regs))
		return NOTIFY_DONE;
	addr = regs->ip - INT3_INSN_SIZE;
	p = kc_pool_visit_at(addr);
	if (!p)
		return NOTIFY_DONE;
	if (!(regs->flags & X86_EFLAGS_IF))
		WRITE_ONCE(p->irqs_off, true);
	if (!kc_pool_handler(&p->kp, regs)) {
		/*
		 * Not this arming's first hit (a sampled thread back from its
		 * stall, say): the int3 goes all the same, and the arming
		 * with it, for the armer to retire.
		 */
		if (atomic_cmpxchg(&p->state, KC_PROBE_ARMED, KC_PROBE_SPENT) ==
		    KC_PROBE_ARMED)
			WRITE_ONCE(p->spent_ns, ktime_get_mono_fast_ns());
		kc_probe_pass(p);
		regs->ip = addr;
	}
	return NOTIFY_STOP;
}
NOKPROBE_SYMBOL(kc_pool_int3);

/*
 * First in the die chain: a callback before ours runs between a visit's
 * int3 and its removal, and a visit in that callback's code would trap
 * there again, recursively (uprobes' callback is one, under "all").
 */
static struct notifier_block kc_pool_int3_nb = {
	.notifier_call = kc_pool_int3,
	.priority = INT_MAX,
};

/* The later writes of visits' pages; it reschedules itself. */
static void kc_pool_scrub_fn(struct work_struct *work)
{
	u64 t0 = ktime_get_ns();
	unsigned long due, next = 0;
	bool more = false;
	int i;

	kc_rescue_ran();
	WRITE_ONCE(kc_pool_scrub_runs, kc_pool_scrub_runs + 1);
	mutex_lock(&kc_pool_lock);
	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];

		if (!p->visit || p->scrubs >= kc_visit_scrubs(p) ||
		    kc_probe_state(p) != KC_PROBE_IDLE)
			continue;
		due = kc_visit_scrub_due(p);
		if (time_after_eq(jiffies, due)) {
			kc_probe_scrub(p);
			p->scrubs++;
			due = kc_visit_scrub_due(p);
		}
		if (p->scrubs < kc_visit_scrubs(p) &&
		    (!more || time_before(due, next))) {
			next = due;
			more = true;
		}
	}
	mutex_unlock(&kc_pool_lock);
	WRITE_ONCE(kc_pool_scrub_work_ns,
		   kc_pool_scrub_work_ns + ktime_get_ns() - t0);
	if (more)
		kc_pool_scrub_at(next);
}

/*
 * The rescue's (kmod/rescue.c), from a watchdog's hard interrupt when the
 * scrub work is overdue: the pages of the visits whose writes are still
 * due, written now, lock-free. The loop the work would end may be the
 * one this CPU interrupted, and then the work cannot run here.
 */
static void kc_pool_rescue_write(void)
{
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		unsigned long addr;
		u8 *alias, v;

		if (!READ_ONCE(p->rescuable) ||
		    kc_probe_state(p) != KC_PROBE_IDLE ||
		    READ_ONCE(p->scrubs) >= kc_visit_scrubs(p))
			continue;
		atomic_inc(&p->alias_users);
		/* pairs with kc_probe_unmap_alias() */
		smp_mb__after_atomic();
		if (READ_ONCE(p->rescuable)) {
			/* pairs with kc_visit_arm_locked() */
			smp_rmb();
			addr = (unsigned long)READ_ONCE(p->kp.addr);
			alias = READ_ONCE(p->alias);
			if (alias && !copy_from_kernel_nofault(&v, (void *)addr, 1))
				kc_alias_cmpxchg(alias, v, v);
		}
		/* the write through the alias is done before it may go */
		smp_mb__before_atomic();
		atomic_dec(&p->alias_users);
	}
}
NOKPROBE_SYMBOL(kc_pool_rescue_write);

/*
 * The rescue's self-test: the scrub, queued on this CPU, which then keeps
 * its interrupts off as the looping vCPU does, still runs, pulled by
 * another CPU's watchdog. 0, -EIO if it did not run in time, -ENODEV on a
 * single CPU.
 */
int kc_pool_rescue_selftest(void)
{
	unsigned long runs, pulls, flags;
	int ms, ret = -EIO;

	if (num_online_cpus() < 2)
		return -ENODEV;
	local_irq_save(flags);
	runs = READ_ONCE(kc_pool_scrub_runs);
	pulls = kc_rescue_pulled();
	kc_pool_scrub_soon(1);
	for (ms = 0; ms < KC_RESCUE_TEST_MS && ret; ms++) {
		mdelay(1);
		if (READ_ONCE(kc_pool_scrub_runs) != runs &&
		    kc_rescue_pulled() != pulls)
			ret = 0;
	}
	local_irq_restore(flags);
	return ret;
}

/* CPU time of the pool's own work item, for the overhead budget. */
u64 kc_pool_work_ns(void)
{
	return READ_ONCE(kc_pool_scrub_work_ns);
}

bool kc_pool_visits_on(void)
{
	return READ_ONCE(kc_visits_on);
}

unsigned long kc_pool_pick_gen(void)
{
	return READ_ONCE(kc_pool_drop_gen);
}

/*
 * Under the pool lock and text_mutex: @p set up for @addr and armed, or
 * left in @fail_state.
 */
static int kc_visit_arm_locked(struct kc_probe *p, unsigned long addr,
			       int fail_state)
{
	bool again = fail_state == KC_PROBE_IDLE;
	u8 code[KC_INSN_MAX_LEN];

	/* another tool's int3 (a kprobe, a static key being patched) */
	if (copy_from_kernel_nofault(code, (void *)addr, sizeof(code)) ||
	    code[0] == INT3_INSN_OPCODE)
		return -EAGAIN;
	if (again) {
		/*
		 * A hit of the last visit may still be reading its decode
		 * and opcode: they stay, the bytes being the same.
		 */
		if (memcmp(code, p->guard + KC_GUARD_BEFORE, p->insn.length))
			return -EAGAIN;
	} else {
		if (kc_decode(code, sizeof(code), &p->insn) ||
		    !kc_insn_is_site(&p->insn, addr))
			return -EINVAL;
		memset(&p->kp, 0, sizeof(p->kp));
		p->kp.addr = (kprobe_opcode_t *)addr;
		p->kp.opcode = code[0];
		p->kp.flags = KPROBE_FLAG_DISABLED;
	}
	if (!kc_visit_clear_of_kprobes(addr))
		return -EAGAIN;
	kc_rescue_note_site(addr);
	p->guard_len = kc_probe_read_guard(p, p->guard);
	if (!p->guard_len || kc_guard_has_detour(p, p->guard))
		return -EAGAIN;
	kc_probe_reset(p);
	p->direct_ok = true;
	p->scrubs = 0;
	p->irqs_off = false;
	p->alias_open = false;
	p->armed_at = jiffies;
	p->armed_ns = ktime_get_mono_fast_ns();
	kc_probe_draw_passes(p);
	WRITE_ONCE(p->arm_gen, p->arm_gen + 1);
	WRITE_ONCE(p->visit, true);
	/* the fields and this arming's count before the state */
	smp_wmb();
	atomic_set(&p->state, KC_PROBE_ARMED);
	if (!kc_probe_insert_direct(p)) {
		atomic_set(&p->state, fail_state);
		return -EAGAIN;
	}
	p->direct = true;
	/* its address and alias before the rescue may use them */
	smp_wmb();
	WRITE_ONCE(p->rescuable, true);
	return 0;
}

/*
 * A visit of @addr that is over but not yet reaped: visiting it again
 * costs no mapping, and a site that runs often is not kept waiting for
 * the reaper. Under the pool lock.
 */
static struct kc_probe *kc_pool_visit_again(unsigned long addr)
{
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];

		if (p->visit && kc_probe_state(p) == KC_PROBE_IDLE &&
		    !p->condemned && (unsigned long)p->kp.addr == addr)
			return p;
	}
	return NULL;
}

/*
 * Not at once: the thread its last hit stalled returns to the site to run
 * the instruction, and an int3 there again would be no sample, only lost.
 */
static bool kc_probe_revisitable(const struct kc_probe *p)
{
	return time_after(jiffies, p->idle_since + KC_REVISIT_JIFFIES);
}

/*
 * A new entry for @addr, its page mapped; an ERR_PTR() otherwise.
 * @cleared: kprobes' blacklist is known not to hold its function.
 */
static struct kc_probe *kc_pool_visit_new(unsigned long addr, bool cleared)
{
	struct kc_probe *p;

	if (!cleared && kc_kprobe_blacklisted(addr))
		return ERR_PTR(-EINVAL);
	p = kc_pool_find_free(addr);
	if (IS_ERR(p))
		return p;
	p->alias = kc_textmap_get(addr);
	return p->alias ? p : ERR_PTR(-ENOMEM);
}

static void kc_pool_count_visit(unsigned long addr, bool again, u64 t0)
{
	u64 ns = ktime_get_ns() - t0;

	kc_pool_direct_patches++;
	kc_visited[kc_visited_next++ % KC_VISITED_LOG] = addr;
	if (again) {
		kc_pool_revisits++;
		kc_pool_revisit_ns += ns;
	} else {
		kc_pool_visits++;
		kc_pool_visit_ns += ns;
	}
}

/*
 * Arm a visit on @addr, picked from the table when kc_pool_pick_gen() said
 * @gen: 0, -EINVAL when the site can never be armed, or an error for now.
 * @cleared: kprobes' blacklist is known not to hold the site's function;
 * 0 says it does not.
 */
int kc_pool_visit(unsigned long addr, unsigned long gen, bool remote,
		  bool cleared)
{
	u64 t0 = ktime_get_ns();
	struct kc_probe *p;
	bool again;
	int ret;

	if (!kc_visits_on)
		return -EOPNOTSUPP;
	mutex_lock(&kc_pool_lock);
	ret = -EAGAIN;
	/* its module went since the pick: its text may be gone */
	if (gen != kc_pool_drop_gen)
		goto out;
	p = kc_pool_visit_again(addr);
	again = p;
	if (p && !kc_probe_revisitable(p))
		p = ERR_PTR(-EBUSY);
	else if (!p)
		p = kc_pool_visit_new(addr, cleared);
	ret = PTR_ERR_OR_ZERO(p);
	if (ret)
		goto out;
	p->remote = remote;
	mutex_lock(kc_text_mutex);
	ret = kc_visit_arm_locked(p, addr, again ? KC_PROBE_IDLE :
						   KC_PROBE_FREE);
	mutex_unlock(kc_text_mutex);
	if (!ret) {
		kc_pool_count_visit(addr, again, t0);
		kc_pool_visits_known_clear += !again && cleared;
		goto out;
	}
	kc_pool_visits_refused++;
	if (!again) {
		kc_textmap_put(p->alias);
		p->alias = NULL;
	}
out:
	mutex_unlock(&kc_pool_lock);
	return ret;
}

int kc_pool_visited_show(struct seq_file *m, void *v)
{
	unsigned int i, n;

	mutex_lock(&kc_pool_lock);
	n = min_t(unsigned int, kc_visited_next, KC_VISITED_LOG);
	for (i = 0; i < n; i++)
		seq_printf(m, "%lx\n", kc_visited[i]);
	mutex_unlock(&kc_pool_lock);
	return 0;
}

static void kc_pool_unhook(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kc_withdraw_hooks); i++) {
		if (kc_withdraw_hooked[i])
			unregister_kprobe(&kc_withdraw_hooks[i]);
		kc_withdraw_hooked[i] = false;
	}
}

/* Sampling starts: visits, if kprobes can be kept out of their way. */
void kc_pool_start(void)
{
	int i, ret;

	kc_rescue_watch_loops(true);
	if (!kc_text_mutex || !kc_get_kprobe)
		return;
	for (i = 0; i < ARRAY_SIZE(kc_withdraw_hooks); i++) {
		struct kprobe *kp = &kc_withdraw_hooks[i];

		memset(kp, 0, sizeof(*kp));
		kp->symbol_name = kc_withdraw_at[i];
		kp->pre_handler = kc_pool_withdraw_hook;
		/* unoptimized: no text_poke_bp() at every enable and disable */
		kp->post_handler = kc_probe_post_none;
		ret = register_kprobe(kp);
		kc_withdraw_hooked[i] = !ret;
		if (ret && (i == 0 || ret != -ENOENT)) {
			pr_warn("visits and direct arming off: cannot hook %s: %d\n",
				kc_withdraw_at[i], ret);
			kc_pool_unhook();
			return;
		}
	}
	WRITE_ONCE(kc_hooked, true);
	WRITE_ONCE(kc_visits_on, kc_visits_possible);
}

/* Sampling stopped, nothing armed: visits go on only as stale int3s. */
void kc_pool_stop(void)
{
	WRITE_ONCE(kc_visits_on, false);
	WRITE_ONCE(kc_hooked, false);
	kc_pool_unhook();
	kc_rescue_watch_loops(false);
}

static void kc_pool_visits_init(void)
{
	int ret;

	/* direct arming needs the first two, visits all three */
	kc_get_kprobe = (void *)kc_lookup_function("get_kprobe");
	kc_text_mutex = (void *)kc_lookup_symbol("text_mutex");
	kc_kprobe_blacklisted =
		(void *)kc_lookup_function("within_kprobe_blacklist");
	if (!visits)
		return;
	if (!kc_get_kprobe || !kc_text_mutex || !kc_kprobe_blacklisted) {
		pr_info("visits off: kprobes' internals not found\n");
		return;
	}
	ret = register_die_notifier(&kc_pool_int3_nb);
	if (ret) {
		pr_info("visits off: %d\n", ret);
		return;
	}
	kc_visits_possible = true;
}

/* Enable a uniformly chosen reserve probe; false if the reserve is empty. */
bool kc_pool_arm(void)
{
	unsigned int n, pick, i;
	struct kc_probe *p = NULL;
	u64 t0;

	mutex_lock(&kc_pool_lock);
	n = kc_pool_count(KC_PROBE_RESERVE);
	if (!n)
		goto out;
	pick = get_random_u32_below(n);
	for (i = 0; i < kc_pool_end(); i++) {
		if (kc_probe_state(&kc_probes[i]) != KC_PROBE_RESERVE)
			continue;
		if (!pick--) {
			p = &kc_probes[i];
			break;
		}
	}
	if (!p)
		goto out;
	p->armed_at = jiffies;
	p->armed_ns = ktime_get_mono_fast_ns();
	kc_probe_draw_passes(p);
	WRITE_ONCE(p->arm_gen, p->arm_gen + 1);
	/* a hit that reads this state reads this arming's count */
	smp_wmb();
	/* armed before it is in the text: the first hit may come at once */
	atomic_set(&p->state, KC_PROBE_ARMED);
	t0 = ktime_get_ns();
	if (kc_probe_insert(p)) {
		atomic_set(&p->state, KC_PROBE_IDLE);
		p = NULL;
	} else {
		kc_pool_enable_ns += ktime_get_ns() - t0;
		kc_pool_enables++;
		/* a translation that kept the old int3 is right again */
		WRITE_ONCE(p->settle_ns, 0);
		/*
		 * The same race the other way round: a vCPU can keep running
		 * a translation without the int3 (a hot loop's only site can
		 * be armed again and again and never hit). The keeper scrubs
		 * it.
		 */
		WRITE_ONCE(p->scrub, true);
	}
out:
	mutex_unlock(&kc_pool_lock);
	return p;
}

/*
 * Take @p out of the text, if its first hit has not. A fired breakpoint's
 * page is written once more KC_SETTLE_NS after its int3 went out, for a
 * visit hit with interrupts off once every other CPU has taken an
 * interrupt since too (kc_pool_settle_locked()), and until then the
 * breakpoint still counts as spent for its waiting thread: under QEMU's
 * multi-threaded TCG a translation of the page that read the int3 before
 * our write but was linked after it is not dropped by the write, and the
 * sampled thread,
 * back in its loop, would run the removed int3 on every pass; once a
 * visit's entry is gone, any CPU that runs it loops in kprobes' retry.
 * Neither a second write at once nor a sync of every CPU without one ends
 * such translations; a second write after the sync does. On hardware it
 * changes nothing.
 */
static void kc_probe_disable(struct kc_probe *p, int state)
{
	bool settle = p->direct && kc_probe_state(p) == KC_PROBE_SPENT;
	u64 out = READ_ONCE(p->out_ns);

	kc_probe_remove(p);
	if (settle) {
		/*
		 * The answers are awaited where a loop on a stale int3 could
		 * not be ended: a visit that ran with interrupts off. Else a
		 * watchdog ends it (kmod/rescue.c), and the waiting thread,
		 * often on a hot loop, is not held up by idle CPUs' answers.
		 */
		p->settle_sync = p->visit && READ_ONCE(p->irqs_off) ?
				 kc_cpusync_kick() : 0;
		WRITE_ONCE(p->settle_ns,
			   (out ?: ktime_get_ns()) + KC_SETTLE_NS);
	}
	p->idle_since = jiffies;
	WRITE_ONCE(p->scrub, !p->visit);
	atomic_set(&p->state, state);
}

/*
 * Whether @p's second write may wait for the CPUs' answers no longer,
 * and how long it may still wait, in @left.
 */
static bool kc_probe_settle_due(const struct kc_probe *p, u64 now, u64 *left)
{
	u64 due = READ_ONCE(p->settle_ns);

	*left = due > now ? due - now : 0;
	if (*left || kc_cpusync_done(READ_ONCE(p->settle_sync)))
		return !*left;
	if (now >= due + KC_SETTLE_SYNC_NS)
		return true;
	*left = min_t(u64, KC_SETTLE_POLL_NS, due + KC_SETTLE_SYNC_NS - now);
	return false;
}

/*
 * The armer's: write again the pages of the removals whose time has come.
 * The keeper's scrub stays due as well: a translation held up longer than
 * the settle's bound (its vCPU preempted on the host) is still caught,
 * later; that is rare.
 */
static void kc_pool_settle_locked(void)
{
	u64 now = ktime_get_ns(), left;
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		int s = kc_probe_state(p);

		if (!p->settle_ns || !kc_probe_settle_due(p, now, &left))
			continue;
		if (s != KC_PROBE_FREE && s != KC_PROBE_BUSY) {
			kc_probe_scrub(p);
			kc_pool_settles++;
			if (!kc_cpusync_done(p->settle_sync))
				kc_pool_settles_unanswered++;
		}
		WRITE_ONCE(p->settle_ns, 0);
	}
}

/* Nanoseconds until the next removal is due its second write; 0: now. */
u64 kc_pool_settle_in_ns(void)
{
	u64 now = ktime_get_ns(), next = U64_MAX, left;
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		if (!READ_ONCE(kc_probes[i].settle_ns))
			continue;
		kc_probe_settle_due(&kc_probes[i], now, &left);
		next = min(next, left);
	}
	return next;
}

/*
 * How long a spent breakpoint stayed in the text, split where the armer
 * took it up: every hit meanwhile was a wasted trap.
 */
static void kc_probe_spent_time(const struct kc_probe *p, u64 taken)
{
	u64 hit = READ_ONCE(p->spent_ns), out = READ_ONCE(p->out_ns);

	if (out < hit)
		out = ktime_get_mono_fast_ns();

	/* the first hit's store may not be visible yet: not counted */
	if (hit <= p->armed_ns || hit > taken)
		return;
	kc_pool_spent_wait_ns += taken - hit;
	kc_pool_spent_life_ns += out - hit;
	kc_pool_spent_n++;
}

/* Under the pool lock: @p's arming ended, with a hit or @cold. */
static void kc_probe_outcome(struct kc_probe *p, bool cold)
{
	/* passes carried out: its code ran, short of the sampled pass */
	cold = cold && !READ_ONCE(p->passed);
	p->cold = cold;
	/*
	 * The verdict is stored before the int3 returns, the outcome taken
	 * after its irq_work ran; one the keeper found first is lost, and a
	 * lost one only delays the site's judgement.
	 */
	kc_sites_note_run((unsigned long)p->kp.addr, !cold,
			  READ_ONCE(p->verdict));
	if (!cold && READ_ONCE(p->loaded))
		kc_sites_note_loaded((unsigned long)p->kp.addr,
				     READ_ONCE(p->loaded));
	if (!p->fresh)
		return;
	p->fresh = false;
	if (cold)
		kc_pool_cold_share += (1000 - kc_pool_cold_share) / 32;
	else
		kc_pool_cold_share -= kc_pool_cold_share / 32;
}

unsigned int kc_pool_cold_permille(void)
{
	return READ_ONCE(kc_pool_cold_share);
}

/* Disable the breakpoints whose first hit was taken: back to the reserve. */
unsigned int kc_pool_retire(void)
{
	unsigned int n = 0;
	u64 taken;
	int i;

	mutex_lock(&kc_pool_lock);
	for (i = 0; i < kc_pool_end(); i++) {
		if (kc_probe_state(&kc_probes[i]) == KC_PROBE_SPENT) {
			taken = ktime_get_mono_fast_ns();
			/* the keeper unregisters it and refuses its site */
			kc_probe_disable(&kc_probes[i],
					 READ_ONCE(kc_probes[i].condemned) ||
					 kc_probes[i].visit ?
					 KC_PROBE_IDLE : KC_PROBE_RESERVE);
			kc_probe_spent_time(&kc_probes[i], taken);
			kc_probe_outcome(&kc_probes[i], false);
			n++;
		}
	}
	/* after the removals: one taken up late is due its second write now */
	kc_pool_settle_locked();
	mutex_unlock(&kc_pool_lock);
	if (n && kc_visits_possible)
		kc_pool_scrub_soon(2);
	return n;
}

/*
 * Let a reserve probe older than @life go, so the reserve moves over the
 * whole table; with @cold only one whose last arming found its code not
 * running. Whether one went.
 */
static bool kc_pool_age_one_locked(unsigned long life, bool cold)
{
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];

		if (kc_probe_state(p) != KC_PROBE_RESERVE ||
		    (cold && !p->cold) || !time_after(jiffies, p->born + life))
			continue;
		atomic_set(&p->state, KC_PROBE_IDLE);
		return true;
	}
	return false;
}

/*
 * Disable armed breakpoints older than @age (their code does not run),
 * and with @age_one let a reserve probe older than @life go, so the
 * reserve moves over the whole table. With @keep_cold an expired probe
 * goes back to the reserve instead of being unregistered; such probes are
 * the first to go.
 */
unsigned int kc_pool_expire(unsigned long age, unsigned long visit_age,
			    unsigned long life, bool age_one, bool keep_cold)
{
	unsigned int n = 0;
	int i;

	mutex_lock(&kc_pool_lock);
	if (age_one && !kc_pool_age_one_locked(life, true))
		kc_pool_age_one_locked(life, false);
	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];

		if (kc_probe_state(p) != KC_PROBE_ARMED ||
		    time_before(jiffies, p->armed_at +
				(p->visit ? visit_age : age)))
			continue;
		/* a hit racing with us takes it first, or never */
		if (atomic_cmpxchg(&p->state, KC_PROBE_ARMED, KC_PROBE_IDLE) !=
		    KC_PROBE_ARMED)
			continue;
		kc_probe_outcome(p, true);
		kc_probe_disable(p, keep_cold && !p->visit ? KC_PROBE_RESERVE :
							     KC_PROBE_IDLE);
		n++;
	}
	mutex_unlock(&kc_pool_lock);
	if (n && kc_visits_possible)
		kc_pool_scrub_soon(2);
	return n;
}

/* A registration replaces a kept probe whose code did not run, if any. */
void kc_pool_age_cold(unsigned long life)
{
	mutex_lock(&kc_pool_lock);
	kc_pool_age_one_locked(life, true);
	mutex_unlock(&kc_pool_lock);
}

void kc_pool_disarm_all(void)
{
	int i;

	mutex_lock(&kc_pool_lock);
	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		int s = kc_probe_state(p);

		if (s == KC_PROBE_ARMED &&
		    atomic_cmpxchg(&p->state, s, KC_PROBE_SPENT) != s)
			s = kc_probe_state(p);
		if (s == KC_PROBE_ARMED || s == KC_PROBE_SPENT)
			kc_probe_disable(p, p->visit ? KC_PROBE_IDLE :
						       KC_PROBE_RESERVE);
	}
	/* the armer is stopped: the second writes are ours */
	while (kc_pool_settle_in_ns() != U64_MAX) {
		usleep_range(KC_SETTLE_POLL_NS / NSEC_PER_USEC,
			     2 * KC_SETTLE_POLL_NS / NSEC_PER_USEC);
		kc_pool_settle_locked();
	}
	mutex_unlock(&kc_pool_lock);
	/* and the later ones, after sampling has stopped */
	if (kc_visits_possible)
		kc_pool_scrub_soon(2);
}

static bool kc_probe_quiet(const struct kc_probe *p, unsigned long quiet)
{
	unsigned long last = max(READ_ONCE(p->stale_at), p->idle_since);

	/* a visit, until the last of its page's writes */
	if (p->visit && p->scrubs < kc_visit_scrubs(p))
		return false;
	return time_after(jiffies, last + quiet) &&
	       time_after(jiffies, p->repoked + quiet);
}

/* A stale int3 in some vCPU's translation: patch the page again. */
static void kc_probe_repoke(struct kc_probe *p)
{
	unsigned long stale = READ_ONCE(p->stale_at);

	if (!stale || !time_after(stale, p->idle_since +
				  msecs_to_jiffies(KC_INFLIGHT_MS)) ||
	    !time_after(stale, p->repoked))
		return;
	/* still IDLE while enabled: a hit now is no sample */
	if (p->visit)
		kc_probe_scrub(p);
	else if (!enable_kprobe(&p->kp))
		disable_kprobe(&p->kp);
	p->repoked = jiffies;
	kc_pool_repokes++;
}

/*
 * The keeper's: scrub the sites enabled or disabled since last time, so
 * that under TCG an int3 is seen at once and a removed one stops trapping
 * now, not when some other patch happens to hit their page. Safe in any
 * state: the same byte is written.
 */
void kc_pool_scrub_disabled(void)
{
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		int s;

		if (!READ_ONCE(p->scrub))
			continue;
		/* the address is stable only under the lock */
		mutex_lock(&kc_pool_lock);
		s = kc_probe_state(p);
		if (p->scrub && s != KC_PROBE_FREE && s != KC_PROBE_BUSY) {
			p->scrub = false;
			kc_probe_scrub(p);
		}
		mutex_unlock(&kc_pool_lock);
	}
}

static void kc_pool_unregister(struct kprobe **batch, unsigned int n,
			       bool scrub)
{
	unsigned int i, k = 0;

	if (!n)
		return;
	/* an int3 of ours must not outlive its probe */
	for (i = 0; i < n; i++) {
		struct kc_probe *p = container_of(batch[i], struct kc_probe, kp);

		if (p->direct)
			kc_probe_remove(p);
		/* visits first: kprobes is told only of its own */
		if (p->visit) {
			swap(batch[i], batch[k]);
			k++;
		}
	}
	if (n > k)
		unregister_kprobes(batch + k, n - k);
	for (i = 0; i < n; i++) {
		struct kc_probe *p = container_of(batch[i], struct kc_probe, kp);

		if (scrub)
			kc_probe_scrub(p);
		kc_probe_unmap_alias(p);
		atomic_set(&p->state, KC_PROBE_FREE);
	}
}

/*
 * Unregister the probes in @from state whose sites have been quiet for
 * @quiet jiffies (all of them with @force), in one batch.
 */
/*
 * The batch of a reaping under kc_pool_lock, which guards it: the drain at
 * unload must end even when memory is short.
 */
static struct kprobe *kc_pool_locked_batch[KC_POOL_SIZE];

static unsigned int kc_pool_reap_locked(int from, unsigned long quiet,
					bool force)
{
	struct kprobe **batch = kc_pool_locked_batch;
	unsigned int n = 0, i;

	lockdep_assert_held(&kc_pool_lock);
	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];

		if (kc_probe_state(p) != from)
			continue;
		if (force || kc_probe_quiet(p, quiet))
			batch[n++] = &p->kp;
		else
			kc_probe_repoke(p);
	}
	kc_pool_unregister(batch, n, true);
	return n;
}

/*
 * debugfs "reap_hold_ms", for the tests: how long a reaping holds the
 * batch it took out (BUSY) before unregistering it, so that an unload of
 * the batch's module is made to overlap it; "reap_holding" says when.
 */
static int kc_pool_reap_hold_ms;
static atomic_t kc_pool_reap_holding;

void kc_pool_set_reap_hold(int ms)
{
	WRITE_ONCE(kc_pool_reap_hold_ms, ms);
}

int kc_pool_reap_hold(void)
{
	return READ_ONCE(kc_pool_reap_hold_ms);
}

static void kc_pool_reap_wait(void)
{
	int ms = READ_ONCE(kc_pool_reap_hold_ms);

	if (!ms)
		return;
	atomic_inc(&kc_pool_reap_holding);
	msleep(ms);
	atomic_dec(&kc_pool_reap_holding);
}

/*
 * The background reaping: an unregistration waits for a grace period, so
 * the batch is taken out of the pool's hands (BUSY) and unregistered
 * without the pool lock, while the armer goes on. The sites of condemned
 * probes among them are handed back in @condemned (up to @max; the others
 * stay registered until a later round), for the site table to refuse.
 */
unsigned int kc_pool_reap(unsigned long *condemned, unsigned int max,
			  unsigned int *nr_condemned)
{
	unsigned long quiet = msecs_to_jiffies(KC_QUIET_MS);
	struct kprobe **batch;
	unsigned int n = 0, i;

	batch = kmalloc_array(KC_POOL_SIZE, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return 0;
	mutex_lock(&kc_pool_lock);
	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];

		if (kc_probe_state(p) != KC_PROBE_IDLE)
			continue;
		if (kc_probe_quiet(p, quiet)) {
			if (READ_ONCE(p->condemned)) {
				if (*nr_condemned >= max)
					continue;
				condemned[(*nr_condemned)++] =
					(unsigned long)p->kp.addr;
			}
			atomic_set(&p->state, KC_PROBE_BUSY);
			batch[n++] = &p->kp;
		} else {
			kc_probe_repoke(p);
		}
	}
	mutex_unlock(&kc_pool_lock);
	if (n)
		kc_pool_reap_wait();
	kc_pool_unregister(batch, n, true);
	kfree(batch);
	return n;
}

unsigned int kc_pool_armed(void)
{
	return kc_pool_count(KC_PROBE_ARMED);
}

/* Lock-free: the armer's last look before it sleeps. */
bool kc_pool_spent_any(void)
{
	return kc_pool_count(KC_PROBE_SPENT);
}

/*
 * Lock-free, for a thread waiting on its spent breakpoint: until it is
 * out and its page written the second time.
 */
bool kc_pool_spent_at(unsigned long addr)
{
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];

		if ((kc_probe_state(p) == KC_PROBE_SPENT ||
		     READ_ONCE(p->settle_ns)) &&
		    (unsigned long)READ_ONCE(p->kp.addr) == addr)
			return true;
	}
	return false;
}

unsigned int kc_pool_reserve(void)
{
	return kc_pool_count(KC_PROBE_RESERVE);
}

/* Registered and in use: in the reserve, armed, or fired. */
unsigned int kc_pool_live(void)
{
	return kc_pool_count_in(BIT(KC_PROBE_RESERVE) | BIT(KC_PROBE_ARMED) |
				BIT(KC_PROBE_SPENT));
}

static unsigned int kc_pool_cold(void)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < kc_pool_end(); i++)
		n += kc_probe_state(&kc_probes[i]) == KC_PROBE_RESERVE &&
		     READ_ONCE(kc_probes[i].cold);
	return n;
}

static unsigned int kc_pool_registered(void)
{
	return kc_pool_count_in(~BIT(KC_PROBE_FREE));
}

/*
 * Every probe out of the text and unregistered, waiting (bounded) for
 * stale hits to stop first: after this, nothing of ours may trap.
 */
void kc_pool_drain(void)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(KC_DRAIN_MS);
	int i;

	kc_pool_disarm_all();
	mutex_lock(&kc_pool_lock);
	for (i = 0; i < kc_pool_end(); i++)
		if (kc_probe_state(&kc_probes[i]) == KC_PROBE_RESERVE)
			atomic_set(&kc_probes[i].state, KC_PROBE_IDLE);
	mutex_unlock(&kc_pool_lock);
	while (kc_pool_count(KC_PROBE_IDLE) || kc_pool_count(KC_PROBE_BUSY)) {
		mutex_lock(&kc_pool_lock);
		kc_pool_reap_locked(KC_PROBE_IDLE, msecs_to_jiffies(KC_QUIET_MS),
				    time_after(jiffies, deadline));
		mutex_unlock(&kc_pool_lock);
		if (kc_pool_count(KC_PROBE_IDLE))
			msleep(20);
	}
}

static bool kc_pool_busy_within(unsigned long start, unsigned long end)
{
	unsigned int i;

	for (i = 0; i < kc_pool_end(); i++) {
		unsigned long a = (unsigned long)kc_probes[i].kp.addr;

		if (kc_probe_state(&kc_probes[i]) == KC_PROBE_BUSY &&
		    a >= start && a < end)
			return true;
	}
	return false;
}

/* A module goes: its probes go now, before its text is freed. */
void kc_pool_drop_range(unsigned long start, unsigned long end)
{
	struct kprobe **batch;
	unsigned int n = 0, i;

	batch = kmalloc_array(KC_POOL_SIZE, sizeof(*batch), GFP_KERNEL);
	mutex_lock(&kc_pool_lock);
	/*
	 * A registration or reaping in the range finishes first. Entries go
	 * BUSY only under the lock, so none does while it is held: the
	 * keeper's unregistering of an entry is never doubled here.
	 */
	while (kc_pool_busy_within(start, end)) {
		mutex_unlock(&kc_pool_lock);
		usleep_range(1000, 2000);
		mutex_lock(&kc_pool_lock);
	}
	/* a site picked before this is not to be visited */
	kc_pool_drop_gen++;
	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		unsigned long a = (unsigned long)p->kp.addr;
		int s = kc_probe_state(p);

		if (s == KC_PROBE_FREE || s == KC_PROBE_BUSY || a < start ||
		    a >= end)
			continue;
		atomic_set(&p->state, KC_PROBE_IDLE);
		if (p->direct)
			kc_probe_remove(p);
		if (batch) {
			batch[n++] = &p->kp;
		} else {
			if (!p->visit)
				unregister_kprobe(&p->kp);
			kc_probe_unmap_alias(p);
			atomic_set(&p->state, KC_PROBE_FREE);
		}
		kc_pool_dropped++;
	}
	/* the module's text goes: nothing will run there again */
	kc_pool_unregister(batch, n, false);
	kc_textmap_forget(start, end);
	mutex_unlock(&kc_pool_lock);
	kfree(batch);
}

/* int3, on @kp's first hit: its site can never be sampled. */
void kc_pool_condemn(struct kprobe *kp)
{
	WRITE_ONCE(container_of(kp, struct kc_probe, kp)->condemned, true);
}
NOKPROBE_SYMBOL(kc_pool_condemn);

/* int3, on @kp's first hit: what its sample made of the address. */
void kc_pool_verdict(struct kprobe *kp, u8 verdict)
{
	WRITE_ONCE(container_of(kp, struct kc_probe, kp)->verdict, verdict);
}
NOKPROBE_SYMBOL(kc_pool_verdict);

/* int3, on @kp's first hit: the word its instruction loads, if it is one. */
void kc_pool_loaded(struct kprobe *kp, unsigned long word)
{
	WRITE_ONCE(container_of(kp, struct kc_probe, kp)->loaded, word);
}
NOKPROBE_SYMBOL(kc_pool_loaded);

/*
 * int3, on the first hit: the breakpoint takes itself out at once, one
 * byte through the alias its arming opened, as DataCollider's do: later
 * passes run the original instruction instead of trapping until the armer
 * gets to it (long enough, on a busy machine, for hot code to trap many
 * times a sample). The armer still writes the page a second time. Another
 * tool's probe that joined ours keeps the int3: kprobes owns it then. Only
 * arming @gen's: a vCPU the host holds up between the hit and this may
 * find the probe retired and armed again (under TCG such a late hit took a
 * new arming's int3 out, its probe still armed).
 */
static void kc_probe_take_out(struct kc_probe *p, unsigned int gen)
{
	bool open;

	atomic_inc(&p->alias_users);
	/* pairs with kc_probe_close_alias() */
	smp_mb__after_atomic();
	open = READ_ONCE(p->alias_open);
	/* opened by the arming it says: no new one while we hold it */
	smp_rmb();
	if (open && READ_ONCE(p->alias_gen) == gen &&
	    !IS_ERR(kc_probe_wrapper(p)) &&
	    kc_alias_cmpxchg(p->alias, INT3_INSN_OPCODE, p->kp.opcode) ==
	    INT3_INSN_OPCODE)
		WRITE_ONCE(p->out_ns, ktime_get_mono_fast_ns());
	/* the write through the alias is done before it may go */
	smp_mb__before_atomic();
	atomic_dec(&p->alias_users);
}
NOKPROBE_SYMBOL(kc_probe_take_out);

/*
 * int3, after kc_pool_take() gave @kp's first hit: whether that hit took
 * the int3 out of the text itself, so that nothing is due before the
 * page's second write.
 */
bool kc_pool_took_out(struct kprobe *kp)
{
	return READ_ONCE(container_of(kp, struct kc_probe, kp)->out_ns);
}
NOKPROBE_SYMBOL(kc_pool_took_out);

/*
 * The CPU whose copy @insn at @ip reads: per_cpu_ptr()'s offset is its
 * base or index register in the loop's usual compiled shape; else (the
 * offset added to the pointer before the access, as KASAN's check wants
 * it) the address says, where the per-CPU layout knows it; -1 if neither.
 * Plain array reads: a cpumask walk would call code that may be sampled.
 */
static int kc_copy_owner(const struct kc_insn *insn, unsigned long ip,
			 struct pt_regs *regs)
{
	const struct kc_mem_operand *m = &insn->mem[0];
	unsigned long base = 0, index = 0;
	struct kc_regs r;
	unsigned int cpu;
	u64 ea;

	kc_regs_from_pt(regs, &r);
	if (m->base < ARRAY_SIZE(r.gpr))
		base = r.gpr[m->base];
	if (m->index < ARRAY_SIZE(r.gpr))
		index = r.gpr[m->index];
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (per_cpu_offset(cpu) == base || per_cpu_offset(cpu) == index)
			return cpu;
	r.ip = ip;
	if (kc_effective_address(insn, 0, &r, &ea))
		return -1;
	return kc_percpu_owner_now(ea);
}
NOKPROBE_SYMBOL(kc_copy_owner);

/* Why a hit is carried out without a sample, if it is. */
enum kc_pass {
	KC_PASS_NONE,
	KC_PASS_DRAWN,
	KC_PASS_OWN,		/* the hitting CPU's own copy, interrupts off */
	KC_PASS_QUIET,		/* an idle CPU's copy */
};

/*
 * Whether this hit of @p is one to carry out; takes it from the count.
 * Past the drawn passes, a copy without a writer to catch is passed too.
 * The hitting CPU's own with interrupts off has none for sure (its owner
 * cannot run meanwhile): up to KC_OWN_PASSES an arming, which only a loop
 * over that copy alone reaches. An idle CPU's (its tasks do not run; the
 * profile's guess, which lags a CPU that just woke), once per CPU at most:
 * a site whose every copy looks quiet is sampled all the same.
 */
static enum kc_pass kc_probe_passes_now(struct kc_probe *p,
					const struct kc_insn *insn,
					struct pt_regs *regs)
{
	int owner;

	if (atomic_dec_if_positive(&p->passes) >= 0)
		return KC_PASS_DRAWN;
	/* both bounds reached: no scan for the copy's owner */
	if (atomic_read(&p->own_passes) >= KC_OWN_PASSES &&
	    atomic_read(&p->quiet_passes) >= nr_cpu_ids)
		return KC_PASS_NONE;
	owner = kc_copy_owner(insn, (unsigned long)p->kp.addr, regs);
	if (owner < 0)
		return KC_PASS_NONE;
	if (owner == smp_processor_id() && !(regs->flags & X86_EFLAGS_IF))
		return atomic_inc_return(&p->own_passes) <= KC_OWN_PASSES ?
		       KC_PASS_OWN : KC_PASS_NONE;
	if (atomic_read(&p->quiet_passes) < nr_cpu_ids &&
	    kc_profile_cpu_idle(owner) &&
	    atomic_inc_return(&p->quiet_passes) <= nr_cpu_ids)
		return KC_PASS_QUIET;
	return KC_PASS_NONE;
}
NOKPROBE_SYMBOL(kc_probe_passes_now);

/*
 * int3: carry out this hit of an armed read of other CPUs' copies without
 * sampling it, its int3 staying in, while the arming has passes left (and
 * for a copy that has no writer to catch). The decode is copied and the
 * arming checked again: a probe re-armed meanwhile on another site changes
 * its count before it is ARMED again.
 */
bool kc_pool_pass(struct kprobe *kp, struct pt_regs *regs)
{
	struct kc_probe *p = container_of(kp, struct kc_probe, kp);
	unsigned int gen = READ_ONCE(p->arm_gen);
	enum kc_pass why;
	struct kc_insn insn;

	/* pairs with the arming's smp_wmb(): the fields before the state */
	smp_rmb();
	if (!READ_ONCE(p->remote) ||
	    atomic_read(&p->state) != KC_PROBE_ARMED)
		return false;
	insn = p->insn;
	/* the copy before the second look: a re-decode leaves ARMED first */
	smp_rmb();
	if (atomic_read(&p->state) != KC_PROBE_ARMED ||
	    READ_ONCE(p->arm_gen) != gen || !kc_emulate_possible(&insn))
		return false;
	why = kc_probe_passes_now(p, &insn, regs);
	if (why == KC_PASS_NONE ||
	    !kc_emulate(&insn, (unsigned long)kp->addr, regs))
		return false;
	if (why == KC_PASS_OWN)
		this_cpu_inc(kc_pool_own_passes);
	else if (why == KC_PASS_QUIET)
		this_cpu_inc(kc_pool_quiet_passes);
	WRITE_ONCE(p->passed, true);
	return true;
}
NOKPROBE_SYMBOL(kc_pool_pass);

/* int3: the first hit of an armed probe, or NULL (spent, stale). */
const struct kc_insn *kc_pool_take(struct kprobe *kp)
{
	struct kc_probe *p = container_of(kp, struct kc_probe, kp);
	unsigned int gen = READ_ONCE(p->arm_gen);
	int state;

	/* pairs with kc_pool_arm(): ARMED seen, its arming's count too */
	smp_rmb();
	state = atomic_read(&p->state);

	if (state == KC_PROBE_ARMED &&
	    atomic_cmpxchg(&p->state, KC_PROBE_ARMED, KC_PROBE_SPENT) ==
	    KC_PROBE_ARMED) {
		WRITE_ONCE(p->spent_ns, ktime_get_mono_fast_ns());
		kc_probe_take_out(p, gen);
		/*
		 * The post-handler stays: kprobes may have wrapped the probe
		 * in an aggregate whose post-handler calls ours after a check
		 * (a NULL written here would crash it), so later hits are not
		 * "boosted" and cost two traps until the disable.
		 */
		return &p->insn;
	}
	if (state == KC_PROBE_IDLE || state == KC_PROBE_RESERVE) {
		WRITE_ONCE(p->stale_at, jiffies);
		this_cpu_inc(kc_pool_stale_hits);
	}
	return NULL;
}
NOKPROBE_SYMBOL(kc_pool_take);

/*
 * A racer single-stepping one of our probes traps inside the probe's
 * instruction slot: map that back to the probed address. Lock-free, for
 * the #DB path; entries are static, a racing change only misses.
 */
bool kc_pool_map_slot_ip(unsigned long ip, unsigned long *orig)
{
	int i;

	if (!kc_slot_pages_hold(ip))
		return false;
	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		unsigned long slot = (unsigned long)READ_ONCE(p->kp.ainsn.insn);

		if (kc_probe_state(p) == KC_PROBE_FREE || !slot)
			continue;
		if (ip > slot && ip <= slot + p->insn.length) {
			*orig = (unsigned long)p->kp.addr + (ip - slot);
			return true;
		}
	}
	return false;
}
NOKPROBE_SYMBOL(kc_pool_map_slot_ip);

/* Original bytes of code read from the text: our int3s replaced. */
void kc_pool_patch_original(unsigned long start, u8 *code, size_t len)
{
	int i;

	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		unsigned long a = (unsigned long)READ_ONCE(p->kp.addr);

		if (kc_probe_state(p) == KC_PROBE_FREE || a < start ||
		    a >= start + len || code[a - start] != 0xcc)
			continue;
		code[a - start] = p->kp.opcode;
	}
}

static u64 kc_mean_us(u64 ns, unsigned long n)
{
	return n ? div_u64(ns, n * NSEC_PER_USEC) : 0;
}

/*
 * Under the lock every patch of the armer's has finished, so the states
 * and the text must agree: ARMED in it (enabled, or our own int3
 * written), SPENT in it or (written directly) taken out by its first
 * hit, the rest out. Compared from outside (the kprobes list
 * against probes_armed) they rarely do on a slow kernel: some patch is
 * always in flight.
 */
static unsigned int kc_pool_mismatched(unsigned int *spent)
{
	unsigned int n = 0;
	int i;

	*spent = 0;
	mutex_lock(&kc_pool_lock);
	for (i = 0; i < kc_pool_end(); i++) {
		struct kc_probe *p = &kc_probes[i];
		int s = kc_probe_state(p);
		bool live, in_text;
		u8 b;

		if (s == KC_PROBE_FREE || s == KC_PROBE_BUSY)
			continue;
		in_text = !kprobe_disabled(&p->kp);
		if (p->direct) {
			in_text = !copy_from_kernel_nofault(&b, p->kp.addr, 1) &&
				  b == INT3_INSN_OPCODE;
			/*
			 * The byte first: a first hit leaves ARMED before it
			 * takes its int3 out, and it may do so at any time.
			 */
			smp_rmb();
			s = kc_probe_state(p);
		}
		*spent += s == KC_PROBE_SPENT;
		/* in or out: its first hit may have taken it out */
		if (s == KC_PROBE_SPENT && p->direct)
			continue;
		live = s == KC_PROBE_ARMED || s == KC_PROBE_SPENT;
		n += live != in_text;
	}
	mutex_unlock(&kc_pool_lock);
	return n;
}

static unsigned long kc_pool_sum(unsigned long __percpu *count)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += *per_cpu_ptr(count, cpu);
	return n;
}

void kc_pool_stats(struct seq_file *m)
{
	unsigned int spent, mismatched = kc_pool_mismatched(&spent);

	seq_printf(m, "probes_armed %u\nprobes_spent %u\n"
		   "probes_mismatched %u\nprobes_reserve %u\n"
		   "probes_cold %u\n"
		   "probes_registered %u\nprobes_repoked %lu\n"
		   "probes_dropped %lu\nprobes_scrubbed %lu\n"
		   "patches_direct %lu\npatches_kprobes %lu\n"
		   "patches_direct_refused %lu\n"
		   "registrations %lu\nregister_us_mean %llu\n"
		   "enable_us_mean %llu\n"
		   "spent_wait_us_mean %llu\nspent_life_us_mean %llu\n"
		   "hits_stale %lu\nretire_settles %lu\n"
		   "settles_unanswered %lu\n"
		   "visits %lu\nvisit_us_mean %llu\nvisits_again %lu\n"
		   "visit_again_us_mean %llu\nvisits_known_clear %lu\n"
		   "visits_refused %lu\n"
		   "visits_withdrawn %lu\nscrubs_rescued %lu\n"
		   "loops_broken %lu\nsilent_rewrites %lu\n"
		   "probes_used %u\nscrub_work_runs %lu\n",
		   kc_pool_armed(), spent, mismatched, kc_pool_reserve(),
		   kc_pool_cold(),
		   kc_pool_registered(), READ_ONCE(kc_pool_repokes),
		   READ_ONCE(kc_pool_dropped), READ_ONCE(kc_pool_scrubs),
		   READ_ONCE(kc_pool_direct_patches),
		   READ_ONCE(kc_pool_kprobes_patches),
		   READ_ONCE(kc_pool_direct_refused),
		   READ_ONCE(kc_pool_regs),
		   kc_mean_us(kc_pool_reg_ns, kc_pool_regs),
		   kc_mean_us(kc_pool_enable_ns, kc_pool_enables),
		   kc_mean_us(kc_pool_spent_wait_ns, kc_pool_spent_n),
		   kc_mean_us(kc_pool_spent_life_ns, kc_pool_spent_n),
		   kc_pool_sum(&kc_pool_stale_hits), READ_ONCE(kc_pool_settles),
		   READ_ONCE(kc_pool_settles_unanswered),
		   READ_ONCE(kc_pool_visits),
		   kc_mean_us(kc_pool_visit_ns, kc_pool_visits),
		   READ_ONCE(kc_pool_revisits),
		   kc_mean_us(kc_pool_revisit_ns, kc_pool_revisits),
		   READ_ONCE(kc_pool_visits_known_clear),
		   READ_ONCE(kc_pool_visits_refused),
		   READ_ONCE(kc_pool_visits_withdrawn), kc_rescue_pulled(),
		   kc_rescue_loops_broken(), kc_rescue_silent_rewrites(),
		   kc_pool_end(), READ_ONCE(kc_pool_scrub_runs));
	seq_printf(m, "reap_holding %d\n", atomic_read(&kc_pool_reap_holding));
	seq_printf(m, "hits_passed_own %lu\nhits_passed_quiet %lu\n",
		   kc_pool_sum(&kc_pool_own_passes),
		   kc_pool_sum(&kc_pool_quiet_passes));
	kc_textmap_show(m);
}

void kc_pool_init(kprobe_pre_handler_t handler)
{
	kc_pool_handler = handler;
	kc_cpusync_init();
	kc_rescue_init(&kc_pool_scrub_work, kc_pool_rescue_write);
	kc_pool_visits_init();
	kc_textmap_init();
}

/* After kc_pool_drain(): no visit is left for the notifier to find. */
void kc_pool_exit(void)
{
	kc_pool_stop();
	kc_rescue_exit();
	cancel_delayed_work_sync(&kc_pool_scrub_work);
	if (kc_visits_possible)
		unregister_die_notifier(&kc_pool_int3_nb);
	kc_visits_possible = false;
	kc_cpusync_exit();
	kc_textmap_exit();
}

/* The table changed: the reserve's sites may be targets no more. */
void kc_pool_flush(void)
{
	int i;

	mutex_lock(&kc_pool_lock);
	for (i = 0; i < kc_pool_end(); i++)
		if (kc_probe_state(&kc_probes[i]) == KC_PROBE_RESERVE)
			atomic_set(&kc_probes[i].state, KC_PROBE_IDLE);
	/* how cold the new targets are is still to be seen */
	WRITE_ONCE(kc_pool_cold_share, KC_COLD_UNKNOWN);
	mutex_unlock(&kc_pool_lock);
}
