// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider report { list | group } [OPTIONS] [FILE | DIR | -]...
 *
 * Lists the race reports of logs, or groups them by title (the function
 * pair, which is what syzbot deduplicates on) and says in how many of the
 * logs each was seen: given a farm's console logs, on how many machines.
 * Malformed and truncated reports are listed with what could be read and
 * the line that broke them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf.h"
#include "input.h"
#include "logs.h"
#include "main.h"
#include "marking.h"
#include "report_out.h"

#define KC_SYS_BTF "/sys/kernel/btf"

/*
 * What a race can do, most harmful first: a read-modify-write racing a
 * write loses an update; two writes leave one; a load and a store may be
 * READ_ONCE()/WRITE_ONCE() the binary does not show; one-sided reports
 * name no racer; last, pairs the source shows are marked (KCSAN's rule:
 * both marked, or either in data_race()).
 */
enum race_kind {
	KIND_LOST_UPDATE,
	KIND_WRITE_WRITE,
	KIND_LOAD_STORE,
	KIND_UNKNOWN_ORIGIN,
	KIND_MARKED,
};

static const char * const kind_names[] = {
	[KIND_LOST_UPDATE] = "lost-update",
	[KIND_WRITE_WRITE] = "write-write",
	[KIND_LOAD_STORE] = "load-store",
	[KIND_UNKNOWN_ORIGIN] = "unknown-origin",
	[KIND_MARKED] = "marked",
};

/* How many of a group's reports one log had. */
struct log_count {
	size_t log;
	unsigned long count;
};

struct group {
	char title[2 * KC_VAL_LEN];
	char tool[16];
	unsigned long count, bad;
	int first_line, last_line;	/* in first_log and last_log */
	size_t first_log, last_log;
	enum race_kind kind;	/* the worst of its reports */
	struct log_count *per_log;	/* in the order the logs were read */
	size_t nlogs, cap;
};

static bool acc_writes(enum kc_acc_type t)
{
	return t == KC_ACC_TYPE_WRITE || t == KC_ACC_TYPE_READ_WRITE;
}

/* Each access's marking from the source, when the report has two. */
struct pair_marks {
	bool have, silent;
	int n;			/* 1 for a one-sided report */
	struct kc_mark m[2];
	const char *filter;	/* when silent: "marked" or "exempt" */
	const char *why_silent;
};

static enum race_kind race_kind(const struct kc_report *r,
				const struct pair_marks *pm)
{
	enum kc_acc_type a, b;

	if (pm->silent)
		return KIND_MARKED;
	if (r->one_sided || r->nacc < 2)
		return KIND_UNKNOWN_ORIGIN;
	a = r->acc[0].type;
	b = r->acc[1].type;
	if ((a == KC_ACC_TYPE_READ_WRITE && acc_writes(b)) ||
	    (b == KC_ACC_TYPE_READ_WRITE && acc_writes(a)))
		return KIND_LOST_UPDATE;
	if (a == KC_ACC_TYPE_WRITE && b == KC_ACC_TYPE_WRITE)
		return KIND_WRITE_WRITE;
	return KIND_LOAD_STORE;
}

struct report_ctx {
	struct kc_btf *btf;	/* field names of slab objects, when given */
	struct kc_marking *marking;
	bool group;
	unsigned long n;
	struct group *groups;
	size_t ngroups, cap;
	const struct kc_logs *logs;
	size_t log;		/* the one being read */
};

