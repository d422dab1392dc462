// SPDX-License-Identifier: GPL-2.0
/*
 * Memory reuse: the frees of watched objects, seen while a window is
 * open. An object freed and handed out again during the window is the
 * allocator's business, not a race; the stall asks the memory-reuse filter
 * whether to drop such a sample. The hooks live here, not with the
 * filters, so that the filters call nothing of the stall.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <trace/events/kmem.h>

#include "kcollider.h"

/*
 * The kmem tracepoints (exported) rather than kprobes on kfree(): an
 * ftrace-based probe on so hot a function can crash the guest when it is
 * unregistered while other CPUs are freeing (a jump to address zero from
 * __vunmap).
 * Tracepoint probes run in the freeing context, possibly IRQ: lock-free.
 */
static void kc_trace_kfree(void *data, unsigned long call_site,
			   const void *ptr)
{
	if (kc_stall_any_open())
		kc_stall_note_free((unsigned long)ptr);
}

static void kc_trace_cache_free(void *data, unsigned long call_site,
				const void *ptr, const struct kmem_cache *s)
{
	if (kc_stall_any_open())
		kc_stall_note_free((unsigned long)ptr);
}

/*
 * kfree_bulk(), kmem_cache_free_bulk() and the batches of kfree_rcu()
 * free without a tracepoint in 6.1's SLUB: a probe on the one function
 * they all go through. It is rarely called (RCU batches, networking),
 * unlike kfree(), and its arguments are read at entry: size, then the
 * array of objects.
 */
#define KC_BULK_FREE_SCAN	1024

static int kc_bulk_free_pre(struct kprobe *p, struct pt_regs *regs)
{
	void **objects = (void **)regs->dx;
	size_t i, n = min_t(size_t, regs->si, KC_BULK_FREE_SCAN);
	void *obj;

	if (!kc_stall_any_open())
		return 0;
	for (i = 0; i < n; i++)
		if (!copy_from_kernel_nofault(&obj, &objects[i], sizeof(obj)))
			kc_stall_note_free((unsigned long)obj);
	return 0;
}

static struct kprobe kc_bulk_free_probe = {
	.symbol_name = "kmem_cache_free_bulk",
	.pre_handler = kc_bulk_free_pre,
	.post_handler = kc_probe_post_none,	/* never optimized */
};

/*
 * At offset 0 kprobes would use ftrace: a lone ftrace probe makes ftrace
 * register and unregister its ops on every enable/disable, and an
 * ftrace-based probe on kfree() can crash the guest when it goes (see the
 * kmem tracepoints). Right after the fentry call (a 5-byte NOP, or the
 * call itself while someone traces) nothing has touched the arguments yet:
 * an int3 probe there, like every other probe of ours.
 */
static unsigned int kc_bulk_free_offset(void)
{
	static const u8 nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	unsigned long addr = kc_lookup_symbol(kc_bulk_free_probe.symbol_name);
	u8 code[sizeof(nop5)];

	if (!addr || copy_from_kernel_nofault(code, (void *)addr, sizeof(code)))
		return 0;
	return code[0] == 0xe8 || !memcmp(code, nop5, sizeof(nop5)) ?
	       sizeof(nop5) : 0;
}

static bool kc_free_hooks_on;
static bool kc_bulk_free_hooked;

/*
 * Hooked from load to unload, not only while sampling: registering a
 * tracepoint's first probe flips its static key, which patches every
 * call site of kfree()'s tracepoint with text_poke_bp(), and doing that
 * at every enable and disable would patch hot code while other CPUs run
 * it. The handlers cost a load while no window is open.
 */
void kc_reuse_init(void)
{
	if (register_trace_kfree(kc_trace_kfree, NULL))
		pr_warn("cannot hook kfree: memory reuse goes unseen\n");
	if (register_trace_kmem_cache_free(kc_trace_cache_free, NULL))
		pr_warn("cannot hook kmem_cache_free: memory reuse goes unseen\n");
	kc_bulk_free_probe.offset = kc_bulk_free_offset();
	kc_bulk_free_hooked = !register_kprobe(&kc_bulk_free_probe);
	if (!kc_bulk_free_hooked)
		pr_warn("cannot hook kmem_cache_free_bulk: bulk frees go unseen\n");
	kc_free_hooks_on = true;
}

void kc_reuse_exit(void)
{
	if (!kc_free_hooks_on)
		return;
	unregister_trace_kfree(kc_trace_kfree, NULL);
	unregister_trace_kmem_cache_free(kc_trace_cache_free, NULL);
	if (kc_bulk_free_hooked)
		unregister_kprobe(&kc_bulk_free_probe);
	/* no probe of ours runs after this */
	tracepoint_synchronize_unregister();
	kc_bulk_free_hooked = false;
	kc_free_hooks_on = false;
}
