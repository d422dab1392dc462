// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU layout: which per-CPU data is never watched, and whose copy
 * an address is.
 *
 * Each CPU's unit of the first chunk holds, in order, the kernel's static
 * per-CPU variables, the reserved area of the modules' (this one's among
 * them), then the first dynamic allocations. What the entry code, the
 * int3, #DB, NMI and IPI paths, kprobes, irq_work, the tick and this
 * module touch is static or reserved: cpu_tss_rw, cpu_tlbstate, cpu_dr7,
 * the GDT, current_task, __preempt_count, the kprobe control block, the
 * run queues, this module's counters. A watch there fires on its own
 * CPU's trap paths, so the static and reserved areas are never watched:
 * [0, kc_percpu_deny_end) of every unit. The dynamic area (alloc_percpu():
 * per-CPU counters, statistics, lists), which other CPUs read and races
 * live in, is watched like any memory.
 *
 * If the layout cannot be read, the whole unit is refused; if the units
 * cannot be found, a wide radius around cpu_dr7 (SZ_2M) stands in (and
 * refuses heap objects that happen to lie near a per-CPU area).
 *
 * Later chunks of dynamic per-CPU data are vmalloc space: one area per
 * group of units, laid out as the first chunk's groups are, the units in
 * the same order, found by the area's allocator (pcpu_get_vm_areas()).
 * Looking one up takes the vmalloc lock, which the int3 cannot: the areas
 * it meets are looked up later by the keeper (kc_percpu_learn()) and kept
 * in a table the int3 reads lock-free.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/vmalloc.h>
#include <asm/debugreg.h>

#include "kcollider.h"

static unsigned long kc_percpu_deny_end;
static unsigned long kc_percpu_unit;
/*
 * Where every CPU's unit of the first chunk lies, from the lowest to the
 * highest: most addresses are outside and skip the walk over the CPUs.
 * The whole address space when the units are not known.
 */
static unsigned long kc_percpu_span_lo;
static unsigned long kc_percpu_span_hi = ULONG_MAX;

static struct vm_struct *(*kc_find_vm_area)(const void *addr);
static unsigned long kc_pcpu_vm_caller;

/*
 * A later chunk's area: its first unit is @group past the first chunk's
 * base, as that unit's copy in the first chunk is.
 */
struct kc_pcpu_area {
	unsigned long base, size, group;
};

/*
 * The areas the int3 met. A chunk is freed seldom; an area freed and
 * reused before the keeper's next check can only mislead a pass (a copy
 * taken for an idle CPU's or the hitting CPU's own): a sample not taken,
 * never a report.
 */
#define KC_PCPU_AREAS		16
#define KC_PCPU_RECHECK_MS	1000
static struct kc_pcpu_area kc_pcpu_areas[KC_PCPU_AREAS];
static seqcount_t kc_pcpu_areas_seq = SEQCNT_ZERO(kc_pcpu_areas_seq);
static DEFINE_MUTEX(kc_pcpu_areas_lock);
static unsigned int kc_pcpu_areas_next;
static unsigned long kc_pcpu_areas_checked;
/* an address in an area not in the table, for the keeper to look up */
static DEFINE_PER_CPU(unsigned long, kc_pcpu_unknown);

bool kc_percpu_in_first_chunk(unsigned long addr, unsigned int size)
{
	return addr + size > kc_percpu_span_lo && addr < kc_percpu_span_hi;
}
NOKPROBE_SYMBOL(kc_percpu_in_first_chunk);

/* int3: plain array reads, as a cpumask walk calls code that may be sampled */
bool kc_percpu_denied(unsigned long addr, unsigned int size)
{
	unsigned long lo, hi;
	unsigned int cpu;

	if (!kc_percpu_in_first_chunk(addr, size))
		return false;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (kc_percpu_deny_end) {
			lo = per_cpu_offset(cpu);
			hi = lo + kc_percpu_deny_end;
		} else {
			lo = (unsigned long)per_cpu_ptr(&cpu_dr7, cpu) - SZ_2M;
			hi = lo + 2 * SZ_2M;
		}
		if (addr + size > lo && addr < hi)
			return true;
	}
	return false;
}
NOKPROBE_SYMBOL(kc_percpu_denied);

/*
 * Whether a %gs-relative access at the fixed offset @off into every CPU's
 * unit (no base or index register: a static per-CPU variable, of the
 * kernel or of a module) lies where nothing is watched, on every CPU and
 * at every execution. False where the layout is not known: the check at
 * the trap decides then.
 */
bool kc_percpu_offset_denied(unsigned long off, unsigned int size)
{
	return kc_percpu_deny_end && off < kc_percpu_deny_end;
}

/*
 * Whose copy of first-chunk per-CPU data @addr is: the CPU, and the offset
 * in its unit; -1 if none (or the units are unknown). Lock-free.
 */
