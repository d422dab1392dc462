/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What syzkaller makes of a kernel console log, reimplemented for the tests
 * (not syzkaller's code) from google/syzkaller at commit
 * 1e72964b0111319984575e60f266d1fa0a98abb5 (SYZ_COMMIT below):
 * pkg/report/linux.go (Parse, findFirstOops, findReport, stripLinePrefix,
 * extractContext, isCorrupted, the "BUG:" oops formats), pkg/report/report.go
 * (ParseFrom, extractDescription, dynamicTitleReplacement, sanitizeTitle,
 * reportFrameRe) and pkg/report/crash/title_to_type.go.
 *
 * Of the "BUG:" formats only the two KCSAN ones and the bare "BUG:" one are
 * ported; a report another format would title (KASAN, lockdep, ...) gets the
 * fallback title here, its header line. Go's RE2 patterns are rewritten as
 * POSIX EREs that match the same text (no \w, \d, (?:...); "<" and ">" are
 * literal in Go but word anchors to glibc after a backslash).
 *
 * What the port shows about a KCSAN data race:
 * - syzkaller parses none of its stack frames: both KCSAN formats carry no
 *   stack description, so its frame skip lists (kcsan_setup_watchpoint,
 *   __tsan_*, ...) never apply. The title is KCSAN's header line, the
 *   function names being the ones KCSAN itself chose (it skips its own
 *   frames in the kernel). "+0x../0x.." offsets of a one-sided header are
 *   dropped by the title replacements, so "data-race in f+0x5/0x20" and
 *   "data-race in f" are one bug; Frame is the name after the title's last
 *   " in ", the first of "f / g".
 * - The report syzkaller keeps is the console text from the header to the
 *   last crash header in the log, in the header's printk context, with the
 *   "[ time][ Cn] " prefixes and "? " (questionable) frames removed and a
 *   few earlier lines of that context in front (more with a task context,
 *   as they surely come from the same task); after enough lines a "Kernel
 *   panic - not syncing" and all that follows it are dropped. The title
 *   comes from this text up to the next crash header only (the whole of it
 *   with a caller context).
 * - Corrupted: the KCSAN formats set noStackTrace, so isCorrupted stops
 *   before its stack checks. A KCSAN report is corrupted only when its raw
 *   title holds a "[ 1.2]" console timestamp (lines printed into each
 *   other) or the log says the VM's serial port hung up. A report cut after
 *   its header, or without any stack, is not; a header cut inside the
 *   words "data-race" is KCSAN-UNKNOWN, one cut before "KCSAN:" no KCSAN
 *   report at all, and a bare "BUG:" line is "BUG: corrupted".
 */
#ifndef KC_SYZ_TITLE_H
#define KC_SYZ_TITLE_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* The syzkaller snapshot the rules below are ported from. */
#define SYZ_COMMIT "1e72964b0111319984575e60f266d1fa0a98abb5"

#define SYZ_CONSOLE "console"
#define SYZ_MAX_TITLE 120
#define SYZ_GCE_HANGUP "serialport: VM disconnected."
#define SYZ_NO_FRAMES "no frames in a stack trace"
#define SYZ_NO_STACK "no stack trace in report"
#define SYZ_NO_CALL_TRACE "call trace is missed"
#define SYZ_BAD_TITLE "title matches corrupted regexp"
#define SYZ_NO_REPORT_RE "matched title but not report regexp"
#define SYZ_BAD_FORMAT "report format is marked as corrupted"

struct syz_oops {
	const char *header;
	const char * const *suppress;	/* lines that are no crash */
};

static const char * const syz_sup_bug[] = {
	"ODEBUG:", "Boot_DEBUG:", "xlog_status:", "DEBUG:",
	"BUG: no syscalls can create resource", NULL,
};

static const char * const syz_sup_warning[] = {
	"WARNING: /etc/ssh/moduli does not exist, using fixed modulus",
	"WARNING: workqueue cpumask: online intersect > possible intersect",
	"WARNING: [Tt]he mand mount option",
	"WARNING: Unsupported flag value\\(s\\) of 0x%x in DT_FLAGS_1",
	"WARNING: Unprivileged eBPF is enabled with eIBRS",
	"WARNING: fbcon: Driver '(.*)' missed to adjust virtual screen size (\\(([0-9]+)x([0-9]+) vs\\. ([0-9]+)x([0-9]+)\\))",
	"WARNING: See https.* for mitigation options.",
	"WARNING: kernel not compiled with CPU_SRSO",
	"EXT4-[Ff][Ss]( \\(.*\\))?:",
	"(?i)warning: .* uses (deprecated v2 capabilities|wireless extensions)",
	"XFS \\([[:alnum:]_]+\\): WARNING", NULL,
};

static const char * const syz_sup_info[] = {
	"INFO: lockdep is turned off",
	"INFO: Stall ended before state dump start", "INFO: NMI handler",
	"INFO: recovery required on readonly filesystem",
	"(handler|interrupt).*took too long",
	"INFO: sys_.* is not present in /proc/kallsyms",
	"INFO: no syscalls can create resource", "rmt_storage:INFO:", "_INFO:",
	NULL,
};

static const char * const syz_sup_gpf[] = {
	"general protection fault .* error:[0-9]+ in ", NULL,
};

static const char * const syz_sup_boot[] = {
	"Parsing ELF|Decompressing Linux|Unknown parameter '", NULL,
};

static const char * const syz_sup_go[] = {
	"ALSA", "fatal error: cannot create timer", NULL,
};

static const char * const syz_sup_panic[] = {
	"_panic:", "xlog_status:", "ddb\\.onpanic:", "evtlog_status:", NULL,
};

static const char * const syz_sup_none[] = { NULL };

/*
 * linuxOopses then commonOopses, in syzkaller's order: a line holding two
 * headers is a crash of the earlier one in this list.
 */
static const struct syz_oops syz_oopses[] = {
	{ "BUG:", syz_sup_bug },
	{ "WARNING:", syz_sup_warning },
	{ "INFO:", syz_sup_info },
	{ "Unable to handle kernel", syz_sup_none },
	{ "general protection fault", syz_sup_gpf },
	{ "stack segment: ", syz_sup_none },
	{ "Kernel panic", syz_sup_none },
	{ "PANIC: double fault", syz_sup_none },
	{ "rust_kernel: panicked", syz_sup_none },
	{ "kernel BUG", syz_sup_none },
	{ "Kernel BUG", syz_sup_none },
	{ "BUG kmalloc-", syz_sup_none },
	{ "divide error:", syz_sup_none },
	{ "divide_error:", syz_sup_none },
	{ "invalid opcode:", syz_sup_none },
	{ "int3:", syz_sup_none },
	{ "UBSAN:", syz_sup_none },
	{ "Booting the kernel.", syz_sup_boot },
	{ "unregister_netdevice: waiting for", syz_sup_none },
	{ "VFS: Close: file count is 0", syz_sup_none },
	{ "VFS: Busy inodes after unmount", syz_sup_none },
	{ "Internal error:", syz_sup_none },
	{ "Unhandled fault:", syz_sup_none },
	{ "Alignment trap:", syz_sup_none },
	{ "trusty: panic", syz_sup_none },
	{ "fatal error:", syz_sup_go },
	{ "SYZFAIL:", syz_sup_none },
	{ "SYZFATAL:", syz_sup_none },
	{ "panic:", syz_sup_panic },
	{ NULL, NULL },
};

/* Crash headers that may appear inside a report without ending it. */
static const char * const syz_report_start_ignores[] = {
	"invalid opcode: 0000", "Kernel panic - not syncing",
	"unregister_netdevice: waiting for", "PANIC: double fault",
	"Internal error:", NULL,
};

/* Lines of messages that print a stack but are no bug: they end a report. */
static const char * const syz_info_with_stack[] = {
	"vmalloc: allocation failure:", "FAULT_INJECTION: forcing a failure",
	"FAULT_FLAG_ALLOW_RETRY missing", NULL,
};

/*
 * The ported "BUG:" formats, in syzkaller's order. The title is @prefix
 * followed, when @arg, by group 1 of @report (of @title when no @report).
 */
struct syz_format {
	const char *title;
	const char *report;
	const char *prefix;
	bool arg;
	bool no_stack_trace;
	bool corrupted;
};

static const struct syz_format syz_bug_formats[] = {
	{ "BUG: KCSAN: data-race", "BUG: KCSAN: (.*)", "KCSAN: ", true, true,
	  false },
	{ "BUG: KCSAN:", "BUG: KCSAN: (.*)", "KCSAN: ", true, true, false },
	{ "BUG:[[:space:]]*$", NULL, "BUG: corrupted", false, false, true },
	{ NULL },
};

/*
 * linuxStackParams.stackStartRes; the last one is RISC-V's show_regs().
 * Go's [^k] takes a newline, which a REG_NEWLINE bracket does not.
 */
#define SYZ_RISCV_STACK_START \
	"status: [0-9a-f]{16} badaddr: [0-9a-f]{16} cause: [0-9a-f]{16}"
static const char * const syz_stack_starts[] = {
	"Call (T|t)race", "Allocated:", "Allocated by task [0-9]+:", "Freed:",
	"Freed by task [0-9]+:",
	"([^k]|\n) backtrace( \\(crc [[:xdigit:]]*\\))?:",
	"Backtrace:", "Uninit was stored to memory at", SYZ_RISCV_STACK_START,
	NULL,
};

/* linuxStackParams.frameRes: x86-style and ARM frame lines. */
#define SYZ_PC "\\[<?(0x)?[0-9a-f]+>?\\]"
#define SYZ_FUNC "([a-zA-Z0-9_]+)(\\.|\\+)"
static const char * const syz_frame_res[] = {
	"^ *(" SYZ_PC " ){0,2}" SYZ_FUNC,
	"^ *" SYZ_PC " \\(([a-zA-Z0-9_.]+)\\) from " SYZ_PC " \\(" SYZ_FUNC,
	NULL,
};

#define SYZ_CONSOLE_RE \
	"^(\\*\\* [0-9]+ printk messages dropped \\*\\* )?(.* login: )?" \
	"(<[0-9]+>)?\\[ *[0-9]+\\.[0-9]+\\](\\[ *(C|T)[0-9]+\\])? "
#define SYZ_CONSOLE_GROUP 4

struct syz_crash {
	const char *header;	/* the oops header found, NULL: no crash */
	const char *at;		/* the line it is on */
	int line;		/* 1-based line of the header */
	char title[1024];	/* Report.Title, as syzkaller files the bug */
	const char *type;	/* "KCSAN-DATARACE", ..., "UNKNOWN" */
	char raw_title[1024];	/* before the title replacements */
	char frame[256];	/* Report.Frame, "" when none */
	const char *format;	/* title regex of the format used, NULL: none */
	bool corrupted;
	const char *corrupted_reason;	/* NULL when not given */
	bool panicked;
	char context[32];	/* "", SYZ_CONSOLE or the "[ T12]" caller */
	size_t start, end, skip;	/* StartPos, EndPos, SkipPos */
	bool raw_report;	/* the kept report is the raw text */
};

struct syz_rx_slot {
	const char *re;
	regex_t rx;
};

/* @re compiled once (REG_NEWLINE: "." stops at a line's end, as in Go). */
static inline regex_t *syz_rx(const char *re)
{
	static struct syz_rx_slot cache[128];
	static int n;
	int i, flags = REG_EXTENDED | REG_NEWLINE;
	const char *src = re;

	for (i = 0; i < n; i++)
		if (cache[i].re == re || !strcmp(cache[i].re, re))
			return &cache[i].rx;
	if (!strncmp(src, "(?i)", 4)) {
		src += 4;
		flags |= REG_ICASE;
	}
	if (n == (int)ARRAY_SIZE(cache) ||
	    regcomp(&cache[n].rx, src, flags)) {
		fprintf(stderr, "syz_title.h: bad regex %s\n", re);
		abort();
	}
	cache[n].re = re;
	return &cache[n++].rx;
}

/*
 * @re in @s[from, len); offsets in @m are from @s. @from > 0 continues a
 * search: "^" cannot match there, as after Go's previous match.
 */
static inline bool syz_find_from(const char *re, const char *s, size_t from,
				 size_t len, regmatch_t *m, size_t nm)
{
	regmatch_t one[1];

	if (!m) {
		m = one;
		nm = 1;
	}
	m[0].rm_so = from;
	m[0].rm_eo = len;
	return !regexec(syz_rx(re), s, nm, m, REG_STARTEND);
}

static inline bool syz_find(const char *re, const char *s, size_t len,
			    regmatch_t *m, size_t nm)
{
	return syz_find_from(re, s, 0, len, m, nm);
}

static inline bool syz_any(const char * const *res, const char *s, size_t len)
{
	for (; *res; res++)
		if (syz_find(*res, s, len, NULL, 0))
			return true;
	return false;
}

static inline bool syz_has(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what));
}

