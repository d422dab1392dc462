// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider tso [--json] [--strict] [--litmus] [--vmlinux ELF]
 *               [--modules DIR] [FILE | -]
 *
 * For every race report read: can this race break sequential consistency
 * on x86? The verdict, the witness store and its path, the protecting
 * barrier, and where one smp_mb() would close every witness path.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "input.h"
#include "json.h"
#include "litmus.h"
#include "main.h"
#include "tso.h"

struct tso_out {
	enum tso_verdict verdict;
	unsigned long seq;
	char *text;
};

struct tso_ctx {
	struct code_src code;
	struct tso_opts opts;
	bool litmus, follow;
	unsigned long n, counts[TSO_NVERDICTS];
	struct tso_out *out;	/* ranked at the end unless following */
	size_t nout, capout;
};

static void tso_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s tso [OPTIONS] [FILE | -]\n"
		"\n"
		"Triage race reports under x86-TSO. For each report, the load side\n"
		"is searched backward (its function's CFG, then its callers along the\n"
		"reported stack, callees through memoized summaries) for a store that\n"
		"can still sit in the store buffer when the load reads memory.\n"
		"\n"
		"Verdicts (in this order, sc-violation first):\n"
		"  sc-violation    triangular, and the racer loads the witness's location\n"
		"                  after its store: store buffering, x86 can show an\n"
		"                  outcome SC forbids (both halves and fences shown)\n"
		"  triangular      a barrier-free earlier store exists (witness shown),\n"
		"                  no closing load found in the racer's code\n"
		"  not-triangular  every path from a store crosses a barrier (shown),\n"
		"                  or there is no store: no non-SC outcome on x86\n"
		"  write-write     both accesses are stores: never triangular\n"
		"  locked          the load is LOCK'd: never triangular\n"
		"  unknown         with its reason: indirect-call, indirect-jump,\n"
		"                  code-unavailable, decode-failure, depth\n"
		"\n"
		"OPTIONS:\n"
		"  -j, --json           one JSON object per report (JSON lines;\n"
		"                       errors as {\"error\": ...})\n"
		"  -p, --pretty         JSON, indented for people (implies -j)\n"
		"  -s, --strict         count %%rsp-relative stores (on-stack completions,\n"
		"                       wait-queue entries are shared)\n"
		"  -l, --litmus         print the x86 herd7 litmus test of each\n"
		"                       sc-violation (both halves) and of its fix (the\n"
		"                       suggested fences), with the checker's answers\n"
		"  -V, --vmlinux ELF    offline: code and symbols from ELF (vmlinux or any\n"
		"                       x86-64 executable with a symtab); default: live\n"
		"                       (/proc/kallsyms + /proc/kcore, root)\n"
		"  -M, --modules DIR    the .ko files of DIR, relocated, for frames in\n"
		"                       modules (\"func+0x1/0x2 [mod]\", sym=... mod=...):\n"
		"                       offline placed after each other, calls resolved\n"
		"                       to their callees in ELF and in the other modules;\n"
		"                       live at the loaded module's addresses (bytes from\n"
		"                       the .ko: no kprobe int3s); live without DIR, or\n"
		"                       for a module not in it, /lib/modules/$(uname -r)\n"
		"  -d, --max-depth N    callee summary nesting limit (default 8)\n"
		KC_INPUT_USAGE
		"  -h, --help           this help (also: \"kcollider help tso\")\n"
		"\n"
		"Exit status: 0 when the reports were read, 1 when the code or the\n"
		"input could not be opened (the message names it and the cause),\n"
		"2 on a usage error.\n", prog_name);
}

static void insn_text(const struct code_src *c, uint64_t ip, char *buf,
		      size_t len)
{
	const struct kc_sym *s = code_find_addr(c, ip);
	struct kc_func *f = s ? cfg_get(c, s) : NULL;
	int i = f ? cfg_index(f, ip, false) : -1;

	snprintf(buf, len, "%s", i >= 0 ? f->insn[i].text : "?");
}

/*
 * "func+0xoff" of @ip, names of any length (never cut): valid until the
 * next call with the same @slot (up to four on one line).
 */
static const char *sym(const struct code_src *c, uint64_t ip, int slot)
{
	static char *s[4];

	free(s[slot]);
	s[slot] = code_sym(c, ip);
	return s[slot] ? s[slot] : "?";
}

