// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's JSON strings (user/json.c): UTF-8 passes as it is, JSON's
 * own escapes are made, and any ill-formed byte sequence becomes U+FFFD,
 * so the output is valid JSON and valid UTF-8 for any input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "json.h"

bool json_pretty;	/* main.c's, -p */

static char *escaped(const char *s)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	json_escape(f, s);
	fclose(f);
	return buf;
}

/* RFC 3629 well-formedness, and no raw control character (RFC 8259). */
static bool valid_json_text(const unsigned char *s)
{
	while (*s) {
		size_t n = *s < 0x80 ? 1 : *s >= 0xc2 && *s <= 0xdf ? 2 :
			   *s >= 0xe0 && *s <= 0xef ? 3 :
			   *s >= 0xf0 && *s <= 0xf4 ? 4 : 0;
		unsigned int cp;
		size_t i;

		if (!n || *s < 0x20)
			return false;
		cp = n == 1 ? *s : *s & (0x7f >> n);
		for (i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		s += n;
	}
	return true;
}

TEST(utf8_passes_as_is)
{
	/* é, €, U+10348, U+10FFFF and DEL: none needs an escape */
	static const char s[] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x90\x8d\x88 \xf4\x8f\xbf\xbf \x7f";

	EXPECT_STREQ("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x90\x8d\x88 \xf4\x8f\xbf\xbf \x7f\"",
		     escaped(s));
}

TEST(json_escapes_only_what_json_requires)
{
	EXPECT_STREQ("\"a\\\"b\\\\c\\nd\\te\\u0001\\u001f\"",
		     escaped("a\"b\\c\nd\te\x01\x1f"));
	EXPECT_STREQ("\"\"", escaped(""));
}

TEST(ill_formed_bytes_become_replacement_characters)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "a\377b", "\"a\\ufffdb\"" },			/* never in UTF-8 */
		{ "\x80", "\"\\ufffd\"" },			/* lone continuation */
		{ "\xc3", "\"\\ufffd\"" },			/* cut at the end */
		{ "\xc3(", "\"\\ufffd(\"" },			/* cut by ASCII */
		{ "\xe2\x82", "\"\\ufffd\"" },			/* one subpart, one U+FFFD */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" }, /* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" }, /* a surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
		{ "\xf0\x9f\x98", "\"\\ufffd\"" },		/* cut emoji */
		{ "\xe2\x82\xe2\x82\xac", "\"\\ufffd\xe2\x82\xac\"" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		EXPECT_STREQ(cases[i].out, escaped(cases[i].in)) TH_LOG("case %zu", i);
}

/* Every two-byte string, and a sweep of longer ones: always valid. */
TEST(any_input_gives_valid_output)
{
	unsigned char in[5] = { 0 };
	unsigned int a, b;
	char *out;

	for (a = 1; a < 256; a++) {
		for (b = 0; b < 256; b++) {
			in[0] = a;
			in[1] = b;
			in[2] = b ? 0x80 + (a & 0x3f) : 0;
			in[3] = b ? 0x80 + (b & 0x3f) : 0;
			out = escaped((const char *)in);
			ASSERT_NE(NULL, out);
			ASSERT_TRUE(valid_json_text((const unsigned char *)out))
				TH_LOG("%02x %02x: %s", a, b, out);
		}
	}
}

TEST_HARNESS_MAIN
