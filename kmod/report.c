// SPDX-License-Identifier: GPL-2.0
/*
 * The reporter: race records queued by stalls, finished and printed by a
 * worker in KCSAN's layout (include/kcollider/report.h), de-duplicated per
 * unordered pair of access sites, and kept in a log the CLI reads from
 * debugfs without parsing the console.
 *
 * Stalls may run with IRQs off, so the queue is a raw spinlock and a
 * bounded array: a full queue drops the record and counts it.
 */
/* Report lines carry no prefix: the layout is KCSAN's. */
#define pr_fmt(fmt) fmt

#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <kcollider/marks.h>
#include <kcollider/parse.h>
#include <kcollider/report.h>
#include <kcollider/x86_emulate.h>
#include "kcollider.h"
#include "report_style.h"

#define KC_QUEUE_LEN		32
#define KC_DEDUP_SLOTS		256
#define KC_DEDUP_PROBES		8
#define KC_LOG_RECORDS		128
#define KC_LOG_TEXT		4096
#define KC_LOCK_NAME_LEN	40

struct kc_dedup_entry {
	unsigned long a, b;
	unsigned long stamp;
};

struct kc_log_record {
	u64 seq;
	unsigned int len;
	char text[KC_LOG_TEXT];
};

static struct kc_report kc_queue[KC_QUEUE_LEN];
static unsigned int kc_queue_head, kc_queue_tail;
static DEFINE_RAW_SPINLOCK(kc_queue_lock);
static struct work_struct kc_report_work;
static bool kc_report_ready;

/* Worker-only state: the work item never runs concurrently with itself. */
static struct kc_report kc_current;
static struct kc_dedup_entry kc_dedup[KC_DEDUP_SLOTS];
static char kc_text[KC_LOG_TEXT];
static size_t kc_text_len;
/* the two functions a report names: off the stack, which KASAN doubles */
static char kc_name_a[KSYM_NAME_LEN + 64], kc_name_b[KSYM_NAME_LEN + 64];

static DEFINE_MUTEX(kc_log_lock);
static struct kc_log_record *kc_log;
static u64 kc_log_next_seq = 1;
static DEFINE_SPINLOCK(kc_print_lock);

enum kc_style {
	KC_STYLE_KCOLLIDER,
	KC_STYLE_KCSAN,
};

static const char * const kc_style_names[] = {
	[KC_STYLE_KCOLLIDER] = "kcollider",
	[KC_STYLE_KCSAN] = "kcsan",
};

static int kc_report_style = KC_STYLE_KCOLLIDER;

ssize_t kc_report_style_show(char *buf)
{
	return sysfs_emit(buf, "%s\n", kc_style_names[READ_ONCE(kc_report_style)]);
}

ssize_t kc_report_style_store(const char *buf, size_t count)
{
	size_t len = kc_parse_strip_len(buf, count);
	int i;

	for (i = 0; i < ARRAY_SIZE(kc_style_names); i++) {
		if (kc_parse_word_is(buf, len, kc_style_names[i])) {
			WRITE_ONCE(kc_report_style, i);
			return count;
		}
	}
	return -EINVAL;
}

/*
 * The header: KCSAN's own title in kcsan style, so a fuzzing farm files the
 * race as a data race; there a benign race (benign_full) must not look like
 * a crash at all, so its header carries no "BUG:".
 */
static const char *kc_title(int filter)
{
	if (READ_ONCE(kc_report_style) != KC_STYLE_KCSAN)
		return KC_REPORT_TITLE;
	return filter >= 0 ? KC_REPORT_TITLE_BENIGN : KC_REPORT_TITLE_KCSAN;
}

static const char * const kc_ctx_names[] = {
	[KC_CTX_TASK] = "task",
	[KC_CTX_SOFTIRQ] = "softirq",
	[KC_CTX_HARDIRQ] = "hardirq",
	[KC_CTX_NMI] = "nmi",
};

static void kc_report_kick_fn(struct irq_work *work)
{
	queue_work(system_unbound_wq, &kc_report_work);
}

/*
 * The stall runs in whatever context was sampled, which may hold the
 * workqueue's own locks: queue_work() happens from an irq_work instead,
 * once that context has interrupts on again.
 */
static struct irq_work kc_report_kick = IRQ_WORK_INIT_HARD(kc_report_kick_fn);

