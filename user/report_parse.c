// SPDX-License-Identifier: GPL-2.0
/*
 * Line-driven parser of KCSAN-layout race reports.
 *
 * The input is whatever the kernel log holds, so nothing is trusted: every
 * field is parsed into storage sized to the kernel's own limits, with
 * bounds checks (a longer name is an error, never cut short), a line that
 * does not fit the layout marks the report malformed (with its line number)
 * and parsing goes on, and a report cut short by EOF or by another report's
 * header is delivered as truncated. Nothing here may crash on any input.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <kcollider/report.h>
#include "report_parse.h"

enum {
	ST_IDLE,	/* between reports */
	ST_BODY,	/* header seen, expecting an access line */
	ST_STACK,	/* inside an access block's stack */
	ST_TAIL,	/* value / tool lines after the blocks */
	ST_FOOTER,	/* after "Reported by ... on:" */
};

static const char * const acc_names[] = {
	[KC_ACC_TYPE_UNKNOWN] = "unknown",
	[KC_ACC_TYPE_READ] = "read",
	[KC_ACC_TYPE_WRITE] = "write",
	[KC_ACC_TYPE_READ_WRITE] = "read-write",
};

const char *kc_acc_type_name(enum kc_acc_type t)
{
	return t <= KC_ACC_TYPE_READ_WRITE ? acc_names[t] : "unknown";
}

const char *kc_rep_status_name(enum kc_rep_status s)
{
	switch (s) {
	case KC_REP_OK:
		return "ok";
	case KC_REP_MALFORMED:
		return "malformed";
	default:
		return "truncated";
	}
}

/* Copy at most @n bytes of @src into @dst (size @size), NUL-terminated. */
static void copy_n(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Copy @n bytes of @src whole, or nothing: names are never shortened. */
static bool copy_fit(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		return false;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return true;
}

static bool parse_hex(const char *s, const char **end, uint64_t *v)
{
	char *e;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
		return false;
	*v = strtoull(s + 2, &e, 16);
	*end = e;
	return true;
}

static bool parse_dec(const char *s, const char **end, long *v)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return false;
	*v = strtol(s, &e, 10);
	*end = e;
	return true;
}

/* "func+0xoff/0xsize [mod]"; a bare "func" is accepted without offsets. */
bool kc_parse_frame(const char *s, struct kc_frame *f)
{
	const char *p = s, *plus = NULL, *end;
	size_t n;

	memset(f, 0, sizeof(*f));
	while (*p && *p != ' ' && *p != '\n') {
		if (*p == '+')
			plus = p;
		p++;
	}
	if (p == s)
		return false;
	if (plus) {
		n = plus - s;
		if (!n || !parse_hex(plus + 1, &end, &f->off) || *end != '/' ||
		    !parse_hex(end + 1, &end, &f->size) || end != p)
			return false;
		f->has_off = true;
	} else {
		n = p - s;
	}
	if (!copy_fit(f->func, sizeof(f->func), s, n))
		return false;
	while (*p == ' ')
		p++;
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end || end == p + 1 ||
		    !copy_fit(f->mod, sizeof(f->mod), p + 1, end - p - 1))
			return false;
		p = end + 1;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	return *p == '\0';
}

void kc_frame_format(const struct kc_frame *f, char *buf, size_t len)
{
	if (f->has_off)
		snprintf(buf, len, "%s+0x%llx/0x%llx%s%s%s", f->func,
			 (unsigned long long)f->off, (unsigned long long)f->size,
			 f->mod[0] ? " [" : "", f->mod, f->mod[0] ? "]" : "");
	else
		snprintf(buf, len, "%s%s%s%s", f->func, f->mod[0] ? " [" : "",
			 f->mod, f->mod[0] ? "]" : "");
}

/*
 * Strip what the log adds in front of printk's text: a "<6>" level, a
 * /dev/kmsg "6,1234,5678,-;" record header, a "[   1.234567] " timestamp
 * and a "[T123]"/"[C1]" caller id. Exactly one space follows a bracket, so
 * a stack line's own leading space survives.
 */
static const char *strip_prefix(const char *s)
{
	const char *p = s;

	if (*p == '<') {
		while (isdigit((unsigned char)*++p))
			;
		if (*p == '>')
			s = p + 1;
	}
	p = s;
	if (isdigit((unsigned char)*p)) {
		const char *semi = strchr(p, ';');
		const char *q;

		for (q = p; q < semi && (isdigit((unsigned char)*q) || *q == ',' ||
				      *q == '-' || *q == 'c' || *q == '+'); q++)
			;
		if (semi && q == semi && memchr(p, ',', semi - p))
			s = semi + 1;
	}
	while (*s == '[') {
		p = strchr(s, ']');
		if (!p || p - s > 24)
			break;
		s = p + 1;
		if (*s == ' ')
			s++;
	}
	return s;
}

