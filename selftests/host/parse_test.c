// SPDX-License-Identifier: GPL-2.0
/*
 * The sysfs parsers, as compiled into the module, checked on the host.
 */
#include <string.h>

#include "kselftest_harness.h"
#include <kcollider/parse.h>

static int parse_bool(const char *s, bool *out)
{
	return kc_parse_bool(s, strlen(s), out);
}

static int parse_u64(const char *s, u64 min, u64 max, u64 *out)
{
	return kc_parse_u64_range(s, strlen(s), min, max, out);
}

TEST(bool_accepts_kstrtobool_words)
{
	static const char * const yes[] = { "1", "1\n", "y", "Y\n", "on" };
	static const char * const no[] = { "0", "0\n", "n", "N", "off\n" };
	bool v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		v = false;
		ASSERT_EQ(0, parse_bool(yes[i], &v)) TH_LOG("'%s'", yes[i]);
		ASSERT_TRUE(v);
	}
	for (i = 0; i < ARRAY_SIZE(no); i++) {
		v = true;
		ASSERT_EQ(0, parse_bool(no[i], &v)) TH_LOG("'%s'", no[i]);
		ASSERT_FALSE(v);
	}
}

TEST(bool_rejects_garbage_and_keeps_value)
{
	static const char * const bad[] = {
		"", "\n", "banana", "2", "-1", "10", "1\n\n", " 1", "1 ",
		"o", "onn", "of", "yes", "0x1", "\n1",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		bool v = true;

		ASSERT_EQ(-EINVAL, parse_bool(bad[i], &v)) TH_LOG("'%s'", bad[i]);
		ASSERT_TRUE(v);
	}
}

TEST(u64_accepts_in_range)
{
	u64 v = 0;

	ASSERT_EQ(0, parse_u64("42\n", 1, 100, &v));
	ASSERT_EQ(42, v);
	ASSERT_EQ(0, parse_u64("1", 1, 100, &v));
	ASSERT_EQ(1, v);
	ASSERT_EQ(0, parse_u64("100", 1, 100, &v));
	ASSERT_EQ(100, v);
	ASSERT_EQ(0, parse_u64("18446744073709551615", 0, ~0ULL, &v));
	ASSERT_EQ(~0ULL, v);
}

TEST(u64_rejects_garbage_overflow_and_range)
{
	static const char * const bad[] = {
		"", "\n", "-1", "+1", "0x10", "1e3", "12a", " 5", "5 ",
		"18446744073709551616", "99999999999999999999",
		"000000000000000000001", "0", "101",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		u64 v = 7;

		ASSERT_EQ(-EINVAL, parse_u64(bad[i], 1, 100, &v))
			TH_LOG("'%s'", bad[i]);
		ASSERT_EQ(7, v);
	}
}

TEST(ascii_text_rejects_nul_and_high_bytes)
{
	EXPECT_TRUE(kc_parse_ascii_text("kc_r1_inc,module:kc_planted\n", 28));
	EXPECT_TRUE(kc_parse_ascii_text("", 0));
	/* a NUL would cut the name short: "0\0" must not read as "0" */
	EXPECT_FALSE(kc_parse_ascii_text("0\0", 2));
	EXPECT_FALSE(kc_parse_ascii_text("\0x", 2));
	/* Latin-1 letters are isalnum() in the kernel */
	EXPECT_FALSE(kc_parse_ascii_text("\xff", 1));
	EXPECT_FALSE(kc_parse_ascii_text("a\xc3\xa9", 3));
	EXPECT_TRUE(kc_parse_ascii_text("\x7f", 1));
}

TEST_HARNESS_MAIN