void kc_report_submit(const struct kc_report *r)
{
	unsigned long flags;
	bool queued = false;

	raw_spin_lock_irqsave(&kc_queue_lock, flags);
	if (kc_queue_head - kc_queue_tail < KC_QUEUE_LEN) {
		kc_queue[kc_queue_head % KC_QUEUE_LEN] = *r;
		kc_queue_head++;
		queued = true;
	}
	raw_spin_unlock_irqrestore(&kc_queue_lock, flags);
	if (!queued) {
		atomic_long_inc(&kc_stats.reports_lost);
		return;
	}
	if (READ_ONCE(kc_report_ready))
		irq_work_queue(&kc_report_kick);
}

static bool kc_queue_pop(struct kc_report *r)
{
	unsigned long flags;
	bool got = false;

	raw_spin_lock_irqsave(&kc_queue_lock, flags);
	if (kc_queue_tail != kc_queue_head) {
		*r = kc_queue[kc_queue_tail % KC_QUEUE_LEN];
		kc_queue_tail++;
		got = true;
	}
	raw_spin_unlock_irqrestore(&kc_queue_lock, flags);
	return got;
}

/* "func+0xoff/0xsize [mod]" -> start of func and its size. */
static bool kc_func_bounds(unsigned long ip, unsigned long *start,
			   unsigned long *size)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long off;
	char *plus;

	sprint_symbol(sym, ip);
	plus = strrchr(sym, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, size) != 2)
		return false;
	*start = ip - off;
	return true;
}