static bool is_rule(const char *s)
{
	size_t n = 0;

	while (s[n] == '=')
		n++;
	return n >= 20 && (s[n] == '\0' || s[n] == '\n' || s[n] == '\r');
}

static bool is_blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return !*s;
}

/*
 * A truncated report is always reported as truncated (it is incomplete,
 * whatever else is wrong with it); the error text and line stay those of
 * the first problem found, which is where a reader should look.
 */
static void mark_bad(struct kc_parser *p, enum kc_rep_status st,
		     const char *msg)
{
	struct kc_report *r = p->cur;

	if (r->status == KC_REP_OK) {
		r->error_line = p->lineno;
		snprintf(r->error, sizeof(r->error), "%s", msg);
	}
	if (st == KC_REP_TRUNCATED || r->status == KC_REP_OK)
		r->status = st;
}

static bool finish_fields(struct kc_report *r);

static int deliver(struct kc_parser *p)
{
	struct kc_report *r = p->cur;
	int ret;

	if (!r)
		return 0;
	if (!finish_fields(r))
		mark_bad(p, KC_REP_MALFORMED, "name in a kcollider line too long");
	if (r->status == KC_REP_OK && !r->nacc)
		mark_bad(p, KC_REP_MALFORMED, "no access block");
	else if (r->status == KC_REP_OK && !r->one_sided && r->nacc < 2)
		mark_bad(p, KC_REP_MALFORMED, "second access block missing");
	p->nreports++;
	if (r->status != KC_REP_OK)
		p->nbad++;
	ret = p->cb ? p->cb(r, p->data) : 0;
	free(r);
	p->cur = NULL;
	p->state = ST_IDLE;
	if (ret)
		p->stop = ret;
	return ret;
}

/*
 * "BUG: KCSAN: data-race in a / b" and friends; NULL if not a header.
 * @benign: it is kcollider's header without "BUG:".
 */
static const char *header_tool(const char *s, char *tool, size_t len,
			       bool *benign)
{
	const char *bug = strstr(s, "BUG: "), *colon;

	/* report_style=kcsan prints benign races without "BUG:". */
	*benign = !strncmp(s, KC_REPORT_TITLE_BENIGN,
			   strlen(KC_REPORT_TITLE_BENIGN));
	if (*benign) {
		snprintf(tool, len, "KCOLLIDER");
		return s + strlen(KC_REPORT_TITLE_BENIGN);
	}
	if (!bug)
		return NULL;
	bug += 5;
	colon = strstr(bug, ": ");
	if (!colon || colon - bug > 12)
		return NULL;
	copy_n(tool, len, bug, colon - bug);
	if (strcmp(tool, "KCSAN") && strcmp(tool, "KCOLLIDER"))
		return NULL;
	colon += 2;
	if (!strncmp(colon, "data-race in ", 13))
		return colon + 13;
	if (!strncmp(colon, "assert: race in ", 16))
		return colon + 16;
	if (!strncmp(colon, "race in ", 8))
		return colon + 8;
	return colon;
}

static void begin_report(struct kc_parser *p, const char *tool,
			 const char *title, bool benign)
{
	struct kc_report *r = calloc(1, sizeof(*r));

	if (!r) {
		p->stop = -1;
		return;
	}
	p->cur = r;
	snprintf(r->tool, sizeof(r->tool), "%s", tool);
	r->benign_title = benign;
	r->first_line = r->last_line = p->lineno;
	r->source = p->source ? p->source : "";
	p->state = ST_BODY;
	if (!copy_fit(r->title, sizeof(r->title), title,
		      strcspn(title, "\r\n")))
		mark_bad(p, KC_REP_MALFORMED, "title longer than two symbol names");
}

static enum kc_acc_type parse_type(const char *s, size_t n,
				   struct kc_access *a)
{
	char buf[64];

	copy_n(buf, sizeof(buf), s, n);
	a->marked = strstr(buf, "marked") != NULL;
	a->reordered = strstr(buf, "reordered") != NULL;
	if (!strncmp(buf, "assert no writes", 16)) {
		a->assert = true;
		return KC_ACC_TYPE_READ;
	}
	if (!strncmp(buf, "assert no accesses", 18)) {
		a->assert = true;
		return KC_ACC_TYPE_READ_WRITE;
	}
	buf[strcspn(buf, " ")] = '\0';
	if (!strcmp(buf, "read"))
		return KC_ACC_TYPE_READ;
	if (!strcmp(buf, "write"))
		return KC_ACC_TYPE_WRITE;
	if (!strcmp(buf, "read-write"))
		return KC_ACC_TYPE_READ_WRITE;
	return KC_ACC_TYPE_UNKNOWN;
}

