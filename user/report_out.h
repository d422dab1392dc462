/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KCOLLIDER_REPORT_OUT_H
#define KCOLLIDER_REPORT_OUT_H

#include "json.h"
#include "report_parse.h"

/* The parsed report as JSON members of the object being written. */
void kc_report_json(struct json *j, const struct kc_report *r);
/* One-paragraph human summary. */
void kc_report_text(FILE *out, const struct kc_report *r, unsigned long n);
/* "file:line: malformed report ..." on stderr for a bad report. */
void kc_report_warn(const struct kc_report *r);

#endif /* KCOLLIDER_REPORT_OUT_H */
