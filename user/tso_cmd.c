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

struct tso_ctx {
	struct code_src code;
	struct tso_opts opts;
	bool litmus;
	unsigned long n, counts[TSO_UNKNOWN + 1];
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
		"Verdicts:\n"
		"  triangular      a barrier-free earlier store exists (witness shown):\n"
		"                  a candidate SC violation on x86\n"
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
		"  -l, --litmus         print an x86 herd7 litmus test for each triangular\n"
		"                       race, and the built-in TSO checker's answer\n"
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

/* "func+0xoff" of @ip as member @key, however long the name. */
static void sym_json(struct json *j, const struct code_src *c, const char *key,
		     uint64_t ip)
{
	char *sym = code_sym(c, ip);

	json_str(j, key, sym ? sym : "?");
	free(sym);
}

static void point_json(struct json *j, const struct code_src *c,
		       const char *key, const char *ipkey, uint64_t ip)
{
	char buf[PATH_MAX + 32];

	json_obj_begin(j, key);
	json_hex(j, ipkey, ip);
	sym_json(j, c, "symbol", ip);
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
		sym_json(j, c, "symbol", res->path[i]);
		insn_text(c, res->path[i], buf, sizeof(buf));
		json_str(j, "insn", buf);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/*
 * SB shaped on the race: P0 = the reader, P1 = the racing writer. Returns
 * the doc string (t->note), allocated: names of any length, never cut.
 */
static char *make_litmus(const struct kc_report *r, const struct tso_result *res,
			 const struct code_src *c, struct litmus *t)
{
	const struct kc_access *other = res->other >= 0 ? &r->acc[res->other] : NULL;
	char *w = code_sym(c, res->witness_ip), *l = code_sym(c, res->load_ip);
	char *note = NULL;
	int x, y, eax;

	memset(t, 0, sizeof(*t));
	if (asprintf(&note, "kcollider: witness store %s; racy load %s; racing store %s+0x%" PRIx64,
		     w ? w : "?", l ? l : "?",
		     other && other->nframes ? other->frames[0].func : "?",
		     other && other->nframes ? other->frames[0].off : 0) < 0)
		note = NULL;
	free(w);
	free(l);
	t->note = note;
	/* Two names of at most KC_SYM_LEN - 1 each: LIT_NAME_LEN holds them. */
	snprintf(t->name, sizeof(t->name), "%s+%s", r->acc[res->side].frames[0].func,
		 other && other->nframes ? other->frames[0].func : "unknown");
	t->nthreads = 2;
	x = lit_loc(t, "x");	/* the witness store's location */
	y = lit_loc(t, "y");	/* the raced location */
	eax = lit_reg(t, "EAX");
	t->t[0].insn[t->t[0].n++] = (struct lit_insn){ .op = LIT_STORE, .loc = x, .val = 1 };
	t->t[0].insn[t->t[0].n++] = (struct lit_insn){ .op = LIT_LOAD, .loc = y, .reg = eax };
	t->t[1].insn[t->t[1].n++] = (struct lit_insn){ .op = LIT_STORE, .loc = y, .val = 1 };
	t->t[1].insn[t->t[1].n++] = (struct lit_insn){ .op = LIT_LOAD, .loc = x, .reg = eax };
	t->terms[t->nterms++] = (struct lit_term){ .thread = 0, .reg = eax, .val = 0 };
	t->terms[t->nterms++] = (struct lit_term){ .thread = 1, .reg = eax, .val = 0 };
	return note;
}

static char *litmus_text(const struct litmus *t, struct lit_result *tso,
			 struct lit_result *sc)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	lit_print(f, t);
	fclose(f);
	lit_check(t, LIT_TSO, tso);
	lit_check(t, LIT_SC, sc);
	return buf;
}

static void result_json(struct tso_ctx *x, const struct kc_report *r,
			const struct tso_result *res, const char *lit,
			const struct lit_result *ltso, const struct lit_result *lsc)
{
	const struct code_src *c = &x->code;
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "source", r->source);
	json_int(&j, "line", r->first_line);
	json_str(&j, "title", r->title);
	json_str(&j, "report_status", kc_rep_status_name(r->status));
	json_str(&j, "verdict", tso_verdict_name(res->verdict));
	json_str(&j, "reason", res->reason);
	json_str(&j, "detail", res->detail);
	if (res->have_load) {
		json_obj_begin(&j, "load");
		json_hex(&j, "ip", res->load_ip);
		sym_json(&j, c, "symbol", res->load_ip);
		json_str(&j, "insn", res->load_insn);
		json_str(&j, "role", res->side == kc_report_racer(r) ? "racer" : "sampled");
		json_obj_end(&j);
	} else {
		json_null(&j, "load");
	}
	witness_json(&j, c, res);
	if (res->have_barrier) {
		point_json(&j, c, "barrier", "ip", res->barrier_ip);
		json_obj_end(&j);
	} else {
		json_null(&j, "barrier");
	}
	if (res->have_fence) {
		json_obj_begin(&j, "fence");
		json_hex(&j, "before_ip", res->fence_ip);
		sym_json(&j, c, "symbol", res->fence_ip);
		json_obj_end(&j);
	} else {
		json_null(&j, "fence");
	}
	if (res->have_unknown_ip)
		sym_json(&j, c, "unknown_at", res->unknown_ip);
	if (lit) {
		json_str(&j, "litmus", lit);
		json_bool(&j, "litmus_tso_allowed", ltso->reachable);
		json_bool(&j, "litmus_sc_allowed", lsc->reachable);
	}
	json_obj_end(&j);
	json_line_end(&j);
}

