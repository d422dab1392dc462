// SPDX-License-Identifier: GPL-2.0
/*
 * JSON writer. Keys are passed as NULL inside arrays. Strings are escaped
 * byte by byte: report text comes from the kernel log and may hold
 * anything, and a consumer must never see invalid JSON because of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "main.h"

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

void json_escape(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
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
