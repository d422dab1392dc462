/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny streaming JSON writer. Commands print one object per line (JSON
 * lines), so a consumer can read reports while they are still coming.
 */
#ifndef KCOLLIDER_JSON_H
#define KCOLLIDER_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *out);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_int(struct json *j, const char *key, long long val);
void json_hex(struct json *j, const char *key, uint64_t val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* A decimal integer as a number, anything else as a string. */
void json_auto(struct json *j, const char *key, const char *val);
/* Ends a top-level value with a newline: one object per line. */
void json_line_end(struct json *j);
void json_escape(FILE *out, const char *s);

#endif /* KCOLLIDER_JSON_H */
