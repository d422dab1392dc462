// SPDX-License-Identifier: GPL-2.0
/*
 * kc_planted: races planted on purpose, for kcollider's tests.
 *
 * Every scenario of the catalogue in Documentation/testing.rst puts each
 * racy access in a noinline function of its own, named after the scenario,
 * so a report names it and a test can target exactly it.
 *
 *   echo "r1 3000" > /sys/kernel/debug/kc_planted/run   # run R1 for 3 s
 *   cat /sys/kernel/debug/kc_planted/facts               # object addresses
 *
 * The write returns when the scenario has finished, or early (-EINTR) when
 * the writer gets a signal: the detection-rate benchmark stops a run at
 * its first report that way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/blkdev.h>
#include <linux/bit_spinlock.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/hw_breakpoint.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/hardirq.h>
#include <asm/debugreg.h>
#include <asm/processor.h>

#define KC_MAX_WORKERS	3

static DEFINE_MUTEX(kc_run_lock);
static struct dentry *kc_dir;

/*
 * Shared data of the scenarios. Plain (not volatile) on purpose: these are
 * the races. Not static, so reports name them with their own symbol.
 */
int kc_r1_count;
int kc_r2_x;
unsigned long kc_r3_word;
unsigned long kc_r4_word = 1;	/* R4 writes 1: the value never changes */
long kc_r5_shared;
long kc_r6_shared;
int kc_r9_x, kc_r9_y;
int kc_r10_data, kc_r10_flag;
u64 kc_r11_word;
unsigned long kc_r12_flags;
unsigned long kc_b1_stat;
unsigned int kc_b2_bits;
int kc_n1_count;
int kc_n2_count;
atomic_t kc_n3_atomic;
unsigned long kc_n3_word;
int kc_n3_step = 1;		/* read-only while N3 runs */
int kc_n4_value = 42;		/* never written while N4 runs */
DEFINE_PER_CPU(unsigned long, kc_n5_counter);

static DEFINE_SPINLOCK(kc_n1_lock);
static DEFINE_MUTEX(kc_n2_lock);
static int *kc_r8_direct;		/* the page through the direct map */
static int *kc_r8_alias;		/* the same page through vmap() */
static struct page *kc_r8_page;

/* R7: a heap object; the raced field is not at offset 0. */
struct kc_r7_obj {
	u64 id;
	int field;
	int pad[9];
};

static struct kc_r7_obj *kc_r7_obj;

/*
 * F1: an object from a slab cache of its own, the raced field nested in
 * it: "kcollider report --btf" names it from the cache name (issue 13).
 */
struct kc_f1_stats {
	u64 reads;
	unsigned int writes;
};

struct kc_f1_obj {
	u64 id;
	struct kc_f1_stats stats;
	int pad[4];
};

static struct kmem_cache *kc_f1_cache;
static struct kc_f1_obj *kc_f1_obj;

/* N7: objects of one kmalloc size, reused across threads. */
struct kc_n7_obj {
	u64 owner;
	int field;
	int pad[9];
};

static void *kc_n7_last_free[2];	/* last object each thread freed */
static atomic_long_t kc_n7_reused;	/* got the other thread's object */
static atomic_long_t kc_n7_allocs;

/* Where results of racy reads go, so the compiler keeps the reads. */
static int kc_sink;

struct kc_worker {
	void (*body)(void);
	unsigned long end;
};

/* ---- R1: plain count++ and count-- in two threads ---- */

noinline void kc_r1_inc(void)
{
	kc_r1_count++;
}

noinline void kc_r1_dec(void)
{
	kc_r1_count--;
}

/* ---- R2: plain x = i in one thread, plain r = x in another ---- */

noinline void kc_r2_write(int v)
{
	kc_r2_x = v;
}

noinline int kc_r2_read(void)
{
	return kc_r2_x;
}

static void kc_r2_writer(void)
{
	static int v;

	kc_r2_write(++v);
}

static void kc_r2_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r2_read());
}

/* ---- R3: aligned word write/write, different values ---- */

noinline void kc_r3_write_a(void)
{
	kc_r3_word = 0x5555555555555555UL;
}

noinline void kc_r3_write_b(void)
{
	kc_r3_word = 0xaaaaaaaaaaaaaaaaUL;
}

/* ---- R4: both threads write the same value ---- */

/* The two differ in code (argument vs immediate) so ICF cannot fold them. */
noinline void kc_r4_write_a(unsigned long v)
{
	kc_r4_word = v;
}

noinline void kc_r4_write_b(void)
{
	kc_r4_word = 1;
}

static void kc_r4_writer_a(void)
{
	kc_r4_write_a(1);
}

/* ---- R5: task writes, an hrtimer on the same CPU reads and writes ---- */

noinline void kc_r5_task_write(void)
{
	kc_r5_shared = kc_r5_shared + 3;
}

noinline void kc_r5_timer_access(void)
{
	kc_r5_shared = kc_r5_shared * 2 + 1;
}

static struct hrtimer kc_r5_timer;

