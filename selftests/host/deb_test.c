// SPDX-License-Identifier: GPL-2.0
/*
 * The Debian packages make deb builds (check.sh builds them before the
 * host tests): what each holds, what it depends on, that DKMS is told to
 * build the module at install time, and lintian's verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcollider/version.h>
#include "kselftest_harness.h"

#define DEBS	KC_TOP "/build/deb"
#define DKMS_DEB DEBS "/kcollider-dkms_" KCOLLIDER_VERSION "_all.deb"
#define CLI_DEB	DEBS "/kcollider_" KCOLLIDER_VERSION "_amd64.deb"

static char out[1 << 18];

static int run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	size_t n;

	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	return pclose(p);
}

TEST(dkms_package_holds_the_module_sources_and_builds_them)
{
	ASSERT_EQ(0, run("dpkg-deb -c " DKMS_DEB)) TH_LOG("make deb first: %s", out);
	EXPECT_NE(NULL, strstr(out, "./usr/src/kcollider-" KCOLLIDER_VERSION "/dkms.conf\n"));
	EXPECT_NE(NULL, strstr(out, "./usr/src/kcollider-" KCOLLIDER_VERSION "/kmod/main.c\n"));
	EXPECT_NE(NULL, strstr(out, "./usr/src/kcollider-" KCOLLIDER_VERSION "/lib/x86_decode.c\n"));
	EXPECT_NE(NULL, strstr(out, "./usr/share/man/man4/kcollider.ko.4.gz\n"));
	/* no tests, no built objects */
	EXPECT_EQ(NULL, strstr(out, "selftests")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, ".ko\n")) TH_LOG("%s", out);
	ASSERT_EQ(0, run("dpkg-deb -f " DKMS_DEB " Depends Architecture"));
	EXPECT_NE(NULL, strstr(out, "Depends: dkms")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Architecture: all")) TH_LOG("%s", out);
	/* the version DKMS builds is the source's */
	ASSERT_EQ(0, run("dpkg-deb --fsys-tarfile " DKMS_DEB " | tar -xOf - ./usr/src/kcollider-"
			 KCOLLIDER_VERSION "/dkms.conf"));
	EXPECT_NE(NULL, strstr(out, "PACKAGE_VERSION=\"" KCOLLIDER_VERSION "\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "AUTOINSTALL=\"yes\"")) TH_LOG("%s", out);
	ASSERT_EQ(0, run("dpkg-deb --ctrl-tarfile " DKMS_DEB " | tar -xOf - ./postinst"));
	EXPECT_NE(NULL, strstr(out, "/usr/lib/dkms/common.postinst")) TH_LOG("%s", out);
	/* the page rst2man made of Documentation/man/kcollider.ko.rst */
	ASSERT_EQ(0, run("dpkg-deb --fsys-tarfile " DKMS_DEB
			 " | tar -xOf - ./usr/share/man/man4/kcollider.ko.4.gz | gzip -dc | grep '^\\.TH '"));
	EXPECT_NE(NULL, strstr(out, "\"KCOLLIDER.KO\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"kcollider " KCOLLIDER_VERSION "\"")) TH_LOG("%s", out);
}

TEST(cli_package_holds_the_tool_and_its_library_dependencies)
{
	ASSERT_EQ(0, run("dpkg-deb -c " CLI_DEB)) TH_LOG("make deb first: %s", out);
	EXPECT_NE(NULL, strstr(out, "./usr/sbin/kcollider\n"));
	EXPECT_NE(NULL, strstr(out, "./usr/share/man/man8/kcollider.8.gz\n"));
	EXPECT_NE(NULL, strstr(out, "./usr/share/man/man8/kcollider-report.8.gz\n"));
	EXPECT_NE(NULL, strstr(out, "./usr/share/bash-completion/completions/kcollider\n"));
	/* the module's sources are the other package's alone */
	EXPECT_EQ(NULL, strstr(out, "./usr/src/")) TH_LOG("%s", out);
	ASSERT_EQ(0, run("dpkg-deb -f " CLI_DEB " Depends"));
	EXPECT_NE(NULL, strstr(out, "libcapstone")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "libdw1")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "libbpf1")) TH_LOG("%s", out);
	/* the page rst2man made of Documentation/man/kcollider-report.rst */
	ASSERT_EQ(0, run("dpkg-deb --fsys-tarfile " CLI_DEB
			 " | tar -xOf - ./usr/share/man/man8/kcollider-report.8.gz | gzip -dc | grep '^\\.TH '"));
	EXPECT_NE(NULL, strstr(out, "\"KCOLLIDER-REPORT\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"kcollider " KCOLLIDER_VERSION "\"")) TH_LOG("%s", out);
	/* the packaged binary runs and says its version */
	ASSERT_EQ(0, run("d=$(mktemp -d) && dpkg-deb -x " CLI_DEB
			 " $d && $d/usr/sbin/kcollider version; r=$?; rm -rf $d; exit $r"));
	EXPECT_STREQ("kcollider " KCOLLIDER_VERSION "\n", out);
}

TEST(lintian_finds_no_error_or_warning)
{
	ASSERT_EQ(0, run("cat " DEBS "/lintian.txt")) TH_LOG("make deb first");
	ASSERT_EQ(0, strncmp(out, "# Lintian v", 11)) TH_LOG("lintian did not run: %s", out);
	EXPECT_EQ(NULL, strstr(out, "\nE: ")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "\nW: ")) TH_LOG("%s", out);
	EXPECT_NE(0, strncmp(out, "E: ", 3)) TH_LOG("%s", out);
	EXPECT_NE(0, strncmp(out, "W: ", 3)) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
