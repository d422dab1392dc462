// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider report { list | group } [OPTIONS] [FILE | -]
 *
 * Lists the race reports of a log, or groups them by title (the function
 * pair, which is what syzbot deduplicates on). Malformed and truncated
 * reports are listed with what could be read and the line that broke them.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "main.h"
#include "report_out.h"

struct group {
	char title[2 * KC_VAL_LEN];
	char tool[16];
	unsigned long count, bad;
	int first_line, last_line;
};

struct report_ctx {
	bool group;
	unsigned long n;
	struct group *groups;
	size_t ngroups, cap;
};

static void report_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s report [list | group] [OPTIONS] [FILE | -]\n"
		"\n"
		"Read race reports in KCSAN's layout (kcollider's and KCSAN's own)\n"
		"and list them one by one (list, the default) or grouped by title,\n"
		"the pair of racing functions (group). A malformed or truncated\n"
		"report is listed with its status and the line number that broke it,\n"
		"and a warning goes to stderr.\n"
		"\n"
		"OPTIONS:\n"
		KC_COMMON_USAGE
		KC_INPUT_USAGE
		"\n"
		"JSON: one object per report or group (JSON lines).\n"
		"\n"
		KC_EXIT_HELP
		"A report that is malformed or truncated is not an error (status 0):\n"
		"its \"status\" says so.\n", prog_name);
}

/* syzkaller's title: offsets removed, so rebuilds dedup together. */
static void normalize_title(const char *in, char *out, size_t len)
{
	size_t o = 0;

	while (*in && o + 1 < len) {
		if (*in == '+' && in[1] == '0' && in[2] == 'x') {
			in += strcspn(in, " ");
			continue;
		}
		out[o++] = *in++;
	}
	out[o] = '\0';
}

static struct group *find_group(struct report_ctx *c, const char *title)
{
	size_t i;

	for (i = 0; i < c->ngroups; i++)
		if (!strcmp(c->groups[i].title, title))
			return &c->groups[i];
	if (c->ngroups == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct group *g = realloc(c->groups, cap * sizeof(*g));

		if (!g)
			return NULL;
		c->groups = g;
		c->cap = cap;
	}
	memset(&c->groups[c->ngroups], 0, sizeof(struct group));
	snprintf(c->groups[c->ngroups].title, sizeof(c->groups[0].title), "%s", title);
	return &c->groups[c->ngroups++];
}

static int on_report(const struct kc_report *r, void *data)
{
	struct report_ctx *c = data;
	struct json j;
	char title[sizeof(r->title)];
	struct group *g;

	c->n++;
	kc_report_warn(r);
	if (!c->group) {
		if (json_output) {
			json_init(&j, stdout);
			json_obj_begin(&j, NULL);
			kc_report_json(&j, r);
			json_obj_end(&j);
			json_line_end(&j);
		} else {
			kc_report_text(stdout, r, c->n);
		}
		fflush(stdout);
		return 0;
	}
	normalize_title(r->title, title, sizeof(title));
	g = find_group(c, title);
	if (!g)
		return -1;
	if (!g->count)
		g->first_line = r->first_line;
	snprintf(g->tool, sizeof(g->tool), "%s", r->tool);
	g->count++;
	g->bad += r->status != KC_REP_OK;
	g->last_line = r->first_line;
	return 0;
}

static int cmp_groups(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->title, y->title);
}

static void print_groups(struct report_ctx *c)
{
	struct json j;
	size_t i;

	qsort(c->groups, c->ngroups, sizeof(*c->groups), cmp_groups);
	for (i = 0; i < c->ngroups; i++) {
		struct group *g = &c->groups[i];

		if (!json_output) {
			printf("%6lu  %s: %s  (lines %d..%d%s)\n", g->count, g->tool,
			       g->title, g->first_line, g->last_line,
			       g->bad ? ", some malformed" : "");
			continue;
		}
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "title", g->title);
		json_str(&j, "tool", g->tool);
		json_int(&j, "count", g->count);
		json_int(&j, "bad", g->bad);
		json_int(&j, "first_line", g->first_line);
		json_int(&j, "last_line", g->last_line);
		json_obj_end(&j);
		json_line_end(&j);
	}
}

int do_report(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_COMMON_LONGOPTS,
		KC_INPUT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct kc_input in = { .kind = KC_IN_FILE, .path = "-" };
	struct report_ctx c = { 0 };
	unsigned long n = 0, bad = 0;
	int opt, ret;

	if (argc > 1 && (!strcmp(argv[1], "list") || !strcmp(argv[1], "group"))) {
		c.group = !strcmp(argv[1], "group");
		argc--;
		argv++;
	}
	optind = 1;
	while ((opt = getopt_long(argc, argv, KC_COMMON_OPTS_SHORT KC_INPUT_OPTS_SHORT,
				  opts, NULL)) != -1) {
		if (kc_input_option(&in, opt, optarg) || kc_common_option(opt))
			continue;
		if (opt == 'h') {
			report_usage(stdout);
			return 0;
		} else {
			report_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		in.path = argv[optind++];
	if (optind < argc) {
		report_usage(stderr);
		return 2;
	}
	ret = kc_input_parse(&in, on_report, &c, &n, &bad);
	if (ret) {
		kc_input_error("report", &in, ret);
		free(c.groups);
		return KC_EXIT_FAIL;
	}
	if (c.group)
		print_groups(&c);
	if (!json_output)
		printf("# %lu reports, %lu malformed or truncated\n", n, bad);
	free(c.groups);
	return 0;
}
