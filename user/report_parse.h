/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser of race reports in KCSAN's layout: kcollider's own (with its
 * "kcollider: key: k=v" lines) and KCSAN's. See include/kcollider/report.h.
 */
#ifndef KCOLLIDER_REPORT_PARSE_H
#define KCOLLIDER_REPORT_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define KC_MAX_FRAMES 64
/*
 * Names are never cut: these are the kernel's own limits (KSYM_NAME_LEN
 * and MODULE_NAME_LEN of 6.1), so every name the kernel can print fits,
 * and a longer one makes the report malformed instead of being shortened.
 */
#define KC_SYM_LEN 512
#define KC_MOD_LEN 56
/* A value: "func+0xoff/0xsize" and the like. */
#define KC_VAL_LEN (KC_SYM_LEN + 64)
/* kc_frame_format() never needs more: "func+0xoff/0xsize [mod]". */
#define KC_FRAME_STR_LEN (KC_SYM_LEN + KC_MOD_LEN + 48)
#define KC_MAX_KV 16
#define KC_MAX_TOOL_LINES 16

enum kc_acc_type {
	KC_ACC_TYPE_UNKNOWN,
	KC_ACC_TYPE_READ,
	KC_ACC_TYPE_WRITE,
	KC_ACC_TYPE_READ_WRITE,
};

enum kc_rep_status {
	KC_REP_OK,
	KC_REP_MALFORMED,	/* a line did not fit the layout */
	KC_REP_TRUNCATED,	/* the report ended before its closing rule */
};

struct kc_frame {
	char func[KC_SYM_LEN];
	char mod[KC_MOD_LEN];	/* "" for the kernel image */
	uint64_t off, size;
	bool has_off;		/* "+0xoff/0xsize" was present */
};

struct kc_access {
	enum kc_acc_type type;
	bool marked, reordered, assert;
	uint64_t addr;
	unsigned int size;
	bool interrupt;
	int pid, cpu;
	int line;		/* line number of the access line */
	int end_line;		/* the block's last: its stack's, or @line */
	int nframes;
	struct kc_frame frames[KC_MAX_FRAMES];
	/*
	 * The access instruction. From kcollider's sampled:/racer: lines when
	 * present (have_ip), else from the stack: the racer's top frame is
	 * the instruction after the access (top_is_after).
	 */
	bool have_ip, top_is_after;
	uint64_t ip, trap_ip;
	struct kc_frame sym;	/* the access's function+offset */
	bool have_sym;
	char op[32];
};

struct kc_kv {
	char key[32];
	unsigned short val;	/* offset of the value in the line's vals[] */
};

/* Values of one line together: a value may be a whole symbol name. */
#define KC_TOOL_VALS 1024

/* One "kcollider: <key>: ..." line, split into words and k=v pairs. */
struct kc_tool_line {
	char key[32];
	char words[KC_VAL_LEN];	/* bare words, space separated */
	int nkv;
	struct kc_kv kv[KC_MAX_KV];
	unsigned short vals_used;
	char vals[KC_TOOL_VALS];	/* NUL-terminated values, kv[].val */
};

struct kc_report {
	enum kc_rep_status status;
	char error[160];
	int error_line;
	int first_line, last_line;
	const char *source;		/* the parser's: file name, "-" ... */
	char tool[16];			/* "KCSAN", "KCOLLIDER" */
	/*
	 * The header is KC_REPORT_TITLE_BENIGN, without "BUG:": a benign
	 * race printed in full under report_style=kcsan.
	 */
	bool benign_title;
	char title[2 * KC_VAL_LEN];	/* header after "data-race in " */
	bool one_sided;
	bool racer_unknown;
	/*
	 * acc[0]: first block (racer caught by the watchpoint; in a
	 * one-sided report the only block). acc[1]: the sampled access.
	 */
	int nacc;
	struct kc_access acc[2];
	bool has_value;
	uint64_t old_value, new_value;
	int ntool;
	struct kc_tool_line tool_lines[KC_MAX_TOOL_LINES];
	bool has_seq;
	uint64_t seq;
};

/* Called for every report found, complete or not. Return nonzero to stop. */
typedef int (*kc_report_cb)(const struct kc_report *r, void *data);

struct kc_parser {
	struct kc_report *cur;		/* report being assembled or NULL */
	int state;
	int lineno;
	unsigned long nreports, nbad;
	kc_report_cb cb;
	void *data;
	const char *source;
	int stop;
};

void kc_parser_init(struct kc_parser *p, const char *source,
		    kc_report_cb cb, void *data);
/* Feed one line (without or with its newline); may call the callback. */
int kc_parser_line(struct kc_parser *p, const char *line);
/* End of input: a report still open is delivered as truncated. */
int kc_parser_finish(struct kc_parser *p);
int kc_parse_file(FILE *f, const char *source, kc_report_cb cb, void *data,
		  unsigned long *nreports, unsigned long *nbad);

const char *kc_acc_type_name(enum kc_acc_type t);
const char *kc_rep_status_name(enum kc_rep_status s);
/* Parses "func+0xoff/0xsize [mod]" (also "func+0xoff/0xsize"). */
bool kc_parse_frame(const char *s, struct kc_frame *f);
void kc_frame_format(const struct kc_frame *f, char *buf, size_t len);
const struct kc_tool_line *kc_report_tool_line(const struct kc_report *r,
					       const char *key);
const char *kc_tool_line_get(const struct kc_tool_line *t, const char *key);
/* The value of the @i-th k=v pair of @t. */
const char *kc_tool_line_val(const struct kc_tool_line *t, int i);
/* Index of the racer and sampled blocks; -1 when absent. */
int kc_report_racer(const struct kc_report *r);
int kc_report_sampled(const struct kc_report *r);

#endif /* KCOLLIDER_REPORT_PARSE_H */