static enum hrtimer_restart kc_r5_timer_fn(struct hrtimer *t)
{
	kc_r5_timer_access();
	hrtimer_forward_now(t, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/*
 * R5's task side also owns the timer, so the timer fires on its CPU. HARD:
 * on PREEMPT_RT a plain hrtimer would expire in softirq context instead.
 */
static void kc_r5_task_body(void)
{
	if (!hrtimer_active(&kc_r5_timer))
		hrtimer_start(&kc_r5_timer, ns_to_ktime(50 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_PINNED_HARD);
	kc_r5_task_write();
	udelay(1);
}

static void kc_r5_stop(void)
{
	hrtimer_cancel(&kc_r5_timer);
}

/* ---- R6: task vs softirq (a soft hrtimer) on another CPU ---- */

noinline void kc_r6_task_write(void)
{
	kc_r6_shared += 5;
}

noinline void kc_r6_softirq_access(void)
{
	kc_r6_shared = kc_r6_shared * 3 + 1;
}

static struct hrtimer kc_r6_timer;

static enum hrtimer_restart kc_r6_timer_fn(struct hrtimer *t)
{
	kc_r6_softirq_access();
	hrtimer_forward_now(t, ns_to_ktime(200 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/* Runs on the softirq side's CPU and mostly sleeps, leaving it to the timer. */
static void kc_r6_timer_owner(void)
{
	if (!hrtimer_active(&kc_r6_timer))
		hrtimer_start(&kc_r6_timer, ns_to_ktime(200 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_PINNED_SOFT);
	msleep(20);
}

static void kc_r6_stop(void)
{
	hrtimer_cancel(&kc_r6_timer);
}

/* ---- R7: a field of a kmalloc'd object ---- */

noinline void kc_r7_inc_field(struct kc_r7_obj *o)
{
	o->field++;
}

noinline int kc_r7_read_field(struct kc_r7_obj *o)
{
	return o->field;
}

static void kc_r7_incer(void)
{
	kc_r7_inc_field(kc_r7_obj);
}

static void kc_r7_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r7_read_field(kc_r7_obj));
}

/* ---- F1: a nested field of an object from a named cache ---- */

noinline void kc_f1_inc_writes(struct kc_f1_obj *o)
{
	o->stats.writes++;
}

noinline unsigned int kc_f1_read_writes(struct kc_f1_obj *o)
{
	return o->stats.writes;
}

static void kc_f1_incer(void)
{
	kc_f1_inc_writes(kc_f1_obj);
}

static void kc_f1_reader(void)
{
	WRITE_ONCE(kc_sink, kc_f1_read_writes(kc_f1_obj));
}

/* A cache with a constructor is never merged into another of its size. */
static void kc_f1_ctor(void *p)
{
	memset(p, 0, sizeof(struct kc_f1_obj));
}

/* ---- R8: a writer through a second mapping, invisible to the watch ---- */

noinline int kc_r8_read(void)
{
	return READ_ONCE(*kc_r8_direct) + *kc_r8_direct;
}

noinline void kc_r8_write_alias(void)
{
	(*kc_r8_alias)++;
}

static void kc_r8_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r8_read());
}

/*
 * ---- R26: R8's read, and a store that shows before its trap ----
 * Under QEMU TCG a racer's store can be visible before its #DB runs: the
 * exception comes after the instruction and the host may deschedule the
 * vCPU in between. This plays that out: the alias store changes the value
 * without a trap, the direct store 5-6 ms later traps, after the reader's
 * window (1-2 ms by default) has closed and within the 10 ms the watch is
 * then held.
 */
static int kc_r26_next;

noinline void kc_r26_write_late(void)
{
	(*kc_r8_alias)++;
	usleep_range(5000, 6000);
	*kc_r8_direct = ++kc_r26_next;
	usleep_range(5000, 6000);
}

/*
 * ---- N14: a device register, read as drivers read them ----
 * The HPET's main counter, mapped again with ioremap() (uncached): no
 * effect when read, but the detector must never read device memory of
 * its own, nor watch it. NULL where the machine has no HPET there.
 */
#define KC_N14_HPET_BASE	0xfed00000UL
#define KC_N14_HPET_COUNTER	0xf0
static void __iomem *kc_n14_regs;

/* the register its only memory access: the pointer comes in a register */
noinline u32 kc_n14_read_counter(void __iomem *regs)
{
	return readl(regs + KC_N14_HPET_COUNTER);
}

static void kc_n14_reader(void)
{
	void __iomem *regs = READ_ONCE(kc_n14_regs);

	if (regs)
		WRITE_ONCE(kc_sink, kc_n14_read_counter(regs));
}

static void kc_n14_map(void)
{
	u32 id;

	kc_n14_regs = ioremap(KC_N14_HPET_BASE, 1024);
	if (!kc_n14_regs)
		return;
	/* the capabilities register: a vendor and a counter period */
	id = readl(kc_n14_regs);
	if (!id || id == ~0U || !readl(kc_n14_regs + 4)) {
		iounmap(kc_n14_regs);
		kc_n14_regs = NULL;
	}
}

/* ---- R9: store buffering, x = 1; r0 = y  vs  y = 1; r1 = x ---- */

noinline void kc_r9_write_x(void)
{
	kc_r9_x = 1;
}

noinline int kc_r9_read_y(void)
{
	return kc_r9_y;
}

noinline void kc_r9_write_y(void)
{
	kc_r9_y = 1;
}

noinline int kc_r9_read_x(void)
{
	return kc_r9_x;
}

/* The store and the load of each side are adjacent: the SB shape. */
static void kc_r9_thread0(void)
{
	int r0;

	kc_r9_write_x();
	r0 = kc_r9_read_y();
	WRITE_ONCE(kc_sink, r0);
}

static void kc_r9_thread1(void)
{
	int r1;

	kc_r9_write_y();
	r1 = kc_r9_read_x();
	WRITE_ONCE(kc_sink, r1);
}

/* ---- R10: message passing without barriers ---- */

noinline void kc_r10_write_data(int v)
{
	kc_r10_data = v;
}

noinline void kc_r10_write_flag(int v)
{
	kc_r10_flag = v;
}

noinline int kc_r10_read_flag(void)
{
	return kc_r10_flag;
}

noinline int kc_r10_read_data(void)
{
	return kc_r10_data;
}

/* data = n; flag = n: each new flag value is one "flag = 1". */
static void kc_r10_producer(void)
{
	static int n;

	n++;
	kc_r10_write_data(n);
	kc_r10_write_flag(n);
}

/*
 * while (flag == seen); r = data - bounded, so the thread can stop.
 * A message-passing reader stores nothing before its loads, so this one
 * keeps "seen" in a register until after the data load; the full barrier
 * at entry keeps the harness's own stores (kc_worker_fn's loop) off every
 * path to the loads. Nothing orders the flag load before the data load
 * but x86 itself: the races are not triangular.
 */
static void kc_r10_consumer(void)
{
	static int seen;
	int i, prev = READ_ONCE(seen), f = prev, r;

	/* isolates the reader from the harness's stores (see above) */
	smp_mb();
	/* cpu_relax() clobbers memory: GCC must not hoist the "pure" read */
	for (i = 0; i < 10000 && f == prev; i++) {
		cpu_relax();
		f = kc_r10_read_flag();
	}
	r = kc_r10_read_data();
	WRITE_ONCE(seen, f);
	WRITE_ONCE(kc_sink, r);
}

/* ---- R11: 8-byte write vs 2-byte read of its upper half ---- */

noinline void kc_r11_write64(u64 v)
{
	kc_r11_word = v;
}

noinline u16 kc_r11_read_hi16(void)
{
	return ((u16 *)&kc_r11_word)[3];
}

static void kc_r11_writer(void)
{
	static u64 n;

	n++;
	kc_r11_write64(n << 48 | n);
}

static void kc_r11_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r11_read_hi16());
}

/* ---- R12: x &= ~A vs x |= B, non-atomic RMWs on different bits ---- */

#define KC_R12_A	0x1UL
#define KC_R12_B	0x100UL

noinline void kc_r12_clear_a(void)
{
	kc_r12_flags &= ~KC_R12_A;
}

noinline void kc_r12_set_b(void)
{
	kc_r12_flags |= KC_R12_B;
}

/* ---- B1: a statistics counter only ever incremented ---- */

noinline void kc_b1_stat_inc(void)
{
	kc_b1_stat++;
}

/* ---- B2: writer flips bit 0, reader tests only bit 5 ---- */

noinline void kc_b2_flip_bit0(void)
{
	kc_b2_bits ^= 1;
}

noinline int kc_b2_test_bit5(void)
{
	return !!(kc_b2_bits & 0x20);
}

static void kc_b2_tester(void)
{
	WRITE_ONCE(kc_sink, kc_b2_test_bit5());
}

/*
 * ---- B7: writer flips bit 0, reader tests bit 14 through a high-byte
 * register, as the kernel's thread-flag tests compile
 * (fpregs_assert_state_consistent(): "mov (%rax),%rdx; and $0x40,%dh").
 * Written out so that no compiler picks another form ----
 */
unsigned long kc_b7_word;

noinline void kc_b7_flip_bit0(void)
{
	kc_b7_word ^= 1;
}

noinline int kc_b7_test_bit14(void)
{
	int set;

	asm volatile("movq %[word], %%rdx\n\t"
		     "andb $0x40, %%dh\n\t"
		     "setnz %b[set]"
		     : [set] "=a" (set)
		     : [word] "m" (kc_b7_word)
		     : "rdx", "cc");
	return set & 1;
}

static void kc_b7_tester(void)
{
	WRITE_ONCE(kc_sink, kc_b7_test_bit14());
}

/*
 * ---- B5: a plain store of a computed value vs a test of other bits ----
 * The writer loads, flips bit 0 and stores (no RMW instruction to read
 * its mask from); the value line shows bit 5 never changed.
 */
unsigned int kc_b5_word;

noinline void kc_b5_store_flipped(void)
{
	unsigned int v = READ_ONCE(kc_b5_word);

	WRITE_ONCE(kc_b5_word, v ^ 1);
}

noinline int kc_b5_test_bit5(void)
{
	return !!(kc_b5_word & 0x20);
}

static void kc_b5_tester(void)
{
	WRITE_ONCE(kc_sink, kc_b5_test_bit5());
}

/* ---- B3: a read of jiffies, racy by design ---- */

noinline unsigned long kc_b3_read_jiffies(void)
{
	return jiffies;
}

static void kc_b3_reader(void)
{
	WRITE_ONCE(kc_sink, (int)kc_b3_read_jiffies());
	udelay(10);
}

/* ---- N1: a counter protected by a spinlock everywhere ---- */

noinline void kc_n1_inc_locked(void)
{
	spin_lock(&kc_n1_lock);
	kc_n1_count++;
	spin_unlock(&kc_n1_lock);
}

/* ---- N2: a counter protected by a mutex; the stall sleeps holding it ---- */

noinline void kc_n2_inc_locked(void)
{
	mutex_lock(&kc_n2_lock);
	kc_n2_count++;
	mutex_unlock(&kc_n2_lock);
}

/*
 * ---- N3: only LOCK'd accesses ----
 * The one plain access is the read of kc_n3_step, which nobody writes: it
 * gives the detector something to sample, and a report would be wrong.
 */
noinline void kc_n3_locked_ops(void)
{
	atomic_add(kc_n3_step, &kc_n3_atomic);
	cmpxchg(&kc_n3_word, 0UL, 1UL);
	xchg(&kc_n3_word, 0UL);
	atomic_cmpxchg(&kc_n3_atomic, 1000000, 0);
}

/*
 * ---- M1, M2: plain accesses racing a LOCK'd read-modify-write ----
 * A plain load of an atomic (atomic_read()) racing atomic_inc() reads the
 * old or the new value whole: benign. A plain store (atomic_set()) racing
 * it can erase the increment: harmful. The atomic side is never sampled
 * (LOCK'd sites are not in the pool); the watch on the plain side sees it.
 */
static atomic_t kc_m1_atomic;
static atomic_t kc_m2_atomic;

noinline int kc_m1_plain_read(void)
{
	return atomic_read(&kc_m1_atomic);
}

noinline void kc_m1_atomic_inc(void)
{
	atomic_inc(&kc_m1_atomic);
}

static void kc_m1_reader(void)
{
	WRITE_ONCE(kc_sink, kc_m1_plain_read());
}

noinline void kc_m2_plain_store(void)
{
	atomic_set(&kc_m2_atomic, 0);
}

noinline void kc_m2_atomic_inc(void)
{
	atomic_inc(&kc_m2_atomic);
}

/* ---- N4: two readers, no writer ---- */

noinline int kc_n4_read(void)
{
	return kc_n4_value;
}

static void kc_n4_reader(void)
{
	WRITE_ONCE(kc_sink, kc_n4_read());
}

/*
 * ---- N5: per-CPU data, each CPU touches only its own copy ----
 * Through a pointer (a plain access, sampled by default) and %gs-relative
 * (sampled with sample_percpu=1). get/put_cpu_ptr() stay outside the
 * targeted function: preempt_enable() reads the current task's flags,
 * which other CPUs set - a real race, not this scenario's.
 */
noinline void kc_n5_inc_mine_ptr(unsigned long *p)
{
	(*p)++;
}

noinline void kc_n5_inc_mine_gs(void)
{
	this_cpu_inc(kc_n5_counter);
}

static void kc_n5_body(void)
{
	kc_n5_inc_mine_ptr(get_cpu_ptr(&kc_n5_counter));
	put_cpu_ptr(&kc_n5_counter);
	kc_n5_inc_mine_gs();
}

/* ---- N6: stack-local data, reached through a pointer ---- */

noinline void kc_n6_touch(int *p)
{
	p[0]++;
	p[1] = p[0] + 1;
}

static void kc_n6_body(void)
{
	int local[4] = { };
	int i;

	for (i = 0; i < 16; i++)
		kc_n6_touch(local);
	WRITE_ONCE(kc_sink, local[1]);
}

/* ---- N7: objects freed by one thread and reallocated by another ---- */

noinline void kc_n7_use_a(struct kc_n7_obj *o)
{
	o->field = 1;
	o->owner = 0xa;
}

noinline void kc_n7_use_b(struct kc_n7_obj *o)
{
	o->field = 2;
	o->owner = 0xb;
}

/*
 * The two threads share a CPU and take strict turns: each allocation comes
 * right after the other thread's free, on the same CPU, so the allocator's
 * per-CPU free list hands back the object just freed (whatever else of
 * that size the kernel allocates in between only makes a turn miss).
 * The turns are handed over with yield() on purpose: the other thread
 * runs next, where cond_resched() would keep the CPU until a reschedule
 * is due.
 */
static atomic_t kc_n7_turn;

static void kc_n7_cycle(int me, void (*use)(struct kc_n7_obj *))
{
	struct kc_n7_obj *o;

	if (atomic_read(&kc_n7_turn) != me) {
		yield();
		return;
	}
	o = kmalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return;
	atomic_long_inc(&kc_n7_allocs);
	if ((void *)o == READ_ONCE(kc_n7_last_free[!me]))
		atomic_long_inc(&kc_n7_reused);
	use(o);
	WRITE_ONCE(kc_n7_last_free[me], o);
	kfree(o);
	atomic_set(&kc_n7_turn, !me);
	yield();
}

static void kc_n7_thread_a(void)
{
	kc_n7_cycle(0, kc_n7_use_a);
}

static void kc_n7_thread_b(void)
{
	kc_n7_cycle(1, kc_n7_use_b);
}

/*
 * ---- H1 (benchmarks, not a race): one thread, a hot loop over private
 * data: what "traps per sample" is measured on ----
 */

static unsigned long kc_h1_buf[64];

noinline void kc_h1_step(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kc_h1_buf); i++)
		kc_h1_buf[i] += i;
}

