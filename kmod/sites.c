// SPDX-License-Identifier: GPL-2.0
/*
 * The site table: every memory-accessing instruction of the targeted code,
 * four bytes a site (its offset in its code object), decoded again only
 * when the sampler arms it. One range per code object (vmlinux, each
 * module); a bitmap per range remembers the sites kprobes refused, so a
 * refusal costs one registration attempt, not one per pick.
 *
 * Sampling is uniform over static sites, as DataCollider's, among sites
 * of equal weight: a pick draws an index over all ranges' sites together
 * and keeps it with the site's weight, which falls while its code does not
 * run (see KC_COLD_MAX). Most picks are uniform over the sites of the
 * functions found running lately instead (see KC_RUNNING_PICKS).
 *
 * The table changes only in process context under kc_sites_lock; the
 * sampler's worker is its only reader on the sampling path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/bsearch.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/unaligned.h>

#include <kcollider/marks.h>
#include "kcollider.h"

/* Larger symbols are data or padding runs, not functions worth decoding. */
#define KC_MAX_FUNC_SIZE	(256 * 1024)
#define KC_PICK_TRIES		16
/*
 * A site whose breakpoint expired unrun is picked less often: each such
 * arming halves its weight, down to 1 / 2^KC_COLD_MAX, one that ran
 * restores it, and the weight doubles back every KC_COLD_DECAY_MS. Code
 * that is not running costs text writes and finds nothing; code that
 * starts to run is back at full weight within seconds. Among sites of
 * equal weight the pick stays uniform.
 */
#define KC_COLD_MAX		6
#define KC_COLD_DECAY_MS	1000
/* weight rejections a pick may make before it takes what it has */
#define KC_COLD_TRIES		64
/* a site whose marking is sampled seldom: its weight's halvings */
#define KC_SELDOM_HALVINGS	3
/*
 * A site whose sampled hit was on a stack, which no watch covers, costs
 * an arming and finds nothing: each such hit halves its weight, down to
 * 1 / 2^KC_STACK_MAX, and one watched restores it. The same code is
 * mostly handed the same kind of memory by its callers (a helper filling
 * a caller's local structure); one handed both kinds keeps its weight.
 * No decay with time: only a pick can show a change of callers.
 */
#define KC_STACK_MAX		4
/*
 * A site that only reads has its weight halved once. Its watch catches
 * writers alone, where a write's catches readers too; and the data races
 * are on is mostly read more often than written, so a window on the write
 * has the frequent side to wait for, and one on a read the rare side.
 */
#define KC_READ_HALVINGS	1
/* an offset's flag while the table is built: the site only reads */
#define KC_OFF_READ		BIT(31)
/*
 * Of every KC_RUNNING_OF picks, KC_RUNNING_PICKS go to a function a CPU
 * ran in the last KC_RUNNING_AGE_MS (see profile.c), and the rest stay
 * uniform: code that runs rarely, or with interrupts off where no tick
 * sees it, keeps its share of the breakpoints. A function that takes a
 * hundredth of a CPU's time is ticked about once a second: the age lets
 * it stay among the running ones from one tick to the next.
 */
#define KC_RUNNING_PICKS	3
#define KC_RUNNING_OF		4
#define KC_RUNNING_AGE_MS	1000
#define KC_RUNNING_SITE_TRIES	8
/*
 * The functions found running: a tick's innermost targeted frame (a
 * helper it is in may not be targeted), and a pick is uniform over them,
 * then over the function's sites. The ticks say which code runs, not how
 * much, and a loop's body is found as often as the loop: weighted by
 * time or by sites, picks would go to the loop that calls the accesses
 * that race. Each pick takes the ticks noted since the last one, up to
 * KC_RUNNING_TICKS: a function seldom ticked is found at its first tick,
 * not only when a draw happens upon it.
 */
#define KC_RUNNING_FNS		128
#define KC_RUNNING_TICKS	64
/*
 * Functions looked up stay known after their ticks stop, the least lately
 * seen forgotten first, those with nothing to pick included (no site and
 * no targeted callee of their own): a lookup (the symbol, the function's
 * sites, a scan of its first bytes for callees) costs the armer far
 * more than finding what it knows, and the same functions keep coming
 * back in the ticks. A busy kernel with targets=all runs more functions
 * within a second than a pick's running set holds: a set of that size
 * only, and most ticks would cost a lookup.
 */
#define KC_RUNNING_KNOWN	1024
/*
 * A function found running runs its callees too, and a short one (an
 * accessor, a helper the compiler did not inline) is seldom what a tick
 * interrupts: its time ends in its caller's frame, or in a return thunk
 * that unwinds to the caller. Half the picks in a running function go to
 * a targeted function it calls directly, found in its first bytes.
 */
#define KC_RUNNING_CALLEES	8
#define KC_CALLEE_SCAN_BYTES	4096
/* a direct call or jump: an opcode byte and its displacement */
#define KC_OP_CALL_REL32	0xe8
#define KC_OP_JMP_REL32		0xe9
#define KC_OP_JMP_REL8		0xeb
#define KC_REL32_INSN_LEN	5
#define KC_REL8_INSN_LEN	2
/*
 * Of the picks that are not the running code's, half go to the sites that
 * reach some CPU's per-CPU data through per_cpu_ptr(), when there are
 * any: the sums and drains of per-CPU counters and lists, the one place a
 * per-CPU race lives (the owner's this_cpu_*() against them). Their code
 * runs seldom, a fold or a statfs(), and a uniform pick over the whole
 * kernel finds it almost never.
 */
#define KC_REMOTE_PICKS		1
#define KC_REMOTE_OF		2
/*
 * A sample of a remote read watches one CPU's copy of many, and catches a
 * race only if that copy's owner writes it during the stall: finding one
 * takes many samples of the same site, and only sites whose code runs can
 * give them. So of every KC_REMOTE_HOT_OF remote picks, KC_REMOTE_HOT_PICKS
 * go to the remote sites (up to KC_REMOTE_HOT) whose last arming ran, and
 * the others keep looking for more over the whole table.
 */
#define KC_REMOTE_HOT		64
#define KC_REMOTE_HOT_PICKS	3
#define KC_REMOTE_HOT_OF	4
/*
 * A remote site the per-CPU deny set refused at KC_REMOTE_DENIALS sampled
 * hits, and never watched at one, reads a static variable the trap paths
 * use (per_cpu(var, cpu)): it runs often and would take the picks meant
 * for sums, so the table refuses it. One watched once is a helper whose
 * callers hand it other per-CPU data too, and stays whatever follows.
 */
#define KC_REMOTE_DENIALS	4
#define KC_REMOTE_WATCHED	U8_MAX
/*
 * per_cpu_ptr() loads __per_cpu_offset[cpu] into a register and adds the
 * pointer: the accesses through what that register fed, over the next
 * few instructions of straight-line code, are the remote per-CPU sites.
 */
#define KC_REMOTE_WINDOW	8

struct kc_callee {
	struct kc_range *range;
	unsigned long start;
	unsigned long lo, hi;		/* its sites in the range */
	bool loaded;			/* seen loaded, not only decoded */
};

struct kc_running_fn {
	struct kc_range *range;		/* NULL: a free slot */
	unsigned long start, end;	/* the function's text */
	unsigned long lo, hi;		/* its sites in the range */
	unsigned long seen;		/* jiffies of its last tick */
	unsigned long last_loaded;	/* kc_sites_note_loaded()'s last */
	bool worth;			/* sites or callees to pick from */
	bool slept;			/* last seen blocked, not ticked */
	unsigned int nr_callees;
	struct kc_callee callees[KC_RUNNING_CALLEES];
};

struct kc_atomic_loc {
	unsigned long start;
	unsigned long end;
};

struct kc_range {
	struct list_head node;
	char name[MODULE_NAME_LEN];	/* "vmlinux" or the module's */
	unsigned long base;
	unsigned long size;
	unsigned int nr;
	unsigned int cap;
	u32 *offs;			/* sorted at seal */
	unsigned long *refused;
	unsigned int nr_refused;
	unsigned int nr_refused_remote;	/* by the per-CPU deny set */
	u8 *cold;			/* the halvings of each site's weight */
	u32 *cold_at;			/* jiffies of its last unrun arming */
	u8 *stack;			/* halvings earned by stack hits */
	unsigned long *reads;		/* the sites that only read */
	u32 spec_sites[KC_MAX_SPECS];
	u32 spec_funcs[KC_MAX_SPECS];
	/*
	 * Globals this code touches with LOCK'd instructions (RIP-relative
	 * operands): evidence that plain accesses to them are the marked
	 * atomic_read()/atomic_set() kind. Sorted at seal.
	 */
	struct kc_atomic_loc *atomics;
	unsigned int nr_atomics;
	unsigned int cap_atomics;
	/*
	 * Every function the build walked, "start offset << 32 | size",
	 * sorted at seal: the running code's functions are found here, where
	 * kallsyms' lookup by address costs the armer a millisecond under
	 * TCG. Not whole (vmlinux's functions named exactly, memory short):
	 * kallsyms it is, and the list holds only the functions it has, which
	 * still tells a site's function for the blacklist's answers.
	 */
	u64 *funcs;
	unsigned int nr_funcs;
	unsigned int cap_funcs;
	bool funcs_whole;
	/*
	 * Every site lies in a function of funcs, whole or not: a function
	 * not in it has none, and is not looked up to find that out.
	 */
	bool funcs_hold_sites;
	/* of funcs: kprobes' blacklist looked up and found not to hold it */
	unsigned long *funcs_cleared;
	/* the sites that reach per-CPU data through per_cpu_ptr() */
	u32 *remote;
	u8 *remote_denials;		/* or KC_REMOTE_WATCHED */
	unsigned int nr_remote;
	unsigned int cap_remote;
};