static void report_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s report [list | group] [OPTIONS] [FILE | DIR | -]...\n"
		"\n"
		"Read race reports in KCSAN's layout (kcollider's and KCSAN's own)\n"
		"and list them one by one (list, the default) or grouped by title,\n"
		"the pair of racing functions (group). A malformed or truncated\n"
		"report is listed with its status and the line number that broke it,\n"
		"and a warning goes to stderr.\n"
		"\n"
		"Several logs (a farm's console logs, one per machine) are read in\n"
		"turn; a DIR stands for every regular file below it, in name order.\n"
		"\"group\" then says in how many logs each race was seen, and ranks\n"
		"races of the same kind by that first.\n"
		"\n"
		"OPTIONS:\n"
		KC_COMMON_USAGE
		KC_INPUT_USAGE
		"  -B, --btf PATH   name the field a slab object's access hit, from\n"
		"                   BTF: a directory like /sys/kernel/btf (vmlinux,\n"
		"                   modules) or a file (raw BTF or ELF with .BTF,\n"
		"                   split on an earlier one); repeatable; default with\n"
		"                   -K and -D: /sys/kernel/btf when present\n"
		"  -M, --modules DIR  .ko files with DWARF (searched below DIR;\n"
		"                   repeatable) for each access's marking: the\n"
		"                   source line of the access says READ_ONCE(),\n"
		"                   WRITE_ONCE(), smp_load_acquire(), atomic_read(),\n"
		"                   data_race() ... or plain. Also searched:\n"
		"                   /usr/lib/debug/lib/modules/$(uname -r)\n"
		"  -V, --vmlinux ELF  vmlinux with DWARF, for the kernel image's\n"
		"                   accesses (default: /usr/lib/debug/boot/vmlinux-*,\n"
		"                   from the linux-image-*-dbg package)\n"
		"  -S, --source DIR   a source tree for files DWARF names by a path\n"
		"                   that does not exist here (repeatable)\n"
		"\n"
		"A pair whose source shows both accesses marked, or either inside\n"
		"data_race(), is one KCSAN would not report: its verdict is\n"
		"\"benign filter=marked\", whatever the module's class line said,\n"
		"and \"group\" ranks it last (kind \"marked\"). So is a pair whose\n"
		"sampled access is in the kernel's code that the -S tree's Makefiles\n"
		"build without KCSAN (KCSAN_SANITIZE := n), or whose racer is there\n"
		"and the value did not change: \"benign filter=exempt\".\n"
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