/*
 * ---- H2 (benchmarks, not a race): a hot loop over data no watch may
 * cover (the caller's stack): every sample is skipped, none stalls, and
 * the thread is back at its spent breakpoint at once ----
 */

#define KC_H2_WORDS	64

noinline void kc_h2_fill(unsigned long *buf)
{
	int i;

	for (i = 0; i < KC_H2_WORDS; i++)
		buf[i] += i;
}

noinline void kc_h2_step(void)
{
	unsigned long buf[KC_H2_WORDS];

	memset(buf, 0, sizeof(buf));
	kc_h2_fill(buf);
	barrier_data(buf);
}

/*
 * ---- H3 (the engine's safety): CPU 0's copy of a per-CPU pair that its
 * owner updates with an unlocked 16-byte compare-exchange, as SLUB's
 * this_cpu_cmpxchg_double() updates its freelist and tid, read remotely:
 * a plain read of the upper half. The read is sampled, so the upper half
 * is watched: a CPU that stopped the instruction between its two stores
 * and ran it again (QEMU's TCG at a write watchpoint) would leave the
 * halves unequal, as it left SLUB's freelist holding an object it was
 * freeing. The owner counts every time it finds them unequal, and makes
 * them equal again ----
 */
struct kc_h3_pair {
	u64 lo;
	u64 hi;
};

static struct kc_h3_pair __percpu *kc_h3_pairs;
static atomic_long_t kc_h3_torn;
static atomic_long_t kc_h3_swaps;

static bool kc_h3_cmpxchg16b(struct kc_h3_pair *p, u64 old_lo, u64 old_hi,
			     u64 new_lo, u64 new_hi)
{
	bool ok;

	asm volatile("cmpxchg16b %[pair]"
		     CC_SET(z)
		     : CC_OUT(z) (ok), [pair] "+m" (*p),
		       "+a" (old_lo), "+d" (old_hi)
		     : "b" (new_lo), "c" (new_hi)
		     : "memory");
	return ok;
}

/* the owner, bound to CPU 0 */
noinline void kc_h3_swap(void)
{
	struct kc_h3_pair *p = per_cpu_ptr(kc_h3_pairs, 0);
	u64 lo = READ_ONCE(p->lo), hi = READ_ONCE(p->hi);
	u64 next = max(lo, hi) + 1;

	/* the only writer: unequal halves are a torn compare-exchange */
	if (lo != hi)
		atomic_long_inc(&kc_h3_torn);
	if (kc_h3_cmpxchg16b(p, lo, hi, next, next))
		atomic_long_inc(&kc_h3_swaps);
}

noinline void kc_h3_read_upper(void)
{
	WRITE_ONCE(kc_sink, READ_ONCE(per_cpu_ptr(kc_h3_pairs, 0)->hi));
}

/*
 * ---- P1 (not a race): sampled code inside a block plug ----
 * Between blk_start_plug() and blk_finish_plug() a task may be halfway
 * through adding to or merging into its plug list; only a voluntary
 * sleep flushes the plug (sched_submit_work()), never preemption. A
 * stall that sleeps must leave the plug as preemption would: the unplug
 * callback below counts every flush schedule() made while the body held
 * the plug.
 */
static unsigned long kc_p1_word;
static atomic_long_t kc_p1_plugged_runs;
static atomic_long_t kc_p1_schedule_flushes;

noinline void kc_p1_plugged_store(void)
{
	kc_p1_word++;
}

/* (a kernel without the block layer, as make bench-kcsan's: no plug) */
#ifdef CONFIG_BLOCK
static void kc_p1_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	if (from_schedule)
		atomic_long_inc(&kc_p1_schedule_flushes);
	kfree(cb);
}

static void kc_p1_body(void)
{
	struct blk_plug plug;

	blk_start_plug(&plug);
	if (blk_check_plugged(kc_p1_unplug, &kc_p1_word,
			      sizeof(struct blk_plug_cb))) {
		kc_p1_plugged_store();
		atomic_long_inc(&kc_p1_plugged_runs);
	}
	blk_finish_plug(&plug);
}
#else
static void kc_p1_body(void)
{
	kc_p1_plugged_store();
}
#endif

/*
 * ---- R13-R15 (issue 14): the TSO verdicts, one function per thread ----
 * Each side's store and load are in one function, so the analysis needs
 * neither the caller nor the harness. The accesses are plain: these are
 * data races (KCSAN reports them, and `kcollider mark` must not call them
 * marked); barrier() only stops the compiler from swapping a store and a
 * load of different globals, the CPU still may. Each thread keeps what it
 * read in a variable of its own (not kc_sink, which both would write: a
 * write/write race of its own).
 */
int kc_r13_x, kc_r13_y, kc_r13_r0, kc_r13_r1;
int kc_r14_x, kc_r14_y, kc_r14_r0, kc_r14_r1;
int kc_r15_x, kc_r15_z, kc_r15_r;

/* R13, store buffering: both may read 0 on x86, never under SC. */
noinline void kc_r13_sb0(void)
{
	kc_r13_x = 1;
	barrier();
	kc_r13_r0 = kc_r13_y;
}

noinline void kc_r13_sb1(void)
{
	kc_r13_y = 1;
	barrier();
	kc_r13_r1 = kc_r13_x;
}

/* R14, R13 with smp_mb() between store and load on both sides: SC. */
noinline void kc_r14_sb0(void)
{
	kc_r14_x = 1;
	/* orders the store to x before the load of y: no store buffering */
	smp_mb();
	kc_r14_r0 = kc_r14_y;
}

noinline void kc_r14_sb1(void)
{
	kc_r14_y = 1;
	/* orders the store to y before the load of x: no store buffering */
	smp_mb();
	kc_r14_r1 = kc_r14_x;
}

/*
 * R15, one-sided: the reader's store to z may still be buffered when it
 * loads x (triangular), but the writer never loads z: no cycle closes.
 */
noinline void kc_r15_read(void)
{
	kc_r15_z = 1;
	barrier();
	kc_r15_r = kc_r15_x;
}

noinline void kc_r15_write(void)
{
	static int v;

	kc_r15_x = ++v;
}

/*
 * ---- R16: a reference count taken by one here and by two there ----
 * Both are plain `add $n, mem`: lost updates leave the count wrong, and a
 * lossy-counter verdict would hide a refcount bug.
 */
unsigned long kc_r16_ref;

noinline void kc_r16_get(void)
{
	kc_r16_ref++;
}

noinline void kc_r16_get_two(void)
{
	kc_r16_ref += 2;
}

/* ---- R17: a task's ++ vs a softirq's += 0x100 on another CPU ---- */
unsigned long kc_r17_count;
static struct hrtimer kc_r17_timer;

noinline void kc_r17_task_inc(void)
{
	kc_r17_count++;
}

noinline void kc_r17_softirq_add(void)
{
	kc_r17_count += 0x100;
}

static enum hrtimer_restart kc_r17_timer_fn(struct hrtimer *t)
{
	kc_r17_softirq_add();
	hrtimer_forward_now(t, ns_to_ktime(100 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void kc_r17_timer_owner(void)
{
	if (!hrtimer_active(&kc_r17_timer))
		hrtimer_start(&kc_r17_timer, ns_to_ktime(100 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_PINNED_SOFT);
	msleep(20);
}

static void kc_r17_stop(void)
{
	hrtimer_cancel(&kc_r17_timer);
}

/*
 * ---- R18: a u16 at an odd offset of a packed struct ----
 * No debug register takes an unaligned 2-byte length: the watch has to
 * cover the field with an aligned one (or two) and filter by overlap.
 */
struct kc_r18_hdr {
	u8 kind;
	u16 len;
	u8 pad[5];
} __packed;

struct kc_r18_hdr kc_r18_hdr __aligned(8);

noinline void kc_r18_write_len(u16 v)
{
	kc_r18_hdr.len = v;
}

noinline u16 kc_r18_read_len(void)
{
	return kc_r18_hdr.len;
}

static void kc_r18_writer(void)
{
	static u16 n;

	kc_r18_write_len(++n);
}

static void kc_r18_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r18_read_len());
}

/*
 * The neighbour: a byte inside the covering watch but outside the field.
 * Its traps are no race with len; paced so len's own writer gets windows.
 */
noinline void kc_r18_write_kind(u8 v)
{
	kc_r18_hdr.kind = v;
}

static void kc_r18_kind_writer(void)
{
	static u8 k;

	kc_r18_write_kind(++k);
	udelay(20);
}

/*
 * ---- R19: a u32 of a packed struct that crosses an 8-byte boundary ----
 * One debug register cannot cover it; the same field on the other side
 * touches both halves, so a watch on either catches it.
 */
struct kc_r19_rec {
	u8 tag[6];
	u32 seq;
	u8 pad[6];
} __packed;

struct kc_r19_rec kc_r19_rec __aligned(8);

noinline void kc_r19_write_seq(u32 v)
{
	kc_r19_rec.seq = v;
}

noinline u32 kc_r19_read_seq(void)
{
	return kc_r19_rec.seq;
}

static void kc_r19_writer(void)
{
	static u32 n;

	kc_r19_write_seq(++n);
}

static void kc_r19_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r19_read_seq());
}