/*
 * "<type> to 0x<addr> of <n> bytes by <task P | interrupt> on cpu <c>:",
 * optionally after "race at unknown origin, with ".
 */
static bool parse_access(const char *s, struct kc_access *a, bool *unknown)
{
	const char *to, *e;
	long v;

	*unknown = false;
	if (!strncmp(s, KC_REPORT_UNKNOWN_ORIGIN, strlen(KC_REPORT_UNKNOWN_ORIGIN))) {
		*unknown = true;
		s += strlen(KC_REPORT_UNKNOWN_ORIGIN);
	}
	to = strstr(s, " to 0x");
	if (!to)
		return false;
	a->type = parse_type(s, to - s, a);
	if (a->type == KC_ACC_TYPE_UNKNOWN)
		return false;
	if (!parse_hex(to + 4, &e, &a->addr) || strncmp(e, " of ", 4))
		return false;
	if (!parse_dec(e + 4, &e, &v) || v <= 0 || v > 4096 ||
	    strncmp(e, " bytes by ", 10))
		return false;
	a->size = v;
	e += 10;
	a->pid = -1;
	if (!strncmp(e, "task ", 5)) {
		if (!parse_dec(e + 5, &e, &v))
			return false;
		a->pid = v;
	} else if (!strncmp(e, "interrupt", 9)) {
		a->interrupt = true;
		e += 9;
	} else {
		return false;
	}
	if (strncmp(e, " on cpu ", 8) || !parse_dec(e + 8, &e, &v))
		return false;
	a->cpu = v;
	return *e == ':' && is_blank(e + 1);
}

static bool parse_value(const char *s, struct kc_report *r)
{
	const char *e;

	s += strlen(KC_REPORT_VALUE);
	if (!parse_hex(s, &e, &r->old_value) || strncmp(e, " -> ", 4) ||
	    !parse_hex(e + 4, &e, &r->new_value) || !is_blank(e))
		return false;
	r->has_value = true;
	return true;
}

/* "kcollider: key: word k=v k=v": split, bounded, values kept verbatim. */
static bool parse_tool_line(const char *s, struct kc_report *r)
{
	struct kc_tool_line *t;
	const char *colon, *w;
	size_t n;

	s += strlen(KC_REPORT_TOOL_LINE);
	colon = strchr(s, ':');
	if (!colon || colon == s || colon - s >= 32 || strchr(s, ' ') < colon)
		return false;
	if (r->ntool >= KC_MAX_TOOL_LINES)
		return true;	/* more lines than we know keys: ignore */
	t = &r->tool_lines[r->ntool++];
	copy_n(t->key, sizeof(t->key), s, colon - s);
	for (w = colon + 1; *w; w += n) {
		const char *eq;

		while (*w == ' ' || *w == '\r' || *w == '\n')
			w++;
		n = strcspn(w, " \r\n");
		if (!n)
			break;
		eq = memchr(w, '=', n);
		if (eq && eq != w && t->nkv < KC_MAX_KV) {
			struct kc_kv *kv = &t->kv[t->nkv++];

			kv->val = t->vals_used;
			if (!copy_fit(kv->key, sizeof(kv->key), w, eq - w) ||
			    !copy_fit(t->vals + t->vals_used,
				      sizeof(t->vals) - t->vals_used, eq + 1,
				      n - (eq - w) - 1))
				return false;
			t->vals_used += n - (eq - w);
		} else if (!eq) {
			size_t used = strlen(t->words);

			if (used + n + 2 >= sizeof(t->words))
				return false;
			if (used)
				t->words[used++] = ' ';
			copy_n(t->words + used, sizeof(t->words) - used, w, n);
		}
	}
	return true;
}

const struct kc_tool_line *kc_report_tool_line(const struct kc_report *r,
					       const char *key)
{
	int i;

	for (i = 0; i < r->ntool; i++)
		if (!strcmp(r->tool_lines[i].key, key))
			return &r->tool_lines[i];
	return NULL;
}

const char *kc_tool_line_get(const struct kc_tool_line *t, const char *key)
{
	int i;

	for (i = 0; t && i < t->nkv; i++)
		if (!strcmp(t->kv[i].key, key))
			return kc_tool_line_val(t, i);
	return NULL;
}

