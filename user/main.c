// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider: the userspace side of the kcollider race detector.
 * main() parses the global options and dispatches to one subcommand, each
 * in a file of its own, as bpftool does: "kcollider [OPTIONS] COMMAND
 * [ARGS]", "kcollider help [COMMAND]" and "kcollider COMMAND help".
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"

static const struct cmd cmds[] = {
	{ "help", do_help, "this help, or a command's: help [COMMAND]" },
	{ "litmus", do_litmus, "decide x86 litmus tests under x86-TSO and SC" },
	{ "mark", do_mark, "tell the module which accesses the source marks" },
	{ "report", do_report, "list or group race reports (list | group)" },
	{ "tso", do_tso, "triangular-race analysis of reports under x86-TSO" },
	{ "status", do_status, "show the loaded module's settings and statistics" },
	{ "version", do_version, "print the tool's version" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	const struct cmd *c;

	fprintf(out,
		"Usage: %s [OPTIONS] COMMAND [ARGS]\n"
		"       %s help [COMMAND]\n"
		"       %s COMMAND help\n"
		"\n"
		"OPTIONS:\n"
		"  -j, --json       JSON output (JSON lines; errors as {\"error\": ...})\n"
		"  -p, --pretty     JSON output, indented for people (implies -j)\n"
		"  -V, --version    print the version\n"
		"  -h, --help       print this help\n"
		"\n"
		"COMMANDS:\n", prog_name, prog_name, prog_name);
	for (c = cmds; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\nEvery command takes -j, -p and -h. See kcollider(8).\n\n"
		KC_EXIT_HELP);
}

static const struct cmd *find_cmd(const char *name)
{
	const struct cmd *c;

	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* A command's own --help, however it was asked for. */
static int cmd_help(const struct cmd *c)
{
	return c->func(2, (char *[]){ (char *)c->name, "--help", NULL });
}

int do_help(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return KC_EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (!c) {
		kc_error("help: unknown command '%s' (try: %s help)", argv[1],
			 prog_name);
		return KC_EXIT_USAGE;
	}
	return cmd_help(c);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_OPT_JSON,
		KC_OPT_PRETTY,
		KC_OPT_HELP,
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd *c;
	int opt;

	while ((opt = getopt_long(argc, argv, "+" KC_COMMON_OPTS_SHORT "V", opts,
				  NULL)) != -1) {
		if (kc_common_option(opt))
			continue;
		switch (opt) {
		case 'h':
			usage(stdout);
			return KC_EXIT_OK;
		case 'V':
			return do_version(1, (char *[]){ "version", NULL });
		default:
			usage(stderr);
			return KC_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return KC_EXIT_USAGE;
	}
	c = find_cmd(argv[optind]);
	if (!c) {
		kc_error("unknown command '%s' (try: %s help)", argv[optind],
			 prog_name);
		return KC_EXIT_USAGE;
	}
	/* "kcollider CMD help", as bpftool: the command's own help. */
	if (argc - optind == 2 && !strcmp(argv[optind + 1], "help"))
		return cmd_help(c);
	return c->func(argc - optind, argv + optind);
}