/*
 * ---- R23: a record cleared by REP STOS under a reader ----
 * The clearer's trap comes after the iteration that wrote the field,
 * rdi already past it: the racer's address is computed from there.
 */
struct kc_r23_rec {
	u64 head[3];
	u64 seq;
	u64 tail[4];
};

struct kc_r23_rec kc_r23_rec __aligned(64);

noinline void kc_r23_clear(void)
{
	void *dst = &kc_r23_rec;
	unsigned long n = sizeof(kc_r23_rec) / sizeof(u64);

	asm volatile("rep stosq" : "+D" (dst), "+c" (n) : "a" (0UL)
		     : "memory");
}

noinline u64 kc_r23_read_seq(void)
{
	return kc_r23_rec.seq;
}

static void kc_r23_clearer(void)
{
	kc_r23_clear();
	udelay(5);
}

static void kc_r23_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r23_read_seq());
}

/*
 * ---- B4: one statistics counter bumped by two functions ----
 * Two `add $1` sites of the same width: a lossy counter all the same.
 * tx touches the sink too, so the compiler cannot fold the two.
 */
unsigned long kc_b4_stat;

noinline void kc_b4_stat_rx(void)
{
	kc_b4_stat++;
}

noinline void kc_b4_stat_tx(void)
{
	kc_b4_stat++;
	WRITE_ONCE(kc_sink, 1);
}

/*
 * ---- N8: atomic_read() polling vs atomic_set() ----
 * Plain movs in the binary, like any data race; the same variable is
 * also incremented with a LOCK'd instruction: it is an atomic_t.
 */
atomic_t kc_n8_state;

noinline void kc_n8_set(int v)
{
	atomic_set(&kc_n8_state, v);
}

noinline int kc_n8_poll(void)
{
	return atomic_read(&kc_n8_state);
}

noinline void kc_n8_get(void)
{
	atomic_inc(&kc_n8_state);
}

static void kc_n8_writer(void)
{
	static int n;

	kc_n8_set(++n);
	if (!(n % 64))
		kc_n8_get();
}

static void kc_n8_reader(void)
{
	WRITE_ONCE(kc_sink, kc_n8_poll());
}

/*
 * ---- N9: an object freed in bulk under a reader, then reused ----
 * A SLAB_TYPESAFE_BY_RCU cache: a reader inside rcu_read_lock() may still
 * read an object the owner has freed (the memory stays of its type), and
 * the owner's next allocation is likely that very object. The free goes
 * through kmem_cache_free_bulk(), as kfree_bulk() and kfree_rcu()'s
 * batches do, which no kmem tracepoint reports in 6.1.
 */
struct kc_n9_obj {
	unsigned long field;
	unsigned long pad[7];
};

static struct kmem_cache *kc_n9_cache;
static struct kc_n9_obj *kc_n9_live;
static atomic_long_t kc_n9_bulk_frees;

noinline unsigned long kc_n9_peek(struct kc_n9_obj *o)
{
	return o->field;
}

static void kc_n9_reader(void)
{
	struct kc_n9_obj *o;

	rcu_read_lock();
	o = READ_ONCE(kc_n9_live);
	if (o)
		WRITE_ONCE(kc_sink, kc_n9_peek(o));
	rcu_read_unlock();
}

static void kc_n9_owner(void)
{
	struct kc_n9_obj *o = kmem_cache_alloc(kc_n9_cache, GFP_KERNEL);
	void *batch[1];

	if (!o)
		return;
	o->field = jiffies;
	WRITE_ONCE(kc_n9_live, o);
	usleep_range(1000, 2000);
	WRITE_ONCE(kc_n9_live, NULL);
	batch[0] = o;
	kmem_cache_free_bulk(kc_n9_cache, 1, batch);
	atomic_long_inc(&kc_n9_bulk_frees);
}

/*
 * ---- N13 and R24: an approximate count, as percpu_counter_read() ----
 * The writer adds under a spinlock with a plain "+="; N13's reader takes
 * it locklessly with READ_ONCE(). KCSAN's default (ASSUME_PLAIN_WRITES_
 * ATOMIC) takes the aligned 8-byte write as atomic, and the +='s read
 * races only with writes: no race. R24 reads it plain: a race.
 */
static DEFINE_SPINLOCK(kc_n13_lock);
s64 kc_n13_count;

noinline void kc_n13_add(s64 d)
{
	spin_lock(&kc_n13_lock);
	kc_n13_count += d;
	spin_unlock(&kc_n13_lock);
}

noinline s64 kc_n13_read(void)
{
	return READ_ONCE(kc_n13_count);
}

noinline s64 kc_r24_read_plain(void)
{
	return kc_n13_count;
}

static void kc_n13_adder(void)
{
	static s64 n;

	kc_n13_add(++n & 7);
	udelay(5);
}

static void kc_n13_reader(void)
{
	WRITE_ONCE(kc_sink, (int)kc_n13_read());
}

static void kc_r24_reader(void)
{
	WRITE_ONCE(kc_sink, (int)kc_r24_read_plain());
}

/*
 * ---- R25: store buffering in lock-step rounds ----
 * As a litmus harness runs it: both threads run one round, x and y are
 * reset, the next round opens; atomics order everything but the four
 * plain accesses. Each racy function runs once per round, and a thread
 * that finished its round spins on the atomics until the other one has:
 * a window on one side sees the other's access only when both are in the
 * same round.
 */
int kc_r25_x, kc_r25_y, kc_r25_r0, kc_r25_r1;
static atomic_t kc_r25_round = ATOMIC_INIT(1);
static atomic_t kc_r25_done[2];	/* the last round each thread ran */

noinline void kc_r25_sb0(void)
{
	kc_r25_x = 1;
	kc_r25_r0 = kc_r25_y;
}

noinline void kc_r25_sb1(void)
{
	kc_r25_y = 1;
	kc_r25_r1 = kc_r25_x;
}

static void kc_r25_step(int me, void (*sb)(void))
{
	int round = atomic_read_acquire(&kc_r25_round);

	if (atomic_read(&kc_r25_done[me]) != round) {
		sb();
		/* the accesses before the other thread's reset */
		atomic_set_release(&kc_r25_done[me], round);
		return;
	}
	if (me == 0 && atomic_read_acquire(&kc_r25_done[1]) == round) {
		kc_r25_x = 0;
		kc_r25_y = 0;
		/* a full barrier: the reset before the next round's accesses */
		atomic_inc(&kc_r25_round);
		return;
	}
	cpu_relax();
}

static void kc_r25_thread0(void)
{
	kc_r25_step(0, kc_r25_sb0);
}

static void kc_r25_thread1(void)
{
	kc_r25_step(1, kc_r25_sb1);
}

/*
 * ---- N10-N12 and R20-R22: marked accesses and their plain counterparts ----
 * In the binary every one of these is a plain mov: only the source says
 * which were READ_ONCE()/WRITE_ONCE(), acquire/release or data_race().
 * KCSAN's rule: no race when both sides are marked or either is in
 * data_race(); one plain side makes it a race (R20, R21), as does R22,
 * N12 without its data_race().
 */
int kc_n10_stop;

noinline void kc_n10_set_stop(int v)
{
	WRITE_ONCE(kc_n10_stop, v);
}

noinline int kc_n10_should_stop(void)
{
	return READ_ONCE(kc_n10_stop);
}

static void kc_n10_writer(void)
{
	static int n;

	kc_n10_set_stop(++n & 1);
}

static void kc_n10_poller(void)
{
	WRITE_ONCE(kc_sink, kc_n10_should_stop());
}

int kc_r20_stop;

noinline void kc_r20_set_stop(int v)
{
	WRITE_ONCE(kc_r20_stop, v);
}

noinline int kc_r20_should_stop_plain(void)
{
	return kc_r20_stop;
}

static void kc_r20_writer(void)
{
	static int n;

	kc_r20_set_stop(++n & 1);
}

static void kc_r20_poller(void)
{
	WRITE_ONCE(kc_sink, kc_r20_should_stop_plain());
}

unsigned long kc_n11_seq;

noinline void kc_n11_publish(unsigned long v)
{
	/* N11's marked store: pairs with kc_n11_observe()'s acquire */
	smp_store_release(&kc_n11_seq, v);
}

noinline unsigned long kc_n11_observe(void)
{
	/* N11's marked load: pairs with kc_n11_publish()'s release */
	return smp_load_acquire(&kc_n11_seq);
}

static void kc_n11_writer(void)
{
	static unsigned long n;

	kc_n11_publish(++n);
}

static void kc_n11_reader(void)
{
	WRITE_ONCE(kc_sink, kc_n11_observe());
}

unsigned long kc_r21_seq;

noinline void kc_r21_publish(unsigned long v)
{
	/* R21's marked side: the reader's plain load makes it a race */
	smp_store_release(&kc_r21_seq, v);
}

noinline unsigned long kc_r21_observe_plain(void)
{
	return kc_r21_seq;
}

static void kc_r21_writer(void)
{
	static unsigned long n;

	kc_r21_publish(++n);
}

static void kc_r21_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r21_observe_plain());
}

unsigned long kc_n12_last;

noinline void kc_n12_note(unsigned long v)
{
	kc_n12_last = v;
}

noinline unsigned long kc_n12_peek_racy(void)
{
	/* N12: a racy read on purpose, which data_race() says is intended */
	return data_race(kc_n12_last);
}

