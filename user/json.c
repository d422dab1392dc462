// SPDX-License-Identifier: GPL-2.0
/*
 * JSON writer. Keys are passed as NULL inside arrays. Strings are checked
 * byte by byte: report text comes from the kernel log and may hold
 * anything, and a consumer must never see invalid JSON because of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "common.h"

/* --pretty: members one per line, indented two spaces per level. */
static void json_indent(struct json *j, int depth)
{
	if (!json_pretty)
		return;
	fputc('\n', j->out);
	while (depth-- > 0)
		fputs("  ", j->out);
}

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
}

/*
 * Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), else 0 and in @bad how
 * many bytes one U+FFFD replaces: the lead byte and the continuation
 * bytes that were still possible (Unicode's "maximal subpart").
 */
static size_t utf8_len(const unsigned char *s, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4;
	else
		n = 0;
	if (*s == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (*s == 0xed)
		hi = 0x9f;		/* surrogates */
	else if (*s == 0xf0)
		lo = 0x90;		/* overlong */
	else if (*s == 0xf4)
		hi = 0x8f;		/* above U+10FFFF */
	for (i = 1; i < n; i++) {
		if (s[i] < lo || s[i] > hi)
			break;
		lo = 0x80;
		hi = 0xbf;
	}
	if (n && i == n)
		return n;
	*bad = n ? i : 1;
	return 0;
}

/*
 * Text is written as UTF-8, escaped only where JSON requires (quote,
 * backslash, control characters). Kernel log text may hold any byte: an
 * ill-formed sequence becomes U+FFFD, so the output is always valid
 * JSON, and valid UTF-8, whatever came in.
 */
void json_escape(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, bad;

	fputc('"', out);
	while (s && *s) {
		n = *s < 0x80 ? 1 : utf8_len(s, &bad);
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\t')
			fputs("\\t", out);
		else if (*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else if (n)
			fwrite(s, 1, n, out);
		else
			fputs("\\ufffd", out);
		s += n ? n : bad;
	}
	fputc('"', out);
}

static void json_key(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	if (j->depth)
		json_indent(j, j->depth);
	j->need_comma[j->depth] = true;
	if (key) {
		json_escape(j->out, key);
		fputs(json_pretty ? ": " : ":", j->out);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_key(j, key);
	fputc(c, j->out);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void json_close(struct json *j, char c)
{
	if (j->need_comma[j->depth])
		json_indent(j, j->depth - 1);
	fputc(c, j->out);
	if (j->depth)
		j->depth--;
}

void json_obj_begin(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_obj_end(struct json *j)
{
	json_close(j, '}');
}

void json_arr_begin(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_arr_end(struct json *j)
{
	json_close(j, ']');
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_key(j, key);
	if (val)
		json_escape(j->out, val);
	else
		fputs("null", j->out);
}

void json_int(struct json *j, const char *key, long long val)
{
	json_key(j, key);
	fprintf(j->out, "%lld", val);
}

/* Addresses as strings: JSON numbers lose precision above 2^53. */
void json_hex(struct json *j, const char *key, uint64_t val)
{
	json_key(j, key);
	fprintf(j->out, "\"0x%" PRIx64 "\"", val);
}

void json_bool(struct json *j, const char *key, bool val)
{
	json_key(j, key);
	fputs(val ? "true" : "false", j->out);
}

void json_auto(struct json *j, const char *key, const char *val)
{
	const char *d = val && *val == '-' ? val + 1 : val;
	long long v;
	char *end;

	if (d && *d >= '0' && *d <= '9' && (*d != '0' || !d[1]) &&
	    strspn(d, "0123456789") == strlen(d)) {
		errno = 0;
		v = strtoll(val, &end, 10);
		if (!errno && !*end) {
			json_int(j, key, v);
			return;
		}
	}
	json_str(j, key, val);
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->out);
}

void json_line_end(struct json *j)
{
	fputc('\n', j->out);
	j->depth = 0;
	j->need_comma[0] = false;
}