/* One more report of @g, in the log being read. */
static int count_in_log(struct report_ctx *c, struct group *g)
{
	if (!g->nlogs || g->per_log[g->nlogs - 1].log != c->log) {
		if (g->nlogs == g->cap) {
			size_t cap = g->cap ? 2 * g->cap : 4;
			struct log_count *p = realloc(g->per_log,
						      cap * sizeof(*p));

			if (!p)
				return -1;
			g->per_log = p;
			g->cap = cap;
		}
		g->per_log[g->nlogs].log = c->log;
		g->per_log[g->nlogs++].count = 0;
	}
	g->per_log[g->nlogs - 1].count++;
	return 0;
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

/*
 * What DWARF says each access goes through (exact instructions only: a
 * stack's top frame after a trap is the next instruction).
 */
static int pointee_hints(struct report_ctx *c, const struct kc_report *r,
			 struct kc_pointee *p, struct kc_btf_hint *h)
{
	int k, n = 0;

	for (k = 0; c->marking && k < r->nacc && k < 2; k++) {
		const struct kc_access *a = &r->acc[k];

		if (!a->have_sym || a->top_is_after ||
		    !kc_marking_pointee(c->marking, &a->sym, &p[n]))
			continue;
		h[n].name = p[n].type;
		h[n].is_union = p[n].is_union;
		h[n].disp = p[n].disp;
		n++;
	}
	return n;
}

/* "object: struct foo.bar (+84, 4 bytes) in kmalloc-192", when BTF knows. */
static void btf_out(struct report_ctx *c, const struct kc_report *r,
		    struct json *j)
{
	struct kc_pointee p[2];
	struct kc_btf_hint h[2];
	struct kc_btf_field f;
	int n;

	if (!c->btf || !kc_report_tool_line(r, "object"))
		return;
	n = pointee_hints(c, r, p, h);
	if (!kc_btf_resolve(c->btf, r, h, n, &f))
		return;
	if (j) {
		json_obj_begin(j, "object");
		json_str(j, "type", f.type);
		json_str(j, "field", f.field);
		json_int(j, "field_offset", f.field_offset);
		json_int(j, "field_size", f.field_size);
		json_int(j, "offset", f.offset);
		json_str(j, "cache", f.cache);
		json_str(j, "by", f.by);
		if (f.type_offset)	/* a type embedded in the object */
			json_int(j, "type_offset", f.type_offset);
		json_obj_end(j);
	} else {
		printf("  object   %s%s%s (+%u, %u bytes) in %s (type by %s",
		       f.type, *f.field ? "." : "", f.field, f.field_offset,
		       f.field_size, f.cache, f.by);
		if (f.type_offset)
			printf(", at +%u", f.type_offset);
		printf(")\n");
	}
	kc_btf_field_free(&f);
}

static const char *role_of(const struct kc_report *r, int i)
{
	return i == kc_report_racer(r) ? "racer" : "sampled";
}

/*
 * KCSAN's default (CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC=y): a plain
 * aligned write of up to 8 bytes is atomic, so against a marked read
 * @other it races with nothing. Against a marked write the pair stays a
 * race: write/write races are ours to report (the module's marked filter
 * applies the same rule).
 */
static bool plain_write_atomic(const struct kc_report *r, int i,
			       const struct kc_access *other)
{
	const struct kc_access *a = &r->acc[i];
	bool writes = a->type == KC_ACC_TYPE_WRITE ||
		      a->type == KC_ACC_TYPE_READ_WRITE;
	const struct kc_tool_line *t = kc_report_tool_line(r, role_of(r, i));
	const char *locked = t ? kc_tool_line_get(t, "locked") : NULL;
	const char *op = t ? kc_tool_line_get(t, "op") : NULL;

	/* a string instruction is memset()/memcpy(): a range to KCSAN */
	if (a->type == KC_ACC_TYPE_UNKNOWN || (locked && strcmp(locked, "0")) ||
	    (op && !strcmp(op, "string")))
		return false;
	return writes && other->type == KC_ACC_TYPE_READ && a->size &&
	       a->size <= 8 && !(a->addr % a->size);
}

/*
 * The module's exempt filter: the sampled access in code built without
 * KCSAN, or the racer when the value did not change (KCSAN would see that
 * racer only as a value changed under the sampled access).
 */
static bool exempt_pair(const struct kc_report *r, const struct pair_marks *pm)
{
	int racer = pm->n == 2 ? kc_report_racer(r) : -1;
	int sampled = pm->n == 2 ? !racer : 0;
	bool changed = r->has_value && r->old_value != r->new_value;

	if (pm->m[sampled].kind == KC_MARK_EXEMPT)
		return true;
	return racer >= 0 && !changed && pm->m[racer].kind == KC_MARK_EXEMPT;
}

static void mark_report(struct report_ctx *c, const struct kc_report *r,
			struct pair_marks *pm)
{
	int i;

	memset(pm, 0, sizeof(*pm));
	if (!c->marking || r->nacc < 1 || (r->nacc < 2 && !r->one_sided))
		return;
	pm->n = r->one_sided ? 1 : 2;
	for (i = 0; i < pm->n; i++) {
		const struct kc_access *a = &r->acc[i];
		/* KCSAN's frames return from its __tsan_*() call: after */
		bool after = a->top_is_after || !strcmp(r->tool, "KCSAN");

		if (a->marked) {	/* KCSAN's own "(marked)" */
			pm->m[i].kind = KC_MARK_MARKED;
			snprintf(pm->m[i].marker, sizeof(pm->m[i].marker),
				 "marked");
			snprintf(pm->m[i].where, sizeof(pm->m[i].where),
				 "per %s", r->tool);
		} else if (a->have_sym) {
			kc_marking_of(c->marking, &a->sym, after, &pm->m[i]);
		} else {
			pm->m[i].kind = KC_MARK_UNKNOWN;
			snprintf(pm->m[i].why, sizeof(pm->m[i].why),
				 "no symbol for the access");
		}
	}
	pm->have = true;
	pm->filter = "marked";
	if (exempt_pair(r, pm)) {
		pm->silent = true;
		pm->filter = "exempt";
		pm->why_silent = "built without KCSAN (KCSAN_SANITIZE in its Makefile)";
		return;
	}
	/* KCSAN watches plain accesses only: no unknown origin for the rest */
	if (pm->n == 1)
		pm->silent = pm->m[0].kind == KC_MARK_MARKED ||
			     pm->m[0].kind == KC_MARK_DATA_RACE;
	else
		pm->silent = kc_marking_silent(&pm->m[0], &pm->m[1]);
	if (pm->silent) {
		pm->why_silent = pm->n == 1 ? "the access is marked" :
				 pm->m[0].kind == KC_MARK_DATA_RACE ||
				 pm->m[1].kind == KC_MARK_DATA_RACE ?
				 "inside data_race()" : "both accesses are marked";
		return;
	}
	for (i = 0; pm->n == 2 && i < 2 && !pm->silent; i++)
		pm->silent = pm->m[!i].kind == KC_MARK_MARKED &&
			     pm->m[i].kind == KC_MARK_PLAIN &&
			     plain_write_atomic(r, i, &r->acc[!i]);
	if (pm->silent)
		pm->why_silent = "a marked read against a plain aligned word write (atomic to KCSAN)";
}

static void marking_text(const struct kc_report *r, const struct pair_marks *pm)
{
	int i;

	if (!pm->have)
		return;
	printf("  marking ");
	for (i = 0; i < pm->n; i++) {
		const struct kc_mark *k = &pm->m[i];

		if (k->kind == KC_MARK_UNKNOWN)
			printf(" %s=unknown (%s)", role_of(r, i), k->why);
		else
			printf(" %s=%s (%s)", role_of(r, i), k->marker, k->where);
	}
	putchar('\n');
	if (pm->silent)
		printf("  verdict  benign filter=%s: %s (KCSAN would not report it)\n",
		       pm->filter, pm->why_silent);
}

static void marking_json(struct json *j, const struct kc_report *r,
			 const struct pair_marks *pm)
{
	const struct kc_tool_line *cls = kc_report_tool_line(r, "class");
	int i;

	if (pm->have) {
		json_arr_begin(j, "marking");
		for (i = 0; i < pm->n; i++) {
			const struct kc_mark *k = &pm->m[i];

			json_obj_begin(j, NULL);
			json_str(j, "role", role_of(r, i));
			json_str(j, "kind", kc_mark_kind_name(k->kind));
			json_str(j, "marker", k->kind == KC_MARK_UNKNOWN ?
				 NULL : k->marker);
			json_str(j, "source", k->where[0] ? k->where : NULL);
			json_str(j, "why", k->kind == KC_MARK_UNKNOWN ?
				 k->why : NULL);
			json_obj_end(j);
		}
		json_arr_end(j);
	}
	/* The class after the source was read: what a script should act on. */
	json_obj_begin(j, "verdict");
	if (pm->silent) {
		json_str(j, "class", "benign");
		json_str(j, "filter", pm->filter);
		json_str(j, "by", "source");
	} else {
		json_str(j, "class", cls ? cls->words : NULL);
		json_str(j, "filter", cls ? kc_tool_line_get(cls, "filter") : NULL);
		json_str(j, "by", "report");
	}
	json_obj_end(j);
}

static const char *log_name(const struct report_ctx *c, size_t log)
{
	const char *path = c->logs->paths[log];

	return strcmp(path, "-") ? path : "stdin";
}

static int on_report(const struct kc_report *r, void *data)
{
	struct report_ctx *c = data;
	struct pair_marks pm;
	struct json j;
	char title[sizeof(r->title)];
	struct group *g;

	c->n++;
	kc_report_warn(r);
	mark_report(c, r, &pm);
	if (!c->group) {
		if (json_output) {
			json_init(&j, stdout);
			json_obj_begin(&j, NULL);
			kc_report_json(&j, r);
			marking_json(&j, r, &pm);
			btf_out(c, r, &j);
			json_obj_end(&j);
			json_line_end(&j);
		} else {
			kc_report_text(stdout, r, c->n);
			btf_out(c, r, NULL);
			marking_text(r, &pm);
		}
		fflush(stdout);
		return 0;
	}
	normalize_title(r->title, title, sizeof(title));
	g = find_group(c, title);
	if (!g)
		return -1;
	if (!g->count) {
		g->first_line = r->first_line;
		g->first_log = c->log;
		g->kind = race_kind(r, &pm);
	}
	if (race_kind(r, &pm) < g->kind)
		g->kind = race_kind(r, &pm);
	snprintf(g->tool, sizeof(g->tool), "%s", r->tool);
	g->count++;
	g->bad += r->status != KC_REP_OK;
	g->last_line = r->first_line;
	g->last_log = c->log;
	return count_in_log(c, g);
}

static int cmp_groups(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->nlogs != y->nlogs)
		return x->nlogs < y->nlogs ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->title, y->title);
}

