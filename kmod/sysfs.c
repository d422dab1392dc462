// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/kcollider/: the run-time knobs.
 *
 * Every store parses its whole input with the shared strict parsers and
 * touches the setting only when the input is valid, so a bad write returns
 * -EINVAL and leaves the previous value in place.
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include <kcollider/parse.h>
#include <kcollider/version.h>
#include "kcollider.h"

static struct kobject *kc_kobj;

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(kc_settings.enabled));
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = kc_parse_bool(buf, count, &on);
	if (ret)
		return ret;
	ret = kc_set_enabled(on);
	return ret ? ret : count;
}

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", KCOLLIDER_VERSION);
}

static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);
static struct kobj_attribute version_attr = __ATTR_RO(version);

static struct attribute *kc_attrs[] = {
	&enabled_attr.attr,
	&version_attr.attr,
	NULL,
};

static const struct attribute_group kc_attr_group = {
	.attrs = kc_attrs,
};

int kc_sysfs_init(void)
{
	int ret;

	kc_kobj = kobject_create_and_add("kcollider", kernel_kobj);
	if (!kc_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(kc_kobj, &kc_attr_group);
	if (ret) {
		kobject_put(kc_kobj);
		kc_kobj = NULL;
	}
	return ret;
}

void kc_sysfs_exit(void)
{
	sysfs_remove_group(kc_kobj, &kc_attr_group);
	kobject_put(kc_kobj);
	kc_kobj = NULL;
}