static DEFINE_MUTEX(kc_sites_lock);
static LIST_HEAD(kc_ranges);
static unsigned long kc_nr_sites;
static unsigned long kc_nr_read_sites;
static u64 kc_build_ns;
static unsigned long kc_build_bytes;
static unsigned long kc_denied_funcs;
static unsigned long kc_picks_running;
static unsigned long kc_picks_uniform;
static unsigned long kc_picks_callee;
/* callees found through a pointer to them that running code loaded */
static unsigned long kc_running_loaded;
static unsigned long kc_picks_remote;
static unsigned long kc_picks_unwatched;	/* left out for their marking */
static unsigned long kc_picks_remote_hot;
/* stack hits that lowered a site's weight */
static unsigned long kc_sites_stack_halvings;
static unsigned long kc_nr_remote;
/* remote sites whose last arming ran, under kc_sites_lock */
static unsigned long kc_remote_hot[KC_REMOTE_HOT];
static unsigned int kc_nr_remote_hot;
/* what picking cost the armer, and the functions it looked up for it */
static u64 kc_pick_ns;
static u64 kc_running_refresh_ns;
static u64 kc_running_lookup_ns;
static unsigned long kc_running_lookups;
static struct kc_running_fn kc_running[KC_RUNNING_KNOWN];
/*
 * The known functions' slots by start address: each profile frame is
 * looked for there, and a tick has several, a pick many ticks.
 */
static u16 kc_running_order[KC_RUNNING_KNOWN];
static unsigned int kc_nr_running_order;

/* The decode buffer of builds, which kc_sites_lock serializes. */
static u8 *kc_code;
/*
 * The running code's symbol lookups', under kc_sites_lock: on the
 * armer's stack, two of them (a function and, looked up within it, a
 * callee) and the running set took more than a frame may under KASAN.
 */
static char kc_running_sym[KSYM_SYMBOL_LEN];
/* kc_code's offsets where a translated block starts (see below) */
static unsigned long *kc_block_starts;
/* sites of vmlinux left out for starting a block */
static unsigned long kc_block_start_sites;
/* %gs-relative accesses left out for reaching static per-CPU data */
static unsigned long kc_static_percpu_sites;

/*
 * A %gs-relative access with no register in its address (the displacement
 * alone, or RIP-relative) reaches a static per-CPU variable, the kernel's
 * or a module's: the same offset into each CPU's unit at every run. Those
 * are never watched (the trap paths touch them), so such an instruction
 * is no site: arming it would spend a breakpoint, and the sampling rate,
 * on a skip. Those through a pointer (this_cpu_add(*counters, n)) reach
 * alloc_percpu() data and stay sites.
 */
static bool kc_site_static_percpu(const struct kc_insn *insn,
				  unsigned long addr)
{
	const struct kc_mem_operand *m = &insn->mem[0];
	unsigned long off;

	if (m->seg != KC_SEG_GS || m->index != KC_REG_NONE)
		return false;
	if (m->base == KC_REG_RIP)
		off = addr + insn->length + (long)m->disp;
	else if (m->base == KC_REG_NONE)
		off = (long)m->disp;
	else
		return false;
	return kc_percpu_offset_denied(off, m->size);
}

/* What makes an instruction a site, whatever its segment. */
static bool kc_site_access(const struct kc_insn *insn)
{
	const struct kc_mem_operand *m = &insn->mem[0];
	u32 f = insn->flags;

	if (!(f & KC_INSN_MEM) || !(f & KC_INSN_SEM_KNOWN) || insn->nmem != 1)
		return false;
	if (f & (KC_INSN_ATOMIC | KC_INSN_STRING | KC_INSN_NOT_ACCESS |
		 KC_INSN_IMPLICIT_STACK | KC_INSN_BRANCH))
		return false;
	return m->base != KC_REG_RSP && m->seg != KC_SEG_FS && m->access &&
	       m->size;
}

static bool kc_site_wanted(const struct kc_insn *insn, unsigned long addr,
			   bool percpu)
{
	if (!kc_site_access(insn))
		return false;
	if (insn->mem[0].seg != KC_SEG_GS)
		return true;
	return percpu && !kc_site_static_percpu(insn, addr);
}

/* @insn decoded at @addr */
bool kc_insn_is_site(const struct kc_insn *insn, unsigned long addr)
{
	return kc_site_wanted(insn, addr, READ_ONCE(kc_settings.sample_percpu));
}

/*
 * Room for one more @elem-byte element in *@array of *@cap, @nr of them
 * used: doubled when full, @first at the first. Tables are built once per
 * targets change, in process context.
 */
static int kc_array_room(void **array, unsigned int nr, unsigned int *cap,
			 size_t elem, unsigned int first)
{
	unsigned int more;
	void *grown;

	if (nr < *cap)
		return 0;
	more = *cap ? *cap * 2 : first;
	grown = kvmalloc_array(more, elem, GFP_KERNEL);
	if (!grown)
		return -ENOMEM;
	if (nr)
		memcpy(grown, *array, nr * elem);
	kvfree(*array);
	*array = grown;
	*cap = more;
	return 0;
}

static int kc_offs_push(u32 **offs, unsigned int *nr, unsigned int *cap,
			u32 off)
{
	if (kc_array_room((void **)offs, *nr, cap, sizeof(**offs), 256))
		return -ENOMEM;
	(*offs)[(*nr)++] = off;
	return 0;
}

static void kc_range_push_function(struct kc_range *r, unsigned long start,
				   unsigned long size)
{
	if (kc_array_room((void **)&r->funcs, r->nr_funcs, &r->cap_funcs,
			  sizeof(*r->funcs), 1024)) {
		r->funcs_whole = false;
		r->funcs_hold_sites = false;
		return;
	}
	r->funcs[r->nr_funcs++] = (u64)(start - r->base) << 32 | (u32)size;
}

static int kc_range_push(struct kc_range *r, u32 off, bool remote,
			 bool reads)
{
	int ret;

	if (off & KC_OFF_READ)
		return -E2BIG;
	ret = kc_offs_push(&r->offs, &r->nr, &r->cap,
			   reads ? off | KC_OFF_READ : off);

	/* a site left out of the remote ones is still a site */
	if (!ret && remote)
		kc_offs_push(&r->remote, &r->nr_remote, &r->cap_remote, off);
	return ret;
}

/*
 * The registers per_cpu_ptr()'s offset fed, and for how much longer. A
 * forward conditional branch ends the straight line, but its target
 * (@join, an offset in the function) takes the taint it had: a check the
 * compiler put between the offset and the access (KASAN's shadow test,
 * jumping over its report call) is a diamond that joins there.
 */
struct kc_percpu_taint {
	u32 regs;
	unsigned int left;
	unsigned long join;
	u32 join_regs;
	unsigned int join_left;
};

static bool kc_loads_percpu_offset(const struct kc_insn *insn)
{
	const struct kc_mem_operand *m = &insn->mem[0];

	/* the pointer loaded, or the offset added to it ("add off(,%rcx,8)") */
	return (insn->op == KC_OP_MOV || insn->op == KC_OP_ADD) &&
	       (insn->flags & KC_INSN_MEM) &&
	       insn->nmem == 1 && m->access == KC_ACC_READ &&
	       m->base == KC_REG_NONE && m->index < KC_REG_RIP &&
	       m->scale == 8 && m->seg == KC_SEG_NONE && insn->reg < 16 &&
	       (long)m->disp == (long)__per_cpu_offset;
}

static bool kc_reg_tainted(const struct kc_percpu_taint *t, u8 reg)
{
	return reg < 16 && (t->regs & BIT(reg));
}

/* @insn at @off: a forward conditional branch's target takes the taint. */
static void kc_percpu_taint_fork(struct kc_percpu_taint *t,
				 const struct kc_insn *insn, unsigned long off)
{
	unsigned long join;

	if (!t->left || (insn->flags & (KC_INSN_COND | KC_INSN_REL_TARGET)) !=
	    (KC_INSN_COND | KC_INSN_REL_TARGET) || insn->rel_target <= 0)
		return;
	join = off + insn->length + insn->rel_target;
	if (t->join && t->join != join)
		return;
	t->join = join;
	t->join_regs |= t->regs;
	t->join_left = max(t->join_left, t->left);
}

static void kc_percpu_taint_join(struct kc_percpu_taint *t, unsigned long off)
{
	if (!t->join || off < t->join)
		return;
	if (off == t->join) {
		t->regs = (t->left ? t->regs : 0) | t->join_regs;
		t->left = max(t->left, t->join_left);
	}
	t->join = 0;
	t->join_regs = 0;
	t->join_left = 0;
}