static void kc_n12_writer(void)
{
	static unsigned long n;

	kc_n12_note(++n);
}

static void kc_n12_reader(void)
{
	WRITE_ONCE(kc_sink, kc_n12_peek_racy());
}

unsigned long kc_r22_last;

noinline void kc_r22_note(unsigned long v)
{
	kc_r22_last = v;
}

noinline unsigned long kc_r22_peek(void)
{
	return kc_r22_last;
}

static void kc_r22_writer(void)
{
	static unsigned long n;

	kc_r22_note(++n);
}

static void kc_r22_reader(void)
{
	WRITE_ONCE(kc_sink, kc_r22_peek());
}

/*
 * ---- B6: a bit spinlock's word, as hlist_bl's bucket heads ----
 * d_alloc_parallel()'s in_lookup_hashtable: the owner holds bit 0
 * (bit_spin_lock()) and publishes a new first node with the bit kept set
 * (hlist_bl_set_first_rcu(): rcu_assign_pointer()); a waiter tests bit 0
 * meanwhile (bit_spin_lock()'s test_bit() spin). Both accesses are marked,
 * and the bit tested does not change under the store.
 */
unsigned long kc_b6_head;
static unsigned long kc_b6_nodes[2] __aligned(8);

noinline void kc_b6_set_first(unsigned long first)
{
	/* as hlist_bl_set_first_rcu(): publishes the node, bit 0 kept set */
	smp_store_release(&kc_b6_head, first | 1);
}

noinline int kc_b6_is_locked(void)
{
	return test_bit(0, &kc_b6_head);
}

static void kc_b6_owner(void)
{
	static unsigned int n;

	bit_spin_lock(0, &kc_b6_head);
	kc_b6_set_first((unsigned long)&kc_b6_nodes[++n & 1]);
	bit_spin_unlock(0, &kc_b6_head);
}

static void kc_b6_waiter(void)
{
	WRITE_ONCE(kc_sink, kc_b6_is_locked());
}

/* ---- per-CPU data, read by other CPUs ---- */

/*
 * R27: a per-CPU counter as percpu_counter keeps one: the owner adds to
 * its own copy with this_cpu_add() (a plain %gs-relative RMW), another
 * CPU sums every copy through per_cpu_ptr() with plain loads.
 */
static unsigned long __percpu *kc_r27_counts;
unsigned long kc_r27_total;

noinline void kc_r27_add(void)
{
	this_cpu_add(*kc_r27_counts, 1);
}

/* Inlined: the loads are the caller's, the function a scenario targets. */
static __always_inline unsigned long
kc_sum_copies(unsigned long __percpu *counts)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(counts, cpu);
	return sum;
}

noinline void kc_r27_sum(void)
{
	kc_r27_total = kc_sum_copies(kc_r27_counts);
}

/*
 * N15: the same counter, but the adders take a lock around this_cpu_add()
 * (interrupts off) and the sum takes the same lock: no race.
 */
static unsigned long __percpu *kc_n15_counts;
static DEFINE_SPINLOCK(kc_n15_lock);
unsigned long kc_n15_total;

noinline void kc_n15_add(void)
{
	unsigned long flags;

	spin_lock_irqsave(&kc_n15_lock, flags);
	this_cpu_add(*kc_n15_counts, 1);
	spin_unlock_irqrestore(&kc_n15_lock, flags);
}

noinline void kc_n15_sum(void)
{
	unsigned long flags, sum;

	spin_lock_irqsave(&kc_n15_lock, flags);
	sum = kc_sum_copies(kc_n15_counts);
	spin_unlock_irqrestore(&kc_n15_lock, flags);
	kc_n15_total = sum;
}

/*
 * R28: a per-CPU list its owner pushes to through this_cpu_ptr(), drained
 * by another CPU without the lock the owner would take.
 */
#define KC_R28_ITEMS 8

struct kc_r28_list {
	unsigned long n;
	unsigned long items[KC_R28_ITEMS];
};

static struct kc_r28_list __percpu *kc_r28_lists;
unsigned long kc_r28_sink;

noinline void kc_r28_push(void)
{
	struct kc_r28_list *l = this_cpu_ptr(kc_r28_lists);
	unsigned long n = l->n;

	if (n < KC_R28_ITEMS) {
		l->items[n] = jiffies;
		l->n = n + 1;
	}
}

noinline void kc_r28_drain(void)
{
	struct kc_r28_list *l = per_cpu_ptr(kc_r28_lists, 0);
	unsigned long i, n = l->n;

	for (i = 0; i < n && i < KC_R28_ITEMS; i++)
		kc_r28_sink += l->items[i];
	l->n = 0;
}

/*
 * R29: __percpu_counter_sum()'s shape: the sum takes a lock (interrupts
 * off), the adders add to their own copy without it. Racy; on lockdep
 * kernels the report names the lock as held by the summing side only.
 */
static unsigned long __percpu *kc_r29_counts;
static DEFINE_RAW_SPINLOCK(kc_r29_lock);
unsigned long kc_r29_total;

noinline void kc_r29_add(void)
{
	this_cpu_add(*kc_r29_counts, 1);
}

noinline void kc_r29_sum(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&kc_r29_lock, flags);
	kc_r29_total = kc_sum_copies(kc_r29_counts);
	raw_spin_unlock_irqrestore(&kc_r29_lock, flags);
}

/*
 * R31: R29 with the counter where most alloc_percpu() data lies once a
 * kernel has run a while, in a later chunk than the first (vmalloc
 * space), and summed through a pointer formed before the load, as KASAN's
 * kernels form every one: no register holds the CPU's offset there.
 */
static unsigned long __percpu *kc_r31_counts;
static DEFINE_RAW_SPINLOCK(kc_r31_lock);
unsigned long kc_r31_total;

noinline void kc_r31_add(void)
{
	this_cpu_add(*kc_r31_counts, 1);
}

noinline void kc_r31_sum(void)
{
	unsigned long flags, sum = 0, *copy;
	int cpu;

	raw_spin_lock_irqsave(&kc_r31_lock, flags);
	for_each_possible_cpu(cpu) {
		copy = per_cpu_ptr(kc_r31_counts, cpu);
		OPTIMIZER_HIDE_VAR(copy);
		sum += *copy;
	}
	kc_r31_total = sum;
	raw_spin_unlock_irqrestore(&kc_r31_lock, flags);
}

/* x86-64 embeds the first chunk in the direct map: later ones are vmalloc */
static bool kc_percpu_later_chunk(void __percpu *p)
{
	return is_vmalloc_addr(per_cpu_ptr(p, 0));
}

#define KC_R31_FILLERS	2048

/*
 * A counter past the first chunk: fillers take what the first chunk has
 * left, pages first, then words, until an allocation lands past it; then
 * they go. NULL if none does within KC_R31_FILLERS.
 */
static unsigned long __percpu *kc_alloc_percpu_later(void)
{
	void __percpu **fillers;
	void __percpu *p = NULL;
	size_t size = PAGE_SIZE;
	unsigned int n = 0;

	fillers = kcalloc(KC_R31_FILLERS, sizeof(*fillers), GFP_KERNEL);
	if (!fillers)
		return NULL;
	while (n < KC_R31_FILLERS) {
		p = __alloc_percpu(size, sizeof(unsigned long));
		if (!p)
			break;
		if (kc_percpu_later_chunk(p)) {
			if (size == sizeof(unsigned long))
				break;
			/* the first chunk may keep words free still */
			free_percpu(p);
			size = sizeof(unsigned long);
			p = NULL;
			continue;
		}
		fillers[n++] = p;
		p = NULL;
	}
	while (n--)
		free_percpu(fillers[n]);
	kfree(fillers);
	return p;
}

/*
 * H4: sums of per-CPU copies that hold known values (CPU k's: k + 1, and
 * -(k + 1) in a second counter), read through per_cpu_ptr() as
 * percpu_counter's sum reads them: an add from memory, and a
 * sign-extending load. The detector carries out some of those loads in
 * its int3 handler (kmod/emulate.c); every sum is checked, a wrong one
 * counted.
 */
static unsigned long __percpu *kc_h4_longs;
static s32 __percpu *kc_h4_ints;
static unsigned long kc_h4_sums, kc_h4_wrong;

static __always_inline long kc_sum_ints(s32 __percpu *counts)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(counts, cpu);
	return sum;
}

noinline void kc_h4_sum(void)
{
	unsigned long longs = kc_sum_copies(kc_h4_longs), want = 0;
	long ints = kc_sum_ints(kc_h4_ints);
	int cpu;

	for_each_possible_cpu(cpu)
		want += cpu + 1;
	WRITE_ONCE(kc_h4_sums, kc_h4_sums + 1);
	if (longs != want || ints != -(long)want)
		WRITE_ONCE(kc_h4_wrong, kc_h4_wrong + 1);
}

static void kc_h4_fill(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		*per_cpu_ptr(kc_h4_longs, cpu) = cpu + 1;
		*per_cpu_ptr(kc_h4_ints, cpu) = -(cpu + 1);
	}
}

/*
 * N16: the same race on a static per-CPU variable (DEFINE_PER_CPU). A
 * module's static per-CPU data shares the reserved area with the
 * detector's own, which its trap paths touch: never watched, and
 * counted as skipped_percpu_denied.
 */
static DEFINE_PER_CPU(unsigned long, kc_n16_static);
unsigned long kc_n16_total;

noinline void kc_n16_inc(void)
{
	this_cpu_inc(kc_n16_static);
}

noinline void kc_n16_peek(void)
{
	kc_n16_total = *per_cpu_ptr(&kc_n16_static, 0);
}

/*
 * N17: another CPU's copies of the per-CPU variables the entry code and
 * the int3, #DB, NMI and IPI paths use, read through plain pointers (as a
 * debugger or a statistics reader would): the debug-register shadow, the
 * current task, the preempt count, the CPU number, the TSS, the NMI count,
 * and a module's own static per-CPU data. Reads only, of words the owner
 * keeps changing: harmless to the kernel, and never watched by the
 * detector (a watch there fires on the owner's own trap paths).
 */
