// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: kcollider.ko loads, publishes /sys/kernel/kcollider/, validates
 * writes, and unloads without leaving anything behind.
 */
#include "kselftest_harness.h"
#include "vm_util.h"

FIXTURE(loaded) {
	int unused;
};

FIXTURE_SETUP(loaded)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load %s: %s", kc_module_path(), strerror(errno));
}

FIXTURE_TEARDOWN(loaded)
{
	if (kc_in_vm())
		EXPECT_EQ(0, kc_unload_module("kcollider"))
			TH_LOG("unload: %s", strerror(errno));
}

TEST_F(loaded, sysfs_dir_and_version)
{
	char buf[64];

	ASSERT_TRUE(kc_path_exists(KCOLLIDER_SYSFS_DIR));
	ASSERT_LT(0, kc_read_attr("version", buf, sizeof(buf)));
	ASSERT_STREQ(KCOLLIDER_VERSION "\n", buf);
}

TEST_F(loaded, version_is_read_only)
{
	char buf[64];

	ASSERT_NE(0, kc_write_attr("version", "9.9.9\n"));
	ASSERT_LT(0, kc_read_attr("version", buf, sizeof(buf)));
	ASSERT_STREQ(KCOLLIDER_VERSION "\n", buf);
}

TEST_F(loaded, enabled_reads_zero_after_load)
{
	char buf[16];

	ASSERT_LT(0, kc_read_attr("enabled", buf, sizeof(buf)));
	ASSERT_STREQ("0\n", buf);
}

TEST_F(loaded, enabled_round_trips)
{
	char buf[16];

	ASSERT_EQ(0, kc_write_attr("enabled", "1\n"));
	ASSERT_LT(0, kc_read_attr("enabled", buf, sizeof(buf)));
	ASSERT_STREQ("1\n", buf);
	ASSERT_EQ(0, kc_write_attr("enabled", "0\n"));
	ASSERT_LT(0, kc_read_attr("enabled", buf, sizeof(buf)));
	ASSERT_STREQ("0\n", buf);
}

TEST_F(loaded, enabled_rejects_banana_and_keeps_value)
{
	char buf[16];

	ASSERT_EQ(0, kc_enable());
	ASSERT_EQ(-EINVAL, kc_write_attr("enabled", "banana\n"));
	ASSERT_LT(0, kc_read_attr("enabled", buf, sizeof(buf)));
	ASSERT_STREQ("1\n", buf);
	ASSERT_EQ(0, kc_write_attr("enabled", "0"));
	ASSERT_EQ(-EINVAL, kc_write_attr("enabled", "banana"));
	ASSERT_LT(0, kc_read_attr("enabled", buf, sizeof(buf)));
	ASSERT_STREQ("0\n", buf);
}

TEST(unload_leaves_nothing_in_sys_kernel)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load: %s", strerror(errno));
	ASSERT_TRUE(kc_path_exists(KCOLLIDER_SYSFS_DIR));
	ASSERT_EQ(0, kc_enable());
	ASSERT_EQ(0, kc_unload_module("kcollider"))
		TH_LOG("unload: %s", strerror(errno));
	ASSERT_FALSE(kc_path_exists(KCOLLIDER_SYSFS_DIR));
	ASSERT_FALSE(kc_path_exists("/sys/module/kcollider"));
}

TEST_HARNESS_MAIN
