/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What syzkaller makes of a kernel log, reimplemented for the tests (not
 * syzkaller's code): its Linux report parser (pkg/report/linux.go) starts
 * a crash at the first line that contains one of its oops headers anywhere;
 * for "BUG:" it tries the KCSAN formats first, title regex
 * "BUG: KCSAN: data-race" then report regex "BUG: KCSAN: (.*)", formatted
 * "KCSAN: %[1]v"; the crash type follows from the title's prefix
 * (pkg/report/crash/title_to_type.go): "KCSAN: data-race" is
 * KCSAN-DATARACE. Any other "BUG:" line is a crash of no known type whose
 * title is the line itself.
 */
#ifndef KC_SYZ_TITLE_H
#define KC_SYZ_TITLE_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* syzkaller's Linux oops headers (linuxOopses), matched anywhere in a line. */
static const char * const syz_oops_headers[] = {
	"BUG:", "WARNING:", "INFO:", "Unable to handle kernel",
	"general protection fault", "stack segment: ", "Kernel panic",
	"PANIC: double fault", "rust_kernel: panicked", "kernel BUG",
	"Kernel BUG", "BUG kmalloc-", "divide error:", "divide_error:",
	"invalid opcode:", "int3:", "UBSAN:", "Booting the kernel.",
	"unregister_netdevice: waiting for", "VFS: Close: file count is 0",
	"VFS: Busy inodes after unmount", "Internal error:", "Unhandled fault:",
	"Alignment trap:", "trusty: panic", NULL,
};

struct syz_crash {
	const char *header;	/* the oops header found, NULL: no crash */
	const char *at;		/* the line it is on */
	int line;		/* 1-based line of the header */
	char title[1024];
	const char *type;	/* "KCSAN-DATARACE", ..., "UNKNOWN" */
};

/* Group 1 of @re in @text (whole text, "." not crossing lines). */
static inline bool syz_match(const char *re, const char *text, char *out,
			     size_t size)
{
	regmatch_t m[2];
	regex_t rx;
	bool ok;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE))
		return false;
	ok = !regexec(&rx, text, 2, m, 0);
	if (ok && out) {
		regoff_t n = m[1].rm_so < 0 ? 0 : m[1].rm_eo - m[1].rm_so;

		snprintf(out, size, "%.*s", (int)n, text + m[1].rm_so);
	}
	regfree(&rx);
	return ok;
}

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

/* The header of the first crash in @log; NULL when none. */
static inline const char *syz_first_oops(const char *log, const char **at)
{
	const char *line = log, *best = NULL, *hdr = NULL;
	size_t len;
	int i;

	for (; *line; line += len + (line[len] == '\n')) {
		len = strcspn(line, "\n");
		for (i = 0; syz_oops_headers[i]; i++) {
			const char *p = memmem(line, len, syz_oops_headers[i],
					       strlen(syz_oops_headers[i]));

			if (p && (!best || p < best)) {
				best = p;
				hdr = syz_oops_headers[i];
			}
		}
		if (hdr) {
			*at = line;
			return hdr;
		}
	}
	return NULL;
}

/* Parse @log as syzkaller would; false when it holds no crash. */
static inline bool syz_parse(const char *log, struct syz_crash *c)
{
	const char *at = NULL, *p;
	char rest[1000];

	memset(c, 0, sizeof(*c));
	c->header = syz_first_oops(log, &at);
	if (!c->header)
		return false;
	c->at = at;
	for (p = log, c->line = 1; p < at; p++)
		c->line += *p == '\n';
	if (!strcmp(c->header, "BUG:") &&
	    syz_match("BUG: KCSAN:", at, NULL, 0) &&
	    syz_match("BUG: KCSAN: (.*)", at, rest, sizeof(rest))) {
		snprintf(c->title, sizeof(c->title), "KCSAN: %s", rest);
	} else {
		snprintf(c->title, sizeof(c->title), "%.*s",
			 (int)strcspn(at, "\n"), at);
	}
	c->type = syz_type(c->title);
	return true;
}

#endif /* KC_SYZ_TITLE_H */
