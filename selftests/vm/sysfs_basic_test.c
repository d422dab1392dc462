// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: kcollider.ko loads, publishes /sys/kernel/kcollider/, validates
 * writes, and unloads without leaving anything behind.
 */
#include <dirent.h>

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

/*
 * sysfs holds settings, one value a file (the list settings one entry a
 * line); the counters are in debugfs, where no write reaches them.
 */
TEST_F(loaded, sysfs_holds_one_value_a_file_and_debugfs_the_counters)
{
	static const char * const lists[] = { "targets", "filters", "suppress",
					      "marks", NULL };
	char buf[8192], *nl;
	struct dirent *de;
	int i, fd, files = 0;
	bool list;
	DIR *d;

	d = opendir(KCOLLIDER_SYSFS_DIR);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		for (list = false, i = 0; lists[i]; i++)
			list |= !strcmp(de->d_name, lists[i]);
		if (list)
			continue;
		files++;
		ASSERT_LT(0, kc_read_attr(de->d_name, buf, sizeof(buf)))
			TH_LOG("%s", de->d_name);
		nl = strchr(buf, '\n');
		EXPECT_TRUE(nl && !nl[1])
			TH_LOG("%s holds more than one line: %s", de->d_name, buf);
	}
	closedir(d);
	EXPECT_LT(5, files);
	EXPECT_FALSE(kc_path_exists(KCOLLIDER_SYSFS_DIR "/stats"));

	ASSERT_LT(0, kc_read_stats(buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "samples "));
	EXPECT_NE(NULL, strstr(buf, "\nskipped_nmi "));
	EXPECT_LE(0, kc_stat("races"));
	fd = open(KCOLLIDER_DEBUGFS_DIR "/stats", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		EXPECT_GT(0, write(fd, "0", 1));
		close(fd);
	}
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
