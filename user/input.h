/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KCOLLIDER_INPUT_H
#define KCOLLIDER_INPUT_H

#include <stdbool.h>

#include "report_parse.h"

/* Where reports come from. */
enum kc_input_kind {
	KC_IN_FILE,	/* a file, or stdin for "-" */
	KC_IN_KMSG,	/* /dev/kmsg: the kernel log, records as dmesg has them */
	KC_IN_DEBUGFS,	/* the module's debugfs report file */
};

#define KC_DEBUGFS_REPORTS "/sys/kernel/debug/kcollider/reports"

struct kc_input {
	enum kc_input_kind kind;
	const char *path;	/* KC_IN_FILE: file name or "-" */
	bool follow;		/* keep reading as the log grows */
};

/* Parse every report of @in, calling @cb for each. 0 or -errno. */
int kc_input_parse(const struct kc_input *in, kc_report_cb cb, void *data,
		   unsigned long *nreports, unsigned long *nbad);

/*
 * Can @in be opened (a directory cannot)? 0 or -errno; the commands check
 * before slower work, so a wrong file name is the first thing said.
 */
int kc_input_check(const struct kc_input *in);
/* The error message for @err of @in, naming the file and the cause. */
void kc_input_error(const char *cmd, const struct kc_input *in, int err);

/*
 * Common options of the commands that read reports; returns 1 if @opt was
 * one of them, 0 if not, -1 on a bad argument.
 */
int kc_input_option(struct kc_input *in, int opt, const char *arg);
/*
 * Those options: in the getopt string, and in the option table as
 * KC_OPT_FOLLOW, KC_OPT_KMSG, KC_OPT_DMESG, KC_OPT_DEBUGFS (in that order).
 */
#define KC_INPUT_OPTS_SHORT "fKD"
#define KC_OPT_FOLLOW	{ "follow", no_argument, NULL, 'f' }
#define KC_OPT_KMSG	{ "kmsg", no_argument, NULL, 'K' }
#define KC_OPT_DMESG	{ "dmesg", no_argument, NULL, 'K' }
#define KC_OPT_DEBUGFS	{ "debugfs", no_argument, NULL, 'D' }
#define KC_INPUT_USAGE \
	"  -K, --kmsg, --dmesg  read the kernel log (/dev/kmsg)\n" \
	"  -D, --debugfs    read the module's report file (" KC_DEBUGFS_REPORTS ")\n" \
	"  -f, --follow     keep reading as new reports arrive (kmsg, debugfs, files)\n" \
	"  FILE | -         read a saved log or stdin (default: stdin)\n"

#endif /* KCOLLIDER_INPUT_H */
