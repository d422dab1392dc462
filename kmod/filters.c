// SPDX-License-Identifier: GPL-2.0
/*
 * The benign-race filters: which reported races are benign, and why.
 *
 * DataCollider found most raw reports benign, many of them lossy
 * statistics counters. Each filter here recognizes one such pattern from
 * the report's facts (decoded instructions, values, symbols) and names
 * itself in the report's class line; none may hide the real bugs that look
 * alike (a reference count, a lost flag update). Every filter can be
 * switched off, and "strict" switches them all off.
 *
 * Memory reuse is different: a watch on memory freed while the window was
 * open is dropped before it becomes a report (the LARD lesson), so it is
 * decided in the stall, from hooks on kfree(), kmem_cache_free() and the
 * bulk frees. Not for SLAB_TYPESAFE_BY_RCU caches: there a reader may meet
 * its object freed and reused by design, and the new owner's accesses
 * under it are the races to report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include <kcollider/marks.h>
#include <kcollider/parse.h>
#include "kcollider.h"

#define KC_HISTORY_SLOTS	256
#define KC_SUPPRESS_MAX		32
#define KC_CONSUMER_WINDOW	8	/* instructions searched for a test */

static const char * const kc_filter_names[KC_NR_FILTERS] = {
	[KC_FILTER_LOCKED_RACER] = "locked-racer",
	[KC_FILTER_LOSSY_COUNTER] = "lossy-counter",
	[KC_FILTER_OTHER_BITS] = "other-bits",
	[KC_FILTER_SUPPRESSED] = "suppressed",
	[KC_FILTER_MEMORY_REUSE] = "memory-reuse",
	[KC_FILTER_MARKED_ATOMIC] = "marked-atomic",
	[KC_FILTER_MARKED] = "marked",
	[KC_FILTER_OWN_WAKEUP] = "own-wakeup",
	[KC_FILTER_OWN_CPU] = "own-cpu",
	[KC_FILTER_EXEMPT] = "exempt",
};

static bool kc_filter_enabled[KC_NR_FILTERS] = {
	[0 ... KC_NR_FILTERS - 1] = true,
};
static bool kc_filters_strict;	/* every filter off at once */
static bool kc_benign_full;	/* benign races printed in full */
static atomic_long_t kc_filter_hits[KC_NR_FILTERS];

/* ---- lossy counters: only ever bumped by one, and nobody decides on them ---- */

/*
 * What the filter has learnt about a site or a location: a count that also
 * goes down, moves by other amounts or is tested is no statistics counter,
 * and stays one of those for the life of the module.
 */
struct kc_counter_history {
	unsigned long key;
	bool not_counter;
};

static struct kc_counter_history kc_history[KC_HISTORY_SLOTS];

static struct kc_counter_history *kc_history_slot(unsigned long key)
{
	unsigned int h = hash_long(key, 8), i;

	for (i = 0; i < 8; i++) {
		struct kc_counter_history *e = &kc_history[(h + i) %
							   KC_HISTORY_SLOTS];

		if (e->key == key || !e->key) {
			e->key = key;
			return e;
		}
	}
	/* full around here: reuse, forgetting the oldest neighbour */
	kc_history[h].key = key;
	kc_history[h].not_counter = false;
	return &kc_history[h];
}

static void kc_history_mark(unsigned long key)
{
	if (key)
		kc_history_slot(key)->not_counter = true;
}

static bool kc_history_clean(unsigned long key)
{
	return !kc_history_slot(key)->not_counter;
}

/* The amount a plain read-modify-write adds; 0 when not an add. */
static s64 kc_counter_amount(const struct kc_side *a)
{
	if (a->access != KC_ACC_RW || a->locked)
		return 0;
	switch (a->op) {
	case KC_OP_INC:
		return 1;
	case KC_OP_DEC:
		return -1;
	case KC_OP_ADD:
		return a->has_imm ? a->imm : 0;
	case KC_OP_SUB:
		return a->has_imm ? -a->imm : 0;
	default:
		return 0;
	}
}

/*
 * Increments of the same kind: the very same instruction, or both a +1 of
 * the same width. A count bumped by 1 here and by 2 or 0x100 there is a
 * reference count or a packed field, and its lost updates matter.
 */
static bool kc_same_increment(const struct kc_side *a, const struct kc_side *b)
{
	s64 x = kc_counter_amount(a), y = kc_counter_amount(b);

	if (x <= 0 || y <= 0)
		return false;
	if (a->ip == b->ip)
		return true;
	return x == 1 && y == 1 && a->size == b->size;
}

static bool kc_insn_reads_flags(const struct kc_insn *insn)
{
	return insn->op == KC_OP_JCC || insn->op == KC_OP_SETCC ||
	       insn->op == KC_OP_CMOV || insn->op == KC_OP_ADC ||
	       insn->op == KC_OP_SBB;
}

static bool kc_same_operand(const struct kc_mem_operand *x, unsigned long xnext,
			    const struct kc_mem_operand *y, unsigned long ynext)
{
	if (x->base != y->base || x->index != y->index ||
	    (x->index != KC_REG_NONE && x->scale != y->scale))
		return false;
	if (x->base == KC_REG_RIP)
		return xnext + x->disp == ynext + y->disp;
	return x->disp == y->disp;
}