static const struct {
	const char *name;
	void __percpu *var;
	size_t size;
} kc_n17_vars[] = {
	{ "cpu_dr7", &cpu_dr7, sizeof(unsigned long) },
	{ "current_task", &current_task, sizeof(void *) },
	{ "preempt_count", &__preempt_count, sizeof(int) },
	{ "cpu_number", &cpu_number, sizeof(int) },
	{ "tss_sp0", &cpu_tss_rw.x86_tss.sp0, sizeof(u64) },
	{ "nmi_count", &irq_stat.__nmi_count, sizeof(unsigned int) },
	{ "module_static", &kc_n16_static, sizeof(unsigned long) },
};
unsigned long kc_n17_sink;

noinline void kc_n17_peek(void)
{
	int cpu = cpumask_first(cpu_online_mask);

	kc_n17_sink += per_cpu(cpu_dr7, cpu);
	kc_n17_sink += (unsigned long)per_cpu(current_task, cpu);
	kc_n17_sink += per_cpu(__preempt_count, cpu);
	kc_n17_sink += per_cpu(cpu_number, cpu);
	kc_n17_sink += per_cpu(cpu_tss_rw, cpu).x86_tss.sp0;
	kc_n17_sink += per_cpu(irq_stat, cpu).__nmi_count;
	kc_n17_sink += per_cpu(kc_n16_static, cpu);
}

/*
 * N18 (no race): a task writes a bit-field of its own task_struct, one of
 * those only the task itself writes while it runs ("strictly current").
 * A sleeping window of the detector puts the task to sleep at that store,
 * and the wakeup that ends the sleep reads and writes the same word
 * (in_iowait, sched_remote_wakeup): the detector's own doing, never a
 * harmful report. user_dumpable is only read for a task without its mm
 * at a core dump, which a kthread never has.
 */
noinline void kc_n18_own_bits(void)
{
	current->user_dumpable = 0;
}

/*
 * N19 (no race): a kernel thread reads its own active_mm, which only the
 * switches away from it and back write (NULL on the way out, the borrowed
 * mm on the way in). A sleeping window of the detector switches the task
 * away at that load: the switch is the racer, the detector's own doing.
 */
struct mm_struct *kc_n19_seen;

noinline void kc_n19_own_switch(void)
{
	WRITE_ONCE(kc_n19_seen, current->active_mm);
}

/*
 * N20: two threads on one CPU add to that CPU's copy of an alloc_percpu()
 * counter with this_cpu_inc(): one instruction each, whole on the CPU, so
 * nothing races. A sleeping window at one lets the other run first, on
 * the same copy: own-cpu, never a full report.
 */
static unsigned long __percpu *kc_n20_counts;

noinline void kc_n20_inc(void)
{
	this_cpu_inc(*kc_n20_counts);
}

/*
 * N21: N20's counter, one thread reading its CPU's copy through a
 * pointer, preemptible (raw_cpu_ptr(), as SLUB's fast paths read their
 * CPU's kmem_cache_cpu before validating it), the other adding on the same
 * CPU: still one instruction each, whole on the CPU. own-cpu, never a full
 * report.
 */
unsigned long kc_n21_seen;

noinline void kc_n21_peek(void)
{
	WRITE_ONCE(kc_n21_seen, *raw_cpu_ptr(kc_n20_counts));
}

/*
 * R30 and N22: one helper reads a CPU's copy for every caller, as generic
 * per-CPU code does. R30 sums R27's counter through it, racing with R27's
 * adder; N22 peeks at another CPU's cpu_dr7 through it, which is never
 * watched. Run one after the other, the helper's read is watched, then
 * refused at every sample: the refusals must not make the table drop a
 * site that watched other data.
 */
noinline unsigned long kc_r30_copy(const unsigned long __percpu *var,
				   int cpu)
{
	return *per_cpu_ptr(var, cpu);
}

unsigned long kc_r30_total;

noinline void kc_r30_sum(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += kc_r30_copy(kc_r27_counts, cpu);
	WRITE_ONCE(kc_r30_total, sum);
}

unsigned long kc_n22_sink;

noinline void kc_n22_peek(void)
{
	WRITE_ONCE(kc_n22_sink,
		   kc_r30_copy(&cpu_dr7, cpumask_first(cpu_online_mask)));
}

/*
 * ---- R32: a writer its CPU's watch reaches too late ----
 * The writer stores for a few milliseconds at a time with interrupts off,
 * so an arming IPI sent meanwhile waits until it is done; the reader loads
 * the word only while the writer is at it. A window on the load sees the
 * value move on a CPU its watch has not reached: no trap can name that
 * writer, only the value read before the arming shows the race. The
 * writer's next stores come after a pause longer than any window, so no
 * later trap names it either.
 */
#define KC_R32_HOLD_NS		(4 * NSEC_PER_MSEC)

int kc_r32_word;
static atomic_t kc_r32_holding;

noinline void kc_r32_write(int v)
{
	kc_r32_word = v;
}

noinline int kc_r32_read(void)
{
	return kc_r32_word;
}

static void kc_r32_writer(void)
{
	u64 end = ktime_get_mono_fast_ns() + KC_R32_HOLD_NS;
	unsigned long flags;
	int v = 0;

	local_irq_save(flags);
	atomic_set_release(&kc_r32_holding, 1);
	while (ktime_get_mono_fast_ns() < end)
		kc_r32_write(++v);
	atomic_set(&kc_r32_holding, 0);
	local_irq_restore(flags);
	usleep_range(10000, 11000);
}

static void kc_r32_reader(void)
{
	if (atomic_read_acquire(&kc_r32_holding))
		WRITE_ONCE(kc_sink, kc_r32_read());
	else
		cpu_relax();
}

/* ---- running a scenario ---- */

