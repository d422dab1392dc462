// SPDX-License-Identifier: GPL-2.0
/*
 * Every other CPU takes an interrupt: the wait before a removed int3's
 * page is written the second time.
 *
 * Under QEMU's multi-threaded TCG a vCPU takes an interrupt only between
 * translated blocks, and it translates and links a block in one go. So
 * once every other vCPU has answered an IPI sent after a write of text,
 * any translation made from the bytes before that write is linked, and a
 * second write drops it. A delay alone is not enough: a vCPU the host
 * held up in the middle of such a translation for longer linked a block
 * that still held the int3, and where no probe is registered any more
 * kprobes retries that int3 for ever; with interrupts off there (a
 * spin_lock_irqsave() section, the scheduler) the CPU never runs a timer
 * again, and other CPUs soon spin on its locks, interrupts off too.
 *
 * The IPIs are asynchronous and never waited for in place: a CPU with
 * interrupts off for long (spinning on a lock the sampled thread holds)
 * answers late, and the one who asks gives up after a bound. On hardware
 * the answers come in microseconds and the second write changes nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>

#include "kcollider.h"

static atomic_long_t kc_cpusync_gen = ATOMIC_LONG_INIT(0);
/* the last generation each CPU answered */
static DEFINE_PER_CPU(unsigned long, kc_cpusync_seen);
static DEFINE_PER_CPU(call_single_data_t, kc_cpusync_csd);
static atomic_t kc_cpusync_in_flight = ATOMIC_INIT(0);

static void kc_cpusync_answer(void *unused)
{
	this_cpu_write(kc_cpusync_seen, atomic_long_read(&kc_cpusync_gen));
	/* our text's last access but the return: see kc_cpusync_exit() */
	atomic_dec(&kc_cpusync_in_flight);
}
NOKPROBE_SYMBOL(kc_cpusync_answer);

/*
 * After a write of text: every other online CPU is asked for an answer.
 * Returns the generation to ask kc_cpusync_done() about. Not from int3
 * or NMI context: it sends IPIs.
 */
unsigned long kc_cpusync_kick(void)
{
	unsigned long gen;
	int cpu, self;

	/* the write of text is done before any answer can read @gen */
	gen = atomic_long_inc_return(&kc_cpusync_gen);
	self = get_cpu();
	/* this CPU runs this: whatever it translated is linked */
	this_cpu_write(kc_cpusync_seen, gen);
	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		atomic_inc(&kc_cpusync_in_flight);
		/* -EBUSY: the one still queued reads the newest generation */
		if (smp_call_function_single_async(cpu,
				per_cpu_ptr(&kc_cpusync_csd, cpu)))
			atomic_dec(&kc_cpusync_in_flight);
	}
	put_cpu();
	return gen;
}

/* Whether every online CPU answered @gen, or one after it. Any context. */
bool kc_cpusync_done(unsigned long gen)
{
	int cpu;

	for_each_online_cpu(cpu) {
		if ((long)(READ_ONCE(per_cpu(kc_cpusync_seen, cpu)) - gen) < 0)
			return false;
	}
	return true;
}

/*
 * How long the self-test keeps another CPU's interrupts off, at most, and
 * waits for anything: long, for a host that holds a vCPU up for a while.
 */
#define KC_CPUSYNC_TEST_MS	5000
/* no answer is expected for this long while they are off */
#define KC_CPUSYNC_QUIET_MS	20
/* a holder that came too late does not decide: so many tries */
#define KC_CPUSYNC_TEST_TRIES	3

/* The self-test's holder: asked, then holding, then let go, then done. */
enum kc_hold_state {
	KC_HOLD_ASKED,
	KC_HOLD_HOLDING,
	KC_HOLD_LET_GO,
	KC_HOLD_DONE,
};

static DEFINE_MUTEX(kc_cpusync_test_lock);
static atomic_t kc_cpusync_test_state;
static call_single_data_t kc_cpusync_test_csd;

/*
 * The self-test's: this CPU's interrupts off until let go, bounded. A
 * holder that runs after the test gave up on it does not hold at all.
 */
static void kc_cpusync_test_hold(void *unused)
{
	u64 end = ktime_get_mono_fast_ns() + KC_CPUSYNC_TEST_MS * NSEC_PER_MSEC;

	if (atomic_cmpxchg(&kc_cpusync_test_state, KC_HOLD_ASKED,
			   KC_HOLD_HOLDING) == KC_HOLD_ASKED)
		while (atomic_read(&kc_cpusync_test_state) == KC_HOLD_HOLDING &&
		       ktime_get_mono_fast_ns() < end)
			cpu_relax();
	atomic_set(&kc_cpusync_test_state, KC_HOLD_DONE);
	atomic_dec(&kc_cpusync_in_flight);
}

