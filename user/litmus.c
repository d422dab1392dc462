// SPDX-License-Identifier: GPL-2.0
/*
 * herd7 x86 litmus syntax: reading and writing the subset the checker and
 * the triangular-race output use.
 *
 *   X86 SB
 *   "optional comment"
 *   { x=0; y=0; 0:EAX=1; }
 *    P0          | P1          ;
 *    MOV [x],$1  | MOV [y],$1  ;
 *    MOV EAX,[y] | MOV EAX,[x] ;
 *   exists (0:EAX=0 /\ 1:EAX=0)
 *
 * Instructions: MOV [x],$v; MOV [x],REG; MOV REG,[x]; MOV REG,$v; MFENCE;
 * XCHG [x],REG (or XCHG REG,[x]); LOCK ADD [x],$v.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "litmus.h"
#include "readfile.h"

/* A litmus test is a few lines: a bigger input is something else. */
#define LIT_MAX_FILE (1 << 20)

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

int lit_loc(struct litmus *t, const char *name)
{
	int i;

	for (i = 0; i < t->nlocs; i++)
		if (!strcmp(t->locs[i], name))
			return i;
	if (t->nlocs == LIT_MAX_LOCS || strlen(name) >= sizeof(t->locs[0]) ||
	    !*name)
		return -1;
	strcpy(t->locs[t->nlocs], name);
	return t->nlocs++;
}

int lit_reg(struct litmus *t, const char *name)
{
	int i;

	for (i = 0; i < t->nregs; i++)
		if (!strcmp(t->regs[i], name))
			return i;
	if (t->nregs == LIT_MAX_REGS || strlen(name) >= sizeof(t->regs[0]) ||
	    !*name)
		return -1;
	strcpy(t->regs[t->nregs], name);
	return t->nregs++;
}

/* Copy the next token delimited by @delims into @buf, trimmed. */
static const char *token(const char *s, const char *delims, char *buf,
			 size_t len)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strcspn(s, delims);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return s + strcspn(s, delims);
}

static void upcase(char *s)
{
	for (; *s; s++)
		*s = toupper((unsigned char)*s);
}

/* "[x]" -> location index, or -1. */
static int mem_operand(struct litmus *t, const char *s)
{
	char name[16];
	size_t n = strlen(s);

	if (n < 3 || s[0] != '[' || s[n - 1] != ']' || n - 2 >= sizeof(name))
		return -1;
	memcpy(name, s + 1, n - 2);
	name[n - 2] = '\0';
	return lit_loc(t, name);
}

static bool imm_operand(const char *s, int *v)
{
	char *e;

	if (*s != '$')
		return false;
	*v = strtol(s + 1, &e, 0);
	return s[1] && !*e;
}

static bool reg_operand(struct litmus *t, const char *s, int *r)
{
	char up[8];

	if (!isalpha((unsigned char)*s) || strlen(s) >= sizeof(up))
		return false;
	strcpy(up, s);
	upcase(up);
	*r = lit_reg(t, up);
	return *r >= 0;
}

static int parse_insn(struct litmus *t, const char *text, struct lit_insn *in)
{
	char op[16], a[32], b[32], up[16];
	const char *s;

	memset(in, 0, sizeof(*in));
	s = token(text, " \t", op, sizeof(op));
	strcpy(up, op);
	upcase(up);
	if (!strcmp(up, "MFENCE")) {
		in->op = LIT_MFENCE;
		return 0;
	}
	if (!strcmp(up, "LOCK")) {
		s = token(s, " \t", op, sizeof(op));
		strcpy(up, op);
		upcase(up);
		if (strcmp(up, "ADD"))
			return -1;
		strcpy(up, "LOCKADD");
	}
	s = token(s, ",", a, sizeof(a));
	if (*s != ',')
		return -1;
	token(s + 1, "", b, sizeof(b));
	if (!strcmp(up, "MOV")) {
		in->loc = mem_operand(t, a);
		if (in->loc >= 0) {
			in->op = LIT_STORE;
			if (imm_operand(b, &in->val))
				return 0;
			in->from_reg = true;
			return reg_operand(t, b, &in->reg) ? 0 : -1;
		}
		if (!reg_operand(t, a, &in->reg))
			return -1;
		if (imm_operand(b, &in->val)) {
			in->op = LIT_MOVI;
			return 0;
		}
		in->op = LIT_LOAD;
		in->loc = mem_operand(t, b);
		return in->loc >= 0 ? 0 : -1;
	}
	if (!strcmp(up, "XCHG")) {
		in->op = LIT_XCHG;
		in->loc = mem_operand(t, a);
		if (in->loc >= 0)
			return reg_operand(t, b, &in->reg) ? 0 : -1;
		in->loc = mem_operand(t, b);
		return in->loc >= 0 && reg_operand(t, a, &in->reg) ? 0 : -1;
	}
	if (!strcmp(up, "LOCKADD")) {
		in->op = LIT_LOCK_ADD;
		in->loc = mem_operand(t, a);
		return in->loc >= 0 && imm_operand(b, &in->val) ? 0 : -1;
	}
	return -1;
}