/*
 * Follows @insn, at @off in its function, through the taint; true when its
 * memory operand's address comes from a tainted register (checked before
 * @insn writes it).
 */
static bool kc_percpu_taint_step(struct kc_percpu_taint *t,
				 const struct kc_insn *insn, unsigned long off)
{
	const struct kc_mem_operand *m = &insn->mem[0];
	bool loads = kc_loads_percpu_offset(insn), through = false;
	u8 rm;

	kc_percpu_taint_join(t, off);
	if (t->left && (insn->flags & (KC_INSN_MEM | KC_INSN_NOT_ACCESS)))
		through = kc_reg_tainted(t, m->base) ||
			  kc_reg_tainted(t, m->index);
	if (t->left && !(insn->flags & KC_INSN_MEM) && insn->has_modrm) {
		/* lea, or a register-to-register op: both registers */
		rm = (insn->modrm & 7) | ((insn->rex & 1) << 3);
		if (through || ((insn->modrm >> 6) == 3 &&
				(kc_reg_tainted(t, rm) ||
				 kc_reg_tainted(t, insn->reg)))) {
			t->regs |= BIT(insn->reg & 15);
			if ((insn->modrm >> 6) == 3)
				t->regs |= BIT(rm);
		}
	}
	kc_percpu_taint_fork(t, insn, off);
	if (t->left)
		t->left--;
	if (insn->flags & KC_INSN_BRANCH)
		t->left = 0;
	if (loads) {
		t->regs = BIT(insn->reg);
		t->left = KC_REMOTE_WINDOW;
	}
	return through && !loads && (insn->flags & KC_INSN_MEM);
}

static void kc_range_note_atomic(struct kc_range *r, const struct kc_insn *insn,
				 unsigned long next)
{
	const struct kc_mem_operand *m = &insn->mem[0];

	if (!(insn->flags & KC_INSN_ATOMIC) || !(insn->flags & KC_INSN_MEM) ||
	    m->base != KC_REG_RIP || m->index != KC_REG_NONE ||
	    m->seg != KC_SEG_NONE)
		return;
	if (kc_array_room((void **)&r->atomics, r->nr_atomics,
			  &r->cap_atomics, sizeof(*r->atomics), 64))
		return;
	r->atomics[r->nr_atomics].start = next + (long)m->disp;
	r->atomics[r->nr_atomics].end = next + (long)m->disp +
					 max_t(unsigned int, m->size, 1);
	r->nr_atomics++;
}

/*
 * Where QEMU's TCG starts a translated block in the function in kc_code:
 * its first instruction, the one after a branch or a call, and a branch's
 * target inside it.
 */
static void kc_note_block_starts(unsigned long size)
{
	struct kc_insn insn;
	unsigned long off;
	s64 target;
	bool after_branch = true;

	bitmap_zero(kc_block_starts, size);
	for (off = 0; off < size; off += insn.length) {
		if (kc_decode(kc_code + off, size - off, &insn))
			break;
		if (after_branch)
			__set_bit(off, kc_block_starts);
		after_branch = insn.flags & KC_INSN_BRANCH;
		if (!(insn.flags & KC_INSN_REL_TARGET))
			continue;
		target = off + insn.length + insn.rel_target;
		if (target >= 0 && target < size)
			__set_bit(target, kc_block_starts);
	}
}

/*
 * Between STAC and CLAC the code reads and writes user memory (get_user(),
 * copy_from_user() and their inlined forms): a watch there is never
 * armed, so a site there only costs a trap, in code that system calls run
 * all the time (a hunt hung under QEMU's TCG with a CPU looping on a
 * stale int3 just after the STAC of __get_user_8()). The region, in
 * address order, after the instruction at @code: still open, opened, or
 * closed.
 */
static bool kc_user_access_from(const u8 *code, unsigned int len, bool open)
{
	if (len != 3 || code[0] != 0x0f || code[1] != 0x01)
		return open;
	if (code[2] == 0xcb)		/* stac */
		return true;
	return code[2] == 0xca ? false : open;	/* clac */
}

/*
 * Sites when @sites, and the LOCK'd globals always. Never where a block
 * starts (@whole_blocks: in vmlinux, else only at the first instruction):
 * under QEMU's TCG a block translated while our int3 was in and linked
 * after its removal keeps the int3, and once no probe is registered there
 * kprobes retries it for ever in every CPU that enters the block there.
 * Where those CPUs have interrupts off nothing ends the loop: a soak hung
 * with every CPU at the first instruction of __list_del_entry_valid(),
 * called by the scheduler. An int3 inside a block is retried from a block
 * of its own, translated afresh, and runs on. vmlinux's helpers are what
 * every CPU runs with interrupts off; a function's first instruction is
 * where every caller enters, and most functions start with ftrace's nop.
 * A module keeps its other block starts: the accesses right after a call
 * (spin_lock() returning, say) are where much of its shared data is.
 */
static unsigned int kc_decode_function(struct kc_range *r, unsigned long start,
				       unsigned long size, bool percpu,
				       bool sites, bool whole_blocks)
{
	struct kc_percpu_taint taint = { 0 };
	unsigned int before = r->nr;
	struct kc_insn insn;
	unsigned long off;
	bool user_access = false, remote;

	if (!size || size > KC_MAX_FUNC_SIZE ||
	    copy_from_kernel_nofault(kc_code, (void *)start, size))
		return 0;
	if (sites && whole_blocks)
		kc_note_block_starts(size);
	for (off = 0; off < size; off += insn.length) {
		if (kc_decode(kc_code + off, size - off, &insn))
			break;
		user_access = kc_user_access_from(kc_code + off, insn.length,
						  user_access);
		kc_range_note_atomic(r, &insn, start + off + insn.length);
		remote = kc_percpu_taint_step(&taint, &insn, off);
		if (!sites || !off || user_access ||
		    !kc_site_wanted(&insn, start + off, percpu)) {
			if (sites && percpu && kc_site_access(&insn) &&
			    kc_site_static_percpu(&insn, start + off))
				kc_static_percpu_sites++;
			continue;
		}
		if (whole_blocks && test_bit(off, kc_block_starts)) {
			kc_block_start_sites++;
			continue;
		}
		if (kc_range_push(r, start + off - r->base, remote,
				  !(insn.mem[0].access & KC_ACC_WRITE)))
			break;
	}
	return r->nr - before;
}

/* "name.cold", "name.isra.0": the function's own name decides. */
static void kc_base_name(const char *name, char *out, size_t size)
{
	size_t n = strcspn(name, ".");

	n = min(n, size - 1);
	memcpy(out, name, n);
	out[n] = '\0';
}

static void kc_add_function(struct kc_range *r, const struct kc_site_filter *f,
			    const char *name, unsigned long start,
			    unsigned long size, bool in_vmlinux)
{
	char base[KSYM_NAME_LEN];
	unsigned int n = 0;
	u64 mask;
	int b;

	kc_range_push_function(r, start, size);
	kc_base_name(name, base, sizeof(base));
	mask = f->match(f->ctx, r->name, base);
	if (!mask) {
		/* a targeted module's other code still shows its atomics */
		if (!in_vmlinux)
			kc_decode_function(r, start, size, false, false,
					   false);
		return;
	}
	/* excluded, or named but denied: counted, never decoded */
	if ((mask & f->positive) && !(mask & ~f->positive)) {
		/* the detector's dependencies all live in vmlinux */
		if (in_vmlinux && (kc_denied_addr(start) ||
				   kc_denied_name(base)))
			kc_denied_funcs++;
		else
			n = kc_decode_function(r, start, size, f->percpu,
					       true, in_vmlinux);
	}
	for (b = 0; b < KC_MAX_SPECS; b++) {
		if (!(mask & BIT_ULL(b)))
			continue;
		r->spec_funcs[b]++;
		if (f->positive & BIT_ULL(b))
			r->spec_sites[b] += n;
	}
}

static struct kc_range *kc_range_new(const char *name, unsigned long base,
				     unsigned long size)
{
	struct kc_range *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	strscpy(r->name, name, sizeof(r->name));
	r->base = base;
	r->size = size;
	r->funcs_whole = true;
	r->funcs_hold_sites = true;
	return r;
}

static void kc_range_free(struct kc_range *r)
{
	if (!r)
		return;
	kvfree(r->atomics);
	kvfree(r->funcs);
	bitmap_free(r->funcs_cleared);
	kvfree(r->remote);
	kvfree(r->remote_denials);
	kvfree(r->offs);
	bitmap_free(r->refused);
	kvfree(r->cold);
	kvfree(r->cold_at);
	kvfree(r->stack);
	bitmap_free(r->reads);
	kfree(r);
}

static int kc_atomic_cmp(const void *a, const void *b)
{
	unsigned long x = ((const struct kc_atomic_loc *)a)->start;
	unsigned long y = ((const struct kc_atomic_loc *)b)->start;

	return x < y ? -1 : x > y;
}