/*
 * A decision on the count right after the increment: its flags tested
 * (`if (++x == limit)`), or the same location read back before the next
 * branch. Unknown code (undecodable) counts as a decision.
 */
static bool kc_counter_decided(const struct kc_side *a)
{
	u8 code[(KC_CONSUMER_WINDOW + 1) * KC_INSN_MAX_LEN];
	struct kc_insn rmw, insn;
	unsigned int off, i;

	if (copy_from_kernel_nofault(code, (void *)a->ip, sizeof(code)))
		return true;
	kc_pool_patch_original(a->ip, code, sizeof(code));
	if (kc_decode(code, sizeof(code), &rmw) || !(rmw.flags & KC_INSN_MEM))
		return true;
	for (i = 0, off = rmw.length; i < KC_CONSUMER_WINDOW;
	     i++, off += insn.length) {
		if (kc_decode(code + off, sizeof(code) - off, &insn))
			return true;
		if (!i && kc_insn_reads_flags(&insn))
			return true;
		if ((insn.flags & KC_INSN_MEM) &&
		    (insn.mem[0].access & KC_ACC_READ) &&
		    kc_same_operand(&rmw.mem[0], a->ip + rmw.length,
				    &insn.mem[0], a->ip + off + insn.length))
			return true;
		if (insn.flags & KC_INSN_BRANCH)
			return false;
	}
	return false;
}

/*
 * Went up, or did not visibly change. "Small" leaves room for the
 * thousands of increments a busy counter sees in one window; a pointer
 * or a reset never looks like that. Down only when every access the
 * window caught was the racer's increment instruction: the count then went
 * down because an add wrote back a value it read before the window (a
 * lost update: under QEMU TCG the host can deschedule a vCPU between an
 * add's read and its write, and a counter can then read far lower, even
 * with several CPUs' increments trapped). A reset by other code traps at
 * another instruction.
 */
static bool kc_value_went_up(const struct kc_report *r)
{
	u64 mask = r->size >= 8 ? ~0ULL : (1ULL << (r->size * 8)) - 1;
	u64 delta = (r->new_value - r->old_value) & mask;
	u64 lost = (r->old_value - r->new_value) & mask;

	if (!r->value_changed || (delta && delta <= (1U << 20)))
		return true;
	return r->has_racer && r->traps_one_site && lost && lost <= (1U << 20);
}

/*
 * What a report proves about the location, whatever its class: a site
 * that decrements, increments of different kinds or a decision on the
 * count, or a plain store racing an increment (a reset). A one-sided
 * increment proves nothing: its racer is unknown.
 */
static void kc_counter_learn(const struct kc_report *r)
{
	s64 x = kc_counter_amount(&r->sampled);
	s64 y = r->has_racer ? kc_counter_amount(&r->racer) : 0;
	bool reset = r->has_racer &&
		     ((x && r->racer.access == KC_ACC_WRITE) ||
		      (y && r->sampled.access == KC_ACC_WRITE));

	if (x < 0 || y < 0 || reset ||
	    (x && y && (!kc_same_increment(&r->sampled, &r->racer) ||
			kc_counter_decided(&r->sampled) ||
			kc_counter_decided(&r->racer)))) {
		kc_history_mark(x ? r->sampled.ip : 0);
		kc_history_mark(y ? r->racer.ip : 0);
		kc_history_mark(r->addr);
	}
}

/*
 * A count that went up under a sampled increment before the watch held
 * everywhere: its writer ran on a CPU the watch had not reached and has no
 * name. Such changes were not compared at all once; judged as the pair of
 * increments they most likely are, on the site's and the location's
 * history, they keep a busy statistics counter from becoming one-sided
 * reports. A count seen decremented, reset or decided on stays harmful,
 * and so does one that moved by other than a few increments like the
 * sampled one: another code path (a softirq adding a flag's worth to a
 * task's count) is no statistic.
 */
#define KC_UNSEEN_INCREMENTS	8

static u64 kc_size_mask(unsigned int size)
{
	return size >= 8 ? ~0ULL : (1ULL << (size * 8)) - 1;
}

static bool kc_is_lossy_unseen(const struct kc_report *r)
{
	const struct kc_side *a = &r->sampled;
	u64 diff = (r->new_value - r->old_value) & kc_size_mask(r->size);
	s64 amount = kc_counter_amount(a);

	return r->changed_arming && amount > 0 && !(diff % amount) &&
	       diff / amount <= KC_UNSEEN_INCREMENTS &&
	       !kc_counter_decided(a) && kc_value_went_up(r) &&
	       kc_history_clean(a->ip) && kc_history_clean(r->addr);
}

/*
 * DataCollider's statistics counter: a location only ever incremented,
 * whose exact value nobody relies on. Otherwise never decided without the
 * racer: a one-sided report's other side may be the decrement of a
 * reference count.
 */
static bool kc_is_lossy_counter(const struct kc_report *r)
{
	const struct kc_side *a = &r->sampled, *b = &r->racer;

	if (!r->has_racer) {
		if (kc_is_lossy_unseen(r))
			return true;
		goto no;
	}
	if (!kc_same_increment(a, b) ||
	    kc_counter_decided(a) || kc_counter_decided(b) ||
	    !kc_value_went_up(r))
		goto no;
	return kc_history_clean(a->ip) && kc_history_clean(b->ip) &&
	       kc_history_clean(r->addr);
no:
	kc_counter_learn(r);
	return false;
}