/* "x=0; y=0; 0:EAX=1;" */
static int parse_init(struct litmus *t, const char *s, char *err, size_t len)
{
	char item[48], name[32];
	int th, v, r, l;

	while (*s) {
		s = token(s, ";}", item, sizeof(item));
		if (*s == ';')
			s++;
		else
			s += strlen(s);
		if (!item[0])
			continue;
		if (sscanf(item, "%d:%31[A-Za-z0-9] = %d", &th, name, &v) == 3) {
			upcase(name);
			r = lit_reg(t, name);
			if (r < 0 || th < 0 || th >= LIT_MAX_THREADS)
				return fail(err, len, "bad init '%s'", item);
			t->init_reg[th][r] = v;
		} else if (sscanf(item, "%31[A-Za-z0-9_] = %d", name, &v) == 2) {
			l = lit_loc(t, name);
			if (l < 0)
				return fail(err, len, "too many locations");
			t->init_mem[l] = v;
		} else {
			return fail(err, len, "bad init '%s'", item);
		}
	}
	return 0;
}

/* "(0:EAX=0 /\ 1:EAX=0)" */
static int parse_exists(struct litmus *t, const char *s, char *err, size_t len)
{
	char item[48], name[32];
	int th, v;

	while (*s == ' ' || *s == '(')
		s++;
	while (*s && *s != ')') {
		struct lit_term *term;
		const char *and = strstr(s, "/\\");
		size_t n = and ? (size_t)(and - s) : strcspn(s, ")");

		if (n >= sizeof(item) || t->nterms == LIT_MAX_TERMS)
			return fail(err, len, "condition too long");
		memcpy(item, s, n);
		item[n] = '\0';
		s += n + (and ? 2 : 0);
		term = &t->terms[t->nterms++];
		if (sscanf(item, " %d:%31[A-Za-z0-9] = %d", &th, name, &v) == 3) {
			upcase(name);
			term->thread = th;
			term->reg = lit_reg(t, name);
			term->val = v;
			if (term->reg < 0 || th < 0 || th >= t->nthreads)
				return fail(err, len, "bad term '%s'", item);
		} else if (sscanf(item, " [%31[A-Za-z0-9_]] = %d", name, &v) == 2 ||
			   sscanf(item, " %31[A-Za-z0-9_] = %d", name, &v) == 2) {
			term->thread = -1;
			term->loc = lit_loc(t, name);
			term->val = v;
			if (term->loc < 0)
				return fail(err, len, "bad term '%s'", item);
		} else {
			return fail(err, len, "bad term '%s'", item);
		}
	}
	return t->nterms ? 0 : fail(err, len, "empty exists clause");
}

/* One row " MOV [x],$1 | MOV EAX,[y] ;" of the program. */
static int parse_row(struct litmus *t, const char *line, int lineno, char *err,
		     size_t len)
{
	char cell[64];
	const char *s = line;
	int th = 0;

	while (*s && *s != ';') {
		s = token(s, "|;", cell, sizeof(cell));
		if (th >= t->nthreads)
			return fail(err, len, "line %d: more columns than threads", lineno);
		if (cell[0]) {
			struct lit_thread *pt = &t->t[th];

			if (pt->n == LIT_MAX_INSNS)
				return fail(err, len, "line %d: thread too long", lineno);
			if (parse_insn(t, cell, &pt->insn[pt->n]))
				return fail(err, len, "line %d: bad instruction '%s'",
					    lineno, cell);
			pt->n++;
		}
		th++;
		if (*s == '|')
			s++;
	}
	return 0;
}

static int parse_threads(struct litmus *t, const char *line, char *err,
			 size_t len)
{
	char cell[16];
	const char *s = line;

	while (*s && *s != ';') {
		s = token(s, "|;", cell, sizeof(cell));
		if (cell[0] != 'P' || atoi(cell + 1) != t->nthreads ||
		    t->nthreads == LIT_MAX_THREADS)
			return fail(err, len, "bad thread header '%s'", cell);
		t->nthreads++;
		if (*s == '|')
			s++;
	}
	return t->nthreads ? 0 : fail(err, len, "no threads");
}