static bool kc_ranges_meet(u64 a, unsigned int alen, unsigned long b,
			   unsigned int blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * A string instruction's registers after the trap point past the element
 * it accessed: a data breakpoint is reported after the iteration that hit
 * it, with rdi/rsi already stepped, up (DF clear) or down (DF set; the
 * flags are not saved, so both are tried). The element that meets the
 * watch is the access; with none, the first candidate stands, and the
 * trap is outside the field.
 */
static void kc_string_address(struct kc_side *a, const struct kc_insn *insn,
			      const struct kc_regs *regs, unsigned long watch,
			      unsigned int watch_len)
{
	u64 cand[4];
	unsigned int n = 0, i, size = insn->mem[0].size;

	if (!size)
		return;
	for (i = 0; i < insn->nmem; i++) {
		const struct kc_mem_operand *m = &insn->mem[i];

		if (m->addr_size != 8 || m->seg == KC_SEG_FS ||
		    m->seg == KC_SEG_GS)
			return;
		cand[n++] = regs->gpr[m->base] - size;
		cand[n++] = regs->gpr[m->base] + size;
	}
	if (!n)
		return;
	a->addr = cand[0];
	for (i = 0; i < n; i++) {
		if (kc_ranges_meet(cand[i], size, watch, watch_len)) {
			a->addr = cand[i];
			break;
		}
	}
	a->has_addr = true;
}

/*
 * The instruction that ends at the trap ip accessed no memory, so it did not
 * make the access: the #DB came late (a trap ip in the caller, past the
 * ret that followed the access, would otherwise blame the call before it
 * and give the report a wrong title). A call or ret
 * does touch the racer's own stack, next to its stack pointer.
 */
static bool kc_trap_was_late(const struct kc_insn *insn,
			     const struct kc_regs *regs, unsigned long watch,
			     unsigned int watch_len)
{
	u64 sp = regs->gpr[KC_REG_RSP];

	if (insn->flags & (KC_INSN_CALL | KC_INSN_RET))
		return watch >= sp + 16 || watch + watch_len <= sp - 16;
	return true;
}

/*
 * Where the racer's instruction accessed, from its registers after it ran:
 * unknown when it changed a register its address is made of. A load the
 * int3 handler carried out has the registers it started with: its address
 * is known, and must be, since the handler's own accesses trip watches
 * too (copy_from_kernel_nofault() counts in the interrupted task's
 * pagefault_disabled, which a sample of that task may watch).
 */
static void kc_racer_address(struct kc_side *a, const struct kc_insn *insn,
			     const struct kc_regs *regs, unsigned long watch,
			     unsigned int watch_len)
{
	const struct kc_mem_operand *m = &insn->mem[0];
	bool reg_written = insn->has_modrm && m->access != KC_ACC_WRITE &&
			   (insn->reg == m->base || insn->reg == m->index) &&
			   !a->carried;
	struct kc_regs r = *regs;
	u64 ea;

	if ((insn->flags & KC_INSN_MEM) && (insn->flags & KC_INSN_STRING)) {
		kc_string_address(a, insn, regs, watch, watch_len);
		return;
	}
	if (!(insn->flags & KC_INSN_MEM)) {
		a->no_access = kc_trap_was_late(insn, regs, watch, watch_len);
		return;
	}
	if (insn->op == KC_OP_PUSH || insn->op == KC_OP_POP || reg_written)
		return;
	r.ip = a->ip;
	if (kc_effective_address(insn, 0, &r, &ea))
		return;
	a->addr = ea;
	a->has_addr = true;
}

/*
 * A REP string instruction with iterations left traps on itself: the trap
 * ip is then its own start, not the end of the instruction before it. That
 * one made the access only if it is a memory access that could have hit
 * the watch: a memset's setup store just ahead of its rep stos was blamed
 * for the stos's trap, on fields it never writes.
 */
static bool kc_string_trapped(const struct kc_insn *prev,
			      const struct kc_insn *at,
			      const struct kc_regs *regs, unsigned long prev_ip,
			      unsigned long watch, unsigned int watch_len)
{
	struct kc_side s = { .ip = prev_ip };
	unsigned int len;

	if (!(at->flags & KC_INSN_STRING))
		return false;
	if (!(prev->flags & KC_INSN_MEM))
		return true;
	if (!(at->flags & (KC_INSN_REP | KC_INSN_REPNE)) || !regs ||
	    !regs->gpr[KC_REG_RCX])
		return false;
	kc_racer_address(&s, prev, regs, watch, watch_len);
	if (!s.has_addr || !watch_len)
		return false;
	len = prev->mem[0].size ? min_t(unsigned int, prev->mem[0].size, 64) : 1;
	return s.addr >= watch + watch_len || watch >= s.addr + len;
}

/*
 * The racer's access: decode forward from its function's start to the
 * trap ip; the instruction ending there made the access, unless a string
 * instruction starting there did (above). @watch/@watch_len: what the
 * window watched.
 */
void kc_decode_racer(struct kc_side *a, const struct kc_regs *regs,
		     unsigned long watch, unsigned int watch_len)
{
	unsigned long ip = a->trap_ip, start, size, off, len;
	struct kc_insn insn, last = { };
	unsigned long last_off = ~0UL;
	u8 *code;

	if (kc_pool_map_slot_ip(ip, &start))
		ip = a->trap_ip = start;
	a->ip = ip;
	if (!kc_func_bounds(ip - 1, &start, &size))
		return;
	len = min(size, ip - start + KC_INSN_MAX_LEN);
	code = kvmalloc(len, GFP_KERNEL);
	if (!code)
		return;
	if (copy_from_kernel_nofault(code, (void *)start, len))
		goto out;
	kc_pool_patch_original(start, code, len);
	for (off = 0; start + off < ip; off += insn.length) {
		if (kc_decode(code + off, len - off, &insn))
			goto out;
		last = insn;
		last_off = off;
	}
	if (start + off != ip || last_off == ~0UL)
		goto out;
	if (!kc_decode(code + off, len - off, &insn) &&
	    kc_string_trapped(&last, &insn, regs, start + last_off, watch,
			      watch_len)) {
		last = insn;
		last_off = off;
	}
	a->ip = start + last_off;
	if (last.flags & KC_INSN_MEM) {
		a->access = last.mem[0].access;
		a->size = last.mem[0].size;
	}
	a->op = last.op;
	a->locked = !!(last.flags & KC_INSN_ATOMIC);
	a->has_imm = last.has_imm;
	a->imm = last.imm;
	a->insn_len = last.length;
	/* a load's register: filters follow what its consumer tests */
	a->dest_reg = a->access == KC_ACC_READ && last.op == KC_OP_MOV &&
		      last.has_modrm ? last.reg : 0xff;
	if (regs)
		kc_racer_address(a, &last, regs, watch, watch_len);
out:
	kvfree(code);
}

static bool kc_dedup_suppress(unsigned long x, unsigned long y)
{
	unsigned long a = min(x, y), b = max(x, y), now = jiffies;
	unsigned long window = msecs_to_jiffies(READ_ONCE(kc_settings.dedup_ms));
	unsigned int h = hash_long(a ^ (b * 31), 8), i, oldest = h;

	for (i = 0; i < KC_DEDUP_PROBES; i++) {
		struct kc_dedup_entry *e = &kc_dedup[(h + i) % KC_DEDUP_SLOTS];

		if (e->a == a && e->b == b && e->stamp) {
			if (time_before(now, e->stamp + window))
				return true;
			e->stamp = now;
			return false;
		}
		if (time_before(e->stamp,
				kc_dedup[oldest % KC_DEDUP_SLOTS].stamp))
			oldest = h + i;
	}
	kc_dedup[oldest % KC_DEDUP_SLOTS] = (struct kc_dedup_entry) {
		.a = a, .b = b, .stamp = now ? now : 1,
	};
	return false;
}

static __printf(1, 2) void kc_out(const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vscnprintf(kc_text + kc_text_len, sizeof(kc_text) - kc_text_len,
		       fmt, args);
	va_end(args);
	kc_text_len += n;
}

static const char *kc_access_name(const struct kc_side *a, bool watch_rw)
{
	switch (a->access) {
	case KC_ACC_READ:
		return "read";
	case KC_ACC_WRITE:
		return "write";
	case KC_ACC_RW:
		return "read-write";
	default:
		return watch_rw ? "read" : "write";
	}
}

/* Function name of @ip without offset or module, as syzbot titles use. */
static void kc_func_name(unsigned long ip, char *buf)
{
	char *sp;

	sprint_symbol_no_offset(buf, ip);
	sp = strchr(buf, ' ');
	if (sp)
		*sp = '\0';
}

/*
 * "sym=func+0xoff/0xsize mod=name" for kcollider's own lines; objects
 * drop the size, which kallsyms guesses badly for data.
 */
static void kc_out_sym(unsigned long ip, bool with_size)
{
	char sym[KSYM_SYMBOL_LEN], *mod, *slash;

	sprint_symbol(sym, ip);
	slash = strchr(sym, '/');
	if (!with_size && slash)
		memmove(slash, slash + strcspn(slash, " "),
			strlen(slash + strcspn(slash, " ")) + 1);
	mod = strstr(sym, " [");
	if (mod) {
		*mod = '\0';
		mod += 2;
		mod[strcspn(mod, "]")] = '\0';
		kc_out("sym=%s mod=%s", sym, mod);
	} else {
		kc_out("sym=%s", sym);
	}
}

static void kc_out_access(const struct kc_report *r, const struct kc_side *a,
			  bool one_sided)
{
	unsigned int i;

	kc_out("%s%s to 0x%lx of %u bytes by ",
	       one_sided ? KC_REPORT_UNKNOWN_ORIGIN : "",
	       kc_access_name(a, r->watch_rw), r->addr,
	       a->size ? a->size : r->size);
	if (a->ctx == KC_CTX_TASK)
		kc_out("task %d on cpu %d:\n", a->pid, a->cpu);
	else
		kc_out("interrupt on cpu %d:\n", a->cpu);
	for (i = 0; i < a->nr_stack; i++)
		kc_out(" %pS\n", (void *)a->stack[i]);
	kc_out("\n");
}

static void kc_out_header(const struct kc_report *r, const char *title)
{
	char *fa = kc_name_a, *fb = kc_name_b;

	kc_out("%s\n", KC_REPORT_RULE);
	if (!r->has_racer) {
		kc_out("%s%pS\n\n", title, (void *)r->sampled.ip);
		return;
	}
	kc_func_name(r->racer.ip, fa);
	kc_func_name(r->sampled.ip, fb);
	if (strcmp(fa, fb) > 0)
		kc_out("%s%s / %s\n\n", title, fb, fa);
	else
		kc_out("%s%s / %s\n\n", title, fa, fb);
}

/* @a's locks: all, or (@other) those that @other does not hold too. */
static void kc_out_held(const char *key, const struct kc_side *a,
			const struct kc_side *other)
{
	char name[KC_LOCK_NAME_LEN];
	bool any = false;
	unsigned int i;

	kc_out(" %s=", key);
	for (i = 0; i < a->nr_held; i++) {
		const struct kc_held_lock *k = &a->held[i];

		if (other && kc_locks_held_by(other, k))
			continue;
		kc_locks_name(k, name, sizeof(name));
		kc_out("%s%s%s", any ? "," : "", name, k->read ? ":r" : "");
		any = true;
	}
	if (!any)
		kc_out("none");
}

/*
 * What lockdep says each side held, innermost last; a lock one side holds
 * and the other does not is what a triager looks for first.
 */
static void kc_out_locks(const struct kc_report *r)
{
	const struct kc_side *s = &r->sampled, *x = &r->racer;

	kc_out("%s%s:", KC_REPORT_TOOL_LINE, KC_REPORT_KEY_LOCKS);
	kc_out_held(KC_REPORT_LOCKS_SAMPLED, s, NULL);
	if (!r->has_racer) {
		kc_out(" %s=unknown", KC_REPORT_LOCKS_RACER);
	} else {
		kc_out_held(KC_REPORT_LOCKS_RACER, x, NULL);
		kc_out_held(KC_REPORT_LOCKS_SAMPLED_ONLY, s, x);
		kc_out_held(KC_REPORT_LOCKS_RACER_ONLY, x, s);
	}
	if (s->nr_held_total > s->nr_held ||
	    (r->has_racer && x->nr_held_total > x->nr_held))
		kc_out(" truncated=1");
	kc_out("\n");
}

static const char *kc_marking_word(int kind)
{
	if (kind < 0)
		return "unknown";
	return kind == KC_MARKS_NONE ? "plain" : kc_marks_kind_word(kind);
}

/*
 * Each side's marking, where "kcollider mark" read the source of its
 * function. Where it read neither, only what the binary shows: one aligned
 * plain load and one plain store may be READ_ONCE()/WRITE_ONCE(), which
 * KCSAN would leave alone.
 */
static void kc_out_marking(const struct kc_report *r)
{
	int s = kc_marks_known_at(r->sampled.ip);
	int x = r->has_racer ? kc_marks_known_at(r->racer.ip) : -ENOENT;

	if (s < 0 && x < 0) {
		if (kc_marking_unknown(r))
			kc_out("%s%s: unknown load-store\n",
			       KC_REPORT_TOOL_LINE, KC_REPORT_KEY_MARKING);
		return;
	}
	kc_out("%s%s: sampled=%s", KC_REPORT_TOOL_LINE, KC_REPORT_KEY_MARKING,
	       kc_marking_word(s));
	if (r->has_racer)
		kc_out(" racer=%s", kc_marking_word(x));
	kc_out("\n");
}

static void kc_out_tool_lines(const struct kc_report *r, u64 seq,
			      int filter)
{
	const struct kc_side *s = &r->sampled, *x = &r->racer;

	kc_out("%s%s: ip=0x%lx ", KC_REPORT_TOOL_LINE, KC_REPORT_KEY_SAMPLED,
	       s->ip);
	kc_out_sym(s->ip, true);
	kc_out(" op=%s access=%s size=%u\n", kc_op_name(s->op),
	       kc_access_name(s, r->watch_rw), s->size);
	if (r->has_racer) {
		kc_out("%s%s: ip=0x%lx trap_ip=0x%lx ", KC_REPORT_TOOL_LINE,
		       KC_REPORT_KEY_RACER, x->ip, x->trap_ip);
		kc_out_sym(x->ip, true);
		kc_out(" op=%s access=%s size=%u locked=%d",
		       kc_op_name(x->op), kc_access_name(x, r->watch_rw),
		       x->size, x->locked);
		if (x->has_addr)
			kc_out(" addr=0x%lx", x->addr);
		kc_out("\n");
	} else {
		kc_out("%s%s: unknown\n", KC_REPORT_TOOL_LINE,
		       KC_REPORT_KEY_RACER);
	}
	kc_out("%s%s: addr=0x%lx len=%u type=%s window_us=%u armed=%u/%u",
	       KC_REPORT_TOOL_LINE, KC_REPORT_KEY_WATCH, r->addr, r->size,
	       r->watch_rw ? "rw" : "w", r->window_us, r->armed_cpus,
	       r->online_cpus);
	if (r->watch_addr != r->addr || r->watch_len != r->size)
		kc_out(" cover=0x%lx/%u", r->watch_addr, r->watch_len);
	if (r->changed_arming)
		kc_out(" changed=arming");
	kc_out("\n");
	kc_out("%s%s: sampled=%s sampled_irqs=%s", KC_REPORT_TOOL_LINE,
	       KC_REPORT_KEY_CONTEXT, kc_ctx_names[s->ctx],
	       s->irqs_on ? "on" : "off");
	if (r->has_racer)
		kc_out(" racer=%s racer_irqs=%s", kc_ctx_names[x->ctx],
		       x->irqs_on ? "on" : "off");
	kc_out("\n");
	if (kc_locks_known())
		kc_out_locks(r);
	if (filter >= 0)
		kc_out("%s%s: benign filter=%s\n", KC_REPORT_TOOL_LINE,
		       KC_REPORT_KEY_CLASS, kc_filter_name(filter));
	else
		kc_out("%s%s: harmful%s\n", KC_REPORT_TOOL_LINE,
		       KC_REPORT_KEY_CLASS,
		       r->idempotent ? " idempotent=1" : "");
	if (filter < 0)
		kc_out_marking(r);
	kc_out("%s%s: %llu\n", KC_REPORT_TOOL_LINE, KC_REPORT_KEY_SEQ, seq);
}

static bool kc_addr_is_image_or_module(unsigned long addr)
{
	return (addr >= __START_KERNEL_map &&
		addr < __START_KERNEL_map + KERNEL_IMAGE_SIZE) ||
	       (addr >= MODULES_VADDR && addr < MODULES_END);
}

#ifdef CONFIG_SLUB
/*
 * struct slab (mm/slab.h) overlays the head page and struct kmem_cache is
 * in <linux/slub_def.h>, whose inlines need struct slab: neither is in the
 * headers package, so this is 6.1's SLUB layout, used only to read the
 * cache pointer of a page the kernel marked PageSlab.
 */
struct slab {
	unsigned long __page_flags;
	union {
		struct list_head slab_list;
		struct rcu_head rcu_head;
		struct {
			struct slab *next;
			int slabs;
		};
	};
	struct kmem_cache *slab_cache;
	void *freelist;
	union {
		unsigned long counters;
		struct {
			unsigned inuse:16;
			unsigned objects:15;
			unsigned frozen:1;
		};
	};
	unsigned int __unused;
};

static inline void *slab_address(const struct slab *slab)
{
	return page_address((struct page *)slab);
}

#include <linux/slub_def.h>

/*
 * On racy code by assumption, the object may be freed and its slab, even
 * its cache, gone while this runs: every field is read without faulting,
 * and a read that fails leaves the object undescribed.
 */
#define kc_read_nofault(dst, src) \
	copy_from_kernel_nofault(&(dst), &(src), sizeof(dst))

/* strncpy_from_kernel_nofault() is not exported to modules */
static void kc_copy_name_nofault(char *dst, const char *src, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size; i++)
		if (copy_from_kernel_nofault(&dst[i], &src[i], 1) || !dst[i])
			break;
	dst[i] = '\0';
	if (!i)
		strscpy(dst, "?", size);
}

