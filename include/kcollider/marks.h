/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /sys/kernel/kcollider/marks: code ranges whose accesses the source marks
 * (READ_ONCE(), smp_load_acquire(), atomic_read() ...) or wraps in
 * data_race(), and those the kernel builds without KCSAN (exempt: the
 * tree's KCSAN_SANITIZE rules). "kcollider mark" computes them from DWARF,
 * the source and its Makefiles and writes them; the module's "marked" and
 * "exempt" filters read them. One range per line:
 *
 *	0x<start, hex> <length in bytes, decimal> marked|data_race|exempt|analysed
 *
 * "analysed" covers code whose every access the source was read for:
 * there, an access in no marked or data_race range is plain, and a report
 * says so. Without it, nothing is known of an access no range holds.
 * or the single word "clear". A write holds whole lines, each ending in a
 * newline (the last one's may be left out); writes add up.
 */
#ifndef KCOLLIDER_MARKS_H
#define KCOLLIDER_MARKS_H

#include "parse.h"

#define KC_MARKS_MAX_LEN 65536	/* one range: never a whole function's worth */
#define KC_MARKS_MAX 262144	/* ranges held, all modules together */

enum kc_marks_kind {
	KC_MARKS_NONE,
	KC_MARKS_MARKED,
	KC_MARKS_DATA_RACE,
	KC_MARKS_EXEMPT,
	KC_MARKS_ANALYSED,
	KC_MARKS_NR_KINDS,
};

static inline const char *kc_marks_kind_word(u32 kind)
{
	static const char * const words[KC_MARKS_NR_KINDS] = {
		[KC_MARKS_NONE] = "none",
		[KC_MARKS_MARKED] = "marked",
		[KC_MARKS_DATA_RACE] = "data_race",
		[KC_MARKS_EXEMPT] = "exempt",
		[KC_MARKS_ANALYSED] = "analysed",
	};

	return kind < KC_MARKS_NR_KINDS ? words[kind] : "?";
}

struct kc_marks_range {
	u64 start;
	u32 len;
	u32 kind;
};

static inline int kc_marks_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* One line, without its newline: 0 or -EINVAL. */
static inline int kc_marks_parse_line(const char *s, size_t len,
				      struct kc_marks_range *r)
{
	const char *sp, *kind;
	u64 start = 0, n;
	size_t i;

	if (len < 3 || s[0] != '0' || s[1] != 'x')
		return -EINVAL;
	for (i = 2; i < len && s[i] != ' '; i++) {
		if (kc_marks_hex(s[i]) < 0 || i > 17)
			return -EINVAL;
		start = start << 4 | kc_marks_hex(s[i]);
	}
	if (i == 2 || i == len || !start)
		return -EINVAL;
	sp = s + i + 1;
	kind = sp;
	while (kind < s + len && *kind != ' ')
		kind++;
	if (kind == s + len ||
	    kc_parse_u64_range(sp, kind - sp, 1, KC_MARKS_MAX_LEN, &n))
		return -EINVAL;
	kind++;
	if (kc_parse_word_is(kind, s + len - kind, "marked"))
		r->kind = KC_MARKS_MARKED;
	else if (kc_parse_word_is(kind, s + len - kind, "data_race"))
		r->kind = KC_MARKS_DATA_RACE;
	else if (kc_parse_word_is(kind, s + len - kind, "exempt"))
		r->kind = KC_MARKS_EXEMPT;
	else if (kc_parse_word_is(kind, s + len - kind, "analysed"))
		r->kind = KC_MARKS_ANALYSED;
	else
		return -EINVAL;
	if (start + n < start)
		return -EINVAL;
	r->start = start;
	r->len = n;
	return 0;
}

/*
 * The next line of @buf from *@pos: its start and length (no newline).
 * False at the end; -EINVAL in *@err for an empty line.
 */
static inline bool kc_marks_next_line(const char *buf, size_t len, size_t *pos,
				      const char **line, size_t *llen, int *err)
{
	size_t i = *pos;

	if (i >= len)
		return false;
	*line = buf + i;
	while (i < len && buf[i] != '\n')
		i++;
	*llen = i - *pos;
	*pos = i + 1;
	if (!*llen)
		*err = -EINVAL;
	return true;
}

#endif /* KCOLLIDER_MARKS_H */
