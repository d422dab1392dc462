/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared code that the module runs inside its int3, #DB and IPI handlers
 * takes no kprobe, as the handlers themselves do not: the kernel's
 * NOKPROBE_SYMBOL() in kernel context, a declaration of nothing in the
 * tools.
 */
#ifndef KCOLLIDER_NOKPROBE_H
#define KCOLLIDER_NOKPROBE_H

#ifdef __KERNEL__
#include <linux/kprobes.h>
#define KC_NOKPROBE(fn)	NOKPROBE_SYMBOL(fn)
#else
#define KC_NOKPROBE(fn)	struct kc_nokprobe_##fn
#endif

#endif /* KCOLLIDER_NOKPROBE_H */
