// SPDX-License-Identifier: GPL-2.0
/*
 * Printing parsed reports, as text for people and as JSON for scripts.
 */
#include <inttypes.h>
#include <string.h>

#include <kcollider/report.h>

#include "common.h"
#include "report_out.h"

static const char *role_name(const struct kc_report *r, int i)
{
	if (i == kc_report_racer(r))
		return "racer";
	return "sampled";
}

static void access_json(struct json *j, const struct kc_report *r, int i)
{
	const struct kc_access *a = &r->acc[i];
	char buf[KC_FRAME_STR_LEN];
	int k;

	json_obj_begin(j, NULL);
	json_str(j, "role", role_name(r, i));
	json_str(j, "type", kc_acc_type_name(a->type));
	json_bool(j, "marked", a->marked);
	json_hex(j, "addr", a->addr);
	json_int(j, "size", a->size);
	if (a->interrupt)
		json_null(j, "task");
	else
		json_int(j, "task", a->pid);
	json_bool(j, "interrupt", a->interrupt);
	json_int(j, "cpu", a->cpu);
	json_int(j, "line", a->line);
	if (a->have_ip)
		json_hex(j, "ip", a->ip);
	else
		json_null(j, "ip");
	if (a->have_sym) {
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64 "/0x%" PRIx64,
			 a->sym.func, a->sym.off, a->sym.size);
		json_str(j, "symbol", buf);
	} else {
		json_null(j, "symbol");
	}
	json_str(j, "module", a->sym.mod[0] ? a->sym.mod : NULL);
	json_bool(j, "top_frame_is_after_access", a->top_is_after);
	json_arr_begin(j, "stack");
	for (k = 0; k < a->nframes; k++) {
		kc_frame_format(&a->frames[k], buf, sizeof(buf));
		json_str(j, NULL, buf);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void tool_lines_json(struct json *j, const struct kc_report *r)
{
	int i, k;

	json_obj_begin(j, "kcollider");
	for (i = 0; i < r->ntool; i++) {
		const struct kc_tool_line *t = &r->tool_lines[i];

		json_obj_begin(j, t->key);
		/* Numbers as numbers: "size":4, as at the top level. */
		if (t->words[0])
			json_auto(j, "value", t->words);
		for (k = 0; k < t->nkv; k++)
			json_auto(j, t->kv[k].key, kc_tool_line_val(t, k));
		json_obj_end(j);
	}
	json_obj_end(j);
}

void kc_report_json(struct json *j, const struct kc_report *r)
{
	int i;

	json_str(j, "source", r->source);
	json_int(j, "line", r->first_line);
	json_int(j, "end_line", r->last_line);
	json_str(j, "status", kc_rep_status_name(r->status));
	if (r->status != KC_REP_OK) {
		json_str(j, "error", r->error);
		json_int(j, "error_line", r->error_line);
	}
	json_str(j, "tool", r->tool);
	json_str(j, "title", r->title);
	json_bool(j, "one_sided", r->one_sided);
	json_arr_begin(j, "accesses");
	for (i = 0; i < r->nacc; i++)
		access_json(j, r, i);
	json_arr_end(j);
	if (r->has_value) {
		json_obj_begin(j, "value");
		json_hex(j, "old", r->old_value);
		json_hex(j, "new", r->new_value);
		json_obj_end(j);
	} else {
		json_null(j, "value");
	}
	if (r->has_seq)
		json_int(j, "seq", r->seq);
	tool_lines_json(j, r);
}

static void access_text(FILE *out, const struct kc_report *r, int i)
{
	const struct kc_access *a = &r->acc[i];
	char buf[KC_FRAME_STR_LEN] = "?";

	if (a->have_sym)
		kc_frame_format(&a->sym, buf, sizeof(buf));
	fprintf(out, "  %-8s %s of %u bytes at 0x%" PRIx64 " by ",
		role_name(r, i), kc_acc_type_name(a->type), a->size, a->addr);
	if (a->interrupt)
		fprintf(out, "interrupt");
	else
		fprintf(out, "task %d", a->pid);
	fprintf(out, " on cpu %d: %s", a->cpu, buf);
	if (a->have_ip)
		fprintf(out, " (ip 0x%" PRIx64 ")", a->ip);
	else if (a->top_is_after)
		fprintf(out, " (frame after the access)");
	fputc('\n', out);
}

/* Lockdep kernels: the locks one side held and the other did not. */
static void locks_text(FILE *out, const struct kc_report *r)
{
	const struct kc_tool_line *t = kc_report_tool_line(r, KC_REPORT_KEY_LOCKS);
	const char *s, *x;

	if (!t)
		return;
	s = kc_tool_line_get(t, KC_REPORT_LOCKS_SAMPLED_ONLY);
	x = kc_tool_line_get(t, KC_REPORT_LOCKS_RACER_ONLY);
	if (!s || !x) {
		s = kc_tool_line_get(t, KC_REPORT_LOCKS_SAMPLED);
		fprintf(out, "  locks    sampled held %s\n", s ? s : "?");
		return;
	}
	fprintf(out, "  locks    held by the sampled side only: %s; by the racer only: %s\n",
		s, x);
}

void kc_report_text(FILE *out, const struct kc_report *r, unsigned long n)
{
	const struct kc_tool_line *cls = kc_report_tool_line(r, "class");
	int i;

	fprintf(out, "#%lu %s:%d %s: %s", n, r->source, r->first_line, r->tool,
		r->title);
	if (r->status != KC_REP_OK)
		fprintf(out, "  [%s at line %d: %s]", kc_rep_status_name(r->status),
			r->error_line, r->error);
	fputc('\n', out);
	for (i = 0; i < r->nacc; i++)
		access_text(out, r, i);
	if (r->one_sided)
		fprintf(out, "  racer    unknown (one-sided: value changed)\n");
	if (r->has_value)
		fprintf(out, "  value    0x%" PRIx64 " -> 0x%" PRIx64 "\n",
			r->old_value, r->new_value);
	locks_text(out, r);
	if (cls)
		fprintf(out, "  class    %s%s%s\n", cls->words,
			kc_tool_line_get(cls, "filter") ? " filter=" : "",
			kc_tool_line_get(cls, "filter") ?: "");
}

void kc_report_warn(const struct kc_report *r)
{
	if (r->status == KC_REP_OK)
		return;
	fprintf(stderr, "%s: %s:%d: %s report (begins at line %d): %s\n",
		prog_name, r->source, r->error_line, kc_rep_status_name(r->status),
		r->first_line, r->error);
}