/* "  label    func+0xoff  insn", names of any length. */
static void point_text(const struct code_src *c, const char *label, uint64_t ip,
		       bool with_insn)
{
	char *sym = code_sym(c, ip), insn[128];

	insn_text(c, ip, insn, sizeof(insn));
	printf("  %-8s %s%s%s", label, sym ? sym : "?", with_insn ? "  " : "",
	       with_insn ? insn : "");
	free(sym);
}

static void result_text(struct tso_ctx *x, const struct kc_report *r,
			const struct tso_result *res)
{
	const struct code_src *c = &x->code;
	char line[PATH_MAX + 32], *sym;
	int i;

	printf("#%lu %s:%d %s\n", x->n, r->source, r->first_line, r->title);
	printf("  verdict  %s (%s): %s\n", tso_verdict_name(res->verdict),
	       res->reason, res->detail ? res->detail : "");
	if (res->have_load) {
		point_text(c, "load", res->load_ip, false);
		printf("  %s\n", res->load_insn);
	}
	if (res->have_witness) {
		point_text(c, "witness", res->witness_ip, true);
		if (code_source_line(c, res->witness_ip, line, sizeof(line)))
			printf("  (%s)", line);
		printf("\n  path     %d instructions:\n", res->path_len);
		for (i = 0; i < res->path_len; i++) {
			sym = code_sym(c, res->path[i]);
			insn_text(c, res->path[i], line, sizeof(line));
			printf("           %-28s %s\n", sym ? sym : "?", line);
			free(sym);
		}
	}
	if (res->have_barrier) {
		point_text(c, "barrier", res->barrier_ip, true);
		printf("\n");
	}
	if (res->have_fence) {
		sym = code_sym(c, res->fence_ip);
		printf("  fence    smp_mb() before %s closes every witness path\n",
		       sym ? sym : "?");
		free(sym);
	}
}

static int on_report(const struct kc_report *r, void *data)
{
	struct tso_ctx *x = data;
	struct lit_result ltso = { 0 }, lsc = { 0 };
	struct tso_result res;
	struct litmus t;
	char *lit = NULL, *note;

	x->n++;
	if (r->status != KC_REP_OK)
		fprintf(stderr, "%s: %s:%d: %s report (begins at line %d): %s\n",
			prog_name, r->source, r->error_line,
			kc_rep_status_name(r->status), r->first_line, r->error);
	tso_analyze(&x->code, r, &x->opts, &res);
	x->counts[res.verdict]++;
	if (x->litmus && res.verdict == TSO_TRIANGULAR && res.have_witness) {
		note = make_litmus(r, &res, &x->code, &t);
		lit = litmus_text(&t, &ltso, &lsc);
		free(note);
	}
	if (json_output) {
		result_json(x, r, &res, lit, &ltso, &lsc);
	} else {
		result_text(x, r, &res);
		if (lit)
			printf("%s(x86-TSO: %s, SC: %s)\n", lit,
			       ltso.reachable ? "Allowed" : "Forbidden",
			       lsc.reachable ? "Allowed" : "Forbidden");
	}
	fflush(stdout);
	free(lit);
	tso_result_free(&res);
	return 0;
}

static void summary_line(const struct tso_ctx *x)
{
	int v;

	printf("# %lu reports:", x->n);
	for (v = 0; v <= TSO_UNKNOWN; v++)
		printf(" %lu %s%s", x->counts[v], tso_verdict_name(v),
		       v < TSO_UNKNOWN ? "," : "\n");
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
		KC_COMMON_LONGOPTS,
		{ "strict", no_argument, NULL, 's' },
		{ "litmus", no_argument, NULL, 'l' },
		{ "vmlinux", required_argument, NULL, 'V' },
		{ "modules", required_argument, NULL, 'M' },
		{ "max-depth", required_argument, NULL, 'd' },
		KC_INPUT_LONGOPTS,
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
	ret = kc_input_parse(&in, on_report, x, NULL, NULL);
	if (ret)
		kc_input_error("tso", &in, ret);
	else if (!json_output)
		summary_line(x);
	cfg_cache_free();
	code_close(&x->code);
	free(x);
	return ret ? 1 : 0;
}
