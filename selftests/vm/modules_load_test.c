// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: a test farm's machine that loads kcollider at boot from two
 * configuration files and nothing else, as README's "Loading at boot"
 * says: /etc/modules-load.d/kcollider.conf names the module and
 * /etc/modprobe.d/kcollider.conf its options. systemd-modules-load, the
 * program systemd runs for those files at boot, loads it here, in a mount
 * namespace whose /etc files and /lib/modules are the test's (the host's
 * stay untouched). Then a planted race loaded later must come out on the
 * console as a crash syzkaller files as KCSAN-DATARACE (the reimplemented
 * rules of ../host/syz_title.h).
 */
#include <fcntl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "vm_reports.h"
#include "../host/syz_title.h"

#define MODULES_LOAD	"/usr/lib/systemd/systemd-modules-load"

/*
 * The farm's options but for the targets and the rate: all of the kernel
 * at the default rate would find the planted race, but not by a deadline.
 */
#define FARM_OPTIONS	"targets=module:kc_planted sample_rate=200 " \
			"enabled=1 report_style=kcsan"

/*
 * The two files and the module in place, then @loader: the boot's module
 * loader, or a modprobe command; its output in $TMPDIR/kc_boot/out. The
 * whole of /lib/modules is replaced: a self-built test kernel
 * (KERNEL=debug) has no directory there to mount on.
 */
static int load_with(const char *options, const char *loader)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "set -e; root=${TMPDIR:-/tmp}/kc_boot; rel=$(uname -r); "
		 "rm -rf $root; "
		 "mkdir -p $root/lib/modules/$rel/extra $root/etc/modprobe.d $root/etc/modules-load.d; "
		 "cp '%s' $root/lib/modules/$rel/extra/kcollider.ko; "
		 "depmod -b $root $rel 2>/dev/null; "
		 "echo 'options kcollider %s' > $root/etc/modprobe.d/kcollider.conf; "
		 "echo kcollider > $root/etc/modules-load.d/kcollider.conf; "
		 "exec unshare -m sh -c \"set -e; mount --make-rprivate /; "
		 "mount --bind $root/lib/modules /lib/modules; "
		 "mount --bind $root/etc/modprobe.d /etc/modprobe.d; "
		 "mount --bind $root/etc/modules-load.d /etc/modules-load.d; "
		 "exec %s\" > $root/out 2>&1",
		 kc_module_path(), options, loader);
	return system(cmd);
}

static int boot_load(const char *options)
{
	return load_with(options, MODULES_LOAD);
}

static char *load_output(void)
{
	static char buf[4096];
	char path[512];

	snprintf(path, sizeof(path), "%s/kc_boot/out", getenv("TMPDIR") ?: "/tmp");
	if (kc_read_file(path, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return buf;
}

FIXTURE(farm) {
	int unused;
};

FIXTURE_SETUP(farm)
{
	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_TRUE(kc_path_exists(MODULES_LOAD))
		TH_LOG("%s: install systemd", MODULES_LOAD);
	kc_unload_module("kcollider");
	kc_unload_module("kc_planted");
}

FIXTURE_TEARDOWN(farm)
{
	if (!kc_in_vm())
		return;
	kc_write_attr("enabled", "0");
	kc_unload_module("kcollider");
	kc_unload_module("kc_planted");
}

TEST_F_TIMEOUT(farm, configuration_files_alone_start_sampling, 150)
{
	char buf[4096];
	struct syz_crash c;
	int crashes = 0, two_sided = 0;
	int kmsg = kc_kmsg_from_now();
	char *log;
	const char *p;

	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, boot_load(FARM_OPTIONS));
	/* sampling from the end of the load: nobody wrote sysfs */
	ASSERT_LT(0, kc_read_attr("enabled", buf, sizeof(buf)));
	ASSERT_STREQ("1\n", buf);
	ASSERT_LT(0, kc_read_attr("report_style", buf, sizeof(buf)));
	ASSERT_STREQ("kcsan\n", buf);
	ASSERT_LT(0, kc_read_attr("targets", buf, sizeof(buf)));
	ASSERT_STREQ("module:kc_planted sites=0 (not loaded)\n", buf);
	/* the code under test comes later, as a farm's test modules do */
	ASSERT_EQ(0, load_planted());
	ASSERT_TRUE(run_until_report("r1", "BUG: KCSAN: data-race in kc_r1_dec / kc_r1_inc",
				     60))
		TH_LOG("%.2000s", read_reports());
	/* the console's text, as the farm reads it */
	log = kc_kmsg_text(kmsg);
	close(kmsg);
	ASSERT_NE(NULL, log);
	for (p = log; syz_parse(p, &c); p = c.at + strcspn(c.at, "\n")) {
		EXPECT_STREQ("KCSAN-DATARACE", c.type) TH_LOG("%s", c.title);
		EXPECT_FALSE(c.corrupted) TH_LOG("%s: %s", c.title, c.corrupted_reason);
		if (!strcmp(c.title, "KCSAN: data-race in kc_r1_dec / kc_r1_inc")) {
			/* the guilty function the farm files it under */
			EXPECT_STREQ("kc_r1_dec", c.frame);
			two_sided++;
		}
		crashes++;
	}
	free(log);
	EXPECT_GE(crashes, 1);
	EXPECT_GE(two_sided, 1);
}

/*
 * A typo in the options file, or on modprobe's command line: the load
 * fails, modprobe says so, the kernel log names the parameter, and
 * nothing stays loaded.
 */
TEST_F(farm, bad_option_loads_nothing_and_says_which)
{
	int kmsg = kc_kmsg_from_now();
	char *log;

	ASSERT_LE(0, kmsg);
	ASSERT_NE(0, boot_load("targets=module:kc_planted enabled=yes-please"));
	ASSERT_FALSE(kc_path_exists(KCOLLIDER_SYSFS_DIR));
	ASSERT_NE(0, load_with("report_style=kcsan", "modprobe kcollider sample_rate=0"));
	ASSERT_FALSE(kc_path_exists(KCOLLIDER_SYSFS_DIR));
	EXPECT_NE(NULL, strstr(load_output(), "could not insert 'kcollider': Invalid argument"))
		TH_LOG("%s", load_output());
	log = kc_kmsg_text(kmsg);
	close(kmsg);
	ASSERT_NE(NULL, log);
	EXPECT_NE(NULL, strstr(log, "parameter enabled=yes-please is invalid")) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "parameter sample_rate=0 is invalid")) TH_LOG("%s", log);
	free(log);
}

TEST_HARNESS_MAIN