static int kc_off_cmp(const void *key, const void *elt)
{
	u32 a = *(const u32 *)key, b = *(const u32 *)elt;

	return a < b ? -1 : a > b;
}

/* offsets still carrying KC_OFF_READ, compared without it */
static int kc_flagged_off_cmp(const void *key, const void *elt)
{
	u32 a = *(const u32 *)key & ~KC_OFF_READ;
	u32 b = *(const u32 *)elt & ~KC_OFF_READ;

	return a < b ? -1 : a > b;
}

/* The build's read flags into their own bitmap, once the offsets sort. */
static int kc_range_split_reads(struct kc_range *r)
{
	unsigned int i;

	r->reads = bitmap_zalloc(max(r->nr, 1U), GFP_KERNEL);
	if (!r->reads)
		return -ENOMEM;
	for (i = 0; i < r->nr; i++) {
		if (!(r->offs[i] & KC_OFF_READ))
			continue;
		__set_bit(i, r->reads);
		r->offs[i] &= ~KC_OFF_READ;
	}
	return 0;
}

static int kc_func_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int kc_range_seal(struct kc_range *r)
{
	/*
	 * A module's functions come in symbol table order: the lookups by
	 * address (refusals, weights, the running code's sites) need them
	 * sorted.
	 */
	sort(r->offs, r->nr, sizeof(*r->offs), kc_flagged_off_cmp, NULL);
	if (kc_range_split_reads(r))
		return -ENOMEM;
	sort(r->remote, r->nr_remote, sizeof(*r->remote), kc_off_cmp, NULL);
	sort(r->funcs, r->nr_funcs, sizeof(*r->funcs), kc_func_cmp, NULL);
	sort(r->atomics, r->nr_atomics, sizeof(*r->atomics), kc_atomic_cmp,
	     NULL);
	r->refused = bitmap_zalloc(max(r->nr, 1U), GFP_KERNEL);
	r->funcs_cleared = bitmap_zalloc(max(r->nr_funcs, 1U), GFP_KERNEL);
	r->cold = kvcalloc(max(r->nr, 1U), sizeof(*r->cold), GFP_KERNEL);
	r->cold_at = kvcalloc(max(r->nr, 1U), sizeof(*r->cold_at),
			      GFP_KERNEL);
	r->stack = kvcalloc(max(r->nr, 1U), sizeof(*r->stack), GFP_KERNEL);
	r->remote_denials = kvcalloc(max(r->nr_remote, 1U),
				     sizeof(*r->remote_denials), GFP_KERNEL);
	return r->refused && r->funcs_cleared && r->cold && r->cold_at &&
	       r->stack && r->remote_denials ? 0 : -ENOMEM;
}

static unsigned long kc_range_bytes(const struct kc_range *r)
{
	return sizeof(*r) + (r->cap + r->cap_remote) * sizeof(u32) +
	       r->cap_funcs * sizeof(*r->funcs) +
	       2 * BITS_TO_LONGS(max(r->nr, 1U)) * sizeof(long) +
	       max(r->nr, 1U) * (sizeof(*r->cold) + sizeof(*r->cold_at) +
				 sizeof(*r->stack)) +
	       max(r->nr_remote, 1U) * sizeof(*r->remote_denials);
}

/* Under kc_sites_lock: the halvings of site @idx's weight now. */
static unsigned int kc_site_cold(const struct kc_range *r, unsigned long idx)
{
	unsigned int level = r->cold[idx];
	u32 age = (u32)jiffies - r->cold_at[idx];
	u32 decayed;

	if (!level)
		return 0;
	decayed = age / msecs_to_jiffies(KC_COLD_DECAY_MS);
	return decayed >= level ? 0 : level - decayed;
}

/* Under kc_sites_lock: whether a pick of weight 1 / 2^@cold is kept. */
static bool kc_site_taken(unsigned int cold)
{
	return !cold || !(get_random_u32() & ((1U << cold) - 1));
}

/*
 * Under kc_sites_lock: the halvings of site @idx's weight, its marking's
 * with its coldness and its stack hits; negative where its marking is
 * never sampled.
 */
static int kc_site_weight(const struct kc_range *r, unsigned long idx,
			  const struct kc_pick_marks *pm)
{
	unsigned int halvings = kc_site_cold(r, idx) + r->stack[idx] +
				(test_bit(idx, r->reads) ? KC_READ_HALVINGS : 0);
	unsigned int kind_bit;

	if (!pm->never && !pm->seldom)
		return halvings;
	kind_bit = BIT(kc_marks_kind_at(r->base + r->offs[idx]));
	if (pm->never & kind_bit) {
		kc_picks_unwatched++;
		return -1;
	}
	return halvings + (pm->seldom & kind_bit ? KC_SELDOM_HALVINGS : 0);
}

/*
 * "name+0xoff/0xsize", " [module]" after it for a module's: the function
 * holding @addr; false if none, or if it is a module's and not @in_module.
 */
static bool kc_symbol_in(unsigned long addr, char *sym, unsigned long *start,
			 unsigned long *size, bool in_module)
{
	unsigned long off;
	char *plus;

	sprint_symbol(sym, addr);
	plus = strrchr(sym, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, size) != 2 ||
	    off > *size || (strchr(plus, '[') && !in_module))
		return false;
	*plus = '\0';
	*start = addr - off;
	return true;
}

/* The same, in vmlinux. */
static bool kc_symbol_at(unsigned long addr, char *sym, unsigned long *start,
			 unsigned long *size)
{
	return kc_symbol_in(addr, sym, start, size, false);
}

/*
 * vmlinux through sprint_symbol(), the exported symbol lookup: each
 * answer names a function and its size, which leads to the next. When
 * the targets name vmlinux functions exactly, only those are looked up.
 */
static struct kc_range *kc_build_vmlinux(const struct kc_site_filter *f)
{
	unsigned long lo = kc_lookup_symbol("_stext");
	unsigned long hi = kc_lookup_symbol("_etext");
	char sym[KSYM_SYMBOL_LEN];
	unsigned long a, start, size;
	struct kc_range *r;
	unsigned int i;

	if (!lo || hi <= lo)
		return ERR_PTR(-ENOENT);
	r = kc_range_new("vmlinux", lo, hi - lo);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->funcs_whole = !f->exact;
	for (i = 0; f->exact && i < f->nr_exact; i++) {
		a = kc_lookup_symbol(f->exact[i]);
		if (a >= lo && a < hi && kc_symbol_at(a, sym, &start, &size))
			kc_add_function(r, f, sym, start,
					min(size, hi - start), true);
	}
	for (a = lo; !f->exact && a < hi; a = max(start + size, a + 1)) {
		if (!kc_symbol_at(a, sym, &start, &size)) {
			start = a;
			size = 16;
			continue;
		}
		kc_add_function(r, f, sym, start, min(size, hi - start), true);
		cond_resched();
	}
	return r;
}

static struct kc_range *kc_build_module(struct module *mod,
					const struct kc_site_filter *f)
{
	unsigned long base = (unsigned long)mod->core_layout.base;
	unsigned long text = mod->core_layout.text_size;
	struct mod_kallsyms *ks;
	struct kc_range *r;
	unsigned int i;

	r = kc_range_new(mod->name, base, text);
	if (!r)
		return ERR_PTR(-ENOMEM);
	/* the symbol table lives as long as the reference the caller holds */
	ks = rcu_dereference_raw(mod->kallsyms);
	for (i = 0; i < ks->num_symtab; i++) {
		const Elf_Sym *sym = &ks->symtab[i];

		if (ELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size)
			continue;
		if (sym->st_value < base || sym->st_value >= base + text)
			continue;
		kc_add_function(r, f, ks->strtab + sym->st_name, sym->st_value,
				min_t(unsigned long, sym->st_size,
				      base + text - sym->st_value), false);
	}
	return r;
}

/*
 * The modules list is not exported, but our own module sits on it: walk
 * from there, telling the list head apart by where it lives (module
 * structs are in module space, the head in the kernel image).
 */
static int kc_module_names(char (*names)[MODULE_NAME_LEN], int max)
{
	struct list_head *pos;
	struct module *mod;
	int n = 0;

	preempt_disable();
	for (pos = READ_ONCE(THIS_MODULE->list.next);
	     pos != &THIS_MODULE->list && n < max; pos = READ_ONCE(pos->next)) {
		if ((unsigned long)pos < MODULES_VADDR ||
		    (unsigned long)pos >= MODULES_END)
			continue;
		mod = list_entry(pos, struct module, list);
		if (mod->state == MODULE_STATE_LIVE)
			strscpy(names[n++], mod->name, MODULE_NAME_LEN);
	}
	preempt_enable();
	return n;
}

struct module *kc_module_get(const char *name)
{
	struct module *mod, *found = NULL;
	struct list_head *pos;

	/* the list is RCU-sched: list_add_rcu()/list_del_rcu() on changes */
	preempt_disable();
	for (pos = READ_ONCE(THIS_MODULE->list.next);
	     pos != &THIS_MODULE->list; pos = READ_ONCE(pos->next)) {
		if ((unsigned long)pos < MODULES_VADDR ||
		    (unsigned long)pos >= MODULES_END)
			continue;
		mod = list_entry(pos, struct module, list);
		if (mod->state == MODULE_STATE_UNFORMED)
			continue;
		if (!strcmp(mod->name, name) && try_module_get(mod)) {
			found = mod;
			break;
		}
	}
	preempt_enable();
	return found;
}