static int kc_worker_fn(void *data)
{
	struct kc_worker *w = data;
	unsigned int n = 0;

	while (!kthread_should_stop()) {
		if (time_before(jiffies, w->end)) {
			w->body();
			if (!(++n % 64))
				cond_resched();
			continue;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

typedef void (*kc_body_t)(void);

struct kc_scenario {
	const char *name;
	kc_body_t bodies[KC_MAX_WORKERS];
	int cpus[KC_MAX_WORKERS];
	kc_body_t stop;		/* after the threads: cancel timers */
};

static const struct kc_scenario kc_scenarios[] = {
	{ "r1", { kc_r1_inc, kc_r1_dec }, { 0, 1 } },
	{ "r2", { kc_r2_writer, kc_r2_reader }, { 0, 1 } },
	{ "r3", { kc_r3_write_a, kc_r3_write_b }, { 0, 1 } },
	{ "r4", { kc_r4_writer_a, kc_r4_write_b }, { 0, 1 } },
	{ "r5", { kc_r5_task_body }, { 0 }, kc_r5_stop },
	{ "r6", { kc_r6_task_write, kc_r6_timer_owner }, { 0, 1 }, kc_r6_stop },
	{ "r7", { kc_r7_incer, kc_r7_reader }, { 0, 1 } },
	{ "f1", { kc_f1_incer, kc_f1_reader }, { 0, 1 } },
	{ "r8", { kc_r8_reader, kc_r8_write_alias }, { 0, 1 } },
	{ "r9", { kc_r9_thread0, kc_r9_thread1 }, { 0, 1 } },
	{ "r10", { kc_r10_producer, kc_r10_consumer }, { 0, 1 } },
	{ "r11", { kc_r11_writer, kc_r11_reader }, { 0, 1 } },
	{ "r12", { kc_r12_clear_a, kc_r12_set_b }, { 0, 1 } },
	{ "b1", { kc_b1_stat_inc, kc_b1_stat_inc, kc_b1_stat_inc },
		{ 0, 1, 2 } },
	{ "b2", { kc_b2_flip_bit0, kc_b2_tester }, { 0, 1 } },
	{ "b7", { kc_b7_flip_bit0, kc_b7_tester }, { 0, 1 } },
	{ "b3", { kc_b3_reader, kc_b3_reader }, { 0, 1 } },
	{ "n1", { kc_n1_inc_locked, kc_n1_inc_locked }, { 0, 1 } },
	{ "n2", { kc_n2_inc_locked, kc_n2_inc_locked }, { 0, 1 } },
	{ "n3", { kc_n3_locked_ops, kc_n3_locked_ops }, { 0, 1 } },
	{ "n4", { kc_n4_reader, kc_n4_reader }, { 0, 1 } },
	{ "n5", { kc_n5_body, kc_n5_body }, { 0, 1 } },
	{ "n6", { kc_n6_body, kc_n6_body }, { 0, 1 } },
	/* same CPU: the allocator hands one thread's object to the other */
	{ "n7", { kc_n7_thread_a, kc_n7_thread_b }, { 1, 1 } },
	{ "m1", { kc_m1_reader, kc_m1_atomic_inc }, { 0, 1 } },
	{ "m2", { kc_m2_plain_store, kc_m2_atomic_inc }, { 0, 1 } },
	{ "h1", { kc_h1_step }, { 0 } },
	{ "h2", { kc_h2_step }, { 0 } },
	{ "h3", { kc_h3_swap, kc_h3_read_upper }, { 0, 1 } },
	{ "p1", { kc_p1_body }, { 0 } },
	{ "r13", { kc_r13_sb0, kc_r13_sb1 }, { 0, 1 } },
	{ "r14", { kc_r14_sb0, kc_r14_sb1 }, { 0, 1 } },
	{ "r15", { kc_r15_read, kc_r15_write }, { 0, 1 } },
	{ "r16", { kc_r16_get, kc_r16_get_two }, { 0, 1 } },
	{ "r17", { kc_r17_task_inc, kc_r17_timer_owner }, { 0, 1 },
		kc_r17_stop },
	{ "r18", { kc_r18_writer, kc_r18_reader, kc_r18_kind_writer },
		{ 0, 1, 2 } },
	{ "r19", { kc_r19_writer, kc_r19_reader }, { 0, 1 } },
	{ "b4", { kc_b4_stat_rx, kc_b4_stat_tx }, { 0, 1 } },
	{ "b5", { kc_b5_store_flipped, kc_b5_tester }, { 0, 1 } },
	{ "n8", { kc_n8_writer, kc_n8_reader }, { 0, 1 } },
	{ "n9", { kc_n9_reader, kc_n9_owner }, { 0, 1 } },
	{ "n10", { kc_n10_writer, kc_n10_poller }, { 0, 1 } },
	{ "r20", { kc_r20_writer, kc_r20_poller }, { 0, 1 } },
	{ "n11", { kc_n11_writer, kc_n11_reader }, { 0, 1 } },
	{ "r21", { kc_r21_writer, kc_r21_reader }, { 0, 1 } },
	{ "n12", { kc_n12_writer, kc_n12_reader }, { 0, 1 } },
	{ "r22", { kc_r22_writer, kc_r22_reader }, { 0, 1 } },
	{ "b6", { kc_b6_owner, kc_b6_waiter }, { 0, 1 } },
	{ "r23", { kc_r23_clearer, kc_r23_reader }, { 0, 1 } },
	{ "n13", { kc_n13_adder, kc_n13_reader }, { 0, 1 } },
	{ "r24", { kc_n13_adder, kc_r24_reader }, { 0, 1 } },
	{ "r25", { kc_r25_thread0, kc_r25_thread1 }, { 0, 1 } },
	{ "r26", { kc_r8_reader, kc_r26_write_late }, { 0, 1 } },
	{ "n14", { kc_n14_reader }, { 0 } },
	{ "r27", { kc_r27_add, kc_r27_sum }, { 0, 1 } },
	{ "n15", { kc_n15_add, kc_n15_sum, kc_n15_add }, { 0, 1, 2 } },
	{ "r28", { kc_r28_push, kc_r28_drain }, { 0, 1 } },
	{ "r29", { kc_r29_add, kc_r29_sum }, { 0, 1 } },
	{ "n16", { kc_n16_inc, kc_n16_peek }, { 0, 1 } },
	{ "n17", { kc_n17_peek }, { 1 } },
	{ "n18", { kc_n18_own_bits }, { 0 } },
	{ "n19", { kc_n19_own_switch }, { 0 } },
	{ "n20", { kc_n20_inc, kc_n20_inc }, { 0, 0 } },
	{ "n21", { kc_n21_peek, kc_n20_inc }, { 0, 0 } },
	{ "r30", { kc_r27_add, kc_r30_sum }, { 0, 1 } },
	{ "r31", { kc_r31_add, kc_r31_sum }, { 0, 1 } },
	{ "r32", { kc_r32_writer, kc_r32_reader }, { 0, 1 } },
	{ "n22", { kc_n22_peek }, { 1 } },
	{ "h4", { kc_h4_sum }, { 1 } },
};

/* Sleeps @ms, or less when the writer is signalled; -EINTR then. */
static int kc_wait_run(unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (time_before(jiffies, end)) {
		if (signal_pending(current))
			return -EINTR;
		msleep_interruptible(min_t(unsigned int, 50,
					   jiffies_to_msecs(end - jiffies) + 1));
	}
	return 0;
}

static int kc_run(const struct kc_scenario *sc, unsigned int ms)
{
	struct kc_worker workers[KC_MAX_WORKERS];
	struct task_struct *tasks[KC_MAX_WORKERS] = { };
	int i, ret = 0;

	for (i = 0; i < KC_MAX_WORKERS && sc->bodies[i]; i++) {
		int cpu = sc->cpus[i] % num_online_cpus();

		workers[i].body = sc->bodies[i];
		workers[i].end = jiffies + msecs_to_jiffies(ms);
		tasks[i] = kthread_create_on_cpu(kc_worker_fn, &workers[i],
						 cpu, "kc_planted/%u");
		if (IS_ERR(tasks[i])) {
			ret = PTR_ERR(tasks[i]);
			tasks[i] = NULL;
			break;
		}
	}
	for (i = 0; i < KC_MAX_WORKERS; i++)
		if (tasks[i])
			wake_up_process(tasks[i]);
	if (!ret)
		ret = kc_wait_run(ms);
	for (i = 0; i < KC_MAX_WORKERS; i++)
		if (tasks[i])
			kthread_stop(tasks[i]);
	if (sc->stop)
		sc->stop();
	return ret;
}

static ssize_t kc_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[64], name[16];
	unsigned int ms, i;
	int ret = -EINVAL;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%15s %u", name, &ms) != 2 || !ms || ms > 600000)
		return -EINVAL;
	if (mutex_lock_interruptible(&kc_run_lock))
		return -EINTR;
	for (i = 0; i < ARRAY_SIZE(kc_scenarios); i++)
		if (!strcmp(name, kc_scenarios[i].name))
			ret = kc_run(&kc_scenarios[i], ms);
	mutex_unlock(&kc_run_lock);
	return ret ? ret : count;
}

static const struct file_operations kc_run_fops = {
	.owner = THIS_MODULE,
	.write = kc_run_write,
};

/* Addresses of the shared data, as %px would print them (no 0x). */
static const struct {
	const char *name;
	const void *addr;
} kc_facts_addrs[] = {
	{ "r1_count", &kc_r1_count },
	{ "r2_x", &kc_r2_x },
	{ "r3_word", &kc_r3_word },
	{ "r4_word", &kc_r4_word },
	{ "r5_shared", &kc_r5_shared },
	{ "r6_shared", &kc_r6_shared },
	{ "r9_x", &kc_r9_x },
	{ "r9_y", &kc_r9_y },
	{ "r10_data", &kc_r10_data },
	{ "r10_flag", &kc_r10_flag },
	{ "r11_word", &kc_r11_word },
	{ "r12_flags", &kc_r12_flags },
	{ "b1_stat", &kc_b1_stat },
	{ "b2_bits", &kc_b2_bits },
	{ "b7_word", &kc_b7_word },
	{ "b3_jiffies", (const void *)&jiffies },
	{ "n1_count", &kc_n1_count },
	{ "n2_count", &kc_n2_count },
	{ "n3_atomic", &kc_n3_atomic },
	{ "n4_value", &kc_n4_value },
	{ "r16_ref", &kc_r16_ref },
	{ "r17_count", &kc_r17_count },
	{ "r18_len", &kc_r18_hdr.len },
	{ "r19_seq", &kc_r19_rec.seq },
	{ "r23_seq", &kc_r23_rec.seq },
	{ "b4_stat", &kc_b4_stat },
};

static void kc_fact_addr(struct seq_file *m, const char *name,
			 const void *addr)
{
	seq_printf(m, "%s %lx\n", name, (unsigned long)addr);
}

static int kc_facts_show(struct seq_file *m, void *v)
{
	unsigned int i;
	char name[32];
	int cpu;

	for (i = 0; i < ARRAY_SIZE(kc_facts_addrs); i++)
		kc_fact_addr(m, kc_facts_addrs[i].name, kc_facts_addrs[i].addr);
	kc_fact_addr(m, "r7_obj", kc_r7_obj);
	kc_fact_addr(m, "r7_field", &kc_r7_obj->field);
	seq_printf(m, "r7_offset %zu\n", offsetof(struct kc_r7_obj, field));
	seq_printf(m, "r7_ksize %zu\n", ksize(kc_r7_obj));
	seq_printf(m, "f1_offset %zu\n", offsetof(struct kc_f1_obj, stats.writes));
	seq_printf(m, "f1_field_size %zu\n", sizeof(kc_f1_obj->stats.writes));
	kc_fact_addr(m, "r8_direct", kc_r8_direct);
	kc_fact_addr(m, "r8_alias", kc_r8_alias);
	kc_fact_addr(m, "n14_regs", (void __force *)kc_n14_regs);
	seq_printf(m, "h4_sums %lu\nh4_wrong %lu\n", READ_ONCE(kc_h4_sums),
		   READ_ONCE(kc_h4_wrong));
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "r27_cpu%d", cpu);
		kc_fact_addr(m, name, per_cpu_ptr(kc_r27_counts, cpu));
		snprintf(name, sizeof(name), "r29_cpu%d", cpu);
		kc_fact_addr(m, name, per_cpu_ptr(kc_r29_counts, cpu));
		snprintf(name, sizeof(name), "r31_cpu%d", cpu);
		kc_fact_addr(m, name, per_cpu_ptr(kc_r31_counts, cpu));
	}
	seq_printf(m, "r31_later_chunk %d\n",
		   kc_percpu_later_chunk(kc_r31_counts));
	/* N17's words, the copies of the first online CPU: "address size" */
	for (i = 0; i < ARRAY_SIZE(kc_n17_vars); i++)
		seq_printf(m, "n17_%s %lx %zu\n", kc_n17_vars[i].name,
			   (unsigned long)per_cpu_ptr(kc_n17_vars[i].var,
					cpumask_first(cpu_online_mask)),
			   kc_n17_vars[i].size);
	seq_printf(m, "n7_size %zu\n", sizeof(struct kc_n7_obj));
	seq_printf(m, "n7_allocs %ld\n", atomic_long_read(&kc_n7_allocs));
	seq_printf(m, "n7_reused %ld\n", atomic_long_read(&kc_n7_reused));
	seq_printf(m, "n9_bulk_frees %ld\n",
		   atomic_long_read(&kc_n9_bulk_frees));
	seq_printf(m, "p1_plugged_runs %ld\n",
		   atomic_long_read(&kc_p1_plugged_runs));
	seq_printf(m, "p1_schedule_flushes %ld\n",
		   atomic_long_read(&kc_p1_schedule_flushes));
	seq_printf(m, "h3_swaps %ld\n", atomic_long_read(&kc_h3_swaps));
	seq_printf(m, "h3_torn %ld\n", atomic_long_read(&kc_h3_torn));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_facts);

