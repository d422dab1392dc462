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

static DEFINE_MUTEX(kc_cpusync_test_lock);
static atomic_t kc_cpusync_test_state;	/* 0 idle, 1 holding, 2 let go */
static call_single_data_t kc_cpusync_test_csd;

/* The self-test's: this CPU's interrupts off until let go, bounded. */
static void kc_cpusync_test_hold(void *unused)
{
	u64 end = ktime_get_mono_fast_ns() + KC_CPUSYNC_TEST_MS * NSEC_PER_MSEC;

	atomic_set(&kc_cpusync_test_state, 1);
	while (atomic_read(&kc_cpusync_test_state) == 1 &&
	       ktime_get_mono_fast_ns() < end)
		cpu_relax();
	atomic_set(&kc_cpusync_test_state, 0);
	atomic_dec(&kc_cpusync_in_flight);
}

static bool kc_cpusync_wait_done(unsigned long gen, unsigned int ms)
{
	u64 end = ktime_get_mono_fast_ns() + ms * NSEC_PER_MSEC;

	while (!kc_cpusync_done(gen) && ktime_get_mono_fast_ns() < end)
		usleep_range(1000, 1100);
	return kc_cpusync_done(gen);
}

static bool kc_cpusync_wait_held(void)
{
	u64 end = ktime_get_mono_fast_ns() + KC_CPUSYNC_TEST_MS * NSEC_PER_MSEC;

	while (atomic_read(&kc_cpusync_test_state) != 1 &&
	       ktime_get_mono_fast_ns() < end)
		usleep_range(1000, 1100);
	return atomic_read(&kc_cpusync_test_state) == 1;
}

/*
 * Another CPU keeps its interrupts off: a kick is not answered meanwhile
 * (-EIO if it is), and is once they are on again (-ETIMEDOUT if not;
 * -EAGAIN if the other CPU was not held in time).
 * -ENODEV on a single CPU. Process context.
 */
int kc_cpusync_selftest(void)
{
	unsigned long gen;
	int other, ret = 0;

	other = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (other >= nr_cpu_ids)
		return -ENODEV;
	mutex_lock(&kc_cpusync_test_lock);
	INIT_CSD(&kc_cpusync_test_csd, kc_cpusync_test_hold, NULL);
	atomic_inc(&kc_cpusync_in_flight);
	if (smp_call_function_single_async(other, &kc_cpusync_test_csd)) {
		atomic_dec(&kc_cpusync_in_flight);
		mutex_unlock(&kc_cpusync_test_lock);
		return -EBUSY;
	}
	if (!kc_cpusync_wait_held())
		ret = -EAGAIN;
	gen = kc_cpusync_kick();
	if (!ret && kc_cpusync_wait_done(gen, KC_CPUSYNC_QUIET_MS) &&
	    atomic_read(&kc_cpusync_test_state) == 1)
		ret = -EIO;
	atomic_cmpxchg(&kc_cpusync_test_state, 1, 2);
	if (!ret && !kc_cpusync_wait_done(gen, KC_CPUSYNC_TEST_MS))
		ret = -ETIMEDOUT;
	/* the holder is done with its state before the next test */
	while (atomic_read(&kc_cpusync_test_state))
		usleep_range(1000, 1100);
	mutex_unlock(&kc_cpusync_test_lock);
	return ret;
}

void kc_cpusync_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		INIT_CSD(per_cpu_ptr(&kc_cpusync_csd, cpu), kc_cpusync_answer,
			 NULL);
}

/* No kick after this starts: every answer has returned when it ends. */
void kc_cpusync_exit(void)
{
	while (atomic_read(&kc_cpusync_in_flight))
		usleep_range(1000, 2000);
	/* an answer runs with interrupts off: an RCU reader to its return */
	synchronize_rcu();
}
