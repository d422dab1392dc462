/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the in-VM tests that run planted races and read the
 * detector's report log: one copy for every test program.
 */
#ifndef KC_VM_REPORTS_H
#define KC_VM_REPORTS_H

#include <kcollider/report.h>
#include "vm_util.h"
#include "report_parse.h"

#define PLANTED_RUN	"/sys/kernel/debug/kc_planted/run"
#define REPORTS		"/sys/kernel/debug/kcollider/reports"
#define LOG_SIZE	(1 << 20)

static char *log_buf;


static inline const char *read_reports(void)
{
	if (!log_buf)
		log_buf = malloc(LOG_SIZE);
	if (!log_buf || kc_read_file(REPORTS, log_buf, LOG_SIZE) < 0)
		return "";
	return log_buf;
}

/*
 * Reports are found by the CLI's own parser (user/report_parse.c, linked
 * into every in-VM test): the tests read the log as "kcollider report"
 * does, and a change of the layout that breaks one breaks the other.
 * These helpers only cut the text of what it found out of the log.
 */

/* A place in a text, by line: the reports come in order. */
struct vm_cursor {
	const char *text, *at;
	int line;		/* the line @at begins */
};

/* Where line @n (1-based, as the parser counts) of @c's text begins. */
static inline const char *vm_line(struct vm_cursor *c, int n)
{
	if (!c->at || n < c->line) {	/* reports come in order: rarely */
		c->at = c->text;
		c->line = 1;
	}
	while (c->at && c->line < n) {
		c->at = strchr(c->at, '\n');
		c->at = c->at ? c->at + 1 : NULL;
		c->line++;
	}
	return c->at;
}

/*
 * Lines @first to @last of @text, each with its newline, into @out (cut
 * to @size - 1 bytes); without the last newline if @chop.
 */
static inline void vm_copy_lines(struct vm_cursor *c, int first, int last,
				 bool chop, char *out, size_t size)
{
	const char *b = vm_line(c, first), *e = vm_line(c, last + 1);
	size_t len;

	if (!b) {
		out[0] = '\0';
		return;
	}
	len = e ? (size_t)(e - b) : strlen(b);
	if (chop && len && b[len - 1] == '\n')
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(out, b, len);
	out[len] = '\0';
}

static inline bool vm_has_all(const char *text, const char * const *needles)
{
	int j;

	for (j = 0; needles && needles[j]; j++)
		if (!strstr(text, needles[j]))
			return false;
	return true;
}

/* What one walk over a log's reports looks for, and what it found. */
struct vm_walk {
	struct vm_cursor cur;
	int nth;			/* only report @nth (-1: any) */
	const char * const *needles;	/* all in its text (NULL: none) */
	bool whole;			/* any header, complete, opening rule */
	char *out;			/* NULL: count only */
	size_t size;
	int seen;			/* reports that were candidates */
	int two_sided;			/* of which named a racer */
	bool found;
};

/*
 * Which reports count: by default those with kcollider's own "BUG:
 * KCOLLIDER:" header (not KCSAN's, nor the benign one of
 * report_style=kcsan), whole or cut short, text from the header line to
 * the report's last. @whole: any header, complete ones only, from the
 * opening rule, as "kcollider tso" is given a report.
 */
static inline int vm_walk_one(const struct kc_report *r, void *data)
{
	struct vm_walk *w = data;
	int first = r->first_line;
	const char *rule;

	if (w->whole ? r->status == KC_REP_TRUNCATED :
	    (strcmp(r->tool, "KCOLLIDER") || r->benign_title))
		return 0;
	if (w->nth >= 0 && w->seen++ != w->nth)
		return 0;
	if (w->nth < 0)
		w->seen++;
	w->two_sided += !r->one_sided;
	if (!w->out)
		return 0;
	rule = w->whole && first > 1 ? vm_line(&w->cur, first - 1) : NULL;
	if (rule && !strncmp(rule, KC_REPORT_RULE, strlen(KC_REPORT_RULE)))
		first--;
	vm_copy_lines(&w->cur, first, r->last_line, false, w->out, w->size);
	if (!vm_has_all(w->out, w->needles))
		return 0;
	w->found = true;
	return 1;			/* stops the parser */
}

static inline void vm_walk(const char *log, struct vm_walk *w)
{
	FILE *f;

	w->cur.text = log;
	if (!*log)
		return;		/* fmemopen() wants a size */
	f = fmemopen((void *)log, strlen(log), "r");
	if (!f)
		return;
	kc_parse_file(f, REPORTS, vm_walk_one, w, NULL, NULL);
	fclose(f);
}