static void group_text(const struct report_ctx *c, const struct group *g)
{
	if (c->logs->n == 1) {
		printf("%6lu  %-14s  %s: %s  (lines %d..%d%s)\n",
		       g->count, kind_names[g->kind], g->tool, g->title,
		       g->first_line, g->last_line,
		       g->bad ? ", some malformed" : "");
		return;
	}
	printf("%6lu  %-14s  %s: %s  (in %zu of %zu logs; first %s:%d%s)\n",
	       g->count, kind_names[g->kind], g->tool, g->title, g->nlogs,
	       c->logs->n, log_name(c, g->first_log), g->first_line,
	       g->bad ? "; some malformed" : "");
}

static void group_json(const struct report_ctx *c, const struct group *g)
{
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "title", g->title);
	json_str(&j, "tool", g->tool);
	json_int(&j, "count", g->count);
	json_int(&j, "bad", g->bad);
	json_str(&j, "first_log", log_name(c, g->first_log));
	json_int(&j, "first_line", g->first_line);
	json_str(&j, "last_log", log_name(c, g->last_log));
	json_int(&j, "last_line", g->last_line);
	json_int(&j, "logs_seen", g->nlogs);
	json_int(&j, "logs_read", c->logs->n);
	json_arr_begin(&j, "per_log");
	for (i = 0; i < g->nlogs; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "log", log_name(c, g->per_log[i].log));
		json_int(&j, "count", g->per_log[i].count);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_str(&j, "kind", kind_names[g->kind]);
	json_obj_end(&j);
	json_line_end(&j);
}

