// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider litmus [--json] FILE...
 *
 * Decides herd7-syntax x86 litmus tests with the built-in operational
 * x86-TSO machine, and under sequential consistency for comparison: is the
 * exists clause reachable?
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "json.h"
#include "litmus.h"
#include "main.h"

static void litmus_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s litmus [OPTIONS] FILE...\n"
		"\n"
		"Run x86 litmus tests (herd7 syntax: MOV, MFENCE, XCHG, LOCK ADD) on\n"
		"an exhaustive operational x86-TSO model (store buffers, forwarding,\n"
		"MFENCE/LOCK drain) and under SC, and say whether the exists clause\n"
		"is reachable: Allowed or Forbidden. '-' reads stdin.\n"
		"\n"
		"OPTIONS:\n"
		KC_COMMON_USAGE
		"  -P, --print      print the test back in herd7 syntax first\n"
		"\n"
		"JSON: one object per test (JSON lines).\n"
		"\n"
		"Exit status: 0 if every test was decided, 1 when a file could not\n"
		"be read or parsed (the message names it and the cause), 2 on a\n"
		"usage error.\n", prog_name);
}

static const char *answer(const struct lit_result *r)
{
	return r->reachable ? "Allowed" : "Forbidden";
}

static void print_result(const struct litmus *t, const struct lit_result *tso,
			 const struct lit_result *sc)
{
	struct json j;

	if (!json_output) {
		printf("%-16s TSO: %-9s (%lu of %lu final states)  SC: %-9s (%lu of %lu)\n",
		       t->name, answer(tso), tso->positive, tso->finals,
		       answer(sc), sc->positive, sc->finals);
		return;
	}
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "test", t->name);
	json_bool(&j, "tso", tso->reachable);
	json_bool(&j, "sc", sc->reachable);
	json_int(&j, "tso_finals", tso->finals);
	json_int(&j, "tso_positive", tso->positive);
	json_int(&j, "tso_states", tso->states);
	json_int(&j, "sc_finals", sc->finals);
	json_int(&j, "sc_positive", sc->positive);
	json_obj_end(&j);
	json_line_end(&j);
}

static int run_one(const char *path, bool print)
{
	struct lit_result tso, sc;
	struct litmus t;
	char err[160];
	FILE *f;
	int ret;

	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		kc_error("litmus: %s: %s", path, strerror(errno));
		return 1;
	}
	ret = lit_parse_file(f, &t, err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (ret) {
		kc_error("litmus: %s: %s", path, err);
		return 1;
	}
	if (print)
		lit_print(stdout, &t);
	if (lit_check(&t, LIT_TSO, &tso) || lit_check(&t, LIT_SC, &sc)) {
		kc_error("litmus: %s: out of memory", path);
		return 1;
	}
	print_result(&t, &tso, &sc);
	return 0;
}

int do_litmus(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_OPT_JSON,
		KC_OPT_PRETTY,
		KC_OPT_HELP,
		{ "print", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	bool print = false;
	int opt, ret = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, KC_COMMON_OPTS_SHORT "P", opts,
				  NULL)) != -1) {
		if (kc_common_option(opt))
			continue;
		switch (opt) {
		case 'P':
			print = true;
			break;
		case 'h':
			litmus_usage(stdout);
			return 0;
		default:
			litmus_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		litmus_usage(stderr);
		return 2;
	}
	for (; optind < argc; optind++)
		ret |= run_one(argv[optind], print);
	return ret;
}