const char *kc_tool_line_val(const struct kc_tool_line *t, int i)
{
	return t->vals + t->kv[i].val;
}

int kc_report_racer(const struct kc_report *r)
{
	return r->nacc == 2 && !r->one_sided ? 0 : -1;
}

int kc_report_sampled(const struct kc_report *r)
{
	if (r->one_sided)
		return r->nacc ? 0 : -1;
	return r->nacc == 2 ? 1 : -1;
}

static bool hex_field(const char *s, uint64_t *v)
{
	const char *e;

	return s && parse_hex(s, &e, v) && !*e;
}

/*
 * kcollider's sampled:/racer: lines override what the stacks implied.
 * False when a name does not fit (the report is then malformed).
 */
static bool apply_tool_access(struct kc_access *a, const struct kc_tool_line *t)
{
	const char *v;
	long n;

	if (hex_field(kc_tool_line_get(t, "ip"), &a->ip)) {
		a->have_ip = true;
		a->top_is_after = false;
	}
	hex_field(kc_tool_line_get(t, "trap_ip"), &a->trap_ip);
	v = kc_tool_line_get(t, "sym");
	if (v && kc_parse_frame(v, &a->sym) && a->sym.has_off) {
		a->have_sym = true;
		a->top_is_after = false;
		v = kc_tool_line_get(t, "mod");
		if (v && !copy_fit(a->sym.mod, sizeof(a->sym.mod), v, strlen(v)))
			return false;
	}
	v = kc_tool_line_get(t, "access");
	if (v) {
		enum kc_acc_type ty = parse_type(v, strlen(v), a);

		if (ty != KC_ACC_TYPE_UNKNOWN)
			a->type = ty;
	}
	v = kc_tool_line_get(t, "size");
	if (v) {
		n = strtol(v, NULL, 10);
		if (n > 0 && n <= 4096)
			a->size = n;
	}
	v = kc_tool_line_get(t, "op");
	return !v || copy_fit(a->op, sizeof(a->op), v, strlen(v));
}

/* False when a sampled:/racer: line holds a name too long to keep. */
static bool finish_fields(struct kc_report *r)
{
	const struct kc_tool_line *t;
	int racer = kc_report_racer(r), sampled = kc_report_sampled(r);
	bool ok = true;
	uint64_t seq;
	int i;

	/* Without kcollider's lines: the KCSAN reading of the two blocks. */
	for (i = 0; i < r->nacc; i++) {
		struct kc_access *a = &r->acc[i];

		a->top_is_after = i == racer;
		if (a->nframes) {
			a->sym = a->frames[0];
			a->have_sym = a->sym.has_off;
		}
	}
	t = kc_report_tool_line(r, KC_REPORT_KEY_SAMPLED);
	if (t && sampled >= 0 && !apply_tool_access(&r->acc[sampled], t))
		ok = false;
	t = kc_report_tool_line(r, KC_REPORT_KEY_RACER);
	if (t && !strcmp(t->words, "unknown"))
		r->racer_unknown = true;
	else if (t && racer >= 0 && !apply_tool_access(&r->acc[racer], t))
		ok = false;
	t = kc_report_tool_line(r, KC_REPORT_KEY_SEQ);
	if (t && t->words[0]) {
		char *e;

		seq = strtoull(t->words, &e, 10);
		if (!*e) {
			r->seq = seq;
			r->has_seq = true;
		}
	}
	return ok;
}

static void add_frame(struct kc_parser *p, const char *s)
{
	struct kc_report *r = p->cur;
	struct kc_access *a = &r->acc[r->nacc - 1];
	struct kc_frame f;

	while (*s == ' ')
		s++;
	/* Context markers a stack dump may hold. */
	if (*s == '<' || *s == '?')
		return;
	if (!kc_parse_frame(s, &f)) {
		mark_bad(p, KC_REP_MALFORMED, strcspn(s, " [") >= KC_SYM_LEN ?
			 "symbol name longer than the kernel allows" :
			 "bad stack frame");
		return;
	}
	if (a->nframes < KC_MAX_FRAMES)
		a->frames[a->nframes++] = f;
}

