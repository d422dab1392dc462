// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider: a DataCollider-style data-race detector for stock kernels.
 *
 * Load and unload. Unload must leave nothing behind: it stops sampling,
 * unregisters every probe, waits for every stall, report and IPI, and
 * gives the debug registers back, in the reverse order of init.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

#include <kcollider/version.h>
#include "kcollider.h"

static char *targets;
module_param(targets, charp, 0400);
MODULE_PARM_DESC(targets, "initial targets: all, vmlinux, module:NAME, GLOB, MOD:GLOB, -SPEC (comma-separated)");

static unsigned int watch_slots = 2;
module_param(watch_slots, uint, 0400);
MODULE_PARM_DESC(watch_slots, "hardware watchpoints reserved on every CPU (1-4)");

static int __init kcollider_init(void)
{
	int ret;

	if (watch_slots < 1 || watch_slots > KC_MAX_SLOTS) {
		pr_err("watch_slots=%u: must be 1 to %d\n", watch_slots,
		       KC_MAX_SLOTS);
		return -EINVAL;
	}
	kc_settings.nr_slots = watch_slots;
	ret = kc_watch_init(watch_slots);
	if (ret)
		return ret;
	ret = kc_report_init();
	if (ret)
		goto err_watch;
	ret = kc_filters_init();
	if (ret)
		goto err_report;
	ret = kc_marks_init();
	if (ret)
		goto err_filters_only;
	kc_stall_init();
	kc_reuse_init();
	kc_context_init();
	ret = kc_sites_init();
	if (ret)
		goto err_filters;
	kc_sampler_init();
	ret = kc_targets_init();
	if (ret)
		goto err_sites;
	ret = kc_sysfs_init();
	if (ret)
		goto err_targets;
	ret = kc_params_apply(targets);
	if (ret)
		goto err_sysfs;
	kc_debugfs_init();
	pr_info("version %s loaded, %u watch slots\n", KCOLLIDER_VERSION,
		watch_slots);
	return 0;

err_sysfs:
	kc_sysfs_exit();
	kc_set_enabled(false);
err_targets:
	kc_targets_exit();
err_sites:
	kc_sampler_exit();
	kc_sites_exit();
err_filters:
	kc_stall_exit();
	kc_marks_exit();
err_filters_only:
	kc_filters_exit();
	kc_reuse_exit();
err_report:
	kc_report_exit();
err_watch:
	kc_watch_exit();
	return ret;
}

static void __exit kcollider_exit(void)
{
	kc_debugfs_exit();
	kc_sysfs_exit();
	kc_set_enabled(false);
	kc_targets_exit();
	kc_sampler_exit();
	kc_stall_exit();
	kc_sites_exit();
	kc_report_exit();
	kc_marks_exit();
	kc_filters_exit();
	kc_reuse_exit();
	kc_watch_exit();
	pr_info("unloaded\n");
}

module_init(kcollider_init);
module_exit(kcollider_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kcollider: sampling data-race detector using hardware watchpoints");
MODULE_VERSION(KCOLLIDER_VERSION);