static void kc_describe_slab(struct kc_report *r, struct page *head)
{
	struct kmem_cache *s;
	unsigned int size, red_left_pad, object_size;
	slab_flags_t flags;
	const char *name;
	unsigned long base = (unsigned long)page_address(head);
	unsigned long idx;

	if (kc_read_nofault(s, ((struct slab *)head)->slab_cache) || !s ||
	    kc_read_nofault(size, s->size) || !size ||
	    kc_read_nofault(red_left_pad, s->red_left_pad) ||
	    kc_read_nofault(object_size, s->object_size) ||
	    kc_read_nofault(flags, s->flags) || kc_read_nofault(name, s->name))
		return;
	idx = (r->addr - base) / size;
	r->obj_start = base + idx * size + red_left_pad;
	r->obj_offset = r->addr - r->obj_start;
	r->obj_size = object_size;
	/*
	 * Not SLUB's free pointer, which such caches keep after the object:
	 * the allocator's own lockless reads of it race by design.
	 */
	r->obj_typesafe = (flags & SLAB_TYPESAFE_BY_RCU) &&
			  r->obj_offset < object_size;
	kc_copy_name_nofault(r->obj_cache, name, sizeof(r->obj_cache));
	r->obj_kind = KC_OBJ_SLAB;
}
#else
static void kc_describe_slab(struct kc_report *r, struct page *head)
{
	r->obj_kind = KC_OBJ_SLAB;
}
#endif