int lit_parse(const char *text, struct litmus *t, char *err, size_t len)
{
	enum { NAME, INIT, THREADS, ROWS } st = NAME;
	char *copy = strdup(text), *line, *save = NULL;
	char init[512] = "";
	int lineno = 0, ret = 0;

	memset(t, 0, sizeof(*t));
	if (!copy)
		return fail(err, len, "out of memory");
	for (line = strtok_r(copy, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *s = line;

		lineno++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			continue;
		if (st == NAME) {
			if (strncasecmp(s, "X86 ", 4))
				ret = fail(err, len, "line %d: not an X86 litmus test", lineno);
			else
				token(s + 4, "\r", t->name, sizeof(t->name));
			st = INIT;
		} else if (st == INIT && *s == '"') {
			token(s + 1, "\"", t->doc, sizeof(t->doc));
		} else if (st == INIT) {
			/* The initial state may span lines up to its '}'. */
			strncat(init, s, sizeof(init) - strlen(init) - 2);
			strcat(init, " ");
			if (strchr(s, '}')) {
				char *open = strchr(init, '{');

				ret = open ? parse_init(t, open + 1, err, len)
					   : fail(err, len, "line %d: no '{'", lineno);
				st = THREADS;
			}
		} else if (st == THREADS) {
			ret = parse_threads(t, s, err, len);
			st = ROWS;
		} else if (strncmp(s, "exists", 6)) {
			ret = parse_row(t, s, lineno, err, len);
		} else {
			ret = parse_exists(t, s + 6, err, len);
			break;
		}
	}
	if (!ret && !t->nterms)
		ret = fail(err, len, "no exists clause");
	free(copy);
	return ret;
}

int lit_parse_file(FILE *f, struct litmus *t, char *err, size_t len)
{
	char *buf = kc_read_stream(f, LIT_MAX_FILE, NULL);
	int ret;

	memset(t, 0, sizeof(*t));
	if (!buf)
		return fail(err, len, "%s%s", strerror(errno),
			    errno == EFBIG ? " (over 1 MiB: not a litmus test)" : "");
	ret = lit_parse(buf, t, err, len);
	free(buf);
	return ret;
}

static void insn_text(const struct litmus *t, const struct lit_insn *in,
		      char *buf, size_t len)
{
	switch (in->op) {
	case LIT_STORE:
		if (in->from_reg)
			snprintf(buf, len, "MOV [%s],%s", t->locs[in->loc], t->regs[in->reg]);
		else
			snprintf(buf, len, "MOV [%s],$%d", t->locs[in->loc], in->val);
		break;
	case LIT_LOAD:
		snprintf(buf, len, "MOV %s,[%s]", t->regs[in->reg], t->locs[in->loc]);
		break;
	case LIT_MOVI:
		snprintf(buf, len, "MOV %s,$%d", t->regs[in->reg], in->val);
		break;
	case LIT_MFENCE:
		snprintf(buf, len, "MFENCE");
		break;
	case LIT_XCHG:
		snprintf(buf, len, "XCHG [%s],%s", t->locs[in->loc], t->regs[in->reg]);
		break;
	case LIT_LOCK_ADD:
		snprintf(buf, len, "LOCK ADD [%s],$%d", t->locs[in->loc], in->val);
		break;
	}
}

static void print_init(FILE *out, const struct litmus *t)
{
	int i, r;

	fprintf(out, "{ ");
	for (i = 0; i < t->nlocs; i++)
		fprintf(out, "%s=%d; ", t->locs[i], t->init_mem[i]);
	for (i = 0; i < t->nthreads; i++)
		for (r = 0; r < t->nregs; r++)
			if (t->init_reg[i][r])
				fprintf(out, "%d:%s=%d; ", i, t->regs[r], t->init_reg[i][r]);
	fprintf(out, "}\n");
}

void lit_print(FILE *out, const struct litmus *t)
{
	char cells[LIT_MAX_THREADS][LIT_MAX_INSNS][40] = { { { 0 } } };
	int width[LIT_MAX_THREADS], rows = 0, i, k;

	fprintf(out, "X86 %s\n", t->name);
	if (t->note)
		fprintf(out, "\"%s\"\n", t->note);
	else if (t->doc[0])
		fprintf(out, "\"%s\"\n", t->doc);
	print_init(out, t);
	for (i = 0; i < t->nthreads; i++) {
		width[i] = 3;
		for (k = 0; k < t->t[i].n; k++) {
			insn_text(t, &t->t[i].insn[k], cells[i][k], sizeof(cells[i][k]));
			if ((int)strlen(cells[i][k]) > width[i])
				width[i] = strlen(cells[i][k]);
		}
		if (t->t[i].n > rows)
			rows = t->t[i].n;
	}
	for (i = 0; i < t->nthreads; i++)
		fprintf(out, " P%-*d %s", width[i] - 1, i, i + 1 < t->nthreads ? "|" : ";\n");
	for (k = 0; k < rows; k++)
		for (i = 0; i < t->nthreads; i++)
			fprintf(out, " %-*s %s", width[i], cells[i][k],
				i + 1 < t->nthreads ? "|" : ";\n");
	fprintf(out, "exists (");
	for (i = 0; i < t->nterms; i++) {
		const struct lit_term *c = &t->terms[i];

		if (i)
			fprintf(out, " /\\ ");
		if (c->thread >= 0)
			fprintf(out, "%d:%s=%d", c->thread, t->regs[c->reg], c->val);
		else
			fprintf(out, "[%s]=%d", t->locs[c->loc], c->val);
	}
	fprintf(out, ")\n");
}