/* ---- other bits: a test of bits the racing RMW did not change ---- */

/* Bits the racer's read-modify-write can change; 0 when it cannot tell. */
static u64 kc_rmw_mask(const struct kc_side *a, unsigned int size)
{
	if (!a->has_imm || a->access != KC_ACC_RW)
		return 0;
	switch (a->op) {
	case KC_OP_OR:
	case KC_OP_XOR:
		return (u64)a->imm & kc_size_mask(size);
	case KC_OP_AND:
		return ~(u64)a->imm & kc_size_mask(size);
	case KC_OP_BTS:
	case KC_OP_BTR:
	case KC_OP_BTC:
		return 1ULL << (a->imm & 63);
	default:
		return 0;
	}
}

static unsigned int kc_rm_reg(const struct kc_insn *insn)
{
	return (insn->modrm & 7) | ((insn->rex & 1) << 3);
}

/*
 * The full register a byte operation's register number @n names, and the
 * bit its byte starts at: without a REX prefix 4-7 are AH, CH, DH and BH,
 * the second bytes of RAX-RBX (the kernel's thread-flag tests compile to
 * "and $imm, %dh").
 */
static unsigned int kc_byte_reg(const struct kc_insn *insn, unsigned int n,
				unsigned int *bit)
{
	*bit = 0;
	if (insn->opsize != 1 || insn->rex || n < 4 || n > 7)
		return n;
	*bit = 8;
	return n - 4;
}

/* Whether @insn's ModRM names @reg, a byte of it, or its number. */
static bool kc_insn_names_reg(const struct kc_insn *insn, unsigned int reg)
{
	unsigned int bit;

	if (!insn->has_modrm)
		return false;
	if (insn->reg == reg || kc_rm_reg(insn) == reg ||
	    kc_byte_reg(insn, insn->reg, &bit) == reg)
		return true;
	return (insn->modrm >> 6) == 3 &&
	       kc_byte_reg(insn, kc_rm_reg(insn), &bit) == reg;
}

/* A register-only test/and/bt of @reg with an immediate: its mask. */
static bool kc_insn_tests_reg(const struct kc_insn *insn, unsigned int reg,
			      u64 *mask)
{
	bool short_form = !insn->has_modrm && insn->map == 0 &&
			  (insn->opcode == 0xa8 || insn->opcode == 0xa9);
	unsigned int bit = 0;
	u64 imm = (u64)insn->imm;

	if (!insn->has_imm || (insn->flags & KC_INSN_MEM))
		return false;
	if (short_form ? reg != KC_REG_RAX :
	    (!insn->has_modrm || (insn->modrm >> 6) != 3 ||
	     kc_byte_reg(insn, kc_rm_reg(insn), &bit) != reg))
		return false;
	/* a byte's test sees that byte only, its immediate sign-extended */
	if (insn->opsize == 1)
		imm &= 0xff;
	switch (insn->op) {
	case KC_OP_TEST:
	case KC_OP_AND:
		*mask = imm << bit;
		return true;
	case KC_OP_BT:
		*mask = 1ULL << (insn->imm & 63);
		return true;
	default:
		return false;
	}
}

/* "shr/sar/shl $n, reg" (or by 1) of @reg: the shift, right positive. */
static bool kc_insn_shifts_reg(const struct kc_insn *insn, unsigned int reg,
			       int *shift)
{
	unsigned int digit = (insn->modrm >> 3) & 7;
	int n;

	if (insn->op != KC_OP_SHIFT || insn->map != 0 || !insn->has_modrm ||
	    (insn->modrm >> 6) != 3 || kc_rm_reg(insn) != reg)
		return false;
	if (insn->opcode == 0xc1 && insn->has_imm)
		n = insn->imm & 63;
	else if (insn->opcode == 0xd1)
		n = 1;
	else
		return false;
	if (digit == 5 || digit == 7)		/* shr, sar */
		*shift += n;
	else if (digit == 4)			/* shl */
		*shift -= n;
	else
		return false;
	return true;
}

/*
 * Which bits the sampled read's consumer looks at: the read itself when it
 * is "test $imm, mem" or "bt $imm, mem", else what the instructions after a
 * load do with the loaded register: shifts by a constant, then a
 * test/and/bt with an immediate. Anything else: unknown (0).
 */
static u64 kc_consumer_mask(const struct kc_side *s, unsigned long next)
{
	u8 code[KC_CONSUMER_WINDOW * KC_INSN_MAX_LEN];
	struct kc_insn insn;
	unsigned int off = 0, i;
	int shift = 0;
	u64 mask;

	if (s->op == KC_OP_TEST && s->has_imm)
		return (u64)s->imm;
	if (s->op == KC_OP_BT && s->has_imm)
		return 1ULL << (s->imm & 63);
	if (s->op != KC_OP_MOV || s->dest_reg >= 16)
		return 0;
	if (copy_from_kernel_nofault(code, (void *)next, sizeof(code)))
		return 0;
	kc_pool_patch_original(next, code, sizeof(code));
	for (i = 0; i < KC_CONSUMER_WINDOW; i++, off += insn.length) {
		if (kc_decode(code + off, sizeof(code) - off, &insn))
			return 0;
		if (kc_insn_shifts_reg(&insn, s->dest_reg, &shift)) {
			if (shift < 0 || shift > 63)
				return 0;
			continue;
		}
		if (kc_insn_tests_reg(&insn, s->dest_reg, &mask))
			return shift >= 0 ? mask << shift : 0;
		/* any other instruction naming the register: give up */
		if (kc_insn_names_reg(&insn, s->dest_reg) ||
		    (insn.flags & KC_INSN_BRANCH))
			return 0;
	}
	return 0;
}