/*
 * Called in the stall, where the object is surely alive: lockless and
 * printk-free (kmem_dump_obj() would print, and only later is too late).
 */
void kc_report_describe_object(struct kc_report *r)
{
	struct page *head;

	r->obj_kind = KC_OBJ_UNKNOWN;
	if (kc_addr_is_image_or_module(r->addr)) {
		r->obj_kind = KC_OBJ_GLOBAL;
		return;
	}
	if (is_vmalloc_addr((void *)r->addr)) {
		r->obj_kind = KC_OBJ_VMALLOC;
		return;
	}
	if (!virt_addr_valid((void *)r->addr))
		return;
	if (is_kfence_address((void *)r->addr)) {
		r->obj_kind = KC_OBJ_KFENCE;
		return;
	}
	r->obj_cpu = kc_percpu_owner(r->addr, &r->obj_start);
	if (r->obj_cpu >= 0) {
		r->obj_kind = KC_OBJ_PERCPU;
		return;
	}
	head = virt_to_head_page((void *)r->addr);
	if (PageSlab(head))
		kc_describe_slab(r, head);
}

/*
 * A vmalloc address may be a later chunk's per-CPU data: which copy it is
 * takes the vmalloc lock, so it is found here, not in the stall.
 */
static void kc_describe_vmalloc(struct kc_report *r)
{
	unsigned long off;
	int cpu;

	if (r->obj_kind != KC_OBJ_VMALLOC)
		return;
	cpu = kc_percpu_owner_chunk(r->addr, &off);
	if (cpu < 0)
		return;
	r->obj_kind = KC_OBJ_PERCPU;
	r->obj_cpu = cpu;
	r->obj_start = off;
}

