// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters: every run-time setting of /sys/kernel/kcollider/
 * can also be given at load time, so a line in /etc/modprobe.d/ (or
 * kcollider.NAME=VALUE on the kernel command line) configures a machine
 * that loads the module at boot, with no script writing sysfs afterwards.
 *
 * A parameter is only kept as text while the module's arguments are
 * parsed; init hands it to the sysfs attribute of the same name, so it
 * meets the same strict parser and the same limits as a write there, and
 * a bad value fails the load with a message that names it. Reading
 * /sys/module/kcollider/parameters/NAME shows the setting's live value.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kcollider.h"

/* What a parameter holds until init: its text, and how to apply it. */
struct kc_param {
	char *text;
	bool list;	/* comma-separated items, one write each */
};

static int kc_param_set(const char *val, const struct kernel_param *kp)
{
	struct kc_param *param = kp->arg;
	char *copy = kstrdup(val ?: "", GFP_KERNEL);

	if (!copy)
		return -ENOMEM;
	kfree(param->text);
	param->text = copy;
	return 0;
}

static int kc_param_get(char *buffer, const struct kernel_param *kp)
{
	return kc_sysfs_show_setting(kp->name, buffer);
}

static void kc_param_free(void *arg)
{
	struct kc_param *param = arg;

	kfree(param->text);
	param->text = NULL;
}

static const struct kernel_param_ops kc_param_ops = {
	.set = kc_param_set,
	.get = kc_param_get,
	.free = kc_param_free,
};

#define KC_PARAM(_name, _list, _desc)					\
	static struct kc_param kc_param_##_name = { .list = _list };	\
	module_param_cb(_name, &kc_param_ops, &kc_param_##_name, 0444);	\
	MODULE_PARM_DESC(_name, _desc " (as /sys/kernel/kcollider/" #_name ")")

/*
 * The marks are not here: kcollider mark computes them from the running
 * kernel, after the load.
 */
KC_PARAM(overhead_permille, false,
	 "share of the CPUs' time the detector may take, in permille");
KC_PARAM(sample_rate, false, "breakpoints armed per second, at most");
KC_PARAM(max_probes, false, "breakpoints armed at once, at most");
KC_PARAM(stall_share_permille, false,
	 "share of a thread's time it may be stalled, in permille");
KC_PARAM(window_sleep_us, false, "stall window where a thread may sleep");
KC_PARAM(window_atomic_us, false, "stall window in atomic context");
KC_PARAM(arm_timeout_us, false, "deadline for arming a watchpoint on every CPU");
KC_PARAM(dedup_ms, false, "the same race is reported once per this long");
KC_PARAM(sample_percpu, false, "sample %gs-relative accesses: 0 or 1");
KC_PARAM(strict, false, "report what the benign filters would drop: 0 or 1");
KC_PARAM(benign_full, false, "benign races as full reports: 0 or 1");
KC_PARAM(filters, true, "NAME=on|off,... for the benign filters");
KC_PARAM(suppress, true, "+NAME,-NAME,clear,... for suppressed functions");
KC_PARAM(report_style, false, "kcollider or kcsan");
KC_PARAM(enabled, false, "sample from the end of the load: 0 or 1");

static int kc_param_store_list(const char *name, const char *list)
{
	const char *item = list, *end;
	char *one;
	int ret;

	do {
		end = strchrnul(item, ',');
		one = kstrndup(item, end - item, GFP_KERNEL);
		if (!one)
			return -ENOMEM;
		ret = kc_sysfs_store_setting(name, one);
		kfree(one);
		item = end + 1;
	} while (!ret && *end);
	return ret;
}

static int kc_param_apply(const struct kernel_param *kp)
{
	const struct kc_param *param = kp->arg;
	int ret;

	if (!param->text)
		return 0;
	if (param->list)
		ret = kc_param_store_list(kp->name, param->text);
	else
		ret = kc_sysfs_store_setting(kp->name, param->text);
	if (ret)
		pr_err("parameter %s=%s is invalid (%pe)\n", kp->name,
		       param->text, ERR_PTR(ret));
	return ret ? -EINVAL : 0;
}

/*
 * Once the sysfs attributes exist. The settings go first, then the initial
 * targets: which sites a target has depends on a setting (sample_percpu).
 * enabled goes last, so sampling starts with everything else in place.
 */
int kc_params_apply(const char *targets)
{
	const struct kernel_param *kp, *end = THIS_MODULE->kp +
					       THIS_MODULE->num_kp;
	int ret;

	for (kp = THIS_MODULE->kp; kp < end; kp++) {
		if (kp->ops != &kc_param_ops || kp->arg == &kc_param_enabled)
			continue;
		ret = kc_param_apply(kp);
		if (ret)
			return ret;
	}
	if (targets && *targets) {
		ret = kc_targets_write(targets, strlen(targets));
		if (ret) {
			pr_err("targets=%s: %pe\n", targets, ERR_PTR(ret));
			return ret;
		}
	}
	for (kp = THIS_MODULE->kp; kp < end; kp++)
		if (kp->arg == &kc_param_enabled)
			return kc_param_apply(kp);
	return 0;
}