/*
 * Every online CPU's debug registers, for tests that check nothing of the
 * detector stays armed after it is unloaded.
 */
struct kc_drs {
	unsigned long dr[4], dr7;
};

static void kc_read_drs(void *info)
{
	struct kc_drs *d = info;

	get_debugreg(d->dr[0], 0);
	get_debugreg(d->dr[1], 1);
	get_debugreg(d->dr[2], 2);
	get_debugreg(d->dr[3], 3);
	get_debugreg(d->dr7, 7);
}

static int kc_drs_show(struct seq_file *m, void *v)
{
	struct kc_drs d;
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (smp_call_function_single(cpu, kc_read_drs, &d, 1))
			continue;
		seq_printf(m, "cpu%d dr7=%lx dr0=%lx dr1=%lx dr2=%lx dr3=%lx\n",
			   cpu, d.dr7, d.dr[0], d.dr[1], d.dr[2], d.dr[3]);
	}
	cpus_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kc_drs);

/*
 * Another user of the debug registers, as perf is: a wide hardware
 * breakpoint on R1's counter (write "1", and "0" to take it out), whose
 * hits count. Reading gives the count. A test runs it beside the detector,
 * which watches the same word, and checks both keep working. A second one,
 * the decoy, watches a word nothing writes: set before the detector loads,
 * it holds the register below the detector's, and taking it out frees that
 * register for perf to move the detector's into.
 */
struct kc_wide_bp {
	struct perf_event * __percpu *events;
	void *addr;
	atomic_long_t hits;
};

static int kc_decoy_word;
static struct kc_wide_bp kc_perf_bp = { .addr = &kc_r1_count };
static struct kc_wide_bp kc_decoy_bp = { .addr = &kc_decoy_word };
static DEFINE_MUTEX(kc_wide_bp_lock);

static void kc_wide_bp_hit(struct perf_event *bp,
			   struct perf_sample_data *data, struct pt_regs *regs)
{
	struct kc_wide_bp *w = bp->overflow_handler_context;

	atomic_long_inc(&w->hits);
}

static int kc_wide_bp_set(struct kc_wide_bp *w, bool on)
{
	struct perf_event_attr attr;
	int ret = 0;

	mutex_lock(&kc_wide_bp_lock);
	if (on && !w->events) {
		hw_breakpoint_init(&attr);
		attr.bp_addr = (unsigned long)w->addr;
		attr.bp_len = HW_BREAKPOINT_LEN_4;
		attr.bp_type = HW_BREAKPOINT_W;
		w->events = register_wide_hw_breakpoint(&attr, kc_wide_bp_hit,
							w);
		if (IS_ERR((void __force *)w->events)) {
			ret = PTR_ERR((void __force *)w->events);
			w->events = NULL;
		}
	} else if (!on && w->events) {
		unregister_wide_hw_breakpoint(w->events);
		w->events = NULL;
	}
	mutex_unlock(&kc_wide_bp_lock);
	return ret;
}

static ssize_t kc_wide_bp_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	bool on;
	int ret = kstrtobool_from_user(buf, count, &on);

	if (!ret)
		ret = kc_wide_bp_set(file->private_data, on);
	return ret ? ret : count;
}

static ssize_t kc_wide_bp_read(struct file *file, char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct kc_wide_bp *w = file->private_data;
	char text[32];
	int len = scnprintf(text, sizeof(text), "%ld\n",
			    atomic_long_read(&w->hits));

	return simple_read_from_buffer(buf, count, ppos, text, len);
}

static const struct file_operations kc_wide_bp_fops = {
	.open = simple_open,
	.write = kc_wide_bp_write,
	.read = kc_wide_bp_read,
};

/*
 * ---- Site layout (never run): a load as a function's first instruction
 * (notrace: no ftrace nop before it), and the same load after the nop.
 * kcollider never makes a function's first instruction a site.
 */
int kc_layout_word;

notrace noinline int kc_layout_first_load(void)
{
	return READ_ONCE(kc_layout_word);
}

noinline int kc_layout_later_load(void)
{
	return READ_ONCE(kc_layout_word);
}

/*
 * Any write: wait for every RCU callback queued so far, so that a memory
 * reading taken next does not count what is merely waiting to be freed.
 */
static ssize_t kc_rcu_barrier_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	rcu_barrier();
	return count;
}

static const struct file_operations kc_rcu_barrier_fops = {
	.write = kc_rcu_barrier_write,
};

static int __init kc_planted_init(void)
{
	kc_r7_obj = kzalloc(sizeof(*kc_r7_obj), GFP_KERNEL);
	if (!kc_r7_obj)
		return -ENOMEM;
	kc_f1_cache = kmem_cache_create("kc_f1_obj", sizeof(struct kc_f1_obj),
					0, 0, kc_f1_ctor);
	if (!kc_f1_cache)
		goto free_r7;
	kc_f1_obj = kmem_cache_alloc(kc_f1_cache, GFP_KERNEL);
	if (!kc_f1_obj)
		goto free_f1_cache;
	kc_n9_cache = kmem_cache_create("kc_n9_obj", sizeof(struct kc_n9_obj),
					0, SLAB_TYPESAFE_BY_RCU, NULL);
	if (!kc_n9_cache)
		goto free_f1;
	kc_r8_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!kc_r8_page)
		goto free_n9_cache;
	kc_r8_direct = page_address(kc_r8_page);
	kc_r8_alias = vmap(&kc_r8_page, 1, VM_MAP, PAGE_KERNEL);
	if (!kc_r8_alias)
		goto free_r8;
	hrtimer_init(&kc_r5_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	kc_r5_timer.function = kc_r5_timer_fn;
	hrtimer_init(&kc_r6_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_SOFT);
	kc_r6_timer.function = kc_r6_timer_fn;
	hrtimer_init(&kc_r17_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_SOFT);
	kc_r17_timer.function = kc_r17_timer_fn;
	kc_r27_counts = alloc_percpu(unsigned long);
	kc_h3_pairs = __alloc_percpu(sizeof(struct kc_h3_pair), 16);
	kc_n15_counts = alloc_percpu(unsigned long);
	kc_r28_lists = alloc_percpu(struct kc_r28_list);
	kc_r29_counts = alloc_percpu(unsigned long);
	kc_n20_counts = alloc_percpu(unsigned long);
	kc_h4_longs = alloc_percpu(unsigned long);
	kc_h4_ints = alloc_percpu(s32);
	kc_r31_counts = kc_alloc_percpu_later();
	if (!kc_r27_counts || !kc_n15_counts || !kc_r28_lists ||
	    !kc_r29_counts || !kc_n20_counts || !kc_h3_pairs ||
	    !kc_h4_longs || !kc_h4_ints || !kc_r31_counts)
		goto free_percpu;
	kc_h4_fill();
	kc_n14_map();
	kc_dir = debugfs_create_dir("kc_planted", NULL);
	debugfs_create_file("run", 0200, kc_dir, NULL, &kc_run_fops);
	debugfs_create_file("facts", 0400, kc_dir, NULL, &kc_facts_fops);
	debugfs_create_file("debugregs", 0400, kc_dir, NULL, &kc_drs_fops);
	debugfs_create_file("perf_bp", 0600, kc_dir, &kc_perf_bp,
			    &kc_wide_bp_fops);
	debugfs_create_file("decoy_bp", 0600, kc_dir, &kc_decoy_bp,
			    &kc_wide_bp_fops);
	debugfs_create_file("rcu_barrier", 0200, kc_dir, NULL,
			    &kc_rcu_barrier_fops);
	return 0;

free_percpu:
	free_percpu(kc_r31_counts);
	free_percpu(kc_n20_counts);
	free_percpu(kc_h4_longs);
	free_percpu(kc_h4_ints);
	free_percpu(kc_h3_pairs);
	free_percpu(kc_r29_counts);
	free_percpu(kc_r28_lists);
	free_percpu(kc_n15_counts);
	free_percpu(kc_r27_counts);
	vunmap(kc_r8_alias);
free_r8:
	__free_page(kc_r8_page);
free_n9_cache:
	kmem_cache_destroy(kc_n9_cache);
free_f1:
	kmem_cache_free(kc_f1_cache, kc_f1_obj);
free_f1_cache:
	kmem_cache_destroy(kc_f1_cache);
free_r7:
	kfree(kc_r7_obj);
	return -ENOMEM;
}

static void __exit kc_planted_exit(void)
{
	debugfs_remove_recursive(kc_dir);
	kc_wide_bp_set(&kc_perf_bp, false);
	kc_wide_bp_set(&kc_decoy_bp, false);
	hrtimer_cancel(&kc_r5_timer);
	hrtimer_cancel(&kc_r6_timer);
	hrtimer_cancel(&kc_r17_timer);
	if (kc_n14_regs)
		iounmap(kc_n14_regs);
	free_percpu(kc_r31_counts);
	free_percpu(kc_n20_counts);
	free_percpu(kc_h4_longs);
	free_percpu(kc_h4_ints);
	free_percpu(kc_h3_pairs);
	free_percpu(kc_r29_counts);
	free_percpu(kc_r28_lists);
	free_percpu(kc_n15_counts);
	free_percpu(kc_r27_counts);
	vunmap(kc_r8_alias);
	__free_page(kc_r8_page);
	kmem_cache_destroy(kc_n9_cache);
	kmem_cache_free(kc_f1_cache, kc_f1_obj);
	kmem_cache_destroy(kc_f1_cache);
	kfree(kc_r7_obj);
}

module_init(kc_planted_init);
module_exit(kc_planted_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kcollider test module: planted data races");
