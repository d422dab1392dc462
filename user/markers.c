// SPDX-License-Identifier: GPL-2.0
/*
 * What a line of C says of the accesses it makes: which calls in it are
 * markers (READ_ONCE(), atomic_read(), data_race() ...), where a call
 * starts and ends, what a macro definition holds. Text only: the lines
 * come from marking.c, which knows which line an access is on.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "markers.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	enum kc_mark_kind kind;
} kc_markers[] = {
	{ "data_race", KC_MARK_DATA_RACE },
	{ "READ_ONCE", KC_MARK_MARKED },
	{ "WRITE_ONCE", KC_MARK_MARKED },
	{ "__READ_ONCE", KC_MARK_MARKED },
	{ "__WRITE_ONCE", KC_MARK_MARKED },
	{ "READ_ONCE_NOCHECK", KC_MARK_MARKED },
	{ "smp_load_acquire", KC_MARK_MARKED },
	{ "smp_store_release", KC_MARK_MARKED },
	{ "__smp_load_acquire", KC_MARK_MARKED },
	{ "__smp_store_release", KC_MARK_MARKED },
	{ "smp_store_mb", KC_MARK_MARKED },
	{ "smp_cond_load_acquire", KC_MARK_MARKED },
	{ "smp_cond_load_relaxed", KC_MARK_MARKED },
	{ "rcu_assign_pointer", KC_MARK_MARKED },
	{ "rcu_access_pointer", KC_MARK_MARKED },
	{ "rcu_replace_pointer", KC_MARK_MARKED },
	{ "test_bit", KC_MARK_MARKED },
	{ "arch_test_bit", KC_MARK_MARKED },
	{ "xchg", KC_MARK_MARKED },
	{ "cmpxchg", KC_MARK_MARKED },
	{ "try_cmpxchg", KC_MARK_MARKED },
};

/* atomic_read(), atomic64_set_release(), arch_atomic_long_read() ... */
static bool is_atomic_load_store(const char *id)
{
	static const char * const prefixes[] = { "arch_", "raw_", "" };
	static const char * const types[] = { "atomic64_", "atomic_long_",
					      "atomic_" };
	static const char * const ops[] = { "read", "set", "read_acquire",
					    "set_release" };
	size_t i, k, o, n;

	for (i = 0; i < 3; i++) {
		n = strlen(prefixes[i]);
		if (strncmp(id, prefixes[i], n))
			continue;
		for (k = 0; k < 3; k++) {
			const char *t = id + n;
			size_t tn = strlen(types[k]);

			if (strncmp(t, types[k], tn))
				continue;
			for (o = 0; o < 4; o++)
				if (!strcmp(t + tn, ops[o]))
					return true;
		}
	}
	return false;
}

/*
 * local_t's operations (asm/local.h): one instruction without LOCK, atomic
 * against the owning CPU's interrupts, and asm that KCSAN never sees.
 */
static bool is_local_op(const char *id)
{
	static const char * const ops[] = {
		"read", "set", "inc", "dec", "add", "sub", "sub_and_test",
		"dec_and_test", "inc_and_test", "add_negative", "add_return",
		"sub_return", "inc_return", "dec_return", "cmpxchg",
		"try_cmpxchg", "xchg", "add_unless", "inc_not_zero",
	};
	size_t i;

	if (strncmp(id, "local_", 6))
		return false;
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(id + 6, ops[i]))
			return true;
	return false;
}

/* rcu_dereference*() is READ_ONCE(); the _protected variant is plain. */
static bool is_rcu_dereference(const char *id)
{
	return !strncmp(id, "rcu_dereference", 15) &&
	       !strstr(id, "_protected");
}

const char *kc_marker_of_ident(const char *id, enum kc_mark_kind *kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kc_markers); i++) {
		if (!strcmp(id, kc_markers[i].name)) {
			*kind = kc_markers[i].kind;
			return kc_markers[i].name;
		}
	}
	if (is_atomic_load_store(id) || is_rcu_dereference(id) ||
	    is_local_op(id)) {
		*kind = KC_MARK_MARKED;
		return id;
	}
	return NULL;
}

/* Past a comment or a literal at @p, or @p itself when neither starts. */
static const char *skip_inert(const char *p)
{
	if (p[0] == '/' && p[1] == '/')
		return p + strlen(p);
	if (p[0] == '/' && p[1] == '*') {
		const char *end = strstr(p + 2, "*/");

		return end ? end + 2 : p + strlen(p);
	}
	if (*p == '"' || *p == '\'') {
		char q = *p++;

		while (*p && *p != q)
			p += (*p == '\\' && p[1]) ? 2 : 1;
		return *p ? p + 1 : p;
	}
	return p;
}

/*
 * Walks @p past strings and comments, counting calls into @depth: stops
 * at the ')' that brings @depth back to 0 when @to_close, else at the end.
 */
