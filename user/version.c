// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider version: the tool's version (also "kcollider -V").
 */
#include <getopt.h>
#include <stdio.h>

#include <kcollider/version.h>
#include "json.h"
#include "main.h"

static void version_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s version [OPTIONS]\n"
		"\n"
		"Print the tool's version (the module's: %s status).\n"
		"\n"
		"OPTIONS:\n"
		KC_COMMON_USAGE
		"\n"
		KC_EXIT_HELP, prog_name, prog_name);
}

int do_version(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_OPT_JSON,
		KC_OPT_PRETTY,
		KC_OPT_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct json j;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, KC_COMMON_OPTS_SHORT, opts,
				  NULL)) != -1) {
		if (kc_common_option(opt))
			continue;
		version_usage(opt == 'h' ? stdout : stderr);
		return opt == 'h' ? KC_EXIT_OK : KC_EXIT_USAGE;
	}
	if (optind < argc) {
		version_usage(stderr);
		return KC_EXIT_USAGE;
	}
	if (!json_output) {
		printf("kcollider %s\n", KCOLLIDER_VERSION);
		return KC_EXIT_OK;
	}
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "version", KCOLLIDER_VERSION);
	json_obj_end(&j);
	json_line_end(&j);
	return KC_EXIT_OK;
}