static void point_json(struct json *j, const struct code_src *c,
		       const char *key, const char *ipkey, uint64_t ip)
{
	char buf[PATH_MAX + 32];

	json_obj_begin(j, key);
	json_hex(j, ipkey, ip);
	json_str(j, "symbol", sym(c, ip, 0));
	insn_text(c, ip, buf, sizeof(buf));
	json_str(j, "insn", buf);
	if (code_source_line(c, ip, buf, sizeof(buf)))
		json_str(j, "source", buf);
	else
		json_null(j, "source");
}

static void witness_json(struct json *j, const struct code_src *c,
			 const struct tso_result *res)
{
	int i;

	if (!res->have_witness) {
		json_null(j, "witness");
		return;
	}
	point_json(j, c, "witness", "ip", res->witness_ip);
	json_int(j, "path_len", res->path_len);
	json_arr_begin(j, "path");
	for (i = 0; i < res->path_len; i++) {
		char buf[160];

		json_obj_begin(j, NULL);
		json_hex(j, "ip", res->path[i]);
		json_str(j, "symbol", sym(c, res->path[i], 0));
		insn_text(c, res->path[i], buf, sizeof(buf));
		json_str(j, "insn", buf);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void add_insn(struct litmus *t, int th, enum lit_op op, int loc,
		     int reg, int val)
{
	struct lit_thread *p = &t->t[th];

	p->insn[p->n++] = (struct lit_insn){ .op = op, .loc = loc, .reg = reg,
					     .val = val };
}

/*
 * The cycle as a two-thread test: P0 = the reader (witness store to x,
 * racy load of y), P1 = the racer (store to y, closing load of x). With
 * @fix, MFENCE where the suggestion puts smp_mb(); P1's own barrier, if
 * it has one, is there either way.
 */
static void make_litmus(const struct kc_report *r, const struct tso_result *res,
			const struct code_src *c, bool fix, struct litmus *t)
{
	static char *notes[2];	/* the doc string of each variant, names whole */
	int x, y, eax;

	memset(t, 0, sizeof(*t));
	/* Two kernel symbol names (< KC_SYM_LEN each) fit LIT_NAME_LEN. */
	snprintf(t->name, sizeof(t->name), "%s+%s%s",
		 r->acc[res->side].frames[0].func,
		 r->acc[res->other].frames[0].func, fix ? "+fences" : "");
	free(notes[fix]);
	if (asprintf(&notes[fix],
		     "kcollider: P0 %s stores x, %s loads y; P1 %s stores y, %s loads x%s",
		     sym(c, res->witness_ip, 0), sym(c, res->load_ip, 1),
		     sym(c, res->q.store_ip, 2), sym(c, res->q.load_ip, 3),
		     fix ? "; smp_mb() as suggested" : "") < 0)
		notes[fix] = NULL;
	t->note = notes[fix];
	t->nthreads = 2;
	x = lit_loc(t, "x");	/* the witness store's location */
	y = lit_loc(t, "y");	/* the raced location */
	eax = lit_reg(t, "EAX");
	add_insn(t, 0, LIT_STORE, x, 0, 1);
	if (fix)
		add_insn(t, 0, LIT_MFENCE, 0, 0, 0);
	add_insn(t, 0, LIT_LOAD, y, eax, 0);
	add_insn(t, 1, LIT_STORE, y, 0, 1);
	if (fix || res->q.fenced)
		add_insn(t, 1, LIT_MFENCE, 0, 0, 0);
	add_insn(t, 1, LIT_LOAD, x, eax, 0);
	t->terms[t->nterms++] = (struct lit_term){ .thread = 0, .reg = eax, .val = 0 };
	t->terms[t->nterms++] = (struct lit_term){ .thread = 1, .reg = eax, .val = 0 };
}

/* One test printed, with the checker's answers under TSO and SC. */
struct lit_out {
	char *text;
	struct lit_result tso, sc;
};

static void litmus_text(const struct litmus *t, struct lit_out *o)
{
	size_t len;
	FILE *f = open_memstream(&o->text, &len);

	if (!f)
		return;
	lit_print(f, t);
	fclose(f);
	lit_check(t, LIT_TSO, &o->tso);
	lit_check(t, LIT_SC, &o->sc);
}

static void point_plain(struct json *j, const struct code_src *c,
			const char *key, uint64_t ip)
{
	point_json(j, c, key, "ip", ip);
	json_obj_end(j);
}

/* The two halves of the store-buffering cycle, and the fences. */
static void cycle_json(struct json *j, const struct code_src *c,
		       const struct tso_result *res)
{
	if (res->verdict != TSO_SC_VIOLATION) {
		json_null(j, "cycle");
		json_null(j, "racer_fence");
		return;
	}
	json_obj_begin(j, "cycle");
	json_obj_begin(j, "reader");
	point_plain(j, c, "store", res->witness_ip);
	point_plain(j, c, "load", res->load_ip);
	json_obj_end(j);
	json_obj_begin(j, "racer");
	point_plain(j, c, "store", res->q.store_ip);
	point_plain(j, c, "load", res->q.load_ip);
	if (res->q.fenced)
		point_plain(j, c, "barrier", res->q.barrier_ip);
	else
		json_null(j, "barrier");
	json_obj_end(j);
	json_obj_end(j);
	if (res->q.fenced) {
		json_null(j, "racer_fence");
		return;
	}
	json_obj_begin(j, "racer_fence");
	json_hex(j, "before_ip", res->q.next_ip);
	json_str(j, "symbol", sym(c, res->q.next_ip, 0));
	json_obj_end(j);
}

static void litmus_json(struct json *j, const struct lit_out *lo)
{
	if (!lo[0].text)
		return;
	json_str(j, "litmus", lo[0].text);
	json_bool(j, "litmus_tso_allowed", lo[0].tso.reachable);
	json_bool(j, "litmus_sc_allowed", lo[0].sc.reachable);
	json_str(j, "litmus_fixed", lo[1].text ? lo[1].text : "");
	json_bool(j, "litmus_fixed_tso_allowed", lo[1].tso.reachable);
	json_bool(j, "litmus_fixed_sc_allowed", lo[1].sc.reachable);
}

static void load_json(struct json *j, const struct code_src *c,
		      const struct kc_report *r, const struct tso_result *res)
{
	if (!res->have_load) {
		json_null(j, "load");
		return;
	}
	json_obj_begin(j, "load");
	json_hex(j, "ip", res->load_ip);
	json_str(j, "symbol", sym(c, res->load_ip, 0));
	json_str(j, "insn", res->load_insn);
	json_str(j, "role", res->side == kc_report_racer(r) ? "racer" : "sampled");
	json_obj_end(j);
}

static void fence_json(struct json *j, const struct code_src *c,
		       const struct tso_result *res)
{
	if (!res->have_fence) {
		json_null(j, "fence");
		return;
	}
	json_obj_begin(j, "fence");
	json_hex(j, "before_ip", res->fence_ip);
	json_str(j, "symbol", sym(c, res->fence_ip, 0));
	json_obj_end(j);
}

static void result_json(FILE *out, struct tso_ctx *x, const struct kc_report *r,
			const struct tso_result *res, const struct lit_out *lo)
{
	const struct code_src *c = &x->code;
	struct json j;

	json_init(&j, out);
	json_obj_begin(&j, NULL);
	json_str(&j, "source", r->source);
	json_int(&j, "line", r->first_line);
	json_str(&j, "title", r->title);
	json_str(&j, "report_status", kc_rep_status_name(r->status));
	json_str(&j, "verdict", tso_verdict_name(res->verdict));
	json_str(&j, "reason", res->reason);
	json_str(&j, "detail", res->detail);
	load_json(&j, c, r, res);
	witness_json(&j, c, res);
	if (res->have_barrier) {
		point_json(&j, c, "barrier", "ip", res->barrier_ip);
		json_obj_end(&j);
	} else {
		json_null(&j, "barrier");
	}
	fence_json(&j, c, res);
	cycle_json(&j, c, res);
	if (res->have_unknown_ip)
		json_str(&j, "unknown_at", sym(c, res->unknown_ip, 0));
	litmus_json(&j, lo);
	json_obj_end(&j);
	json_line_end(&j);
}

static void point_text(FILE *out, const struct code_src *c, const char *what,
		       uint64_t ip)
{
	char b[160];

	insn_text(c, ip, b, sizeof(b));
	fprintf(out, "           %-8s %-28s %s\n", what, sym(c, ip, 0), b);
}

static void cycle_text(FILE *out, const struct code_src *c,
		       const struct tso_result *res)
{
	const char *a, *b;

	if (res->verdict != TSO_SC_VIOLATION)
		return;
	fprintf(out, "  cycle    reader (P0):\n");
	point_text(out, c, "store", res->witness_ip);
	point_text(out, c, "load", res->load_ip);
	fprintf(out, "           racer (P1):\n");
	point_text(out, c, "store", res->q.store_ip);
	if (res->q.fenced)
		point_text(out, c, "barrier", res->q.barrier_ip);
	point_text(out, c, "load", res->q.load_ip);
	if (!res->have_fence) {
		fprintf(out, "  fix      no single smp_mb() closes every witness path\n");
		return;
	}
	a = sym(c, res->fence_ip, 0);
	b = sym(c, res->q.next_ip, 1);
	if (res->q.fenced)
		fprintf(out, "  fix      smp_mb() before %s (the racer has its barrier)\n", a);
	else
		fprintf(out, "  fix      smp_mb() before %s and smp_mb() before %s\n", a, b);
}

static void witness_text(FILE *out, const struct code_src *c,
			 const struct tso_result *res)
{
	char b[PATH_MAX + 32];
	int i;

	insn_text(c, res->witness_ip, b, sizeof(b));
	fprintf(out, "  witness  %s  %s", sym(c, res->witness_ip, 0), b);
	if (code_source_line(c, res->witness_ip, b, sizeof(b)))
		fprintf(out, "  (%s)", b);
	fprintf(out, "\n  path     %d instructions:\n", res->path_len);
	for (i = 0; i < res->path_len; i++) {
		insn_text(c, res->path[i], b, sizeof(b));
		fprintf(out, "           %-28s %s\n", sym(c, res->path[i], 0), b);
	}
}

static void result_text(FILE *out, struct tso_ctx *x, const struct kc_report *r,
			const struct tso_result *res)
{
	const struct code_src *c = &x->code;
	char b[160];

	fprintf(out, "#%lu %s:%d %s\n", x->n, r->source, r->first_line, r->title);
	fprintf(out, "  verdict  %s (%s): %s\n", tso_verdict_name(res->verdict),
		res->reason, res->detail ? res->detail : "");
	if (res->have_load)
		fprintf(out, "  load     %s  %s\n", sym(c, res->load_ip, 0),
			res->load_insn);
	if (res->have_witness)
		witness_text(out, c, res);
	if (res->have_barrier) {
		insn_text(c, res->barrier_ip, b, sizeof(b));
		fprintf(out, "  barrier  %s  %s\n", sym(c, res->barrier_ip, 0), b);
	}
	cycle_text(out, c, res);
	if (res->have_fence && res->verdict == TSO_TRIANGULAR) {
		fprintf(out, "  fence    smp_mb() before %s closes every witness path\n",
			sym(c, res->fence_ip, 0));
	}
}

static void litmus_print(FILE *out, const struct lit_out *lo)
{
	int i;

	for (i = 0; i < 2 && lo[i].text; i++)
		fprintf(out, "%s(x86-TSO: %s, SC: %s)\n", lo[i].text,
			lo[i].tso.reachable ? "Allowed" : "Forbidden",
			lo[i].sc.reachable ? "Allowed" : "Forbidden");
}

/* One report's output, kept until the end so that it can be ranked. */
static void emit(struct tso_ctx *x, enum tso_verdict v, char *text)
{
	struct tso_out *o;

	if (x->follow || !text) {
		if (text)
			fputs(text, stdout);
		fflush(stdout);
		free(text);
		return;
	}
	if (x->nout == x->capout) {
		size_t cap = x->capout ? 2 * x->capout : 64;

		o = realloc(x->out, cap * sizeof(*o));
		if (!o) {
			fputs(text, stdout);
			free(text);
			return;
		}
		x->out = o;
		x->capout = cap;
	}
	x->out[x->nout++] = (struct tso_out){ .verdict = v, .seq = x->n, .text = text };
}

static int on_report(const struct kc_report *r, void *data)
{
	struct tso_ctx *x = data;
	struct lit_out lo[2] = { { 0 } };
	struct tso_result res;
	struct litmus t;
	char *text = NULL;
	size_t len;
	FILE *out;

	x->n++;
	if (r->status != KC_REP_OK)
		fprintf(stderr, "%s: %s:%d: %s report (begins at line %d): %s\n",
			prog_name, r->source, r->error_line,
			kc_rep_status_name(r->status), r->first_line, r->error);
	tso_analyze(&x->code, r, &x->opts, &res);
	x->counts[res.verdict]++;
	if (x->litmus && res.verdict == TSO_SC_VIOLATION && res.have_witness) {
		make_litmus(r, &res, &x->code, false, &t);
		litmus_text(&t, &lo[0]);
		make_litmus(r, &res, &x->code, true, &t);
		litmus_text(&t, &lo[1]);
	}
	out = open_memstream(&text, &len);
	if (out) {
		if (json_output) {
			result_json(out, x, r, &res, lo);
		} else {
			result_text(out, x, r, &res);
			litmus_print(out, lo);
		}
		fclose(out);
	}
	emit(x, res.verdict, text);
	free(lo[0].text);
	free(lo[1].text);
	tso_result_free(&res);
	return 0;
}

static int out_cmp(const void *a, const void *b)
{
	const struct tso_out *p = a, *q = b;

	if (p->verdict != q->verdict)
		return p->verdict < q->verdict ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* sc-violation first, then triangular, ... (the verdicts' order). */
static void flush_ranked(struct tso_ctx *x)
{
	size_t i;

	if (x->nout)	/* out is NULL then: qsort() must not see it */
		qsort(x->out, x->nout, sizeof(*x->out), out_cmp);
	for (i = 0; i < x->nout; i++) {
		fputs(x->out[i].text, stdout);
		free(x->out[i].text);
	}
	free(x->out);
	x->out = NULL;
	x->nout = x->capout = 0;
}

static void summary_line(const struct tso_ctx *x)
{
	int v;

	printf("# %lu reports:", x->n);
	for (v = 0; v < TSO_NVERDICTS; v++)
		printf(" %lu %s%s", x->counts[v], tso_verdict_name(v),
		       v < TSO_NVERDICTS - 1 ? "," : "\n");
}

/* --max-depth: a whole number, nothing after it, within the limit. */
static int parse_depth(const char *s, int *depth)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > TSO_MAX_DEPTH)
		return -EINVAL;
	*depth = v;
	return 0;
}

int do_tso(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_OPT_JSON,
		KC_OPT_PRETTY,
		KC_OPT_HELP,
		{ "strict", no_argument, NULL, 's' },
		{ "litmus", no_argument, NULL, 'l' },
		{ "vmlinux", required_argument, NULL, 'V' },
		{ "modules", required_argument, NULL, 'M' },
		{ "max-depth", required_argument, NULL, 'd' },
		KC_OPT_FOLLOW,
		KC_OPT_KMSG,
		KC_OPT_DMESG,
		KC_OPT_DEBUGFS,
		{ NULL, 0, NULL, 0 },
	};
	struct kc_input in = { .kind = KC_IN_FILE, .path = "-" };
	struct tso_ctx *x = calloc(1, sizeof(*x));
	const char *vmlinux = NULL, *modules = NULL;
	char err[256];
	int opt, ret;

	if (!x)
		return 1;
	x->opts.max_depth = 8;
	x->opts.max_frames = KC_MAX_FRAMES;
	optind = 1;
	while ((opt = getopt_long(argc, argv, KC_COMMON_OPTS_SHORT "slV:M:d:"
				  KC_INPUT_OPTS_SHORT, opts, NULL)) != -1) {
		if (kc_input_option(&in, opt, optarg) || kc_common_option(opt))
			continue;
		switch (opt) {
		case 's':
			x->opts.strict = true;
			break;
		case 'l':
			x->litmus = true;
			break;
		case 'V':
			vmlinux = optarg;
			break;
		case 'M':
			modules = optarg;
			break;
		case 'd':
			if (parse_depth(optarg, &x->opts.max_depth)) {
				kc_error("tso: --max-depth '%s': not a number from 0 to %d",
					 optarg, TSO_MAX_DEPTH);
				free(x);
				return KC_EXIT_USAGE;
			}
			break;
		case 'h':
			tso_usage(stdout);
			free(x);
			return 0;
		default:
			tso_usage(stderr);
			free(x);
			return 2;
		}
	}
	if (optind < argc)
		in.path = argv[optind++];
	if (optind < argc) {
		tso_usage(stderr);
		free(x);
		return 2;
	}
	/* The input first: a wrong file name must not read as a kcore error. */
	ret = kc_input_check(&in);
	if (ret) {
		kc_input_error("tso", &in, ret);
		free(x);
		return KC_EXIT_FAIL;
	}
	ret = vmlinux ? code_open_elf(&x->code, vmlinux, err, sizeof(err))
		      : code_open_live(&x->code, err, sizeof(err));
	if (!ret && modules)
		ret = code_add_modules(&x->code, modules, err, sizeof(err));
	if (ret) {
		kc_error("tso: %s", err);
		code_close(&x->code);
		free(x);
		return 1;
	}
	x->follow = in.follow;
	ret = kc_input_parse(&in, on_report, x, NULL, NULL);
	flush_ranked(x);
	if (ret)
		kc_input_error("tso", &in, ret);
	else if (!json_output)
		summary_line(x);
	tso_cache_free();
	code_close(&x->code);
	free(x);
	return ret ? 1 : 0;
}
