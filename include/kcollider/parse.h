/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strict parsers for the module's sysfs attributes.
 *
 * They live in a shared header so the exact code that validates a write in
 * the kernel is the code the host unit tests exercise. A value is accepted
 * only if the whole buffer is consumed (one trailing newline allowed, as
 * "echo" writes it); anything else is -EINVAL and the caller changes nothing.
 */
#ifndef KCOLLIDER_PARSE_H
#define KCOLLIDER_PARSE_H

#include "types.h"

/* Length of @buf without the single trailing newline echo(1) appends. */
static inline size_t kc_parse_strip_len(const char *buf, size_t len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return len;
}

static inline bool kc_parse_word_is(const char *buf, size_t len,
				    const char *word)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!word[i] || word[i] != buf[i])
			return false;
	return word[len] == '\0';
}

/* Accepts 0/1, y/n, Y/N, on/off: the spellings kstrtobool() users expect. */
static inline int kc_parse_bool(const char *buf, size_t len, bool *out)
{
	static const char * const yes[] = { "1", "y", "Y", "on", NULL };
	static const char * const no[] = { "0", "n", "N", "off", NULL };
	size_t i;

	len = kc_parse_strip_len(buf, len);
	for (i = 0; yes[i]; i++) {
		if (kc_parse_word_is(buf, len, yes[i])) {
			*out = true;
			return 0;
		}
		if (kc_parse_word_is(buf, len, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Unsigned decimal in [min, max]. No sign, no base prefix, no spaces: a
 * typo must not silently become a different setting.
 */
static inline int kc_parse_u64_range(const char *buf, size_t len, u64 min,
				     u64 max, u64 *out)
{
	u64 value = 0;
	size_t i;

	len = kc_parse_strip_len(buf, len);
	if (!len || len > 20)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int digit;

		if (buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		digit = buf[i] - '0';
		if (value > (~(u64)0 - digit) / 10)
			return -EINVAL;
		value = value * 10 + digit;
	}
	if (value < min || value > max)
		return -EINVAL;
	*out = value;
	return 0;
}

/*
 * Text that may hold names (targets, suppress): no NUL, which would cut
 * the name the parser sees short of what was written, and nothing beyond
 * ASCII, which the kernel's Latin-1 isalnum() would take for letters
 * although no symbol or module name has them.
 */
static inline bool kc_parse_ascii_text(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!buf[i] || (unsigned char)buf[i] >= 0x80)
			return false;
	return true;
}

#endif /* KCOLLIDER_PARSE_H */