/*
 * While the other CPU is held the asker spins rather than sleeps: on
 * PREEMPT_RT a sleeper's timer expires in a softirq thread, which can wait
 * on a lock whose owner was preempted on the held CPU, so a sleep may end
 * only when the holder gives up, and the test would judge nothing.
 */
static bool kc_cpusync_spin_until(bool (*cond)(unsigned long), unsigned long arg,
				  unsigned int ms)
{
	u64 end = ktime_get_mono_fast_ns() + ms * NSEC_PER_MSEC;

	while (!cond(arg) && ktime_get_mono_fast_ns() < end) {
		cpu_relax();
		cond_resched();
	}
	return cond(arg);
}

static bool kc_cpusync_held(unsigned long unused)
{
	return atomic_read(&kc_cpusync_test_state) == KC_HOLD_HOLDING;
}

static bool kc_cpusync_answered(unsigned long gen)
{
	return kc_cpusync_done(gen);
}

static bool kc_cpusync_wait_done(unsigned long gen, unsigned int ms)
{
	u64 end = ktime_get_mono_fast_ns() + ms * NSEC_PER_MSEC;

	while (!kc_cpusync_done(gen) && ktime_get_mono_fast_ns() < end)
		usleep_range(1000, 1100);
	return kc_cpusync_done(gen);
}

/* The holder is told to let go, or not to hold if it has not started. */
static void kc_cpusync_let_go(void)
{
	int seen = atomic_read(&kc_cpusync_test_state);

	while (seen < KC_HOLD_LET_GO &&
	       !atomic_try_cmpxchg(&kc_cpusync_test_state, &seen,
				   KC_HOLD_LET_GO))
		;
}

/* The csd is free for the next try once the holder has run and returned. */
static int kc_cpusync_wait_csd_free(void)
{
	u64 end = ktime_get_mono_fast_ns() +
		  3 * KC_CPUSYNC_TEST_MS * NSEC_PER_MSEC;

	/* acquire: the holder's last writes are seen before the reuse */
	while (smp_load_acquire(&kc_cpusync_test_csd.node.u_flags) &
	       CSD_FLAG_LOCK) {
		if (ktime_get_mono_fast_ns() >= end)
			return -ETIME;
		usleep_range(1000, 1100);
	}
	return 0;
}

static int kc_cpusync_test_once(int other)
{
	unsigned long gen;
	int ret = 0, freed;

	atomic_set(&kc_cpusync_test_state, KC_HOLD_ASKED);
	atomic_inc(&kc_cpusync_in_flight);
	if (smp_call_function_single_async(other, &kc_cpusync_test_csd)) {
		atomic_dec(&kc_cpusync_in_flight);
		return -EBUSY;
	}
	if (!kc_cpusync_spin_until(kc_cpusync_held, 0, KC_CPUSYNC_TEST_MS))
		ret = -EAGAIN;
	gen = kc_cpusync_kick();
	if (!ret &&
	    kc_cpusync_spin_until(kc_cpusync_answered, gen,
				  KC_CPUSYNC_QUIET_MS) &&
	    kc_cpusync_held(0))
		ret = -EIO;
	kc_cpusync_let_go();
	if (!ret && !kc_cpusync_wait_done(gen, KC_CPUSYNC_TEST_MS))
		ret = -ETIMEDOUT;
	freed = kc_cpusync_wait_csd_free();
	return freed ?: ret;
}

/*
 * Another CPU keeps its interrupts off: a kick is not answered meanwhile
 * (-EIO if it is), and is once they are on again (-ETIMEDOUT if not).
 * -EAGAIN if the other CPU was never held in time, in any try; -ETIME if
 * its holder never ran at all; -ENODEV on a single CPU. Process context.
 */
int kc_cpusync_selftest(void)
{
	int other, tries, ret;

	other = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (other >= nr_cpu_ids)
		return -ENODEV;
	mutex_lock(&kc_cpusync_test_lock);
	for (tries = 0; tries < KC_CPUSYNC_TEST_TRIES; tries++) {
		ret = kc_cpusync_test_once(other);
		if (ret != -EAGAIN)
			break;
	}
	mutex_unlock(&kc_cpusync_test_lock);
	return ret;
}

void kc_cpusync_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		INIT_CSD(per_cpu_ptr(&kc_cpusync_csd, cpu), kc_cpusync_answer,
			 NULL);
	INIT_CSD(&kc_cpusync_test_csd, kc_cpusync_test_hold, NULL);
}

/* No kick after this starts: every answer has returned when it ends. */
void kc_cpusync_exit(void)
{
	while (atomic_read(&kc_cpusync_in_flight))
		usleep_range(1000, 2000);
	/* an answer runs with interrupts off: an RCU reader to its return */
	synchronize_rcu();
}