int kc_percpu_owner(unsigned long addr, unsigned long *offset)
{
	unsigned long lo;
	unsigned int cpu;

	if (!kc_percpu_unit || !kc_percpu_in_first_chunk(addr, 1))
		return -1;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		lo = per_cpu_offset(cpu);
		if (addr >= lo && addr < lo + kc_percpu_unit) {
			*offset = addr - lo;
			return cpu;
		}
	}
	return -1;
}
NOKPROBE_SYMBOL(kc_percpu_owner);

/* The CPU whose unit lies @unit_off past the first chunk's base, or -1. */
static int kc_percpu_unit_cpu(unsigned long unit_off)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (per_cpu_offset(cpu) - kc_percpu_span_lo == unit_off)
			return cpu;
	return -1;
}
NOKPROBE_SYMBOL(kc_percpu_unit_cpu);

static int kc_pcpu_area_owner(const struct kc_pcpu_area *a,
			      unsigned long addr, unsigned long *offset)
{
	unsigned long in_area = rounddown(addr - a->base, kc_percpu_unit);
	int cpu = kc_percpu_unit_cpu(a->group + in_area);

	if (cpu >= 0)
		*offset = addr - a->base - in_area;
	return cpu;
}
NOKPROBE_SYMBOL(kc_pcpu_area_owner);

/* Whether a group of units may start @off past the first chunk's base. */
static bool kc_percpu_group_start(unsigned long off)
{
	unsigned long u;
	int cpu;

	for_each_possible_cpu(cpu) {
		u = per_cpu_offset(cpu) - kc_percpu_span_lo;
		if (off && u < off && u + kc_percpu_unit >= off)
			return false;
	}
	return true;
}

/*
 * The later chunk's area @addr lies in; false if it is in none, or if the
 * layout leaves the group ambiguous. Takes the vmalloc lock.
 */
static bool kc_pcpu_area_find(unsigned long addr, struct kc_pcpu_area *a)
{
	unsigned long in_area, unit_off;
	struct vm_struct *vm;
	int cpu, owner = -1;

	if (!kc_percpu_unit || !kc_find_vm_area || !kc_pcpu_vm_caller ||
	    !is_vmalloc_addr((void *)addr))
		return false;
	vm = kc_find_vm_area((void *)addr);
	if (!vm || (unsigned long)READ_ONCE(vm->caller) != kc_pcpu_vm_caller)
		return false;
	a->base = (unsigned long)READ_ONCE(vm->addr);
	a->size = READ_ONCE(vm->size);
	if (addr < a->base || addr - a->base >= a->size)
		return false;
	in_area = rounddown(addr - a->base, kc_percpu_unit);
	for_each_possible_cpu(cpu) {
		unit_off = per_cpu_offset(cpu) - kc_percpu_span_lo;
		if (unit_off < in_area ||
		    !kc_percpu_group_start(unit_off - in_area))
			continue;
		if (owner >= 0)
			return false;
		owner = cpu;
	}
	if (owner < 0)
		return false;
	a->group = per_cpu_offset(owner) - kc_percpu_span_lo - in_area;
	return true;
}

/*
 * Whose copy of per-CPU data in a later chunk @addr is, and the offset in
 * its unit; -1 if @addr is not in one, or if the layout leaves the unit's
 * owner ambiguous. It takes the vmalloc lock: for reports, in process
 * context.
 */
int kc_percpu_owner_chunk(unsigned long addr, unsigned long *offset)
{
	struct kc_pcpu_area a;

	if (!kc_pcpu_area_find(addr, &a))
		return -1;
	return kc_pcpu_area_owner(&a, addr, offset);
}

/* int3: the owner of @addr by the table of areas met, or -1 */
static int kc_percpu_owner_met(unsigned long addr, unsigned long *offset)
{
	struct kc_pcpu_area a = { };
	unsigned int seq, i;

	seq = raw_read_seqcount(&kc_pcpu_areas_seq);
	if (seq & 1)
		return -1;
	for (i = 0; i < KC_PCPU_AREAS; i++) {
		a.size = READ_ONCE(kc_pcpu_areas[i].size);
		a.base = READ_ONCE(kc_pcpu_areas[i].base);
		a.group = READ_ONCE(kc_pcpu_areas[i].group);
		if (a.size && addr - a.base < a.size)
			break;
	}
	if (read_seqcount_retry(&kc_pcpu_areas_seq, seq) ||
	    i == KC_PCPU_AREAS)
		return -1;
	return kc_pcpu_area_owner(&a, addr, offset);
}
NOKPROBE_SYMBOL(kc_percpu_owner_met);

/*
 * int3, lock-free: whose copy of per-CPU data @addr is, in the first chunk
 * or in a later one already met; -1 if not known. A vmalloc address not
 * known is left for the keeper to look up.
 */
int kc_percpu_owner_now(unsigned long addr)
{
	unsigned long offset;
	int cpu = kc_percpu_owner(addr, &offset);

	if (cpu >= 0 || !is_vmalloc_addr((void *)addr))
		return cpu;
	cpu = kc_percpu_owner_met(addr, &offset);
	if (cpu < 0)
		this_cpu_write(kc_pcpu_unknown, addr);
	return cpu;
}
NOKPROBE_SYMBOL(kc_percpu_owner_now);