/* Copy report number @i (0-based) of @log into @out; false if none. */
static inline bool nth_report(const char *log, int i, char *out, size_t size)
{
	struct vm_walk w = { .nth = i, .out = out, .size = size };

	vm_walk(log, &w);
	return w.found;
}

/* First report containing every string of the NULL-terminated @needles. */
static inline bool find_report(const char *log, const char * const *needles,
			char *out, size_t size)
{
	struct vm_walk w = { .nth = -1, .needles = needles, .out = out,
			     .size = size };

	vm_walk(log, &w);
	return w.found;
}

/*
 * The first complete report (any header) with @title in it, from its
 * opening rule to its closing one and a newline: what "kcollider tso"
 * reads. False while there is none.
 */
static inline bool find_whole_report(const char *log, const char *title,
				     char *out, size_t size)
{
	const char * const needles[] = { title, NULL };
	struct vm_walk w = { .nth = -1, .needles = needles, .whole = true,
			     .out = out, .size = size - 1 };
	size_t len;

	vm_walk(log, &w);
	if (!w.found)
		return false;
	len = strlen(out);
	if (!len || out[len - 1] != '\n')
		strcpy(out + len, "\n");
	return true;
}

/* The reports of @log nth_report() can give. */
static inline int count_reports(const char *log)
{
	struct vm_walk w = { .nth = -1 };

	vm_walk(log, &w);
	return w.seen;
}

/* Of those, the reports that name a racer (not "race at unknown origin"). */
static inline int count_two_sided_reports(const char *log)
{
	struct vm_walk w = { .nth = -1 };

	vm_walk(log, &w);
	return w.two_sided;
}

struct vm_block {
	struct vm_cursor cur;	/* of the report's text */
	int k;
	char *out;
	size_t size;
	bool found;
};

static inline int vm_block_one(const struct kc_report *r, void *data)
{
	struct vm_block *b = data;

	if (b->k < r->nacc) {
		vm_copy_lines(&b->cur, r->acc[b->k].line, r->acc[b->k].end_line,
			      true, b->out, b->size);
		b->found = true;
	}
	return 1;			/* the first report is the one */
}

/*
 * Access block @k (0: the racer, 1: the sampled access; a one-sided
 * report's only block is 0) of a report that nth_report() or
 * find_report() gave: its access line and stack, without the newline.
 */
static inline bool report_block(const char *report, int k, char *out, size_t size)
{
	struct vm_block b = { .cur.text = report, .k = k, .out = out,
			      .size = size };
	FILE *f;

	if (!*report)
		return false;
	f = fmemopen((void *)report, strlen(report), "r");
	if (!f)
		return false;
	kc_parse_file(f, "report", vm_block_one, &b, NULL, NULL);
	fclose(f);
	return b.found;
}

static inline int run_scenario(const char *name, int ms)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "%s %d\n", name, ms);
	return kc_write_file(PLANTED_RUN, cmd);
}

/*
 * Run @scenario in 2 s slices until @needle is in the report log or
 * @budget_s seconds have passed: no test depends on a lucky first slice.
 */
static inline bool run_until_report(const char *scenario, const char *needle,
				    int budget_s)
{
	int t;

	for (t = 0; t < budget_s; t += 2) {
		if (run_scenario(scenario, 2000))
			return false;
		if (strstr(read_reports(), needle))
			return true;
	}
	return false;
}

/*
 * Run @scenario in 1 s slices until counter @stat reaches @min or
 * @budget_s seconds have passed; returns the last value read. How soon a
 * probe fires depends on the host's load, never how sure the test is.
 */
static inline long run_until_stat(const char *scenario, const char *stat,
				  long min, int budget_s)
{
	long v = kc_stat(stat);
	int t;

	for (t = 0; t < budget_s && v < min; t++) {
		if (run_scenario(scenario, 1000))
			return -1;
		v = kc_stat(stat);
	}
	return v;
}

#define PLANTED_FACTS	"/sys/kernel/debug/kc_planted/facts"

/* Value of "key VALUE" in the planted module's facts, as a string. */
static inline bool planted_fact(const char *key, char *val, size_t size)
{
	static char buf[8192];
	char *p = buf;
	size_t len = strlen(key);

	if (kc_read_file(PLANTED_FACTS, buf, sizeof(buf)) < 0)
		return false;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, len) && p[len] == ' ') {
			snprintf(val, size, "%.*s", (int)strcspn(p + len + 1, "\n"),
				 p + len + 1);
			return true;
		}
	}
	return false;
}

#endif /* KC_VM_REPORTS_H */