/*
 * The bits of the sampled field the racer's own store changed from the
 * window's start: the watched bytes read in its #DB, right after it.
 */
static u64 kc_racer_stored_bits(const struct kc_report *r,
				const struct kc_side *w)
{
	unsigned long shift = r->addr - r->watch_addr;
	u64 trap_value;

	if (!w->has_trap_value || r->addr < r->watch_addr ||
	    shift + r->size > sizeof(trap_value))
		return 0;
	memcpy(&trap_value, w->trap_around + KC_TRAP_BEFORE, sizeof(trap_value));
	return ((trap_value >> (8 * shift)) ^ r->old_value) &
	       kc_size_mask(r->size);
}

/*
 * Bits the write side can have changed: what its RMW touches, what its
 * store left in memory, and what the value line shows changed. A plain
 * store (of a computed value, say) has no mask: the value it left, read
 * in the #DB, and the value line, which spans the whole stall from before
 * the arming, judge it.
 */
static bool kc_written_bits(const struct kc_report *r, const struct kc_side *w,
			    u64 *changed)
{
	u64 diff = (r->old_value ^ r->new_value) & kc_size_mask(r->size);

	*changed = diff | kc_racer_stored_bits(r, w);
	if (w->access == KC_ACC_RW && kc_rmw_mask(w, r->size)) {
		*changed |= kc_rmw_mask(w, r->size);
		return true;
	}
	return w->access & KC_ACC_WRITE;
}

/* The tester's mask, when one side only tests constant bits. */
static u64 kc_tested_bits(const struct kc_side *t)
{
	if (t->access != KC_ACC_READ)
		return 0;
	return kc_consumer_mask(t, t->ip + t->insn_len);
}

/*
 * One side only tests a constant mask, and no bit under it changed: the
 * other side (an RMW of other bits, or any store whose value kept them)
 * cannot change the test's outcome.
 */
static bool kc_is_other_bits(const struct kc_report *r)
{
	u64 changed, tested;

	if (!r->has_racer) {
		/* one-sided: the value line is all there is */
		if (r->sampled.access != KC_ACC_READ)
			return false;
		changed = (r->old_value ^ r->new_value) &
			  kc_size_mask(r->size);
		tested = kc_tested_bits(&r->sampled);
		return changed && tested && !(tested & changed);
	}
	tested = kc_tested_bits(&r->sampled);
	if (tested && kc_written_bits(r, &r->racer, &changed))
		return !(tested & changed);
	/* the sampled write runs after the window: only its RMW mask counts */
	tested = kc_tested_bits(&r->racer);
	changed = kc_rmw_mask(&r->sampled, r->size);
	if (r->sampled.access != KC_ACC_RW || !tested || !changed)
		return false;
	changed |= (r->old_value ^ r->new_value) & kc_size_mask(r->size);
	return !(tested & changed);
}

/* ---- marked accesses: plain loads and stores of an atomic variable ---- */

static bool kc_plain_load_or_store(const struct kc_side *a)
{
	return a->op == KC_OP_MOV && !a->locked &&
	       (a->access == KC_ACC_READ || a->access == KC_ACC_WRITE);
}

/*
 * atomic_read() and atomic_set() compile to plain movs: a debug register
 * cannot tell them from a data race. A location the code under test also
 * updates with LOCK'd instructions is an atomic variable, and its plain
 * loads and stores are the marked ones, when both sides are seen. A plain
 * RMW (`v.counter++`) of it, or a store racing its LOCK'd update, stays a
 * race.
 */
static bool kc_is_marked_atomic(const struct kc_report *r)
{
	/* an unseen racer may be the plain RMW, or a LOCK'd one a store loses */
	if (!r->has_racer || !kc_plain_load_or_store(&r->sampled) ||
	    !kc_plain_load_or_store(&r->racer))
		return false;
	return kc_sites_addr_atomic(r->addr, r->size);
}

/*
 * KCSAN's default (CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC=y) takes a
 * plain aligned write of up to 8 bytes as atomic, so against a marked
 * read @other, access @a (at @addr, @size bytes) races with nothing:
 * percpu_counter_read()'s READ_ONCE() against the locked
 * "fbc->count += count" is no race to KCSAN built with GCC, which
 * instruments the += as a read and a write. Against a marked write the
 * pair stays a race here (KCSAN would miss it): write/write races are
 * ours to report.
 */