static void body_line(struct kc_parser *p, const char *s)
{
	struct kc_report *r = p->cur;
	struct kc_access *a = &r->acc[r->nacc];
	bool unknown;

	if (is_blank(s))
		return;
	/*
	 * Parsed in place (an access with its frames is large): the slot is
	 * zero until taken, and zeroed again when the line is no access.
	 */
	if (r->nacc < 2 && parse_access(s, a, &unknown)) {
		if (unknown && r->nacc)
			mark_bad(p, KC_REP_MALFORMED, "unknown origin in second block");
		a->line = a->end_line = p->lineno;
		r->nacc++;
		r->one_sided |= unknown;
		p->state = ST_STACK;
		return;
	}
	if (r->nacc < 2)
		memset(a, 0, offsetof(struct kc_access, frames));
	if (r->nacc && (!strncmp(s, KC_REPORT_VALUE, strlen(KC_REPORT_VALUE)) ||
			!strncmp(s, KC_REPORT_TOOL_LINE, strlen(KC_REPORT_TOOL_LINE)) ||
			!strncmp(s, "Reported by ", 12))) {
		p->state = ST_TAIL;
		return;	/* caller re-dispatches */
	}
	mark_bad(p, KC_REP_MALFORMED, r->nacc ? "unexpected line after access block"
					       : "expected an access line");
}

static void tail_line(struct kc_parser *p, const char *s)
{
	struct kc_report *r = p->cur;

	if (is_blank(s))
		return;
	if (!strncmp(s, KC_REPORT_VALUE, strlen(KC_REPORT_VALUE))) {
		if (!parse_value(s, r))
			mark_bad(p, KC_REP_MALFORMED, "bad value line");
	} else if (!strncmp(s, KC_REPORT_TOOL_LINE, strlen(KC_REPORT_TOOL_LINE))) {
		if (!parse_tool_line(s, r))
			mark_bad(p, KC_REP_MALFORMED,
				 "bad kcollider line (or a value too long)");
	} else if (!strncmp(s, "Reported by ", 12)) {
		p->state = ST_FOOTER;
	} else {
		mark_bad(p, KC_REP_MALFORMED, "unexpected line in report");
	}
}

/* A line that cannot belong to a report in progress: it was cut short. */
static bool interrupts_report(const char *s)
{
	return strstr(s, "BUG: ") || strstr(s, "WARNING: ") ||
	       strstr(s, "Oops: ") || strstr(s, "general protection fault");
}

int kc_parser_line(struct kc_parser *p, const char *raw)
{
	const char *s, *title;
	char tool[16];
	bool benign;

	if (p->stop)
		return p->stop;
	p->lineno++;
	s = strip_prefix(raw);
	title = header_tool(s, tool, sizeof(tool), &benign);
	if (p->cur && (title || interrupts_report(s))) {
		mark_bad(p, KC_REP_TRUNCATED, "report cut short by another message");
		if (deliver(p))
			return p->stop;
	}
	if (title) {
		begin_report(p, tool, title, benign);
		return p->stop;
	}
	if (!p->cur)
		return 0;
	p->cur->last_line = p->lineno;
	if (is_rule(s)) {
		/* The closing rule: earlier ones only precede the header. */
		return deliver(p);
	}
	switch (p->state) {
	case ST_BODY:
		body_line(p, s);
		if (p->state == ST_TAIL)
			tail_line(p, s);
		break;
	case ST_STACK:
		if (is_blank(s)) {
			p->state = ST_BODY;
		} else if (*s == ' ') {
			p->cur->acc[p->cur->nacc - 1].end_line = p->lineno;
			add_frame(p, s);
		} else {
			p->state = ST_BODY;
			body_line(p, s);
			if (p->state == ST_TAIL)
				tail_line(p, s);
		}
		break;
	case ST_TAIL:
		tail_line(p, s);
		break;
	default:
		break;	/* footer: CPU:, Hardware name:, anything */
	}
	return p->stop;
}

void kc_parser_init(struct kc_parser *p, const char *source,
		    kc_report_cb cb, void *data)
{
	memset(p, 0, sizeof(*p));
	p->cb = cb;
	p->data = data;
	p->source = source;
}

int kc_parser_finish(struct kc_parser *p)
{
	if (!p->cur)
		return p->stop;
	mark_bad(p, KC_REP_TRUNCATED, "end of input inside a report");
	return deliver(p);
}

int kc_parse_file(FILE *f, const char *source, kc_report_cb cb, void *data,
		  unsigned long *nreports, unsigned long *nbad)
{
	struct kc_parser p;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	kc_parser_init(&p, source, cb, data);
	while (!ret && (n = getline(&line, &cap, f)) >= 0) {
		/* A NUL inside a line ends it: the rest is unreadable anyway. */
		ret = kc_parser_line(&p, line);
	}
	if (!ret)
		ret = kc_parser_finish(&p);
	else if (p.cur) {
		free(p.cur);
		p.cur = NULL;
	}
	free(line);
	if (nreports)
		*nreports = p.nreports;
	if (nbad)
		*nbad = p.nbad;
	return ret < 0 ? ret : 0;
}
