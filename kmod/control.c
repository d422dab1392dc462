// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling on and off, under the state lock: sysfs, debugfs, the module
 * parameters and a targets change that cannot go on come here.
 */
#include <linux/mutex.h>

#include "kcollider.h"

/* kc_state_lock held: sampling could not start, or go on, after all. */
void kc_sampling_failed(void)
{
	WRITE_ONCE(kc_settings.enabled, false);
}

int kc_set_enabled(bool on)
{
	int ret = 0;

	mutex_lock(&kc_state_lock);
	if (on != kc_settings.enabled) {
		WRITE_ONCE(kc_settings.enabled, on);
		if (on) {
			ret = kc_sampler_start();
			if (ret)
				kc_sampling_failed();
		} else {
			kc_sampler_stop();
		}
	}
	mutex_unlock(&kc_state_lock);
	return ret;
}