/* Under kc_pcpu_areas_lock: entry @i becomes @a (empty if NULL). */
static void kc_pcpu_area_set(unsigned int i, const struct kc_pcpu_area *a)
{
	preempt_disable();
	raw_write_seqcount_begin(&kc_pcpu_areas_seq);
	WRITE_ONCE(kc_pcpu_areas[i].size, a ? a->size : 0);
	WRITE_ONCE(kc_pcpu_areas[i].base, a ? a->base : 0);
	WRITE_ONCE(kc_pcpu_areas[i].group, a ? a->group : 0);
	raw_write_seqcount_end(&kc_pcpu_areas_seq);
	preempt_enable();
}

/* Under kc_pcpu_areas_lock: entries whose area is gone are emptied. */
static void kc_pcpu_areas_recheck(void)
{
	struct kc_pcpu_area *a, now;
	unsigned int i;

	for (i = 0; i < KC_PCPU_AREAS; i++) {
		a = &kc_pcpu_areas[i];
		if (!a->size)
			continue;
		if (!kc_pcpu_area_find(a->base, &now) || now.base != a->base ||
		    now.size != a->size || now.group != a->group)
			kc_pcpu_area_set(i, NULL);
	}
}

/* Under kc_pcpu_areas_lock: the area of @addr joins the table. */
static void kc_pcpu_area_add(unsigned long addr)
{
	struct kc_pcpu_area a;
	unsigned int i, spot = KC_PCPU_AREAS;

	if (!kc_pcpu_area_find(addr, &a))
		return;
	for (i = 0; i < KC_PCPU_AREAS; i++) {
		if (kc_pcpu_areas[i].size && kc_pcpu_areas[i].base == a.base)
			return;
		if (!kc_pcpu_areas[i].size && spot == KC_PCPU_AREAS)
			spot = i;
	}
	if (spot == KC_PCPU_AREAS)
		spot = kc_pcpu_areas_next++ % KC_PCPU_AREAS;
	kc_pcpu_area_set(spot, &a);
}

/*
 * Process context (the keeper): look up the areas the int3 met since the
 * last call, and forget those gone.
 */
void kc_percpu_learn(void)
{
	unsigned long addr;
	int cpu;

	if (!kc_find_vm_area || !kc_pcpu_vm_caller)
		return;
	mutex_lock(&kc_pcpu_areas_lock);
	if (time_after(jiffies, kc_pcpu_areas_checked +
				msecs_to_jiffies(KC_PCPU_RECHECK_MS))) {
		kc_pcpu_areas_recheck();
		kc_pcpu_areas_checked = jiffies;
	}
	for_each_possible_cpu(cpu) {
		addr = xchg(per_cpu_ptr(&kc_pcpu_unknown, cpu), 0);
		if (addr)
			kc_pcpu_area_add(addr);
	}
	mutex_unlock(&kc_pcpu_areas_lock);
}

/*
 * The unit is the distance between neighbouring CPUs' offsets.
 * (__per_cpu_end is no help: kallsyms lookups through kprobes refuse
 * per-CPU symbols.) A module's static per-CPU variable lies in the
 * reserved area, which is PERCPU_MODULE_RESERVE long and starts where the
 * kernel's static area ends: the end of what is refused is at most that
 * far past our own variable.
 */
void kc_percpu_init(void)
{
	unsigned long unit = 0, d, own, dr7, lo = ULONG_MAX, hi = 0;
	int cpu, prev = -1;

	for_each_possible_cpu(cpu) {
		lo = min(lo, per_cpu_offset(cpu));
		hi = max(hi, per_cpu_offset(cpu));
		if (prev >= 0) {
			d = per_cpu_offset(cpu) > per_cpu_offset(prev) ?
			    per_cpu_offset(cpu) - per_cpu_offset(prev) :
			    per_cpu_offset(prev) - per_cpu_offset(cpu);
			if (d && (!unit || d < unit))
				unit = d;
		}
		prev = cpu;
	}
	dr7 = (unsigned long)(void __force *)&cpu_dr7;
	own = (unsigned long)(void __force *)&kc_pcpu_unknown;
	if (!unit || unit > SZ_64M || dr7 >= unit)
		return;
	kc_percpu_unit = unit;
	kc_find_vm_area = (void *)kc_lookup_function("find_vm_area");
	kc_pcpu_vm_caller = kc_lookup_function("pcpu_get_vm_areas");
	kc_percpu_deny_end = unit;
	kc_percpu_span_lo = lo;
	kc_percpu_span_hi = hi + unit;
	if (own > dr7 && own + PERCPU_MODULE_RESERVE < unit)
		kc_percpu_deny_end = own + PERCPU_MODULE_RESERVE;
}