/* Group 1 of @re in @text (whole text, "." not crossing lines). */
static inline bool syz_match(const char *re, const char *text, char *out,
			     size_t size)
{
	regmatch_t m[2];

	if (!syz_find(re, text, strlen(text), m, 2))
		return false;
	if (out) {
		regoff_t n = m[1].rm_so < 0 ? 0 : m[1].rm_eo - m[1].rm_so;

		snprintf(out, size, "%.*s", (int)n, text + m[1].rm_so);
	}
	return true;
}

/* crash.TitleToType, for the KCSAN titles. */
static inline const char *syz_type(const char *title)
{
	if (!strncmp(title, "KCSAN: data-race", 16))
		return "KCSAN-DATARACE";
	if (!strncmp(title, "KCSAN: assert: race in", 22))
		return "KCSAN-ASSERT";
	if (!strncmp(title, "KCSAN:", 6))
		return "KCSAN-UNKNOWN";
	return "UNKNOWN";
}

struct syz_buf {
	char *p;
	size_t len, cap;
};

static inline void syz_put(struct syz_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* End of the line starting at @pos of @log[0, len). */
static inline size_t syz_eol(const char *log, size_t pos, size_t len)
{
	const char *nl = memchr(log + pos, '\n', len - pos);

	return nl ? (size_t)(nl - log) : len;
}

/* The printk context of a line: "", SYZ_CONSOLE, or its "[ T12]" caller. */
static inline void syz_context(const char *line, size_t len, char *out,
			       size_t size)
{
	regmatch_t m[SYZ_CONSOLE_GROUP + 2];
	regmatch_t *g = &m[SYZ_CONSOLE_GROUP];

	if (!syz_find(SYZ_CONSOLE_RE, line, len, m, SYZ_CONSOLE_GROUP + 2))
		snprintf(out, size, "%s", "");
	else if (g->rm_so < 0)
		snprintf(out, size, "%s", SYZ_CONSOLE);
	else
		snprintf(out, size, "%.*s", (int)(g->rm_eo - g->rm_so),
			 line + g->rm_so);
}

/*
 * A line without its console prefix, in [*s, *s + *n). Frames the unwinder
 * was unsure of ("? f+0x1/0x2") are questionable: reports leave them out.
 */
static inline bool syz_strip(const char **s, size_t *n, const char *context)
{
	static const char unreliable[] = " (unreliable)";
	const size_t ul = sizeof(unreliable) - 1;
	const char *p;

	if (!*context)
		return false;
	p = memmem(*s, *n, "] ", 2);
	*n -= p + 2 - *s;
	*s = p + 2;
	if (syz_has(*s, *n, "<EOI>"))
		return false;
	if (syz_find("(\\[<[0-9a-f]+>\\])? \\? ", *s, *n, NULL, 0)) {
		p = memmem(*s, *n, " ? ", 3);
		*n -= p + 2 - *s;
		*s = p + 2;
		return true;
	}
	if (*n >= ul && !memcmp(*s + *n - ul, unreliable, ul)) {
		*n -= ul;
		return true;
	}
	return false;
}

static inline bool syz_oops_match(const char *line, size_t len,
				  const struct syz_oops *o)
{
	return syz_has(line, len, o->header) && !syz_any(o->suppress, line, len);
}

/* The line after @eol is the console replaying an earlier message. */
static inline bool syz_replayed(const char *log, size_t eol, size_t len)
{
	if (eol >= len || log[eol] != '\n')
		return false;
	return syz_has(log + eol + 1, syz_eol(log, eol + 1, len) - eol - 1,
		       "** replaying previous printk message **");
}

/* findFirstOops: the header line's offset, or -1. */
static inline long syz_first_oops(const char *log, size_t len,
				  const struct syz_oops **oops)
{
	size_t pos, next;
	int i;

	for (pos = 0; pos < len; pos = next + 1) {
		next = syz_eol(log, pos, len);
		for (i = 0; syz_oopses[i].header; i++) {
			if (!syz_oops_match(log + pos, next - pos, &syz_oopses[i]))
				continue;
			if (syz_replayed(log, next, len))
				continue;
			*oops = &syz_oopses[i];
			return pos;
		}
	}
	return -1;
}

/* What findReport gathers for the crash whose header line is at @start. */
struct syz_found {
	struct syz_buf prefix;	/* earlier lines, each with its '\n' */
	struct syz_buf report;
	size_t report_end;	/* where the next crash starts in report */
	size_t end;		/* EndPos: end of the last header line */
};

static inline void syz_found_free(struct syz_found *f)
{
	free(f->prefix.p);
	free(f->report.p);
}

static inline void syz_find_report(const char *log, size_t len, size_t start,
				   const char *context, struct syz_found *f)
{
	struct { const char *s; size_t n; } pre[50];
	int npre = 0, max_pre = 5, text_lines = 0, min_lines = 22, i;
	bool skip_text = false, cpu_traceback = false;
	size_t pos, next, second = 0;
	char ctx1[32];

	memset(f, 0, sizeof(*f));
	if (syz_find("\\[ *T[0-9]+\\]", context, strlen(context), NULL, 0))
		max_pre = 50;
	if (syz_has(log + start, syz_eol(log, start, len) - start,
		    "BUG: KMSAN:"))
		min_lines = 16;
	for (pos = 0; pos < len; pos = next + 1) {
		const char *s = log + pos;
		bool oops_line = pos == start, questionable, skip_line;
		size_t n;

		next = syz_eol(log, pos, len);
		n = next - pos;
		syz_context(log + pos, n, ctx1, sizeof(ctx1));
		questionable = syz_strip(&s, &n, ctx1);
		if (pos < start) {
			if (strcmp(ctx1, context) || !n || questionable)
				continue;
			if (npre == max_pre)
				memmove(pre, pre + 1, --npre * sizeof(pre[0]));
			pre[npre].s = s;
			pre[npre++].n = n;
			continue;
		}
		for (i = 0; syz_oopses[i].header; i++) {
			if (!syz_oops_match(log + pos, next - pos,
					    &syz_oopses[i])) {
				if (!oops_line && !second &&
				    syz_any(syz_info_with_stack, log + pos,
					    next - pos))
					second = pos;
				continue;
			}
			if (syz_replayed(log, next, len))
				continue;
			f->end = next;
			if (!oops_line && !second &&
			    !syz_any(syz_report_start_ignores, log + pos,
				     next - pos))
				second = pos;
		}
		if (!oops_line &&
		    (questionable ||
		     (strcmp(ctx1, context) &&
		      (!cpu_traceback ||
		       !syz_find("\\[ *C[0-9]+\\]", ctx1, strlen(ctx1), NULL, 0)))))
			continue;
		text_lines++;
		skip_line = skip_text;
		if (syz_has(log + pos, next - pos,
			    "Disabling lock debugging due to kernel taint")) {
			skip_line = true;
		} else if (syz_has(log + pos, next - pos, "Sending NMI from CPU")) {
			cpu_traceback = true;
		} else if ((syz_has(log + pos, next - pos,
				    "Kernel panic - not syncing") ||
			    syz_has(log + pos, next - pos,
				    "WARNING: possible circular locking dependency detected")) &&
			   text_lines > min_lines) {
			/* panic_on_warn's own stack repeats the report's */
			skip_text = true;
			skip_line = true;
		}
		if (!oops_line && skip_line)
			continue;
		syz_put(&f->report, s, n);
		syz_put(&f->report, "\n", 1);
		if (!second || (*context && strcmp(context, SYZ_CONSOLE)))
			f->report_end = f->report.len;
	}
	for (i = 0; i < npre; i++) {
		syz_put(&f->prefix, pre[i].s, pre[i].n);
		syz_put(&f->prefix, "\n", 1);
	}
}

/*
 * extractDescription over @text[0, len): the title of the format matching
 * first in the text; *@fmt is that format, NULL when none matched. Without
 * one the title is the text from the header to the end of its line.
 */
static inline bool syz_describe(const char *text, size_t len,
				const struct syz_oops *oops, char *title,
				size_t size, const struct syz_format **fmt,
				const char **corrupted)
{
	const struct syz_format *f;
	bool matched_title = false;
	size_t best = len;
	const char *hdr, *eol;

	*title = '\0';
	*fmt = NULL;
	*corrupted = NULL;
	for (f = syz_bug_formats; !strcmp(oops->header, "BUG:") && f->title; f++) {
		regmatch_t m[2];

		if (!syz_find(f->title, text, len, m, 2) ||
		    (size_t)m[0].rm_so > best ||
		    ((size_t)m[0].rm_so == best && *title))
			continue;
		if ((size_t)m[0].rm_so < best) {
			*title = '\0';
			*fmt = NULL;
			best = m[0].rm_so;
		}
		matched_title = true;
		if (f->report && !syz_find(f->report, text, len, m, 2))
			continue;
		if (f->arg)
			snprintf(title, size, "%s%.*s", f->prefix,
				 (int)(m[1].rm_eo - m[1].rm_so),
				 text + m[1].rm_so);
		else
			snprintf(title, size, "%s", f->prefix);
		*corrupted = NULL;
		*fmt = f;
	}
	if (!*title) {
		if (matched_title)
			*corrupted = SYZ_NO_REPORT_RE;
		hdr = memmem(text, len, oops->header, strlen(oops->header));
		if (!hdr)
			return false;
		eol = memchr(hdr, '\n', text + len - hdr);
		snprintf(title, size, "%.*s",
			 (int)((eol ? eol : text + len) - hdr), hdr);
	}
	if (!*corrupted && *fmt && (*fmt)->corrupted)
		*corrupted = SYZ_BAD_FORMAT;
	return true;
}

/*
 * isCorrupted. @report is the whole kept report; @fmt NULL is a report no
 * format matched. Returns the reason, NULL when not corrupted.
 */
static inline const char *syz_is_corrupted(const char *title,
					   const char *report,
					   const struct syz_format *fmt)
{
	const char * const *key, * const *key1;
	bool has_stack = false;

	if (syz_find("\\[ *[0-9]+\\.[0-9]+\\]", title, strlen(title), NULL, 0))
		return SYZ_BAD_TITLE;
	if (!fmt || fmt->no_stack_trace)
		return NULL;
	/* Each stack a report announces needs a frame in its next lines. */
	for (key = syz_stack_starts; *key; key++) {
		const char *p, *eol;
		regmatch_t m[1];
		bool corrupted = true;
		int i, lines = 1;

		if (!syz_find(*key, report, strlen(report), m, 1))
			continue;
		p = report + m[0].rm_so;
		for (eol = p; (eol = strchr(eol, '\n')); eol++)
			lines++;
		if (lines < 4)
			return SYZ_NO_CALL_TRACE;
		p = strchr(p, '\n') + 1;
		for (i = 0; i < 15 && i < lines - 1; i++) {
			size_t n = strcspn(p, "\n");
			bool next_stack = false;

			for (key1 = syz_stack_starts; *key1; key1++)
				next_stack |= syz_find(*key1, p, n, NULL, 0);
			if (next_stack)
				break;
			if (syz_has(p, n, "(stack is not available)") ||
			    syz_any(syz_frame_res, p, n)) {
				has_stack = true;
				corrupted = false;
				break;
			}
			p += n + (p[n] == '\n');
		}
		if (strcmp(*key, SYZ_RISCV_STACK_START) && corrupted)
			return SYZ_NO_FRAMES;
	}
	return has_stack ? NULL : SYZ_NO_STACK;
}

/*
 * One pass of Go's ReplaceAllString: @re's matches, left to right and not
 * overlapping, become @with, where "$N" is group N.
 */
static inline bool syz_replace_all(char *s, size_t size, const char *re,
				   const char *with)
{
	struct syz_buf out = { 0 };
	size_t pos = 0, len = strlen(s);
	regmatch_t m[10];
	const char *w;
	bool changed;

	while (pos < len && syz_find_from(re, s, pos, len, m, 10)) {
		syz_put(&out, s + pos, m[0].rm_so - pos);
		for (w = with; *w; w++) {
			int g = w[1] - '0';

			if (*w != '$' || g < 0 || g > 9) {
				syz_put(&out, w, 1);
				continue;
			}
			if (m[g].rm_so >= 0)
				syz_put(&out, s + m[g].rm_so,
					m[g].rm_eo - m[g].rm_so);
			w++;
		}
		pos = m[0].rm_eo > m[0].rm_so ? (size_t)m[0].rm_eo : pos + 1;
	}
	if (!out.p)
		return false;
	syz_put(&out, s + pos, len - pos);
	changed = strcmp(out.p, s);
	snprintf(s, size, "%s", out.p);
	free(out.p);
	return changed;
}

/*
 * dynamicTitleReplacement, each rule repeated until it changes nothing:
 * what differs between two hits of one bug (addresses, offsets, numbers,
 * executor ids) leaves the title.
 */
static inline void syz_title_replace(char *t, size_t size)
{
	static const char * const rules[][2] = {
		{ "syz-executor\\.?[0-9]+((/|:)[0-9]+)?", "syz-executor" },
		{ "syzkaller[0-9]+((/|:)[0-9]+)?", "syzkaller" },
		{ "([^a-zA-Z0-9])(0x)?[0-9a-f]{6,}", "$1ADDR" },
		{ "([0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3})", "IP" },
		{ "(\\.[[:alnum:]_]+)(:[0-9]+)+", "$1:LINE" },
		{ "([a-zA-Z][a-zA-Z0-9_.]+)\\+0x[0-9a-z]+/0x[0-9a-z]+", "$1" },
		{ "CPU#[0-9]+", "CPU" },
		{ "([^[:alnum:]_])([0-9]+)([^[:alnum:]_]|$)", "$1NUM$3" },
		{ "[0-9]{7,}", "NUM" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rules); i++)
		while (syz_replace_all(t, size, rules[i][0], rules[i][1]))
			;
}

/* sanitizeTitle: printable, single-spaced, trimmed, from SYZ_MAX_TITLE bytes. */
static inline void syz_title_sanitize(char *t)
{
	char out[SYZ_MAX_TITLE + 1];
	size_t i, n = 0;
	char prev = ' ';

	for (i = 0; t[i] && i < SYZ_MAX_TITLE; i++) {
		unsigned char ch = t[i];

		if (ch == '\t')
			ch = ' ';
		else if (ch < 0x20 || ch >= 0x7f)
			continue;
		if (ch == ' ' && prev == ' ')
			continue;
		out[n++] = ch;
		prev = ch;
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	strcpy(t, out);
}

/* The report text syzkaller keeps for @c (Report.Report), allocated. */
static inline char *syz_report(const char *log, const struct syz_crash *c)
{
	struct syz_found f;
	struct syz_buf out = { 0 };

	if (c->raw_report) {
		syz_put(&out, log + c->start, c->end - c->start);
		return out.p;
	}
	syz_find_report(log, strlen(log), c->start, c->context, &f);
	syz_put(&out, "", 0);
	if (f.prefix.p)
		syz_put(&out, f.prefix.p, f.prefix.len);
	if (f.report.p)
		syz_put(&out, f.report.p, f.report.len);
	syz_found_free(&f);
	return out.p;
}

/*
 * Parse the first crash of @log as syzkaller's ParseFrom would at the
 * start of @log; false when it holds none.
 */
static inline bool syz_parse(const char *log, struct syz_crash *c)
{
	const struct syz_format *fmt = NULL;
	const struct syz_oops *oops;
	size_t len = strlen(log);
	const char *reason, *nl;
	struct syz_found f;
	regmatch_t m[2];
	long start;
	bool ok;

	memset(c, 0, sizeof(*c));
	start = syz_first_oops(log, len, &oops);
	if (start < 0)
		return false;
	c->header = oops->header;
	c->at = log + start;
	c->start = start;
	for (c->line = 1, nl = log; (nl = memchr(nl, '\n', c->at - nl)); nl++)
		c->line++;
	syz_context(c->at, syz_eol(log, start, len) - start, c->context,
		    sizeof(c->context));
	syz_find_report(log, len, start, c->context, &f);
	c->end = f.end;
	ok = f.report.p && syz_describe(f.report.p, f.report_end, oops,
					c->raw_title, sizeof(c->raw_title),
					&fmt, &reason);
	if (!ok) {
		c->raw_report = true;
		syz_put(&f.report, "", 0);
		f.report.len = 0;
		syz_put(&f.report, log + c->start, c->end - c->start);
		ok = syz_describe(f.report.p, f.report.len, oops, c->raw_title,
				  sizeof(c->raw_title), &fmt, &reason);
	}
	if (!ok)
		snprintf(c->raw_title, sizeof(c->raw_title), "%.*s",
			 (int)strcspn(c->at, "\n"), c->at);
	c->format = fmt ? fmt->title : NULL;
	c->type = syz_type(c->raw_title);
	c->corrupted_reason = reason;
	if (!reason)
		c->corrupted_reason = syz_is_corrupted(c->raw_title,
						       f.report.p ? f.report.p : "",
						       fmt);
	c->corrupted = c->corrupted_reason;
	c->panicked = strstr(log, "Kernel panic - not syncing");
	syz_found_free(&f);

	snprintf(c->title, sizeof(c->title), "%s", c->raw_title);
	syz_title_replace(c->title, sizeof(c->title));
	syz_title_sanitize(c->title);
	/* a hung-up console may have cut any report: no reason is given */
	if (strstr(log, SYZ_GCE_HANGUP))
		c->corrupted = true;
	if (syz_find(".* in ((<[a-zA-Z0-9_: ]+>)?[a-zA-Z0-9_:]+)", c->title,
		     strlen(c->title), m, 2))
		snprintf(c->frame, sizeof(c->frame), "%.*s",
			 (int)(m[1].rm_eo - m[1].rm_so), c->title + m[1].rm_so);
	c->skip = start + strcspn(c->at, "\n");
	if (c->end < c->skip)
		c->end = c->skip;
	return true;
}

#endif /* KC_SYZ_TITLE_H */
