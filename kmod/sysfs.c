// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/kcollider/: the run-time knobs and the counters.
 *
 * Every store parses its whole input with the shared strict parsers
 * (include/kcollider/parse.h, unit-tested on the host) and touches the
 * setting only when the input is valid and in range, so a bad write
 * returns -EINVAL and leaves the previous value in place.
 */
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <kcollider/parse.h>
#include <kcollider/version.h>
#include "kcollider.h"
#include "report_style.h"

static struct kobject *kc_kobj;

/* A numeric knob: where it lives and what it may be set to. */
struct kc_uint_attr {
	struct kobj_attribute attr;
	unsigned int *value;
	unsigned int min;
	unsigned int max;
};

static ssize_t kc_uint_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct kc_uint_attr *a = container_of(attr, struct kc_uint_attr, attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(*a->value));
}

static ssize_t kc_uint_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct kc_uint_attr *a = container_of(attr, struct kc_uint_attr, attr);
	u64 v;
	int ret;

	ret = kc_parse_u64_range(buf, count, a->min, a->max, &v);
	if (ret)
		return ret;
	mutex_lock(&kc_state_lock);
	WRITE_ONCE(*a->value, v);
	mutex_unlock(&kc_state_lock);
	return count;
}

#define KC_UINT_ATTR(_name, _field, _min, _max)				\
	static struct kc_uint_attr kc_attr_##_name = {			\
		.attr = __ATTR(_name, 0644, kc_uint_show, kc_uint_store),\
		.value = &kc_settings._field,				\
		.min = _min,						\
		.max = _max,						\
	}

KC_UINT_ATTR(sample_rate, sample_rate, 1, 100000);
KC_UINT_ATTR(overhead_permille, overhead_permille, 1, 1000);
KC_UINT_ATTR(max_probes, max_probes, 1, KC_MAX_PROBES);
KC_UINT_ATTR(stall_share_permille, stall_share_permille, 1, 1000);
KC_UINT_ATTR(window_sleep_us, window_sleep_us, 1, 100000);
KC_UINT_ATTR(window_atomic_us, window_atomic_us, 1, 1000);
KC_UINT_ATTR(arm_timeout_us, arm_timeout_us, 1, 10000);
KC_UINT_ATTR(dedup_ms, dedup_ms, 0, 3600000);

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", kc_is_enabled());
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

static ssize_t sample_percpu_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(kc_settings.sample_percpu));
}

/* Which sites exist depends on it: applies to targets added afterwards. */
static ssize_t sample_percpu_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = kc_parse_bool(buf, count, &on);
	if (ret)
		return ret;
	WRITE_ONCE(kc_settings.sample_percpu, on);
	return count;
}

static ssize_t strict_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return kc_filters_strict_show(buf);
}

static ssize_t strict_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	return kc_filters_strict_store(buf, count);
}

static ssize_t benign_full_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return kc_benign_full_show(buf);
}

static ssize_t benign_full_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	return kc_benign_full_store(buf, count);
}

static ssize_t filters_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return kc_filters_show(buf);
}

static ssize_t filters_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	return kc_filters_store(buf, count);
}

static ssize_t suppress_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return kc_suppress_show(buf, PAGE_SIZE);
}

static ssize_t suppress_store(struct kobject *kobj,
			      struct kobj_attribute *attr, const char *buf,
			      size_t count)
{
	int ret;

	if (!kc_parse_ascii_text(buf, count))
		return -EINVAL;
	ret = kc_suppress_write(buf, count);
	return ret ? ret : count;
}

static ssize_t targets_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return kc_targets_show(buf, PAGE_SIZE);
}

static ssize_t targets_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	int ret;

	if (!kc_parse_ascii_text(buf, count))
		return -EINVAL;
	ret = kc_targets_write(buf, count);
	return ret ? ret : count;
}

static ssize_t marks_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return kc_marks_show(buf, PAGE_SIZE);
}

static ssize_t marks_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int ret;

	if (!kc_parse_ascii_text(buf, count))
		return -EINVAL;
	ret = kc_marks_write(buf, count);
	return ret ? ret : count;
}

static ssize_t watch_slots_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", kc_settings.nr_slots);
}

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", KCOLLIDER_VERSION);
}

static ssize_t report_style_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return kc_report_style_show(buf);
}

static ssize_t report_style_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	return kc_report_style_store(buf, count);
}

static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);
static struct kobj_attribute targets_attr = __ATTR_RW(targets);
static struct kobj_attribute sample_percpu_attr = __ATTR_RW(sample_percpu);
static struct kobj_attribute watch_slots_attr = __ATTR_RO(watch_slots);
static struct kobj_attribute version_attr = __ATTR_RO(version);
static struct kobj_attribute strict_attr = __ATTR_RW(strict);
static struct kobj_attribute benign_full_attr = __ATTR_RW(benign_full);
static struct kobj_attribute filters_attr = __ATTR_RW(filters);
static struct kobj_attribute suppress_attr = __ATTR_RW(suppress);
static struct kobj_attribute report_style_attr = __ATTR_RW(report_style);
static struct kobj_attribute marks_attr = __ATTR_RW(marks);

static struct attribute *kc_attrs[] = {
	&enabled_attr.attr,
	&targets_attr.attr,
	&sample_percpu_attr.attr,
	&kc_attr_sample_rate.attr.attr,
	&kc_attr_overhead_permille.attr.attr,
	&kc_attr_max_probes.attr.attr,
	&kc_attr_stall_share_permille.attr.attr,
	&kc_attr_window_sleep_us.attr.attr,
	&kc_attr_window_atomic_us.attr.attr,
	&kc_attr_arm_timeout_us.attr.attr,
	&kc_attr_dedup_ms.attr.attr,
	&watch_slots_attr.attr,
	&version_attr.attr,
	&strict_attr.attr,
	&benign_full_attr.attr,
	&filters_attr.attr,
	&suppress_attr.attr,
	&report_style_attr.attr,
	&marks_attr.attr,
	NULL,
};

static const struct attribute_group kc_attr_group = {
	.attrs = kc_attrs,
};

static struct kobj_attribute *kc_attr_named(const char *name)
{
	struct attribute **a;

	for (a = kc_attrs; *a; a++)
		if (!strcmp((*a)->name, name))
			return container_of(*a, struct kobj_attribute, attr);
	return NULL;
}

/* A module parameter's value, through the attribute's own parser. */
int kc_sysfs_store_setting(const char *name, const char *val)
{
	struct kobj_attribute *attr = kc_attr_named(name);
	ssize_t ret;

	if (!attr || !attr->store)
		return -ENOENT;
	ret = attr->store(kc_kobj, attr, val, strlen(val));
	return ret < 0 ? ret : 0;
}

int kc_sysfs_show_setting(const char *name, char *buf)
{
	struct kobj_attribute *attr = kc_attr_named(name);

	if (!attr || !attr->show)
		return -ENOENT;
	return attr->show(kc_kobj, attr, buf);
}

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