static bool kc_plain_write_atomic(const struct kc_side *a, unsigned long addr,
				  unsigned int size, const struct kc_side *other)
{
	if (other->access != KC_ACC_READ || !(a->access & KC_ACC_WRITE))
		return false;
	/* a string instruction is memset()/memcpy(): a range to KCSAN */
	return !a->locked && a->op != KC_OP_STRING && size && size <= 8 &&
	       !(addr & (size - 1));
}

/*
 * KCSAN's rule, on what the source says ("kcollider mark"): no race when
 * both accesses are marked, or either is in data_race(), or one is a
 * marked read and the other a plain aligned word write (above). A
 * one-sided report (a value changed under the sampled access, its writer
 * unseen) on a marked access is none either: KCSAN only watches plain
 * ones, and a plain writer is caught when it is sampled itself.
 */
static bool kc_is_marked_by_source(const struct kc_report *r)
{
	const struct kc_side *s = &r->sampled, *x = &r->racer;
	int sampled = kc_marks_kind_at(s->ip), racer;

	if (sampled == KC_MARKS_DATA_RACE)
		return true;
	if (!r->has_racer)
		return sampled == KC_MARKS_MARKED;
	racer = kc_marks_kind_at(x->ip);
	if (racer == KC_MARKS_DATA_RACE)
		return true;
	if (sampled == KC_MARKS_MARKED && racer == KC_MARKS_MARKED)
		return true;
	if (sampled == KC_MARKS_MARKED)
		return x->has_addr && kc_plain_write_atomic(x, x->addr, x->size, s);
	return racer == KC_MARKS_MARKED &&
	       kc_plain_write_atomic(s, r->addr, r->size, x);
}

/*
 * Code the kernel builds without KCSAN (KCSAN_SANITIZE := n in its
 * Makefile, which "kcollider mark" read): its maintainers expect races
 * there by design, the scheduler's and SLUB's among them. KCSAN never
 * watches an access there, and sees one there racing a watched access
 * only as a value changed under it: so does this filter.
 */
static bool kc_is_exempt(const struct kc_report *r)
{
	if (kc_marks_kind_at(r->sampled.ip) == KC_MARKS_EXEMPT)
		return true;
	return r->has_racer && !r->value_changed &&
	       kc_marks_kind_at(r->racer.ip) == KC_MARKS_EXEMPT;
}

/*
 * A single aligned load/store pair, nothing known about its marking: it
 * may be READ_ONCE()/WRITE_ONCE(), which the binary does not show.
 */
bool kc_marking_unknown(const struct kc_report *r)
{
	return r->has_racer && kc_plain_load_or_store(&r->sampled) &&
	       kc_plain_load_or_store(&r->racer) && r->size <= 8 &&
	       !(r->addr & (r->size - 1)) &&
	       (r->sampled.access | r->racer.access) == KC_ACC_RW;
}

/* ---- racy-by-design variables and functions ---- */

struct kc_suppression {
	char name[KSYM_NAME_LEN];
	atomic_long_t hits;
	/* where the name was when added, for the picks: [lo, hi) */
	unsigned long lo, hi;
};

static struct kc_suppression kc_suppress[KC_SUPPRESS_MAX];
static atomic_long_t kc_picks_suppressed;	/* left out by the picks */
static unsigned int kc_nr_suppress;
static DEFINE_MUTEX(kc_suppress_lock);

static const char * const kc_suppress_defaults[] = {
	"jiffies", "jiffies_64", NULL,
};

static void kc_symbol_name(unsigned long addr, char *buf)
{
	char *end;

	sprint_symbol_no_offset(buf, addr);
	end = strpbrk(buf, " +");
	if (end)
		*end = '\0';
}

static bool kc_suppressed_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < kc_nr_suppress; i++) {
		if (!strcmp(kc_suppress[i].name, name)) {
			atomic_long_inc(&kc_suppress[i].hits);
			return true;
		}
	}
	return false;
}

static bool kc_is_suppressed(const struct kc_report *r)
{
	char name[KSYM_SYMBOL_LEN];
	bool hit = false;

	mutex_lock(&kc_suppress_lock);
	if (r->obj_kind == KC_OBJ_GLOBAL) {
		kc_symbol_name(r->addr, name);
		hit = kc_suppressed_name(name);
	}
	if (!hit) {
		kc_symbol_name(r->sampled.ip, name);
		hit = kc_suppressed_name(name);
	}
	if (!hit && r->has_racer) {
		kc_symbol_name(r->racer.ip, name);
		hit = kc_suppressed_name(name);
	}
	mutex_unlock(&kc_suppress_lock);
	return hit;
}

/*
 * Where @name lies, [*lo, *hi): a function's code, or a global. Nothing
 * where the running kernel has no such symbol (a module's, not loaded).
 */
static void kc_suppress_resolve(const char *name, unsigned long *lo,
				unsigned long *hi)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long size = 1;
	char *slash;

	*lo = kc_lookup_symbol(name);
	*hi = *lo;
	if (!*lo)
		return;
	sprint_symbol(sym, *lo);
	slash = strchr(sym, '/');
	if (slash) {
		slash[strcspn(slash, " ")] = '\0';
		if (kstrtoul(slash + 1, 16, &size) || !size)
			size = 1;
	}
	*hi = *lo + size;
}