static void kc_out_object(const struct kc_report *r)
{
	kc_out("%s%s: ", KC_REPORT_TOOL_LINE, KC_REPORT_KEY_OBJECT);
	switch (r->obj_kind) {
	case KC_OBJ_GLOBAL:
		kc_out("global ");
		kc_out_sym(r->addr, false);
		kc_out("\n");
		break;
	case KC_OBJ_SLAB:
		kc_out("slab cache=%s start=0x%lx offset=%u size=%u%s%s\n",
		       r->obj_cache[0] ? r->obj_cache : "?", r->obj_start,
		       r->obj_offset, r->obj_size,
		       r->obj_typesafe ? " typesafe_by_rcu=1" : "",
		       r->obj_freed ? " freed_in_window=1" : "");
		break;
	case KC_OBJ_KFENCE:
		kc_out("kfence\n");
		break;
	case KC_OBJ_VMALLOC:
		kc_out("vmalloc\n");
		break;
	case KC_OBJ_PERCPU:
		/* which CPU's copy: the other side's "on cpu" says who read it */
		kc_out("percpu cpu=%d unit_offset=0x%lx\n", r->obj_cpu,
		       r->obj_start);
		break;
	default:
		kc_out("unknown\n");
	}
}

static void kc_log_append(u64 seq)
{
	struct kc_log_record *rec;

	mutex_lock(&kc_log_lock);
	rec = &kc_log[seq % KC_LOG_RECORDS];
	rec->seq = seq;
	rec->len = kc_text_len;
	memcpy(rec->text, kc_text, kc_text_len);
	mutex_unlock(&kc_log_lock);
}