static void kc_ranges_free(struct list_head *list)
{
	struct kc_range *r, *tmp;

	list_for_each_entry_safe(r, tmp, list, node) {
		list_del(&r->node);
		kc_range_free(r);
	}
}

/* Under kc_sites_lock: the ranges change, the functions found go. */
static void kc_running_forget(void)
{
	memset(kc_running, 0, sizeof(kc_running));
	kc_nr_running_order = 0;
}

static void kc_sites_recount(void)
{
	struct kc_range *r;

	kc_running_forget();
	kc_nr_remote_hot = 0;
	kc_nr_sites = 0;
	kc_nr_read_sites = 0;
	kc_nr_remote = 0;
	kc_build_bytes = 0;
	list_for_each_entry(r, &kc_ranges, node) {
		kc_nr_sites += r->nr;
		kc_nr_read_sites += bitmap_weight(r->reads, r->nr);
		kc_nr_remote += r->nr_remote;
		kc_build_bytes += kc_range_bytes(r);
	}
}

static int kc_build_modules(struct list_head *list,
			    const struct kc_site_filter *f)
{
	char (*names)[MODULE_NAME_LEN];
	struct kc_range *r;
	struct module *mod;
	int i, n, ret = 0;

	names = kvmalloc_array(1024, MODULE_NAME_LEN, GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	n = kc_module_names(names, 1024);
	for (i = 0; i < n && !ret; i++) {
		if (!strcmp(names[i], THIS_MODULE->name))
			continue;
		mod = kc_module_get(names[i]);
		if (!mod)
			continue;
		r = kc_build_module(mod, f);
		module_put(mod);
		if (IS_ERR(r)) {
			ret = PTR_ERR(r);
			break;
		}
		ret = kc_range_seal(r);
		list_add_tail(&r->node, list);
	}
	kvfree(names);
	return ret;
}

/*
 * Build the whole table for a new filter; on success it replaces the old
 * one, on failure nothing changed. The caller checks the counts and may
 * still back out with kc_sites_rebuild() of the previous filter.
 */
int kc_sites_rebuild(const struct kc_site_filter *f)
{
	u64 start = ktime_get_ns();
	struct kc_range *r;
	LIST_HEAD(list);
	int ret;

	mutex_lock(&kc_sites_lock);
	kc_denied_funcs = 0;
	kc_block_start_sites = 0;
	kc_static_percpu_sites = 0;
	r = f->vmlinux ? kc_build_vmlinux(f) : kc_range_new("vmlinux", 0, 0);
	if (!r)
		r = ERR_PTR(-ENOMEM);
	ret = IS_ERR(r) ? PTR_ERR(r) : kc_range_seal(r);
	if (!IS_ERR(r))
		list_add_tail(&r->node, &list);
	if (!ret)
		ret = kc_build_modules(&list, f);
	if (ret) {
		kc_ranges_free(&list);
	} else {
		kc_ranges_free(&kc_ranges);
		list_splice(&list, &kc_ranges);
		kc_sites_recount();
		kc_build_ns = ktime_get_ns() - start;
	}
	mutex_unlock(&kc_sites_lock);
	return ret;
}

static struct kc_range *kc_range_find(const char *name)
{
	struct kc_range *r;

	list_for_each_entry(r, &kc_ranges, node)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

/* A module came: its functions join the table (MODULE_STATE_COMING). */
int kc_sites_add_module(struct module *mod, const struct kc_site_filter *f)
{
	struct kc_range *r, *old;
	int ret;

	r = kc_build_module(mod, f);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ret = kc_range_seal(r);
	if (ret) {
		kc_range_free(r);
		return ret;
	}
	mutex_lock(&kc_sites_lock);
	old = kc_range_find(mod->name);
	if (old) {
		list_del(&old->node);
		kc_range_free(old);
	}
	list_add_tail(&r->node, &kc_ranges);
	kc_sites_recount();
	mutex_unlock(&kc_sites_lock);
	return 0;
}

/* A module goes: returns its text bounds so live probes there go too. */
bool kc_sites_del_module(const char *name, unsigned long *start,
			 unsigned long *end)
{
	struct kc_range *r;

	mutex_lock(&kc_sites_lock);
	r = kc_range_find(name);
	if (r) {
		*start = r->base;
		*end = r->base + r->size;
		list_del(&r->node);
		kc_range_free(r);
		kc_sites_recount();
	}
	mutex_unlock(&kc_sites_lock);
	return r;
}

void kc_sites_counts(unsigned int spec, const char *module, u32 *sites,
		     u32 *funcs, bool *present)
{
	struct kc_range *r;

	*sites = *funcs = 0;
	*present = false;
	mutex_lock(&kc_sites_lock);
	list_for_each_entry(r, &kc_ranges, node) {
		*sites += r->spec_sites[spec];
		*funcs += r->spec_funcs[spec];
		if (module && !strcmp(r->name, module))
			*present = true;
	}
	mutex_unlock(&kc_sites_lock);
}

/* Under kc_sites_lock: the range whose code holds @addr, or NULL. */
static struct kc_range *kc_range_at(unsigned long addr)
{
	struct kc_range *r;

	list_for_each_entry(r, &kc_ranges, node)
		if (addr >= r->base && addr - r->base < r->size)
			return r;
	return NULL;
}

/* The index of @r's first site at or after offset @off. */
static unsigned long kc_range_lower(const struct kc_range *r, u32 off)
{
	unsigned long lo = 0, hi = r->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Under kc_sites_lock: a slot holding a function seen running lately. */
static bool kc_running_fresh(const struct kc_running_fn *fn)
{
	return fn->range && fn->worth &&
	       !time_after(jiffies, fn->seen +
			   msecs_to_jiffies(KC_RUNNING_AGE_MS));
}

/* Under kc_sites_lock: @r's sites in [@start, @end) as [*lo, *hi). */
static bool kc_range_sites(const struct kc_range *r, unsigned long start,
			   unsigned long end, unsigned long *lo,
			   unsigned long *hi)
{
	if (start < r->base)
		return false;
	*lo = kc_range_lower(r, start - r->base);
	*hi = kc_range_lower(r, min(end - r->base, (unsigned long)r->size));
	return *lo < *hi;
}

/*
 * Under kc_sites_lock: the index in @r->funcs of the function holding
 * @addr, or -1. Only where the build's list is whole.
 */
static long kc_range_func_index(const struct kc_range *r, unsigned long addr)
{
	unsigned int lo = 0, hi = r->nr_funcs, mid;
	u32 off = addr - r->base;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->funcs[mid] >> 32 <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || off - (u32)(r->funcs[lo - 1] >> 32) >= (u32)r->funcs[lo - 1])
		return -1;
	return lo - 1;
}

/*
 * Under kc_sites_lock: the function of @r holding @addr, as the build
 * walked it, or as kallsyms has it where the build's list is not whole.
 */
static bool kc_range_function(const struct kc_range *r, unsigned long addr,
			      unsigned long *start, unsigned long *size)
{
	long i = kc_range_func_index(r, addr);

	if (i < 0)
		return !r->funcs_whole &&
		       kc_symbol_in(addr, kc_running_sym, start, size, true);
	*start = r->base + (r->funcs[i] >> 32);
	*size = (u32)r->funcs[i];
	return true;
}

/*
 * Under kc_sites_lock: the same, only for a function that may have sites.
 * A running function's calls are many, and with vmlinux's functions named
 * exactly most lead out of them: kallsyms would be asked about each.
 */
static bool kc_range_site_function(const struct kc_range *r,
				   unsigned long addr, unsigned long *start,
				   unsigned long *size)
{
	if (r->funcs_hold_sites && kc_range_func_index(r, addr) < 0)
		return false;
	return kc_range_function(r, addr, start, size);
}

/* Under kc_sites_lock: @fn's callee at @start, or NULL. */
static struct kc_callee *kc_running_callee(struct kc_running_fn *fn,
					   unsigned long start)
{
	unsigned int i;

	for (i = 0; i < fn->nr_callees; i++)
		if (fn->callees[i].start == start)
			return &fn->callees[i];
	return NULL;
}

/*
 * Under kc_sites_lock: a callee of @fn at @target kept, once, if it has
 * sites; whether it was added.
 */
static bool kc_running_add_callee(struct kc_running_fn *fn,
				  unsigned long target)
{
	struct kc_range *r = kc_range_at(target);
	struct kc_callee *c = &fn->callees[fn->nr_callees];
	unsigned long start, size;

	if (!r || (target >= fn->start && target < fn->end))
		return false;
	if (kc_running_callee(fn, target))
		return false;
	if (!kc_range_site_function(r, target, &start, &size) ||
	    start != target ||
	    !kc_range_sites(r, start, start + size, &c->lo, &c->hi))
		return false;
	c->range = r;
	c->start = start;
	c->loaded = false;
	fn->nr_callees++;
	return true;
}

/*
 * Where the direct call or jump whose opcode is at @off of the @size
 * bytes of kc_code, copied from @start, leads; 0 if none starts there.
 */
static unsigned long kc_direct_target(unsigned long start, unsigned long off,
				      unsigned long size)
{
	const u8 *p = kc_code + off;

	switch (*p) {
	case KC_OP_CALL_REL32:
	case KC_OP_JMP_REL32:
		if (size - off < KC_REL32_INSN_LEN)
			return 0;
		return start + off + KC_REL32_INSN_LEN +
		       (s32)get_unaligned_le32(p + 1);
	case KC_OP_JMP_REL8:
		/* a tail call to a static neighbour */
		if (size - off < KC_REL8_INSN_LEN)
			return 0;
		return start + off + KC_REL8_INSN_LEN + (s8)p[1];
	}
	return 0;
}

/*
 * Under kc_sites_lock: the targeted functions @fn calls or jumps to
 * directly, as far as its first KC_CALLEE_SCAN_BYTES show. Its bytes are
 * scanned for a call or jmp rather than decoded (under TCG decoding a
 * function costs the armer more than any other step of a lookup): a byte
 * read out of step gives a target only the displacement's chance puts on
 * a targeted function's first byte, and such a callee's picks at worst
 * expire unrun. The buffer is the builds', which the lock serializes.
 */
static void kc_running_find_callees(struct kc_running_fn *fn)
{
	unsigned long size = min(fn->end - fn->start,
				 (unsigned long)KC_CALLEE_SCAN_BYTES);
	unsigned long off, target;

	fn->nr_callees = 0;
	if (copy_from_kernel_nofault(kc_code, (void *)fn->start, size))
		return;
	for (off = 0; off < size && fn->nr_callees < KC_RUNNING_CALLEES;
	     off++) {
		target = kc_direct_target(fn->start, off, size);
		if (target)
			kc_running_add_callee(fn, target);
	}
}

/* Under kc_sites_lock: whether @fn is to go before @other. */
static bool kc_running_older(const struct kc_running_fn *fn,
			     const struct kc_running_fn *other)
{
	if (!other->range)
		return false;
	return !fn->range || time_before(fn->seen, other->seen);
}

/* Under kc_sites_lock: @slot filled in for the function at @start. */
static void kc_running_look_up(struct kc_running_fn *slot,
			       struct kc_range *r, unsigned long start,
			       unsigned long size)
{
	unsigned long lo, hi;

	if (!kc_range_sites(r, start, start + size, &lo, &hi))
		lo = hi = 0;
	slot->lo = lo;
	slot->hi = hi;
	slot->start = start;
	slot->end = start + size;
	slot->last_loaded = 0;
	kc_running_find_callees(slot);
	/* a dispatcher without accesses of its own is worth its callees */
	slot->worth = lo < hi || slot->nr_callees;
	slot->range = r;
}

/* Under kc_sites_lock: @fn seen again; itself if it has sites to pick. */
static struct kc_running_fn *kc_running_seen(struct kc_running_fn *fn,
					     bool slept)
{
	fn->seen = jiffies;
	fn->slept = slept;
	return fn->worth ? fn : NULL;
}

/* Under kc_sites_lock: the first place in kc_running_order past @pc. */
static unsigned int kc_running_upper(unsigned long pc)
{
	unsigned int lo = 0, hi = kc_nr_running_order, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (kc_running[kc_running_order[mid]].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Under kc_sites_lock: the known function holding @pc, or NULL. */
static struct kc_running_fn *kc_running_find(unsigned long pc)
{
	unsigned int at = kc_running_upper(pc);
	struct kc_running_fn *fn;

	if (!at)
		return NULL;
	fn = &kc_running[kc_running_order[at - 1]];
	return pc < fn->end ? fn : NULL;
}

/* Under kc_sites_lock: @fn out of kc_running_order, if it is in it. */
static void kc_running_unorder(struct kc_running_fn *fn)
{
	unsigned int at;

	for (at = 0; at < kc_nr_running_order; at++) {
		if (&kc_running[kc_running_order[at]] != fn)
			continue;
		kc_nr_running_order--;
		memmove(&kc_running_order[at], &kc_running_order[at + 1],
			(kc_nr_running_order - at) * sizeof(*kc_running_order));
		return;
	}
}

/* Under kc_sites_lock: @fn, just looked up, into kc_running_order. */
static void kc_running_order_add(struct kc_running_fn *fn)
{
	unsigned int at = kc_running_upper(fn->start);

	if (WARN_ON_ONCE(kc_nr_running_order >= KC_RUNNING_KNOWN))
		return;
	memmove(&kc_running_order[at + 1], &kc_running_order[at],
		(kc_nr_running_order - at) * sizeof(*kc_running_order));
	kc_running_order[at] = fn - kc_running;
	kc_nr_running_order++;
}

/*
 * Under kc_sites_lock: the slot a function newly seen running takes, the
 * least lately seen one that is not fresh; NULL while KC_RUNNING_FNS are
 * fresh. @fresh, the count of those as last seen, is the caller's: once
 * the set is full, the other new frames of the refresh are let go
 * without a scan each.
 */
static struct kc_running_fn *kc_running_victim(unsigned int *fresh)
{
	struct kc_running_fn *fn, *slot = NULL;
	unsigned int i, n = 0;

	if (*fresh >= KC_RUNNING_FNS)
		return NULL;
	for (i = 0; i < KC_RUNNING_KNOWN; i++) {
		fn = &kc_running[i];
		if (kc_running_fresh(fn))
			n++;
		else if (!slot || kc_running_older(fn, slot))
			slot = fn;
	}
	*fresh = n;
	return n < KC_RUNNING_FNS ? slot : NULL;
}

/*
 * Under kc_sites_lock: the running function holding @pc, found again or
 * looked up; NULL if it has no sites to pick, or if it is new and the set
 * is full of fresh ones.
 */
static struct kc_running_fn *kc_running_note(struct kc_range *r,
					     unsigned long pc, bool slept,
					     unsigned int *fresh)
{
	struct kc_running_fn *fn = kc_running_find(pc), *slot;
	unsigned long start, size;
	u64 t0;

	if (fn && fn->range == r)
		return kc_running_seen(fn, slept);
	slot = kc_running_victim(fresh);
	if (!slot)
		return NULL;
	kc_running_lookups++;
	t0 = ktime_get_ns();
	if (!kc_range_function(r, pc, &start, &size)) {
		kc_running_lookup_ns += ktime_get_ns() - t0;
		return NULL;
	}
	kc_running_unorder(slot);
	/* a slot is found only once it is whole */
	slot->range = NULL;
	kc_running_look_up(slot, r, start, size);
	kc_running_order_add(slot);
	kc_running_lookup_ns += ktime_get_ns() - t0;
	/*
	 * Fresh now if worth a pick. Known ones found again became fresh
	 * uncounted: a count too low costs the next miss a scan, no more.
	 */
	*fresh += slot->worth;
	return kc_running_seen(slot, slept);
}

/* Under kc_sites_lock: the targeted frames of the ticks not taken noted. */
static void kc_running_refresh(void)
{
	unsigned long frames[KC_PROFILE_DEPTH];
	unsigned int n, i, ticks, fresh = 0;
	struct kc_range *r;
	bool slept;

	for (ticks = 0; ticks < KC_RUNNING_TICKS; ticks++) {
		n = kc_profile_take(frames,
				    msecs_to_jiffies(KC_RUNNING_AGE_MS),
				    &slept);
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			r = frames[i] ? kc_range_at(frames[i]) : NULL;
			if (r && kc_running_note(r, frames[i], slept, &fresh))
				break;
		}
	}
}

/*
 * Under kc_sites_lock: a site of a function found running lately, uniform
 * over the functions and then over the function's sites, each with its
 * weight; 0 if none.
 */
static unsigned long kc_pick_running(const struct kc_pick_marks *pm)
{
	/* kc_sites_lock's, as kc_running_sym: off the armer's stack */
	static struct kc_running_fn *fresh[KC_RUNNING_FNS];
	struct kc_running_fn *fn;
	unsigned long idx, lo, hi, first = 0;
	const struct kc_callee *c;
	int i, nr = 0, tries;
	struct kc_range *r;
	bool callee;
	int weight;
	u64 t0;

	t0 = ktime_get_ns();
	kc_running_refresh();
	kc_running_refresh_ns += ktime_get_ns() - t0;
	for (i = 0; i < KC_RUNNING_KNOWN && nr < KC_RUNNING_FNS; i++)
		if (kc_running_fresh(&kc_running[i]))
			fresh[nr++] = &kc_running[i];
	for (tries = 0; nr && tries < KC_RUNNING_SITE_TRIES; tries++) {
		fn = fresh[get_random_u32() % nr];
		r = fn->range;
		lo = fn->lo;
		hi = fn->hi;
		callee = fn->nr_callees &&
			 (fn->lo == fn->hi || (get_random_u32() & 1));
		if (callee) {
			c = &fn->callees[get_random_u32() % fn->nr_callees];
			r = c->range;
			lo = c->lo;
			hi = c->hi;
		}
		idx = lo + get_random_u64() % (hi - lo);
		if (test_bit(idx, r->refused))
			continue;
		weight = kc_site_weight(r, idx, pm);
		if (weight < 0)
			continue;
		if (kc_site_taken(weight)) {
			kc_picks_callee += callee;
			return r->base + r->offs[idx];
		}
		first = first ?: r->base + r->offs[idx];
	}
	return first;
}

/* Under kc_sites_lock: @addr's range and index in it, or NULL. */
static struct kc_range *kc_site_find(unsigned long addr, unsigned long *idx)
{
	struct kc_range *r = kc_range_at(addr);
	u32 off, *hit;

	if (!r)
		return NULL;
	off = addr - r->base;
	hit = bsearch(&off, r->offs, r->nr, sizeof(off), kc_off_cmp);
	if (!hit)
		return NULL;
	*idx = hit - r->offs;
	return r;
}

/* Under kc_sites_lock: @off's index among @r's remote sites, or -1. */
static long kc_range_remote_idx(const struct kc_range *r, u32 off)
{
	u32 *hit = bsearch(&off, r->remote, r->nr_remote, sizeof(off),
			   kc_off_cmp);

	return hit ? hit - r->remote : -1;
}

/* Under kc_sites_lock: whether @off of @r is a remote per-CPU site. */
static bool kc_range_remote(const struct kc_range *r, u32 off)
{
	return kc_range_remote_idx(r, off) >= 0;
}

/* Under kc_sites_lock: whether @r's remote site @i is to be refused now. */
static bool kc_remote_judge(struct kc_range *r, long i, u8 verdict)
{
	u8 *denials = &r->remote_denials[i];

	if (verdict == KC_VERDICT_WATCHED)
		*denials = KC_REMOTE_WATCHED;
	else if (verdict == KC_VERDICT_DENIED && *denials < KC_REMOTE_DENIALS)
		return ++*denials == KC_REMOTE_DENIALS;
	return false;
}

static void kc_remote_hot_drop(unsigned int i)
{
	kc_remote_hot[i] = kc_remote_hot[--kc_nr_remote_hot];
}

/* Under kc_sites_lock: remote site @addr ran while armed, or did not. */
static void kc_remote_hot_note(unsigned long addr, bool ran)
{
	unsigned int i;

	for (i = 0; i < kc_nr_remote_hot; i++) {
		if (kc_remote_hot[i] != addr)
			continue;
		if (!ran)
			kc_remote_hot_drop(i);
		return;
	}
	if (!ran)
		return;
	if (kc_nr_remote_hot < KC_REMOTE_HOT)
		kc_nr_remote_hot++;
	else
		i = get_random_u32() % KC_REMOTE_HOT;
	kc_remote_hot[i] = addr;
}

/*
 * Under kc_sites_lock: a remote site whose last arming ran, uniform over
 * them; 0 if none. One whose range went or was refused is forgotten.
 */
static unsigned long kc_pick_remote_hot(const struct kc_pick_marks *pm)
{
	unsigned long addr, idx;
	struct kc_range *r;
	unsigned int i;

	while (kc_nr_remote_hot) {
		i = get_random_u32() % kc_nr_remote_hot;
		addr = kc_remote_hot[i];
		r = kc_site_find(addr, &idx);
		if (r && !test_bit(idx, r->refused) &&
		    kc_site_weight(r, idx, pm) >= 0) {
			kc_picks_remote_hot++;
			return addr;
		}
		kc_remote_hot_drop(i);
	}
	return 0;
}

/*
 * Under kc_sites_lock: a remote per-CPU site, each with its weight; 0 if
 * none was taken.
 */
static unsigned long kc_pick_remote(const struct kc_pick_marks *pm)
{
	unsigned long n, idx;
	struct kc_range *r;
	int tries, weight;
	u32 *hit;

	if (get_random_u32() % KC_REMOTE_HOT_OF < KC_REMOTE_HOT_PICKS) {
		n = kc_pick_remote_hot(pm);
		if (n)
			return n;
	}
	for (tries = 0; kc_nr_remote && tries < KC_PICK_TRIES; tries++) {
		n = get_random_u64() % kc_nr_remote;
		list_for_each_entry(r, &kc_ranges, node) {
			if (n < r->nr_remote)
				break;
			n -= r->nr_remote;
		}
		if (list_entry_is_head(r, &kc_ranges, node))
			return 0;
		hit = bsearch(&r->remote[n], r->offs, r->nr, sizeof(*r->offs),
			      kc_off_cmp);
		if (!hit)
			continue;
		idx = hit - r->offs;
		if (test_bit(idx, r->refused))
			continue;
		weight = kc_site_weight(r, idx, pm);
		if (weight >= 0 && kc_site_taken(weight))
			return r->base + r->offs[idx];
	}
	return 0;
}

/*
 * A site not refused, each with its weight (uniform among equal ones); 0
 * when none can be found. After KC_COLD_TRIES light ones, the first found.
 * Most picks go to running code first.
 */
unsigned long kc_sites_pick(const struct kc_pick_marks *pm)
{
	unsigned long addr = 0, first = 0, idx;
	u64 t0 = ktime_get_ns();
	int tries = 0, light = 0, weight;
	struct kc_range *r;

	mutex_lock(&kc_sites_lock);
	if (get_random_u32() % KC_RUNNING_OF < KC_RUNNING_PICKS)
		addr = kc_pick_running(pm);
	if (addr) {
		kc_picks_running++;
	} else if (get_random_u32() % KC_REMOTE_OF < KC_REMOTE_PICKS) {
		addr = kc_pick_remote(pm);
		kc_picks_remote += !!addr;
	}
	if (!addr)
		kc_picks_uniform++;
	while (kc_nr_sites && !addr && tries < KC_PICK_TRIES &&
	       light < KC_COLD_TRIES) {
		idx = get_random_u64() % kc_nr_sites;
		list_for_each_entry(r, &kc_ranges, node) {
			if (idx >= r->nr) {
				idx -= r->nr;
				continue;
			}
			weight = test_bit(idx, r->refused) ? -1 :
				 kc_site_weight(r, idx, pm);
			if (weight < 0) {
				tries++;
			} else if (kc_site_taken(weight)) {
				addr = r->base + r->offs[idx];
			} else {
				light++;
				first = first ?: r->base + r->offs[idx];
			}
			break;
		}
	}
	kc_pick_ns += ktime_get_ns() - t0;
	mutex_unlock(&kc_sites_lock);
	return addr ?: first;
}

/* Whether @addr is a remote per-CPU site: its address from per_cpu_ptr(). */
bool kc_sites_remote(unsigned long addr)
{
	struct kc_range *r;
	bool remote = false;

	mutex_lock(&kc_sites_lock);
	r = kc_range_at(addr);
	if (r)
		remote = kc_range_remote(r, addr - r->base);
	mutex_unlock(&kc_sites_lock);
	return remote;
}

/* Under kc_sites_lock: site @idx of @r is never to be picked again. */
static void kc_site_refuse(struct kc_range *r, unsigned long idx)
{
	if (!__test_and_set_bit(idx, r->refused))
		r->nr_refused++;
}

/*
 * A breakpoint on @addr ended: its code @ran while armed, or not, and
 * its sampled hit's @verdict on the address.
 */
void kc_sites_note_run(unsigned long addr, bool ran, u8 verdict)
{
	unsigned long idx;
	struct kc_range *r;
	long remote;

	mutex_lock(&kc_sites_lock);
	r = kc_site_find(addr, &idx);
	if (r && ran) {
		r->cold[idx] = 0;
	} else if (r) {
		r->cold[idx] = min(kc_site_cold(r, idx) + 1, KC_COLD_MAX);
		r->cold_at[idx] = jiffies;
	}
	if (r && verdict == KC_VERDICT_WATCHED) {
		r->stack[idx] = 0;
	} else if (r && verdict == KC_VERDICT_STACK &&
		   r->stack[idx] < KC_STACK_MAX) {
		r->stack[idx]++;
		kc_sites_stack_halvings++;
	}
	remote = r ? kc_range_remote_idx(r, addr - r->base) : -1;
	if (remote >= 0) {
		kc_remote_hot_note(addr, ran);
		if (kc_remote_judge(r, remote, verdict) &&
		    !test_bit(idx, r->refused)) {
			r->nr_refused_remote++;
			kc_site_refuse(r, idx);
		}
	}
	mutex_unlock(&kc_sites_lock);
}

/*
 * Under kc_sites_lock: a slot for a callee seen loaded in a full @fn,
 * taken from one only found in its text (a direct call may sit on a path
 * that never runs; a loaded pointer is about to be called). None if all
 * were loaded.
 */
static void kc_running_free_callee(struct kc_running_fn *fn)
{
	unsigned int i = fn->nr_callees;

	while (i--) {
		if (fn->callees[i].loaded)
			continue;
		fn->callees[i] = fn->callees[--fn->nr_callees];
		return;
	}
}

/*
 * Under kc_sites_lock: the function at @target, whose address @fn loaded,
 * among @fn's callees, and the targeted functions it calls directly (a
 * body without accesses of its own calls those that it has). A loop that
 * loads the same pointer on every pass scans it once. Whether @fn's
 * callees changed.
 */
static bool kc_running_add_loaded(struct kc_running_fn *fn,
				  struct kc_range *r, unsigned long target)
{
	/* kc_sites_lock's: off the armer's stack */
	static struct kc_running_fn loaded;
	unsigned long start, size, lo, hi;
	unsigned int i, before;
	bool changed = false;
	struct kc_callee *c;

	if (target == fn->last_loaded ||
	    !kc_range_function(r, target, &start, &size) || start != target)
		return false;
	fn->last_loaded = target;
	before = fn->nr_callees;
	c = kc_running_callee(fn, target);
	if (c) {
		changed = !c->loaded;
		c->loaded = true;
	} else {
		if (fn->nr_callees == KC_RUNNING_CALLEES &&
		    kc_range_sites(r, start, start + size, &lo, &hi))
			kc_running_free_callee(fn);
		if (fn->nr_callees < KC_RUNNING_CALLEES &&
		    kc_running_add_callee(fn, target)) {
			fn->callees[fn->nr_callees - 1].loaded = true;
			changed = true;
		}
	}
	loaded.start = start;
	loaded.end = start + size;
	kc_running_find_callees(&loaded);
	for (i = 0; i < loaded.nr_callees &&
		    fn->nr_callees < KC_RUNNING_CALLEES; i++)
		kc_running_add_callee(fn, loaded.callees[i].start);
	return changed || fn->nr_callees > before;
}

/*
 * The sampled hit at @site ran, and loaded @word. Where that is the
 * address of a targeted function, the code at @site is about to call it
 * through the pointer: a worker's callback, an ops table's method. Such a
 * callee is what the ticks miss most: it returns to an indirect call, and
 * what it tail-calls (a delay, a wake-up) shows in the ticks as called by
 * its caller, so no tick names it and no scan of the caller finds it.
 * It becomes a callee of the function at @site, as a direct one is: the
 * picks in that function, the dispatcher's loop, go half to it.
 */
void kc_sites_note_loaded(unsigned long site, unsigned long word)
{
	struct kc_range *r, *site_range;
	struct kc_running_fn *fn;
	unsigned int fresh = 0;

	mutex_lock(&kc_sites_lock);
	r = kc_range_at(word);
	site_range = kc_range_at(site);
	if (!r || !site_range)
		goto out;
	fn = kc_running_note(site_range, site, false, &fresh);
	if (!fn || (word >= fn->start && word < fn->end))
		goto out;
	if (kc_running_add_loaded(fn, r, word))
		kc_running_loaded++;
out:
	mutex_unlock(&kc_sites_lock);
}

/* Under kc_sites_lock: @addr's range, and its function's index, or NULL. */
static struct kc_range *kc_func_of(unsigned long addr, long *idx)
{
	struct kc_range *r = kc_range_at(addr);

	if (!r || !r->nr_funcs || !r->funcs_cleared)
		return NULL;
	*idx = kc_range_func_index(r, addr);
	return *idx < 0 ? NULL : r;
}

/*
 * Whether kprobes' blacklist was looked up for a site of the function
 * holding @addr and does not hold it. The blacklist holds whole functions
 * (NOKPROBE_SYMBOL()'s, a section's, a clone's by its name), so one
 * lookup answers for every site of the function; under TCG the lookup
 * (kallsyms' name of the address, a walk of the list) costs as much as
 * the rest of a new site's arming.
 */
bool kc_sites_cleared(unsigned long addr)
{
	struct kc_range *r;
	bool cleared;
	long idx;

	mutex_lock(&kc_sites_lock);
	r = kc_func_of(addr, &idx);
	cleared = r && test_bit(idx, r->funcs_cleared);
	mutex_unlock(&kc_sites_lock);
	return cleared;
}

/* A site of the function holding @addr was armed: the blacklist let it. */
void kc_sites_note_cleared(unsigned long addr)
{
	struct kc_range *r;
	long idx;

	mutex_lock(&kc_sites_lock);
	r = kc_func_of(addr, &idx);
	if (r)
		set_bit(idx, r->funcs_cleared);
	mutex_unlock(&kc_sites_lock);
}

/* kprobes said no (blacklist, jump label, ...): never pick it again. */
void kc_sites_refuse(unsigned long addr)
{
	unsigned long idx;
	struct kc_range *r;

	mutex_lock(&kc_sites_lock);
	r = kc_site_find(addr, &idx);
	if (r)
		kc_site_refuse(r, idx);
	mutex_unlock(&kc_sites_lock);
}

/*
 * Whether the code under test touches [addr, addr + size) with a LOCK'd
 * instruction somewhere: the location is an atomic variable.
 */
bool kc_sites_addr_atomic(unsigned long addr, unsigned int size)
{
	struct kc_range *r;
	bool found = false;
	unsigned int lo, hi, mid;

	mutex_lock(&kc_sites_lock);
	list_for_each_entry(r, &kc_ranges, node) {
		/* the first that starts past addr - 16 (no atomic is wider) */
		lo = 0;
		hi = r->nr_atomics;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (r->atomics[mid].start + 16 <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < r->nr_atomics &&
		       r->atomics[lo].start < addr + size; lo++) {
			if (r->atomics[lo].end > addr) {
				found = true;
				break;
			}
		}
		if (found)
			break;
	}
	mutex_unlock(&kc_sites_lock);
	return found;
}

unsigned long kc_sites_total(void)
{
	return READ_ONCE(kc_nr_sites);
}

/*
 * The functions the picks take as running now, one a line: the function,
 * then "blocked" where a task blocked there was its last sighting rather
 * than a tick or a hit.
 */
int kc_sites_running_show(struct seq_file *m, void *v)
{
	const struct kc_running_fn *fn;
	unsigned int i;

	mutex_lock(&kc_sites_lock);
	for (i = 0; i < KC_RUNNING_KNOWN; i++) {
		fn = &kc_running[i];
		if (kc_running_fresh(fn))
			seq_printf(m, "%ps%s\n", (void *)fn->start,
				   fn->slept ? " blocked" : "");
	}
	mutex_unlock(&kc_sites_lock);
	return 0;
}

void kc_sites_stats(struct seq_file *m)
{
	unsigned long refused = 0, refused_remote = 0;
	struct kc_range *r;

	mutex_lock(&kc_sites_lock);
	list_for_each_entry(r, &kc_ranges, node) {
		refused += r->nr_refused;
		refused_remote += r->nr_refused_remote;
	}
	seq_printf(m, "sites %lu\nsites_reads %lu\nsites_refused %lu\n"
		   "sites_refused_remote %lu\nsites_bytes %lu\n"
		   "sites_build_ms %llu\nfuncs_denied %lu\npicks_running %lu\n"
		   "picks_uniform %lu\npicks_callee %lu\npicks_remote_percpu %lu\n"
		   "picks_remote_hot %lu\npicks_unwatched %lu\n"
		   "sites_block_starts %lu\nsites_static_percpu %lu\n"
		   "sites_remote_percpu %lu\n"
		   "pick_us_mean %llu\nrunning_lookups %lu\n"
		   "running_refresh_ms %llu\nrunning_lookup_us_mean %llu\n"
		   "running_loaded %lu\nsites_stack_halvings %lu\n",
		   kc_nr_sites, kc_nr_read_sites, refused, refused_remote,
		   kc_build_bytes,
		   div_u64(kc_build_ns, NSEC_PER_MSEC), kc_denied_funcs,
		   kc_picks_running, kc_picks_uniform, kc_picks_callee,
		   kc_picks_remote, kc_picks_remote_hot, kc_picks_unwatched,
		   kc_block_start_sites,
		   kc_static_percpu_sites, kc_nr_remote,
		   div64_u64(kc_pick_ns, max_t(unsigned long, kc_picks_running +
					       kc_picks_uniform +
					       kc_picks_remote, 1) *
				     NSEC_PER_USEC),
		   kc_running_lookups,
		   div_u64(kc_running_refresh_ns, NSEC_PER_MSEC),
		   div64_u64(kc_running_lookup_ns,
			     max(kc_running_lookups, 1UL) * NSEC_PER_USEC),
		   kc_running_loaded, kc_sites_stack_halvings);
	mutex_unlock(&kc_sites_lock);
}

int kc_sites_init(void)
{
	kc_denylist_init();
	kc_code = kvmalloc(KC_MAX_FUNC_SIZE, GFP_KERNEL);
	kc_block_starts = bitmap_zalloc(KC_MAX_FUNC_SIZE, GFP_KERNEL);
	if (kc_code && kc_block_starts)
		return 0;
	kvfree(kc_code);
	bitmap_free(kc_block_starts);
	kc_code = NULL;
	kc_block_starts = NULL;
	return -ENOMEM;
}

void kc_sites_exit(void)
{
	mutex_lock(&kc_sites_lock);
	kc_ranges_free(&kc_ranges);
	kc_sites_recount();
	mutex_unlock(&kc_sites_lock);
	kvfree(kc_code);
	kc_code = NULL;
	bitmap_free(kc_block_starts);
	kc_block_starts = NULL;
}
