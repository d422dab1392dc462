// SPDX-License-Identifier: GPL-2.0
/*
 * What is never sampled, whatever the targets say: the code the detector
 * itself runs on its sampling, stall, arming and reporting paths. A
 * breakpoint there recurses into the detector, or stalls a thread that
 * holds a lock the stall needs (a self-deadlock no per-CPU guard catches).
 *
 * Two layers, as KCSAN's KCSAN_SANITIZE := n does it per directory:
 * whole text sections the kernel delimits with symbols (entry, noinstr,
 * scheduler, locking, cpuidle, kprobes), and function-name patterns for
 * the rest (workqueue, irq_work, timers, random, printk, perf, ...).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kcollider.h"

struct kc_section {
	const char *start;
	const char *end;
	unsigned long lo;
	unsigned long hi;
};

static struct kc_section kc_sections[] = {
	{ "__entry_text_start", "__entry_text_end" },
	{ "__irqentry_text_start", "__irqentry_text_end" },
	{ "__softirqentry_text_start", "__softirqentry_text_end" },
	{ "__noinstr_text_start", "__noinstr_text_end" },
	{ "__kprobes_text_start", "__kprobes_text_end" },
	{ "__sched_text_start", "__sched_text_end" },
	{ "__lock_text_start", "__lock_text_end" },
	{ "__cpuidle_text_start", "__cpuidle_text_end" },
};

/*
 * Each pattern names the detector's dependency it keeps out; a trailing
 * '*' alone is a prefix match (the common case, kept cheap: a build of
 * "all" checks every function of the kernel against this list).
 */
static const char * const kc_denied_names[] = {
	/* kprobes, text patching, int3 and #DB */
	"*kprobe*", "*optprobe*", "text_poke*", "*int3*", "poke_*",
	"*alternative*", "notify_die", "*notifier_call_chain*",
	"*exception_notify*",
	"exc_*", "asm_*", "*debugreg*", "*hw_breakpoint*", "*_bp_*",
	"arch_*_breakpoint*",
	/* perf (the watch slots are perf events) */
	"perf_*", "__perf_*", "*_perf_*", "x86_pmu*",
	/* irq_work, cross-CPU calls, IPIs, APIC */
	"*irq_work*", "*smp_call_function*", "*call_function*", "*csd*",
	"*call_single*", "generic_exec_single", "llist_*",
	"send_call_func*", "native_send_call_func*", "*apic*", "*_ipi*",
	"*IPI*", "sysvec_*", "__sysvec_*",
	/* interrupt entry and softirq machinery */
	"irq_*", "__irq_*", "handle_*irq*", "do_softirq*", "__do_softirq",
	"*softirq*", "*nmi*", "irqentry_*",
	/* the scheduler and wakeups, beyond .sched.text */
	"*schedule*", "try_to_wake_up", "wake_up_*", "__wake_up*",
	"*_task_fair", "*_task_rt", "*_task_dl", "*_task_idle", "*_task_stop",
	"enqueue_*", "dequeue_*", "pick_next_*", "put_prev_*",
	"set_next_*", "check_preempt*", "resched_*", "*rq_lock*",
	"*rq_unlock*", "update_rq_clock*", "update_curr*", "sched_*",
	"__sched_*", "*_sched_*", "finish_task_switch*", "__switch_to*",
	"ttwu_*", "select_task_rq*", "*preempt*", "task_tick_*",
	"scheduler_tick", "account_*", "cpuacct_*", "psi_*", "*vtime*",
	/* locking primitives and lockdep */
	"*spin_lock*", "*spin_unlock*", "*spin_trylock*", "queued_*",
	"native_queued_*", "__pv_queued_*", "pv_*", "*_raw_*lock*",
	"lock_acquire*", "lock_release*", "*lockdep*", "*mutex*",
	"*rwsem*", "*rt_mutex*", "rwbase_*", "*_lock_irq*",
	/* timers and clocks (the stall's delays and sleeps) */
	"*hrtimer*", "*timer*", "*tick*", "ktime_*", "*clocksource*",
	"*clockevent*", "read_tsc", "native_sched_clock*", "sched_clock*",
	"*udelay*", "*ndelay*", "delay_*", "__delay", "usleep*",
	"jiffies*", "*timekeeping*", "do_timer",
	/* the fast clock's helpers, out of line in some builds (KASAN's) */
	"tk_*", "__ktime_*",
	/*
	 * every clocksource's read: the stall reads the clock in the sampled
	 * thread's context, and read_hpet() sampled between taking and
	 * dropping its lock spins forever on it, on every CPU that reads it
	 */
	"*hpet*", "acpi_pm_*", "*kvm_clock*", "kvm_sched_clock*",
	"pvclock_*",
	/* workqueues and kthreads (the report and armer workers) */
	"*work*", "*kthread*", "worker_*", "*pwq*", "wq_*",
	/* RCU */
	"rcu_*", "__rcu_*", "call_rcu*", "synchronize_rcu*", "*_rcu_*",
	"srcu_*", "__srcu_*",
	/* random numbers */
	"*random*", "*crng*", "*entropy*", "prandom_*", "get_random*",
	/* printk and consoles */
	"*printk*", "prb_*", "*console*", "vsnprintf", "*_ringbuffer*",
	"log_*", "*serial8250*", "uart_*",
	/* the unwinder and symbol lookup */
	"unwind_*", "__unwind_*", "*orc*", "*kernel_text_address*",
	"*module_address*", "*module_text_address*", "core_kernel_*",
	"is_ftrace_trampoline", "*bpf_ksym*", "*stack_trace*",
	"get_stack_info*", "in_*_stack", "kallsyms_*", "*sprint_symbol*",
	"*lookup_symbol*", "is_bpf_text_address", "bpf_prog_ksym*",
	/* tracing and ftrace */
	"*ftrace*", "__fentry__", "trace_*", "__trace*", "*tracepoint*",
	"tracing_*", "ring_buffer_*", "rb_*",
	/* what the stall reads and calls: slab facts, faults, copies */
	"copy_from_kernel_nofault*", "*_nofault", "kmem_valid_obj",
	"*kmem_obj_info*", "kmem_dump_obj", "*kfence*",
	"exc_page_fault", "fixup_exception", "*search_exception*",
	"mem*", "__mem*", "*strscpy*", "strlen", "strnlen",
	/* the int3 path's checks of the sampled address */
	"lookup_address*", "is_vmalloc_addr", "__virt_addr_valid",
	/* MSRs, paravirt, idle: run where RCU may not watch */
	"*msr*", "paravirt_*", "native_*", "*idle*", "*_cpu_relax*",
	"mwait_*", "*halt*",
	/*
	 * sanitizer runtimes: instrumented code calls them, ours too on a
	 * KASAN kernel (from the int3 and #DB handlers)
	 */
	"*kasan*", "__asan_*", "*kcsan*", "__tsan_*", "*kmsan*", "__msan_*",
	"__ubsan_*", "__sanitizer_*",
	/* stack protection and retpolines: no accesses worth sampling */
	"__stack_chk_fail", "__x86_*",
};