/* One burst under one lock: no other report interleaves with it. */
static void kc_print(void)
{
	char *line = kc_text, *nl;
	unsigned long flags;

	spin_lock_irqsave(&kc_print_lock, flags);
	while ((nl = strchr(line, '\n'))) {
		*nl = '\0';
		pr_err("%s\n", line);
		*nl = '\n';
		line = nl + 1;
	}
	spin_unlock_irqrestore(&kc_print_lock, flags);
}

/* A benign race, by default: one line, counted, in dmesg and the log. */
static void kc_out_benign_line(const struct kc_report *r, int filter, u64 seq)
{
	char *fa = kc_name_a, *fb = kc_name_b;

	kc_func_name(r->sampled.ip, fa);
	if (r->has_racer)
		kc_func_name(r->racer.ip, fb);
	else
		strscpy(fb, "unknown", sizeof(kc_name_b));
	kc_out("%sbenign: filter=%s sampled=%s racer=%s addr=0x%lx seq=%llu\n",
	       KC_REPORT_TOOL_LINE, kc_filter_name(filter), fa, fb, r->addr,
	       seq);
}

/*
 * Only a racer whose bytes meet the sampled ones (or whose address is
 * unknown) raced with it. A covering watch traps on the neighbours of an
 * unaligned field too; and for any watch, a decoded instruction whose
 * address is elsewhere is not the access that trapped (a memset of one
 * object would otherwise be named as the racer on another object's
 * fields), nor is one that accesses no memory at all.
 */
static bool kc_racer_overlaps(const struct kc_report *r)
{
	const struct kc_side *x = &r->racer;
	unsigned int len = x->size ? min_t(unsigned int, x->size, 64) : 1;

	if (x->no_access)
		return false;
	if (!x->has_addr)
		return true;
	return x->addr < r->addr + r->size && r->addr < x->addr + len;
}

/*
 * A racer load whose address is unknown (it overwrote a register of it)
 * left what it read in its register: when no placement over the watched
 * bytes held that right after it ran, it read other memory and its #DB
 * was not this watch's. Only a plain mov: other loads' registers do not
 * hold exactly what they read.
 */
static bool kc_racer_read_other(const struct kc_report *r)
{
	const struct kc_side *x = &r->racer;

	if (x->has_addr || x->no_access || !r->racer_has_regs ||
	    !x->has_trap_around || x->stepping || x->carried ||
	    x->access != KC_ACC_READ || x->op != KC_OP_MOV ||
	    x->dest_reg >= KC_REG_RIP)
		return false;
	return !kc_load_could_read(x->trap_around, KC_TRAP_AROUND,
				   KC_TRAP_BEFORE, r->watch_len, x->size,
				   r->racer_regs.gpr[x->dest_reg]);
}