/* Under kc_suppress_lock: whether @addr lies where a suppressed name is. */
static bool kc_suppressed_at(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < kc_nr_suppress; i++)
		if (addr >= kc_suppress[i].lo && addr < kc_suppress[i].hi)
			return true;
	return false;
}

static bool kc_suppress_name_valid(const char *name)
{
	const char *c;

	if (!*name || strlen(name) >= KSYM_NAME_LEN)
		return false;
	for (c = name; *c; c++)
		if (!isalnum(*c) && *c != '_' && *c != '.')
			return false;
	return true;
}

/* "+name" or "name" adds, "-name" removes, "clear" empties. */
int kc_suppress_write(const char *buf, size_t len)
{
	char tok[KSYM_NAME_LEN + 2];
	unsigned long lo = 0, hi = 0;
	const char *name;
	unsigned int i;
	int ret = 0;

	len = kc_parse_strip_len(buf, len);
	if (!len || len >= sizeof(tok) || memchr(buf, '\n', len))
		return -EINVAL;
	memcpy(tok, buf, len);
	tok[len] = '\0';
	name = tok[0] == '+' || tok[0] == '-' ? tok + 1 : tok;
	if (strcmp(tok, "clear") && !kc_suppress_name_valid(name))
		return -EINVAL;
	if (strcmp(tok, "clear") && tok[0] != '-')
		kc_suppress_resolve(name, &lo, &hi);

	mutex_lock(&kc_suppress_lock);
	if (!strcmp(tok, "clear")) {
		kc_nr_suppress = 0;
	} else if (tok[0] == '-') {
		for (i = 0; i < kc_nr_suppress; i++)
			if (!strcmp(kc_suppress[i].name, name))
				break;
		if (i == kc_nr_suppress)
			ret = -ENOENT;
		for (; i + 1 < kc_nr_suppress; i++) {
			strscpy(kc_suppress[i].name, kc_suppress[i + 1].name,
				KSYM_NAME_LEN);
			kc_suppress[i].lo = kc_suppress[i + 1].lo;
			kc_suppress[i].hi = kc_suppress[i + 1].hi;
			atomic_long_set(&kc_suppress[i].hits,
					atomic_long_read(&kc_suppress[i + 1].hits));
		}
		if (!ret)
			kc_nr_suppress--;
	} else {
		for (i = 0; i < kc_nr_suppress; i++)
			if (!strcmp(kc_suppress[i].name, name))
				break;
		if (i == kc_nr_suppress) {
			if (kc_nr_suppress == KC_SUPPRESS_MAX) {
				ret = -ENOSPC;
			} else {
				strscpy(kc_suppress[i].name, name,
					KSYM_NAME_LEN);
				kc_suppress[i].lo = lo;
				kc_suppress[i].hi = hi;
				atomic_long_set(&kc_suppress[i].hits, 0);
				kc_nr_suppress++;
			}
		}
	}
	mutex_unlock(&kc_suppress_lock);
	return ret;
}

ssize_t kc_suppress_show(char *buf, size_t size)
{
	unsigned int i;
	ssize_t n = 0;

	mutex_lock(&kc_suppress_lock);
	for (i = 0; i < kc_nr_suppress; i++)
		n += scnprintf(buf + n, size - n, "%s %ld\n",
			       kc_suppress[i].name,
			       atomic_long_read(&kc_suppress[i].hits));
	mutex_unlock(&kc_suppress_lock);
	return n;
}

static bool kc_filter_on(enum kc_filter f)
{
	return !READ_ONCE(kc_filters_strict) && READ_ONCE(kc_filter_enabled[f]);
}

/* ---- own-wakeup: the stall's sleep, not the code, made the race ---- */

static bool kc_is_wakeup_function(unsigned long ip)
{
	char name[KSYM_SYMBOL_LEN];

	kc_symbol_name(ip, name);
	return !strcmp(name, "try_to_wake_up") ||
	       !strcmp(name, "sched_ttwu_pending") ||
	       !strncmp(name, "ttwu_", 5) ||
	       !strcmp(name, "__schedule") ||
	       !strcmp(name, "context_switch") ||
	       !strncmp(name, "finish_task_switch", 18);
}

/*
 * A sleeping window leaves the sampled task asleep at the sampled access,
 * and the timer that ends the sleep wakes it: try_to_wake_up() reads and
 * writes the task's own task_struct (its state, in_iowait,
 * sched_remote_wakeup, ...), words the task itself writes while running
 * ("strictly current" bit-fields), as the switch away from it and back
 * does (active_mm, on_cpu). Such a racer is the sleep of the sampled task
 * by the detector's own timer: a race that never happens unless the
 * detector puts the task to sleep there.
 */
static bool kc_is_own_wakeup(const struct kc_report *r)
{
	unsigned int i;

	if (!r->own_task_slept || !r->has_racer)
		return false;
	if (kc_is_wakeup_function(r->racer.ip))
		return true;
	for (i = 0; i < r->racer.nr_stack; i++)
		if (kc_is_wakeup_function(r->racer.stack[i]))
			return true;
	return false;
}

/* ---- own-cpu: a CPU's own per-CPU copy, touched on that CPU ---- */