static bool kc_name_matches(const char *pat, const char *name)
{
	size_t n = strlen(pat);

	if (n && pat[n - 1] == '*' && !strpbrk(pat, "?[") &&
	    !memchr(pat, '*', n - 1))
		return !strncmp(name, pat, n - 1);
	return glob_match(pat, name);
}

bool kc_denied_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kc_denied_names); i++)
		if (kc_name_matches(kc_denied_names[i], name))
			return true;
	return false;
}

bool kc_denied_addr(unsigned long addr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kc_sections); i++)
		if (addr >= kc_sections[i].lo && addr < kc_sections[i].hi)
			return true;
	return false;
}

/*
 * register_kprobe() resolves a name before it refuses it: the supported
 * way for a module to read a kernel symbol's address (kallsyms_lookup_name
 * is not exported). Section delimiters are not probeable, so the probe is
 * refused and nothing stays registered.
 */
unsigned long kc_lookup_symbol(const char *name)
{
	struct kprobe kp = {
		.symbol_name = name,
		.flags = KPROBE_FLAG_DISABLED,
	};

	if (!register_kprobe(&kp)) {
		unregister_kprobe(&kp);
		return (unsigned long)kp.addr;
	}
	return IS_ERR_OR_NULL(kp.addr) ? 0 : (unsigned long)kp.addr;
}

/*
 * A function's address, to call: kprobes resolves a name to the
 * instruction after an ENDBR64, which an indirect call must not land on.
 */
unsigned long kc_lookup_function(const char *name)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	unsigned long addr = kc_lookup_symbol(name);
	u8 before[sizeof(endbr64)];

	if (addr && !copy_from_kernel_nofault(before,
					      (void *)(addr - sizeof(before)),
					      sizeof(before)) &&
	    !memcmp(before, endbr64, sizeof(before)))
		addr -= sizeof(before);
	return addr;
}

void kc_denylist_init(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kc_sections); i++) {
		struct kc_section *s = &kc_sections[i];

		s->lo = kc_lookup_symbol(s->start);
		s->hi = kc_lookup_symbol(s->end);
		if (!s->lo || s->hi <= s->lo)
			s->lo = s->hi = 0;
	}
}