/* The counter of why the decoded racer is not the watch's, or NULL. */
static atomic_long_t *kc_racer_dropped(const struct kc_report *r)
{
	if (!kc_racer_overlaps(r))
		return &kc_stats.racer_outside;
	if (kc_racer_read_other(r))
		return &kc_stats.racer_read_other;
	return NULL;
}

static void kc_report_one(struct kc_report *r)
{
	atomic_long_t *dropped;
	int filter;
	u64 seq;

	if (r->has_racer) {
		if (r->racer.stepping)
			atomic_long_inc(&kc_stats.racers_stepping);
		if (r->racer.carried)
			atomic_long_inc(&kc_stats.racers_carried);
		kc_decode_racer(&r->racer, r->racer_has_regs ?
				&r->racer_regs : NULL, r->watch_addr,
				r->watch_len);
		dropped = kc_racer_dropped(r);
		if (dropped) {
			atomic_long_inc(dropped);
			r->has_racer = false;
			if (!r->value_changed)
				return;
		}
	}
	kc_describe_vmalloc(r);
	/* before dedup: the counter history must see every race */
	filter = kc_filters_classify(r);
	if (kc_dedup_suppress(r->sampled.ip, r->has_racer ? r->racer.ip : 0)) {
		atomic_long_inc(&kc_stats.reports_suppressed);
		return;
	}
	atomic_long_inc(r->has_racer ? &kc_stats.races :
			&kc_stats.unknown_origin);
	mutex_lock(&kc_log_lock);
	seq = kc_log_next_seq++;
	mutex_unlock(&kc_log_lock);

	kc_text_len = 0;
	if (filter >= 0) {
		kc_filter_count(filter);
		if (!kc_filters_benign_full()) {
			kc_out_benign_line(r, filter, seq);
			kc_print();
			kc_log_append(seq);
			return;
		}
	}
	kc_out_header(r, kc_title(filter));
	if (r->has_racer)
		kc_out_access(r, &r->racer, false);
	kc_out_access(r, &r->sampled, !r->has_racer);
	if (r->value_changed)
		kc_out("%s0x%0*llx -> 0x%0*llx\n\n", KC_REPORT_VALUE,
		       r->size * 2, r->old_value, r->size * 2, r->new_value);
	kc_out_tool_lines(r, seq, filter);
	kc_out_object(r);
	kc_out("\n%s\n", KC_REPORT_FOOTER);
	kc_out("CPU: %d PID: %d Comm: %s %s\n", r->sampled.cpu, r->sampled.pid,
	       r->sampled.comm, init_utsname()->release);
	kc_out("%s\n", KC_REPORT_RULE);
	kc_print();
	kc_log_append(seq);
}

static void kc_report_fn(struct work_struct *work)
{
	while (kc_queue_pop(&kc_current))
		kc_report_one(&kc_current);
}

/* debugfs "reports": every retained record in order; gaps show in seq. */
int kc_report_log_show(struct seq_file *m, void *v)
{
	u64 first, seq;

	mutex_lock(&kc_log_lock);
	first = kc_log_next_seq > KC_LOG_RECORDS ?
		kc_log_next_seq - KC_LOG_RECORDS : 1;
	if (first > 1)
		seq_printf(m, "%slost: %llu records before seq %llu\n",
			   KC_REPORT_TOOL_LINE, first - 1, first);
	for (seq = first; seq < kc_log_next_seq; seq++) {
		struct kc_log_record *rec = &kc_log[seq % KC_LOG_RECORDS];

		if (rec->seq == seq)
			seq_write(m, rec->text, rec->len);
	}
	mutex_unlock(&kc_log_lock);
	return 0;
}

int kc_report_init(void)
{
	kc_log = vzalloc(array_size(KC_LOG_RECORDS, sizeof(*kc_log)));
	if (!kc_log)
		return -ENOMEM;
	INIT_WORK(&kc_report_work, kc_report_fn);
	WRITE_ONCE(kc_report_ready, true);
	return 0;
}

/* After the last stall: nothing can queue a record any more. */
void kc_report_exit(void)
{
	WRITE_ONCE(kc_report_ready, false);
	irq_work_sync(&kc_report_kick);
	flush_work(&kc_report_work);
	kc_report_fn(&kc_report_work);
	vfree(kc_log);
	kc_log = NULL;
}
