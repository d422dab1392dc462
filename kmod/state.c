// SPDX-License-Identifier: GPL-2.0
/*
 * The state every part reads: the settings, the counters, and the lock
 * that serializes changes. It calls nothing, so that any part may read
 * it without a call back up the chain.
 */
#include <linux/mutex.h>

#include "kcollider.h"

struct kc_settings kc_settings = {
	.sample_rate = 10,
	.overhead_permille = 15,
	.max_probes = 64,
	.stall_share_permille = 250,
	.window_sleep_us = 2000,
	.window_atomic_us = 100,
	.arm_timeout_us = 2000,
	.dedup_ms = 3000,
	.sample_percpu = true,
};

struct kc_stats kc_stats;

/* Serializes every change of state: settings, targets, enable. */
DEFINE_MUTEX(kc_state_lock);

bool kc_is_enabled(void)
{
	return READ_ONCE(kc_settings.enabled);
}
