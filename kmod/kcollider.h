/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the module's parts, one file per concern.
 * Calls go one way: targets -> sites; sampler -> pool, sites, stall;
 * pool -> rescue, textmap;
 * stall -> pool (is a breakpoint still spent), watch, context, locks,
 * report; watch -> context, locks; report -> locks; reuse -> pool (its
 * kprobe's post-handler).
 *   main.c       load/unload
 *   state.c      the settings, the counters, the state lock (calls nothing)
 *   control.c    sampling on and off
 *   targets.c    what to sample: the target specs, module load/unload
 *   sites.c      the site table: building, weighted picks, refusals
 *   denylist.c   what is never sampled: the detector's own dependencies
 *   pool.c       the live breakpoints: visits, or kprobes registered and
 *                unregistered in batches; arm, retire
 *   textmap.c    writable aliases of kernel text pages, kept mapped
 *   rescue.c     per-CPU watchdogs that pull the pool's overdue scrub onto a
 *                CPU still running its timers
 *   sampler.c    the int3 handler, the armer thread, the rate budget
 *   stall.c      the sampled thread's window: trampoline redirect, stall
 *   trampoline.S the IRET-frame trampoline that runs the stall in context
 *   watch.c      hardware watchpoint slots, cross-CPU arming, the #DB hook
 *   context.c    context classification and unwinding of both sides
 *   locks.c      the locks each side held, on lockdep kernels
 *   report.c     report records, dedup, printing, the debugfs record log
 *   filters.c    benign-race classification, the suppress list
 *   reuse.c      frees of watched objects (the memory-reuse filter's facts)
 *   marks.c      code ranges the source marks
 *   debugfs.c    /sys/kernel/debug/kcollider/{control,reports,stats,...}
 *   sysfs.c      /sys/kernel/kcollider/: the settings, one a file
 *   params.c     module parameters: the same knobs, set at load time
 */
#ifndef KMOD_KCOLLIDER_H
#define KMOD_KCOLLIDER_H

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <kcollider/x86_decode.h>

#define KC_MAX_SLOTS		4
#define KC_MAX_TRAPS		4
#define KC_STACK_DEPTH		16
/* racer: bytes kept around the watch, from KC_TRAP_BEFORE before it */
#define KC_TRAP_BEFORE		8
#define KC_TRAP_AROUND		24
#define KC_MAX_PROBES		256
#define KC_MAX_SPECS		64
#define KC_MAX_HELD		6

/* Settings; written under kc_state_lock, read locklessly. */
struct kc_settings {
	bool enabled;
	unsigned int sample_rate;	/* fired breakpoints per second, at most */
	unsigned int overhead_permille;	/* of the online CPUs' time */
	unsigned int max_probes;	/* upper bound on armed breakpoints */
	unsigned int stall_share_permille; /* of a thread's time, held */
	unsigned int window_sleep_us;	/* where the thread may sleep */
	unsigned int window_atomic_us;	/* busy-wait elsewhere */
	unsigned int arm_timeout_us;	/* bounded wait for IPI acks */
	unsigned int dedup_ms;
	unsigned int nr_slots;		/* fixed at load */
	bool sample_percpu;		/* sample %gs-relative accesses */
};

extern struct kc_settings kc_settings;

/* Why a fired breakpoint was not sampled: stats "skipped_*". */
enum kc_skip {
	KC_SKIP_NMI,
	KC_SKIP_RECURSION,
	KC_SKIP_ROTATION,
	KC_SKIP_FORBIDDEN,
	KC_SKIP_NO_SLOT,
	KC_SKIP_NO_MARK,
	KC_SKIP_RCU,
	KC_SKIP_DISABLED,
	KC_SKIP_HELD,		/* the thread had its share of the stall */
	KC_SKIP_PERCPU_DENIED,	/* per-CPU data the trap paths touch */
	KC_NR_SKIPS,
};

struct kc_stats {
	atomic_long_t samples;
	atomic_long_t samples_writes;	/* of them, on a write */
	atomic_long_t stall_us;	/* time sampled threads were held */
	atomic_long_t stall_queued_us;	/* of it, runnable behind others */
	atomic_long_t stall_charged_us;	/* the rest: the budget's part */
	atomic_long_t stall_arm_us;	/* of it, until the window opened */
	atomic_long_t stall_window_us;	/* the windows themselves */
	atomic_long_t stall_sleeps;	/* sleeps of sleeping windows */
	atomic_long_t stall_sleep_late_us;	/* woken past their range */
	atomic_long_t loop_waits;	/* back at a spent breakpoint at once */
	atomic_long_t watch_full;
	atomic_long_t watch_partial;
	atomic_long_t watch_idle_joined;	/* full with an idle CPU's IPI due */
	atomic_long_t window_partial;	/* never watched on every CPU */
	atomic_long_t changed_arming;	/* values moved before it held */
	atomic_long_t races;
	atomic_long_t unknown_origin;
	atomic_long_t reports_suppressed;
	atomic_long_t reports_lost;
	atomic_long_t dr_repaired;
	atomic_long_t late_traps;
	atomic_long_t split_read_traps;	/* reads, watched for a split */
	atomic_long_t traps_awaited;	/* changed value, #DB came late */
	atomic_long_t racer_outside;	/* covering watch, other bytes */
	atomic_long_t traps_own;	/* the detector's own code trapped */
	atomic_long_t racer_read_other;	/* its load holds no watched value */
	atomic_long_t racers_stepping;	/* taken from a probe's slot */
	atomic_long_t racers_carried;	/* a load an int3 carried out */
	atomic_long_t skipped[KC_NR_SKIPS];
};

extern struct kc_stats kc_stats;

static inline void kc_count_skip(enum kc_skip why)
{
	atomic_long_inc(&kc_stats.skipped[why]);
}

/* The context an access ran in, as reports name it. */
enum kc_ctx {
	KC_CTX_TASK,
	KC_CTX_SOFTIRQ,
	KC_CTX_HARDIRQ,
	KC_CTX_NMI,
};

/* A lock a side held (locks.c): its lockdep map, compared, not followed */
struct kc_held_lock {
	unsigned long map;
	unsigned long name;		/* the map's name pointer, or 0 */
	u8 read;			/* lockdep's: 0 exclusive, 1-2 shared */
};

struct kc_side {
	unsigned long ip;		/* the access instruction */
	unsigned long trap_ip;		/* racer: where the #DB trapped */
	unsigned long stack[KC_STACK_DEPTH];
	unsigned int nr_stack;
	int cpu;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	u8 ctx;				/* enum kc_ctx */
	bool irqs_on;
	u8 access;			/* enum kc_access, 0 = not decoded */
	u8 size;
	u16 op;
	bool locked;
	bool gs_relative;		/* sampled: a %gs-relative (per-CPU) access */
	bool has_imm;
	s64 imm;
	u8 dest_reg;			/* a load's register, or 0xff */
	u8 insn_len;
	bool has_addr;			/* racer: addr computed from its regs */
	bool no_access;			/* racer: its instruction accessed none */
	bool stepping;			/* racer: trapped in one of our slots */
	bool carried;			/* racer: a load an int3 carried out */
	unsigned long addr;
	/*
	 * racer: the bytes around the watch, read right after it; when only
	 * has_trap_value, the 8 at the watch (from KC_TRAP_BEFORE) alone
	 */
	bool has_trap_around;
	bool has_trap_value;
	u8 trap_around[KC_TRAP_AROUND];
	/* lockdep kernels: the innermost locks held, of nr_held_total */
	u8 nr_held;
	u8 nr_held_total;
	struct kc_held_lock held[KC_MAX_HELD];
};

enum kc_obj_kind {
	KC_OBJ_UNKNOWN,
	KC_OBJ_GLOBAL,
	KC_OBJ_SLAB,
	KC_OBJ_KFENCE,
	KC_OBJ_VMALLOC,
	KC_OBJ_PERCPU,
};

struct kc_report {
	struct kc_side sampled;
	struct kc_side racer;
	bool has_racer;
	u8 nr_traps;			/* accesses the watch caught, capped */
	bool traps_one_site;		/* ... all by one instruction */
	bool value_changed;
	unsigned long addr;
	u8 size;
	u8 watch_rw;			/* watched reads and writes */
	u32 window_us;
	u16 armed_cpus;
	u16 online_cpus;
	u64 old_value;
	u64 new_value;
	/* the object, described while it is surely alive (in the stall) */
	u8 obj_kind;			/* enum kc_obj_kind */
	char obj_cache[32];
	unsigned long obj_start;
	unsigned int obj_offset;
	unsigned int obj_size;
	int obj_cpu;			/* KC_OBJ_PERCPU: whose copy */
	bool obj_typesafe;		/* SLAB_TYPESAFE_BY_RCU: reuse is no free */
	bool obj_freed;			/* freed (and maybe reused) in the window */
	bool idempotent;		/* a write of the value already there */
	/*
	 * The window slept and the word is in the sampled task's own
	 * task_struct: the scheduler's wakeup of that very task touches it.
	 */
	bool own_task_slept;
	/*
	 * The value moved before the watch held on every CPU, and old_value
	 * is the one read before arming (struct kc_window in stall.c).
	 */
	bool changed_arming;
	/*
	 * An unaligned access is watched through the aligned range that
	 * covers it; a trap there may be a neighbour's access, told apart
	 * by the racer's address, computed from its registers.
	 */
	unsigned long watch_addr;
	u8 watch_len;
	bool racer_has_regs;
	struct kc_regs racer_regs;
};

static inline void kc_regs_from_pt(const struct pt_regs *regs,
				   struct kc_regs *r)
{
	r->gpr[KC_REG_RAX] = regs->ax;
	r->gpr[KC_REG_RCX] = regs->cx;
	r->gpr[KC_REG_RDX] = regs->dx;
	r->gpr[KC_REG_RBX] = regs->bx;
	r->gpr[KC_REG_RSP] = regs->sp;
	r->gpr[KC_REG_RBP] = regs->bp;
	r->gpr[KC_REG_RSI] = regs->si;
	r->gpr[KC_REG_RDI] = regs->di;
	r->gpr[KC_REG_R8] = regs->r8;
	r->gpr[KC_REG_R9] = regs->r9;
	r->gpr[KC_REG_R10] = regs->r10;
	r->gpr[KC_REG_R11] = regs->r11;
	r->gpr[KC_REG_R12] = regs->r12;
	r->gpr[KC_REG_R13] = regs->r13;
	r->gpr[KC_REG_R14] = regs->r14;
	r->gpr[KC_REG_R15] = regs->r15;
	r->fs_base = 0;
	r->gs_base = this_cpu_read(this_cpu_off);
}

/* filters.c: benign-race classification */
enum kc_filter {
	KC_FILTER_LOCKED_RACER,
	KC_FILTER_LOSSY_COUNTER,
	KC_FILTER_OTHER_BITS,
	KC_FILTER_SUPPRESSED,
	KC_FILTER_MEMORY_REUSE,
	KC_FILTER_MARKED_ATOMIC,
	KC_FILTER_MARKED,
	KC_FILTER_OWN_WAKEUP,
	KC_FILTER_OWN_CPU,
	KC_FILTER_EXEMPT,
	KC_NR_FILTERS,
};

const char *kc_filter_name(int filter);
void kc_filter_count(int filter);
bool kc_filters_benign_full(void);
struct kc_pick_marks;
void kc_filters_pick_marks(struct kc_pick_marks *pm);
bool kc_filters_site_suppressed(unsigned long ip);
void kc_filters_stats(struct seq_file *m);
ssize_t kc_filters_show(char *buf);
ssize_t kc_filters_store(const char *buf, size_t count);
ssize_t kc_filters_strict_show(char *buf);
ssize_t kc_filters_strict_store(const char *buf, size_t count);
ssize_t kc_benign_full_show(char *buf);
ssize_t kc_benign_full_store(const char *buf, size_t count);
int kc_filters_init(void);
void kc_filters_exit(void);
int kc_filters_classify(struct kc_report *r);
bool kc_marking_unknown(const struct kc_report *r);
bool kc_filter_memory_reuse_on(void);
int kc_suppress_write(const char *buf, size_t len);
ssize_t kc_suppress_show(char *buf, size_t size);

/* marks.c: code ranges the source marks, from "kcollider mark" */
int kc_marks_init(void);
void kc_marks_exit(void);
int kc_marks_write(const char *buf, size_t len);
ssize_t kc_marks_show(char *buf, size_t size);
int kc_marks_kind_at(unsigned long ip);
int kc_marks_known_at(unsigned long ip);

/* state.c: read by every part, calls none */
extern struct mutex kc_state_lock;
bool kc_is_enabled(void);

/* control.c: sampling on and off */
int kc_set_enabled(bool on);
void kc_sampling_failed(void);

/* reuse.c: frees of watched objects, hooked from load to unload */
void kc_reuse_init(void);
void kc_reuse_exit(void);

/* sysfs.c */
int kc_sysfs_init(void);
void kc_sysfs_exit(void);
int kc_sysfs_store_setting(const char *name, const char *val);
int kc_sysfs_show_setting(const char *name, char *buf);

/* params.c */
int kc_params_apply(const char *targets);

/* targets.c */
int kc_targets_init(void);
void kc_targets_exit(void);
int kc_targets_write(const char *buf, size_t len);
ssize_t kc_targets_show(char *buf, size_t size);

/* sites.c: how the targets tell the table which functions they want */
struct kc_site_filter {
	/* bit i set: spec i matches; positive bits include, others exclude */
	u64 (*match)(void *ctx, const char *object, const char *func);
	void *ctx;
	u64 positive;
	bool vmlinux;			/* may any vmlinux function match? */
	/* set when every spec that may match vmlinux is one exact name */
	const char * const *exact;
	unsigned int nr_exact;
	bool percpu;			/* %gs-relative accesses are sites */
};

int kc_sites_init(void);
void kc_sites_exit(void);
int kc_sites_rebuild(const struct kc_site_filter *f);
int kc_sites_add_module(struct module *mod, const struct kc_site_filter *f);
bool kc_sites_del_module(const char *name, unsigned long *start,
			 unsigned long *end);
void kc_sites_counts(unsigned int spec, const char *module, u32 *sites,
		     u32 *funcs, bool *present);
/*
 * What the source's marks (KC_MARKS_* bits) make of a pick: the kinds
 * never sampled, since every report there would be benign, and the kinds
 * sampled seldom, whose races the plain side's samples find.
 */
struct kc_pick_marks {
	unsigned int never;
	unsigned int seldom;
};

unsigned long kc_sites_pick(const struct kc_pick_marks *pm);
/* what a sampled hit of a site made of its address */
enum kc_verdict {
	KC_VERDICT_NONE,
	KC_VERDICT_WATCHED,
	KC_VERDICT_DENIED,
	KC_VERDICT_STACK,
};
void kc_sites_note_run(unsigned long addr, bool ran, u8 verdict);
void kc_sites_note_loaded(unsigned long site, unsigned long word);
void kc_sites_refuse(unsigned long addr);
bool kc_sites_cleared(unsigned long addr);
void kc_sites_note_cleared(unsigned long addr);
unsigned long kc_sites_total(void);
bool kc_sites_addr_atomic(unsigned long addr, unsigned int size);
bool kc_sites_remote(unsigned long addr);
void kc_sites_stats(struct seq_file *m);
int kc_sites_running_show(struct seq_file *m, void *v);
bool kc_insn_is_site(const struct kc_insn *insn, unsigned long addr);
struct module *kc_module_get(const char *name);

/* denylist.c */
void kc_denylist_init(void);
bool kc_denied_name(const char *name);
bool kc_denied_addr(unsigned long addr);
unsigned long kc_lookup_symbol(const char *name);
unsigned long kc_lookup_function(const char *name);

/* profile.c: which code the CPUs run now */
#define KC_PROFILE_DEPTH	4
void kc_profile_init(void);
void kc_profile_start(void);
void kc_profile_stop(void);
unsigned int kc_profile_take(unsigned long *frames, unsigned long max_age,
			     bool *slept);
u64 kc_profile_ns(void);
bool kc_profile_cpu_idle(unsigned int cpu);
void kc_profile_budget(u64 budget_ns);
void kc_profile_stats(struct seq_file *m);

/* rescue.c */
void kc_rescue_init(struct delayed_work *work, void (*write)(void));
void kc_rescue_exit(void);
void kc_rescue_expect(unsigned long delay);
void kc_rescue_ran(void);
unsigned long kc_rescue_pulled(void);
void kc_rescue_note_site(unsigned long addr);
void kc_rescue_watch_loops(bool sampling);
unsigned long kc_rescue_loops_broken(void);
unsigned long kc_rescue_silent_rewrites(void);
int kc_rescue_loop_selftest(void);
int kc_rescue_silent_selftest(void);

/* cpusync.c */
void kc_cpusync_init(void);
void kc_cpusync_exit(void);
unsigned long kc_cpusync_kick(void);
bool kc_cpusync_done(unsigned long gen);
int kc_cpusync_selftest(void);

/* textmap.c */
void kc_textmap_init(void);
void kc_textmap_exit(void);
u8 *kc_textmap_get(unsigned long addr);
void kc_textmap_put(u8 *alias);
void kc_textmap_forget(unsigned long start, unsigned long end);
void kc_textmap_show(struct seq_file *m);

/* pool.c */
/* After a fired breakpoint's removal, its page is written again this late. */
#define KC_SETTLE_NS		(500 * NSEC_PER_USEC)

void kc_pool_init(kprobe_pre_handler_t handler);
int kc_pool_add(unsigned long addr, unsigned long gen, bool remote);
bool kc_pool_arm(void);
unsigned int kc_pool_retire(void);
u64 kc_pool_settle_in_ns(void);
unsigned int kc_pool_expire(unsigned long age, unsigned long visit_age,
			    unsigned long life, bool age_one, bool keep_cold);
bool kc_pool_visits_on(void);
u64 kc_pool_work_ns(void);
unsigned long kc_pool_pick_gen(void);
int kc_pool_visit(unsigned long addr, unsigned long gen, bool remote,
		  bool cleared);
void kc_pool_exit(void);
int kc_pool_visited_show(struct seq_file *m, void *v);
void kc_pool_start(void);
void kc_pool_stop(void);
void kc_pool_age_cold(unsigned long life);
unsigned int kc_pool_cold_permille(void);
bool kc_pool_took_out(struct kprobe *kp);
unsigned int kc_pool_reap(unsigned long *condemned, unsigned int max,
			  unsigned int *nr_condemned);
void kc_pool_condemn(struct kprobe *kp);
void kc_pool_verdict(struct kprobe *kp, u8 verdict);
void kc_pool_loaded(struct kprobe *kp, unsigned long word);
void kc_pool_scrub_disabled(void);
void kc_pool_disarm_all(void);
void kc_pool_drain(void);
void kc_probe_post_none(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags);
/* debugfs "reap_hold_ms": a reaping holds its batch this long at most */
#define KC_REAP_HOLD_MAX_MS	10000
void kc_pool_set_reap_hold(int ms);
int kc_pool_reap_hold(void);
void kc_pool_drop_range(unsigned long start, unsigned long end);
unsigned int kc_pool_armed(void);
unsigned int kc_pool_reserve(void);
unsigned int kc_pool_live(void);
bool kc_pool_spent_any(void);
bool kc_pool_spent_at(unsigned long addr);
void kc_pool_flush(void);
bool kc_pool_pass(struct kprobe *kp, struct pt_regs *regs);
const struct kc_insn *kc_pool_take(struct kprobe *kp);
bool kc_pool_map_slot_ip(unsigned long ip, unsigned long *orig);
void kc_pool_patch_original(unsigned long start, u8 *code, size_t len);
void kc_pool_stats(struct seq_file *m);
int kc_pool_rescue_selftest(void);

/* emulate.c: the loads an int3 carries out itself */
bool kc_emulate(const struct kc_insn *insn, unsigned long ip,
		struct pt_regs *regs);
bool kc_emulating(struct pt_regs *fixed);

/* sampler.c */
int kc_sampler_init(void);
void kc_sampler_exit(void);
int kc_sampler_start(void);
void kc_sampler_stop(void);
unsigned long kc_sampler_fired(void);
void kc_sampler_stats(struct seq_file *m);
void kc_sampler_fail_thread_start(int nth);
int kc_sampler_thread_fail_in(void);

/* trampoline.S, and the C function it calls */
void kc_trampoline(void);
__visible void kc_stall(struct pt_regs *regs);

/* stall.c */
int kc_stall_init(void);
void kc_stall_exit(void);
/* kc_stall_try(): not stalled, stalled, or never to be sampled again */
/*
 * NEVER: the site can never be sampled; DENIED: its access was refused;
 * ON_STACK: skipped, its address on a stack
 */
enum {
	KC_STALL_SKIPPED,
	KC_STALL_REDIRECTED,
	KC_STALL_NEVER,
	KC_STALL_DENIED,
	KC_STALL_ON_STACK,
};
int kc_stall_try(unsigned long ip, const struct kc_insn *insn,
		 struct pt_regs *regs, unsigned long addr);
bool kc_stall_resume(unsigned long addr, unsigned long sp);
int kc_stall_rehit(unsigned long ip, struct pt_regs *regs);
void kc_stall_expire_marks(void);
void kc_stall_block(void);
void kc_stall_unblock(void);
bool kc_stall_any_open(void);
void kc_stall_note_free(unsigned long ptr);
bool kc_stall_held_full(void);
void kc_stall_held_restart(unsigned long max_us);

/* watch.c */
struct kc_slot;
int kc_watch_init(unsigned int nr_slots);
bool kc_watch_splits_rmw(void);
void kc_watch_exit(void);
struct kc_slot *kc_watch_claim(void);
void kc_watch_release(struct kc_slot *slot);
unsigned int kc_watch_arm(struct kc_slot *slot, unsigned long addr,
			  unsigned int size, bool watch_reads, bool wait);
void kc_watch_disarm(struct kc_slot *slot);
void kc_watch_refresh(struct kc_slot *slot);
void kc_watch_repair_local(void);
int kc_watch_latency_show(struct seq_file *m, void *v);
int kc_watch_watched_show(struct seq_file *m, void *v);
bool kc_watch_take_trap(struct kc_slot *slot, struct kc_side *racer,
			struct kc_regs *regs);
bool kc_watch_trapped(struct kc_slot *slot);
unsigned int kc_watch_nr_traps(struct kc_slot *slot);
bool kc_watch_traps_one_site(struct kc_slot *slot);
u64 kc_watch_read_value(unsigned long addr, unsigned int size);
bool kc_watch_complete(struct kc_slot *slot);
unsigned int kc_watch_holding(struct kc_slot *slot);
int kc_watch_idle_selftest(void);
int kc_watch_ackscan_selftest(void);
int kc_watch_hotplug_selftest(void);
bool kc_addr_is_detector(unsigned long addr, unsigned int size);
int kc_addr_refusal(unsigned long addr, unsigned int size);
bool kc_addr_is_kasan_shadow(unsigned long addr);

/* percpu.c: the per-CPU layout, what of it is never watched, whose copy */
void kc_percpu_init(void);
bool kc_percpu_in_first_chunk(unsigned long addr, unsigned int size);
bool kc_percpu_denied(unsigned long addr, unsigned int size);
bool kc_percpu_offset_denied(unsigned long off, unsigned int size);
int kc_percpu_owner(unsigned long addr, unsigned long *offset);
int kc_percpu_owner_chunk(unsigned long addr, unsigned long *offset);
int kc_percpu_owner_now(unsigned long addr);
void kc_percpu_learn(void);

/* locks.c: what each side held, where lockdep keeps it */
void kc_locks_capture(struct kc_side *a);
bool kc_locks_known(void);
void kc_locks_name(const struct kc_held_lock *k, char *buf, size_t size);
bool kc_locks_held_by(const struct kc_side *b, const struct kc_held_lock *k);

/* context.c */
void kc_context_init(void);
u8 kc_ctx_of(unsigned long preempt);
void kc_ctx_sampling(unsigned int i, struct task_struct *task);
bool kc_task_is_sampled(struct task_struct *task);
void kc_unwind_regs(struct pt_regs *regs, struct kc_side *a);
struct pt_regs *kc_racer_regs(struct pt_regs *regs, struct pt_regs *fixed);

/* report.c */
int kc_report_init(void);
void kc_report_exit(void);
void kc_report_submit(const struct kc_report *r);
void kc_report_describe_object(struct kc_report *r);
int kc_report_log_show(struct seq_file *m, void *v);
void kc_decode_racer(struct kc_side *a, const struct kc_regs *regs,
		     unsigned long watch, unsigned int watch_len);

/* debugfs.c */
int kc_debugfs_init(void);
void kc_debugfs_exit(void);

#endif /* KMOD_KCOLLIDER_H */
