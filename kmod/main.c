// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider: a DataCollider-style data-race detector for stock kernels.
 *
 * Load and unload. Unload must leave nothing behind: it tears down in the
 * reverse order of init and only returns once every part has stopped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>

#include <kcollider/version.h>
#include "kcollider.h"

struct kc_settings kc_settings;

/* Serializes every change of state made through sysfs. */
static DEFINE_MUTEX(kc_state_lock);

int kc_set_enabled(bool on)
{
	mutex_lock(&kc_state_lock);
	WRITE_ONCE(kc_settings.enabled, on);
	mutex_unlock(&kc_state_lock);
	return 0;
}

static int __init kcollider_init(void)
{
	int ret;

	ret = kc_sysfs_init();
	if (ret)
		return ret;
	pr_info("version %s loaded\n", KCOLLIDER_VERSION);
	return 0;
}

static void __exit kcollider_exit(void)
{
	kc_set_enabled(false);
	kc_sysfs_exit();
	pr_info("unloaded\n");
}

module_init(kcollider_init);
module_exit(kcollider_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kcollider: sampling data-race detector using hardware watchpoints");
MODULE_VERSION(KCOLLIDER_VERSION);
