/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every command shares: the output mode, the exit statuses, the
 * options each takes and how an error is printed (common.c).
 */
#ifndef KCOLLIDER_COMMON_H
#define KCOLLIDER_COMMON_H

#include <stdbool.h>
#include <stdio.h>

extern bool json_output;
extern bool json_pretty;
extern const char *prog_name;

/* Exit statuses of every command, as each command's help says. */
enum {
	KC_EXIT_OK = 0,
	KC_EXIT_FAIL = 1,	/* input, file or module could not be read */
	KC_EXIT_USAGE = 2,	/* bad command line */
};

#define KC_EXIT_HELP \
	"Exit status: 0 on success, 1 when a file, the kernel log or the\n" \
	"module could not be read (the message names it and the cause), 2 on\n" \
	"a usage error.\n"

/*
 * Options every command takes: in its getopt string, and in its option
 * table as KC_OPT_JSON, KC_OPT_PRETTY, KC_OPT_HELP (in that order).
 */
#define KC_COMMON_OPTS_SHORT "jph"
#define KC_OPT_JSON	{ "json", no_argument, NULL, 'j' }
#define KC_OPT_PRETTY	{ "pretty", no_argument, NULL, 'p' }
#define KC_OPT_HELP	{ "help", no_argument, NULL, 'h' }
#define KC_COMMON_USAGE \
	"  -j, --json       JSON output (JSON lines; errors as {\"error\": ...})\n" \
	"  -p, --pretty     JSON output, indented for people (implies -j)\n" \
	"  -h, --help       this help (also: \"kcollider help CMD\", \"CMD help\")\n"

/*
 * -j/-p of any command; true if @opt was one of them. -h is each command's:
 * it prints that command's usage.
 */
bool kc_common_option(int opt);

/*
 * An error: "kcollider: ..." on stderr, or {"error":"..."} on stdout
 * under --json, so a script reading JSON always gets JSON.
 */
#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif
__printf(1, 2) void kc_error(const char *fmt, ...);

#endif /* KCOLLIDER_COMMON_H */