static const char *scan_calls(const char *p, int *depth, bool to_close)
{
	const char *q;

	while (*p) {
		q = skip_inert(p);
		if (q != p) {
			p = q;
			continue;
		}
		*depth += (*p == '(') - (*p == ')');
		if (to_close && !*depth)
			return p;
		p++;
	}
	return p;
}

/* The ')' closing the call whose '(' is at @open, or the line's end. */
static const char *call_end(const char *open)
{
	int depth = 0;

	return scan_calls(open, &depth, true);
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * Where the call whose name starts at @line[@at] ends, or -1 when no call
 * starts there.
 */
static long call_at(const char *line, long at)
{
	const char *p = line + at;

	if (at < 0 || at >= (long)strlen(line) || (at && ident_char(p[-1])) ||
	    (!isalpha((unsigned char)*p) && *p != '_'))
		return -1;
	while (ident_char(*p))
		p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '(' ? call_end(p) - line : -1;
}

/*
 * Where a call starts that is, past the brackets and unary operators at
 * @at, the whole bracketed operand ("if (!data_race(x))" from its "("),
 * or -1. GCC gives a compare that took the load into it ("cmpq $0,
 * (mem)") the column of the condition around the marker's call.
 */
static long call_past_prefix(const char *line, long at)
{
	const char *p = line + at, *q;
	long end;
	int opens = 0;

	if (at < 0 || at >= (long)strlen(line))
		return -1;
	while (*p == '(' || *p == '!' || *p == '~' || *p == '-' ||
	       *p == ' ' || *p == '\t') {
		opens += *p == '(';
		p++;
	}
	end = call_at(line, p - line);
	if (p == line + at || end < 0 || !line[end])
		return -1;
	for (q = line + end + 1; opens && (*q == ' ' || *q == ')'); q++)
		opens -= *q == ')';
	return opens ? -1 : p - line;
}

const char *kc_marker_in_line(const char *line, int col,
			      enum kc_mark_kind *kind)
{
	static char found[64];
	enum kc_mark_kind k, best = KC_MARK_PLAIN;
	const char *p = line, *q, *hit, *id_at;
	long at = (long)col - 1, outer_end = call_at(line, at), s, e, inner;
	char id[64];
	size_t n;

	inner = outer_end < 0 ? call_past_prefix(line, at) : -1;
	if (inner >= 0) {
		at = inner;
		outer_end = call_at(line, at);
	}
	found[0] = '\0';
	while (*p) {
		q = skip_inert(p);
		if (q != p) {
			p = q;
			continue;
		}
		if (!isalpha((unsigned char)*p) && *p != '_') {
			p++;
			continue;
		}
		id_at = p;
		for (n = 0; isalnum((unsigned char)p[n]) || p[n] == '_'; n++)
			;
		snprintf(id, sizeof(id), "%.*s", (int)n, p);
		p += n;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '(')
			continue;
		hit = kc_marker_of_ident(id, &k);
		s = id_at - line;
		e = call_end(p) - line;
		if (!hit || (col > 0 && (at < s || at > e) &&
			     (s < at || s > outer_end)))
			continue;
		if (best == KC_MARK_PLAIN || k == KC_MARK_DATA_RACE) {
			best = k;
			snprintf(found, sizeof(found), "%s", hit);
		}
	}
	*kind = best;
	return found[0] ? found : NULL;
}

/* Past blanks at @p. */
static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

const char *kc_macro_defined(const char *line, size_t *len)
{
	const char *p = skip_blanks(line);
	size_t n;

	if (*p != '#')
		return NULL;
	p = skip_blanks(p + 1);
	if (strncmp(p, "define", 6) || (p[6] != ' ' && p[6] != '\t'))
		return NULL;
	p = skip_blanks(p + 6);
	for (n = 0; ident_char(p[n]); n++)
		;
	if (!n || p[n] != '(')
		return NULL;
	*len = n;
	return p;
}

int kc_open_calls(const char *text)
{
	int depth = 0;

	scan_calls(text, &depth, false);
	return depth;
}

bool kc_called_at(const char *line, int col, char *name, size_t len)
{
	long at = (long)col - 1;
	size_t n;

	if (call_at(line, at) < 0)
		return false;
	for (n = 0; ident_char(line[at + n]); n++)
		;
	if (n >= len)
		return false;
	memcpy(name, line + at, n);
	name[n] = '\0';
	return true;
}

void kc_macro_body(char *const *lines, int nlines, int i, char *buf,
		   size_t len)
{
	size_t used = 0, n;
	const char *l;

	buf[0] = '\0';
	for (; i < nlines && used + 1 < len; i++) {
		l = lines[i];
		n = strlen(l);
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
			n--;
		used += snprintf(buf + used, len - used, " %.*s",
				 (int)(n && l[n - 1] == '\\' ? n - 1 : n), l);
		if (!n || l[n - 1] != '\\')
			break;
	}
}