static void print_groups(struct report_ctx *c)
{
	size_t i;

	if (c->ngroups)	/* groups is NULL then: qsort() must not see it */
		qsort(c->groups, c->ngroups, sizeof(*c->groups), cmp_groups);
	for (i = 0; i < c->ngroups; i++) {
		if (json_output)
			group_json(c, &c->groups[i]);
		else
			group_text(c, &c->groups[i]);
	}
}

static int add_marking_source(struct report_ctx *c, int opt, const char *arg)
{
	int ret;

	if (!c->marking)
		c->marking = kc_marking_new();
	if (!c->marking) {
		kc_error("report: out of memory");
		return -ENOMEM;
	}
	switch (opt) {
	case 'M':
		ret = kc_marking_add_modules(c->marking, arg);
		break;
	case 'V':
		ret = kc_marking_set_vmlinux(c->marking, arg);
		break;
	default:
		ret = kc_marking_add_source(c->marking, arg);
		break;
	}
	if (ret)
		kc_error("report: -%c %s: %s", opt, arg, strerror(-ret));
	return ret;
}

static void report_ctx_free(struct report_ctx *c)
{
	size_t i;

	kc_btf_free(c->btf);
	kc_marking_free(c->marking);
	for (i = 0; i < c->ngroups; i++)
		free(c->groups[i].per_log);
	free(c->groups);
}

/* Every log in turn; the first that cannot be read ends it. */
static int read_logs(struct report_ctx *c, struct kc_input *in,
		     unsigned long *n, unsigned long *bad)
{
	unsigned long ln, lbad;
	int ret;

	for (c->log = 0; c->log < c->logs->n; c->log++) {
		in->path = c->logs->paths[c->log];
		ln = lbad = 0;
		ret = kc_input_parse(in, on_report, c, &ln, &lbad);
		*n += ln;
		*bad += lbad;
		if (ret) {
			kc_input_error("report", in, ret);
			return ret;
		}
	}
	return 0;
}

