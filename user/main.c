// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider: the userspace side of the kcollider race detector.
 * main() parses the global options and dispatches to one subcommand, each
 * in a file of its own, as bpftool does.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "main.h"

bool json_output;
const char *prog_name = "kcollider";

static const struct cmd cmds[] = {
	{ "litmus", do_litmus, "decide x86 litmus tests under x86-TSO and SC" },
	{ "report", do_report, "list or group race reports (list | group)" },
	{ "tso", do_tso, "triangular-race analysis of reports under x86-TSO" },
	{ "status", do_status, "show the loaded module's settings" },
	{ "version", do_version, "print the tool's version" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	const struct cmd *c;

	fprintf(out,
		"Usage: %s [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"OPTIONS:\n"
		"  -j, --json    print machine-readable JSON\n"
		"  -h, --help    print this help\n"
		"\n"
		"COMMANDS:\n", prog_name);
	for (c = cmds; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd *c;
	int opt;

	while ((opt = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json_output = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, argv[optind]))
			return c->func(argc - optind, argv + optind);
	fprintf(stderr, "%s: unknown command '%s' (try --help)\n", prog_name,
		argv[optind]);
	return 2;
}