/*
 * The sampled access reaches its own CPU's copy: %gs-relative, or through
 * a pointer to that copy (this_cpu_ptr(), raw_cpu_ptr(): SLUB's fast paths
 * read their CPU's kmem_cache_cpu so, preemptible, and validate it with
 * its tid). A pointer taken before a migration reaches another CPU's copy
 * and is no own copy: a race like any other.
 */
static bool kc_sampled_own_copy(const struct kc_report *r)
{
	return r->sampled.gs_relative ||
	       (r->obj_kind == KC_OBJ_PERCPU && r->obj_cpu == r->sampled.cpu);
}

/*
 * Other CPUs' %gs-relative accesses reach their own copies: only the
 * owner, or a remote reader through per_cpu_ptr(), touches this copy. A
 * racer on the sampled CPU (another task while the sampled one slept in
 * its window, or an interrupt) ran before the sampled instruction began:
 * one instruction, a load or this_cpu_add()'s RMW, is whole on its CPU,
 * and the two are ordered by it (mntget() against mntput_no_expire(), each
 * adding to its CPU's mnt_count). A plain store stays judged: it may end
 * an RMW split over several instructions that a preemption there would
 * break. A remote racer is a race, the per-CPU counter's sum.
 */
static bool kc_is_own_cpu(const struct kc_report *r)
{
	return r->has_racer && kc_sampled_own_copy(r) &&
	       r->racer.cpu == r->sampled.cpu &&
	       r->sampled.access != KC_ACC_WRITE;
}

/* ---- locked-racer: a load racing an RMW that loses no update ---- */

/*
 * A LOCK'd RMW, or a compare-exchange without LOCK: the kernel emits
 * those only as cmpxchg_local() and this_cpu_cmpxchg*(), atomic on their
 * own CPU by design, and a compare-exchange fails rather than lose an
 * update (SLUB's fast paths read the per-CPU freelist and tid, then
 * validate both so). A plain unlocked add stays a race: it is the
 * per-CPU counter that a remote sum reads, which KCSAN reports too.
 */
static bool kc_racer_atomic_rmw(const struct kc_side *x)
{
	return x->locked || x->op == KC_OP_CMPXCHG;
}

/*
 * The worker's verdict on a report: the benign filter that matched, or -1
 * for harmful. Sets r->idempotent (marked, never pruned: DataCollider's
 * idempotent writes led to real bugs).
 */
int kc_filters_classify(struct kc_report *r)
{
	/* plain stores only: an RMW that changed nothing can still lose one */
	r->idempotent = r->has_racer && !r->value_changed &&
			r->racer.access == KC_ACC_WRITE &&
			r->sampled.access == KC_ACC_WRITE;
	if (kc_filter_on(KC_FILTER_SUPPRESSED) && kc_is_suppressed(r))
		return KC_FILTER_SUPPRESSED;
	/* the detector's own doing outranks any reading of the code */
	if (kc_filter_on(KC_FILTER_OWN_WAKEUP) && kc_is_own_wakeup(r))
		return KC_FILTER_OWN_WAKEUP;
	if (kc_filter_on(KC_FILTER_OWN_CPU) && kc_is_own_cpu(r))
		return KC_FILTER_OWN_CPU;
	/* the source outranks what the instructions suggest */
	if (kc_filter_on(KC_FILTER_EXEMPT) && kc_is_exempt(r))
		return KC_FILTER_EXEMPT;
	if (kc_filter_on(KC_FILTER_MARKED) && kc_is_marked_by_source(r))
		return KC_FILTER_MARKED;
	if (kc_filter_on(KC_FILTER_OTHER_BITS) && kc_is_other_bits(r))
		return KC_FILTER_OTHER_BITS;
	/* a plain load racing an atomic RMW reads the old or the new value */
	if (kc_filter_on(KC_FILTER_LOCKED_RACER) && r->has_racer &&
	    kc_racer_atomic_rmw(&r->racer) && r->sampled.access == KC_ACC_READ)
		return KC_FILTER_LOCKED_RACER;
	if (kc_filter_on(KC_FILTER_LOSSY_COUNTER) && kc_is_lossy_counter(r))
		return KC_FILTER_LOSSY_COUNTER;
	if (kc_filter_on(KC_FILTER_MARKED_ATOMIC) && kc_is_marked_atomic(r))
		return KC_FILTER_MARKED_ATOMIC;
	return -1;
}

const char *kc_filter_name(int filter)
{
	return kc_filter_names[filter];
}

void kc_filter_count(int filter)
{
	atomic_long_inc(&kc_filter_hits[filter]);
}

bool kc_filters_benign_full(void)
{
	return READ_ONCE(kc_benign_full);
}

/*
 * The markings whose samples these filters would call benign, for the
 * sampler's picks: KCSAN never watches a marked access, an access in
 * data_race() or code built without it. A sample on an access in
 * data_race() or in exempt code can only end in a benign report; one on a
 * marked access finds only what a sample of the plain side finds too,
 * unless that side is not targeted: kept, seldom. Nothing is left out
 * where benign races are wanted in full.
 */
void kc_filters_pick_marks(struct kc_pick_marks *pm)
{
	pm->never = 0;
	pm->seldom = 0;
	if (READ_ONCE(kc_benign_full))
		return;
	if (kc_filter_on(KC_FILTER_EXEMPT))
		pm->never |= BIT(KC_MARKS_EXEMPT);
	if (kc_filter_on(KC_FILTER_MARKED)) {
		pm->never |= BIT(KC_MARKS_DATA_RACE);
		pm->seldom |= BIT(KC_MARKS_MARKED);
	}
}

