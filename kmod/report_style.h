/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report_style knob (kmod/report.c): the header line reports carry.
 * "kcollider" (default): "BUG: KCOLLIDER: data-race in a / b".
 * "kcsan": "BUG: KCSAN: data-race in a / b", the title syzkaller and
 * other KCSAN tooling already classify; benign races never say "BUG:".
 */
#ifndef KCOLLIDER_REPORT_STYLE_H
#define KCOLLIDER_REPORT_STYLE_H

#include <linux/types.h>

ssize_t kc_report_style_show(char *buf);
/* "kcsan" or "kcollider" (one trailing newline allowed), else -EINVAL. */
ssize_t kc_report_style_store(const char *buf, size_t count);

#endif /* KCOLLIDER_REPORT_STYLE_H */