/* The FILE, DIR and - arguments; live sources take none. */
static int collect_logs(struct kc_logs *logs, const struct kc_input *in,
			int argc, char **argv)
{
	int ret;

	if (in->kind != KC_IN_FILE) {
		if (optind < argc) {
			kc_error("report: %s: no FILE with --kmsg or --debugfs",
				 argv[optind]);
			return -EINVAL;
		}
		return kc_logs_add(logs, "-");	/* a place for its name */
	}
	if (optind == argc)
		return kc_logs_add(logs, "-");
	if (in->follow && argc - optind > 1) {
		kc_error("report: --follow reads one log");
		return -EINVAL;
	}
	for (; optind < argc; optind++) {
		ret = kc_logs_add(logs, argv[optind]);
		if (ret == -ENODATA) {
			kc_error("report: %s: no log file in this directory",
				 logs->bad);
			return ret;
		}
		if (ret) {
			kc_error("report: %s: %s", logs->bad ?: argv[optind],
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int do_report(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_OPT_JSON,
		KC_OPT_PRETTY,
		KC_OPT_HELP,
		KC_OPT_FOLLOW,
		KC_OPT_KMSG,
		KC_OPT_DMESG,
		KC_OPT_DEBUGFS,
		{ "btf", required_argument, NULL, 'B' },
		{ "modules", required_argument, NULL, 'M' },
		{ "vmlinux", required_argument, NULL, 'V' },
		{ "source", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct kc_input in = { .kind = KC_IN_FILE, .path = "-" };
	struct report_ctx c = { 0 };
	struct kc_logs logs = { 0 };
	unsigned long n = 0, bad = 0;
	int opt, ret, status = KC_EXIT_FAIL;

	if (argc > 1 && (!strcmp(argv[1], "list") || !strcmp(argv[1], "group"))) {
		c.group = !strcmp(argv[1], "group");
		argc--;
		argv++;
	}
	optind = 1;
	while ((opt = getopt_long(argc, argv, KC_COMMON_OPTS_SHORT KC_INPUT_OPTS_SHORT
				  "B:M:V:S:", opts, NULL)) != -1) {
		if (kc_input_option(&in, opt, optarg) || kc_common_option(opt))
			continue;
		if (opt == 'M' || opt == 'V' || opt == 'S') {
			if (add_marking_source(&c, opt, optarg))
				goto out;
		} else if (opt == 'B') {
			ret = kc_btf_add(&c.btf, optarg);
			if (ret) {
				kc_error("report: --btf %s: %s", optarg, strerror(-ret));
				goto out;
			}
		} else if (opt == 'h') {
			report_usage(stdout);
			status = KC_EXIT_OK;
			goto out;
		} else {
			goto usage;
		}
	}
	ret = collect_logs(&logs, &in, argc, argv);
	if (ret) {
		status = ret == -EINVAL ? KC_EXIT_USAGE : KC_EXIT_FAIL;
		goto out;
	}
	c.logs = &logs;
	/* Live sources: the running kernel's BTF, when it has one. */
	if (!c.btf && in.kind != KC_IN_FILE && !access(KC_SYS_BTF, R_OK))
		kc_btf_add(&c.btf, KC_SYS_BTF);
	/* Without -M/-V: the release's debug files, when installed. */
	if (!c.marking)
		c.marking = kc_marking_new();
	if (read_logs(&c, &in, &n, &bad))
		goto out;
	if (c.group)
		print_groups(&c);
	if (!json_output && logs.n > 1)
		printf("# %lu reports in %zu logs, %lu malformed or truncated\n",
		       n, logs.n, bad);
	else if (!json_output)
		printf("# %lu reports, %lu malformed or truncated\n", n, bad);
	status = KC_EXIT_OK;
out:
	report_ctx_free(&c);
	kc_logs_free(&logs);
	return status;
usage:
	report_usage(stderr);
	report_ctx_free(&c);
	kc_logs_free(&logs);
	return KC_EXIT_USAGE;
}