/*
 * Whether every report of a sample of the site at @ip would be
 * suppressed: it lies in a suppressed function, or its operand is a
 * suppressed global by its address (jiffies, read all over the kernel and
 * written by every tick).
 */
bool kc_filters_site_suppressed(unsigned long ip)
{
	u8 code[KC_INSN_MAX_LEN];
	unsigned long target = 0;
	struct kc_insn insn;
	bool hit;

	if (!kc_filter_on(KC_FILTER_SUPPRESSED) || READ_ONCE(kc_benign_full))
		return false;
	if (!copy_from_kernel_nofault(code, (void *)ip, sizeof(code))) {
		kc_pool_patch_original(ip, code, sizeof(code));
		if (!kc_decode(code, sizeof(code), &insn) &&
		    (insn.flags & KC_INSN_MEM) &&
		    insn.mem[0].base == KC_REG_RIP &&
		    insn.mem[0].index == KC_REG_NONE &&
		    insn.mem[0].seg == KC_SEG_NONE)
			target = ip + insn.length + (long)insn.mem[0].disp;
	}
	mutex_lock(&kc_suppress_lock);
	hit = kc_suppressed_at(ip) || (target && kc_suppressed_at(target));
	mutex_unlock(&kc_suppress_lock);
	if (hit)
		atomic_long_inc(&kc_picks_suppressed);
	return hit;
}

/* The stats file's "benign_<filter> N" lines. */
void kc_filters_stats(struct seq_file *m)
{
	unsigned int placed;
	int i;

	for (i = 0; i < KC_NR_FILTERS; i++)
		seq_printf(m, "benign_%s %ld\n", kc_filter_names[i],
			   atomic_long_read(&kc_filter_hits[i]));
	seq_printf(m, "picks_suppressed %ld\n",
		   atomic_long_read(&kc_picks_suppressed));
	mutex_lock(&kc_suppress_lock);
	for (i = 0, placed = 0; i < kc_nr_suppress; i++)
		placed += kc_suppress[i].lo != 0;
	mutex_unlock(&kc_suppress_lock);
	seq_printf(m, "suppressed_placed %u\n", placed);
}

ssize_t kc_filters_show(char *buf)
{
	ssize_t n = 0;
	int i;

	for (i = 0; i < KC_NR_FILTERS; i++)
		n += sysfs_emit_at(buf, n, "%s %s\n", kc_filter_names[i],
				   READ_ONCE(kc_filter_enabled[i]) ? "on" : "off");
	return n;
}

/* "NAME=on" or "NAME=off", one filter per write. */
ssize_t kc_filters_store(const char *buf, size_t count)
{
	const char *eq = memchr(buf, '=', count);
	size_t len;
	bool on;
	int i;

	if (!eq || kc_parse_bool(eq + 1, count - (eq + 1 - buf), &on))
		return -EINVAL;
	len = eq - buf;
	for (i = 0; i < KC_NR_FILTERS; i++) {
		if (strlen(kc_filter_names[i]) == len &&
		    !memcmp(kc_filter_names[i], buf, len)) {
			WRITE_ONCE(kc_filter_enabled[i], on);
			return count;
		}
	}
	return -EINVAL;
}

static ssize_t kc_filters_bool_store(bool *value, const char *buf,
				     size_t count)
{
	bool on;
	int ret;

	ret = kc_parse_bool(buf, count, &on);
	if (ret)
		return ret;
	WRITE_ONCE(*value, on);
	return count;
}

ssize_t kc_filters_strict_show(char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(kc_filters_strict));
}

ssize_t kc_filters_strict_store(const char *buf, size_t count)
{
	return kc_filters_bool_store(&kc_filters_strict, buf, count);
}

ssize_t kc_benign_full_show(char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(kc_benign_full));
}

ssize_t kc_benign_full_store(const char *buf, size_t count)
{
	return kc_filters_bool_store(&kc_benign_full, buf, count);
}

bool kc_filter_memory_reuse_on(void)
{
	return kc_filter_on(KC_FILTER_MEMORY_REUSE);
}

/* A module's places go with it: its addresses will be another's. */
static int kc_filters_module_event(struct notifier_block *nb,
				   unsigned long action, void *data)
{
	struct module *mod = data;
	unsigned int i;

	if (action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kc_suppress_lock);
	for (i = 0; i < kc_nr_suppress; i++) {
		if (within_module(kc_suppress[i].lo, mod)) {
			kc_suppress[i].lo = 0;
			kc_suppress[i].hi = 0;
		}
	}
	mutex_unlock(&kc_suppress_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kc_filters_module_nb = {
	.notifier_call = kc_filters_module_event,
};

int kc_filters_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; kc_suppress_defaults[i]; i++) {
		ret = kc_suppress_write(kc_suppress_defaults[i],
					strlen(kc_suppress_defaults[i]));
		if (ret)
			return ret;
	}
	return register_module_notifier(&kc_filters_module_nb);
}

void kc_filters_exit(void)
{
	unregister_module_notifier(&kc_filters_module_nb);
}

