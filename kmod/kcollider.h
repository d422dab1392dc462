/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the module's parts. Each part has its own
 * file: main.c (load/unload), sysfs.c (the knobs).
 */
#ifndef KMOD_KCOLLIDER_H
#define KMOD_KCOLLIDER_H

#include <linux/types.h>

struct kc_settings {
	bool enabled;
};

extern struct kc_settings kc_settings;

int kc_sysfs_init(void);
void kc_sysfs_exit(void);

int kc_set_enabled(bool on);

#endif /* KMOD_KCOLLIDER_H */
