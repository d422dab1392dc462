// SPDX-License-Identifier: GPL-2.0
/*
 * The top-level Makefile as a user meets it (issue 13): "make check" and
 * "make run" as the first command on a fresh machine (a scratch SYSROOT
 * whose kernel headers appear only while "make deps" runs), "make install"
 * into DESTDIR/PREFIX, the DKMS source tree, the man pages ("make man",
 * from the .rst files of Documentation/man/) and the bash completion.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kcollider/version.h>
#include "kselftest_harness.h"

/*
 * A make of the tree as a user would start it: nothing from our make. The
 * outer make's exports (KDIR, FLAVOUR of "make check FLAVOUR=rt-amd64",
 * KERNEL=debug) must not reach the fresh machine these tests play.
 */
#define CLEAN_ENV "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KDIR -u KREL " \
	"-u VM_IMAGE -u FLAVOUR -u KERNEL "
#define MAKE_V CLEAN_ENV "make --no-print-directory -C " KC_TOP
#define MAKE CLEAN_ENV "make -s --no-print-directory -C " KC_TOP

static char out[1 << 16], cmd[8192];

static int run(const char *c)
{
	FILE *p = popen(c, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool exists(const char *dir, const char *rel)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", dir, rel);
	return !stat(path, &st);
}

static char *scratch(void)
{
	char *d = strdup("/tmp/kc_make_XXXXXX");

	return d && mkdtemp(d) ? d : NULL;
}

/* Only for the timeouts: builds and makes take longer than 30 s. */
FIXTURE(mk) {
	int unused;
};

FIXTURE_SETUP(mk)
{
}

FIXTURE_TEARDOWN(mk)
{
}

static void cleanup(const char *dir)
{
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
}

/*
 * A fresh machine: no build tree until deps "installs" one (a stub kbuild
 * and utsrelease.h). check and run must find it in the same command.
 */
static void fresh_machine(struct __test_metadata *_metadata, const char *target,
			  const char *var)
{
	char *root = scratch(), hdr[512], path[600];
	FILE *f;

	ASSERT_NE(NULL, root);
	snprintf(hdr, sizeof(hdr), "%s/usr/src/linux-headers-9.9.9-1-amd64", root);
	snprintf(path, sizeof(path), "%s/deps.sh", root);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "mkdir -p %s/include/generated\n"
		"printf 'modules:\\n\\t@:\\n' > %s/Makefile\n"
		"echo '#define UTS_RELEASE \"9.9.9-1-amd64\"' > %s/include/generated/utsrelease.h\n",
		hdr, hdr, hdr);
	fclose(f);
	snprintf(cmd, sizeof(cmd), MAKE
		 " SYSROOT=%s DEPS_CMD='sh %s' %s='sh -c \"echo KDIR=\\$$KDIR KREL=\\$$KREL VM_IMAGE=\\$$VM_IMAGE\"' %s 2>&1",
		 root, path, var, target);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "KDIR=%s KREL=9.9.9-1-amd64 VM_IMAGE=/boot/vmlinuz-9.9.9-1-amd64\n",
		 hdr);
	EXPECT_NE(NULL, strstr(out, cmd)) TH_LOG("%s", out);
	cleanup(root);
	free(root);
}

TEST_F_TIMEOUT(mk, check_is_a_valid_first_command, 300)
{
	fresh_machine(_metadata, "check", "CHECK_CMD");
}

TEST_F_TIMEOUT(mk, run_is_a_valid_first_command, 300)
{
	fresh_machine(_metadata, "run", "RUN_CMD");
}

/* Without headers, even after deps: the error says what to do. */
TEST_F_TIMEOUT(mk, no_build_tree_is_a_clear_error, 300)
{
	char *root = scratch();

	ASSERT_NE(NULL, root);
	snprintf(cmd, sizeof(cmd), MAKE " SYSROOT=%s DEPS_CMD=true CHECK_CMD=true check 2>&1",
		 root);
	EXPECT_NE(0, run(cmd));
	EXPECT_NE(NULL, strstr(out, "kcollider: no kernel build tree for flavour 'amd64'"))
		TH_LOG("%s", out);
	cleanup(root);
	free(root);
}

TEST_F_TIMEOUT(mk, install_honours_destdir_and_prefix, 300)
{
	static const char * const files[] = {
		"/usr/sbin/kcollider", "/usr/share/man/man8/kcollider.8",
		"/usr/share/man/man8/kcollider-report.8",
		"/usr/share/man/man8/kcollider-mark.8",
		"/usr/share/man/man8/kcollider-tso.8",
		"/usr/share/man/man8/kcollider-litmus.8",
		"/usr/share/man/man8/kcollider-status.8",
		"/usr/share/man/man8/kcollider-version.8",
		"/usr/share/man/man4/kcollider.ko.4",
		"/usr/share/bash-completion/completions/kcollider",
		"/usr/share/doc/kcollider/LICENSE",
	};
	char *dest = scratch(), krel[256], rel[512];
	size_t i;
	int n;

	ASSERT_NE(NULL, dest);
	ASSERT_EQ(0, run(MAKE " print-krel"));
	n = sscanf(out, "KREL=%255s", krel);
	ASSERT_EQ(1, n) TH_LOG("%s", out);
	/* Not silent: the commands it runs are checked. */
	snprintf(cmd, sizeof(cmd), MAKE_V " install DESTDIR=%s PREFIX=/usr 2>&1", dest);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		EXPECT_TRUE(exists(dest, files[i])) TH_LOG("file %zu missing", i);
	snprintf(rel, sizeof(rel), "/lib/modules/%s/updates/kcollider.ko", krel);
	EXPECT_TRUE(exists(dest, rel)) TH_LOG("%s missing", rel);
	/* Nothing outside DESTDIR: depmod did not run on the host. */
	EXPECT_NE(NULL, strstr(out, "install -D -m 0755 user/kcollider"));
	EXPECT_EQ(NULL, strstr(out, "depmod"));
	snprintf(cmd, sizeof(cmd), "%s/usr/sbin/kcollider --version", dest);
	ASSERT_EQ(0, run(cmd));
	EXPECT_STREQ("kcollider " KCOLLIDER_VERSION "\n", out);
	/* The pages are rst2man's, made from Documentation/man/ for this version. */
	snprintf(cmd, sizeof(cmd), "f=%s/usr/share/man/man4/kcollider.ko.4; "
		 "grep -c 'generated from reStructuredText' $f && grep '^\\.TH ' $f", dest);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"kcollider " KCOLLIDER_VERSION "\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Kernel Interfaces")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), MAKE " uninstall DESTDIR=%s PREFIX=/usr 2>&1", dest);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		EXPECT_FALSE(exists(dest, files[i])) TH_LOG("file %zu left", i);
	cleanup(dest);
	free(dest);
}

/* The DKMS tree: the detector's sources only, version filled in, builds. */
TEST_F_TIMEOUT(mk, dkms_source_tree_builds, 600)
{
	char *dest = scratch(), rel[512], kdir[4096];
	int n;

	ASSERT_NE(NULL, dest);
	snprintf(cmd, sizeof(cmd), MAKE " dkms-src DESTDIR=%s 2>&1", dest);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	snprintf(rel, sizeof(rel), "/usr/src/kcollider-%s/dkms.conf", KCOLLIDER_VERSION);
	ASSERT_TRUE(exists(dest, rel));
	snprintf(cmd, sizeof(cmd), "grep -c 'PACKAGE_VERSION=\"%s\"' %s%s",
		 KCOLLIDER_VERSION, dest, rel);
	EXPECT_EQ(0, run(cmd));
	snprintf(rel, sizeof(rel), "/usr/src/kcollider-%s/selftests", KCOLLIDER_VERSION);
	EXPECT_FALSE(exists(dest, rel));
	/* As dkms.conf's MAKE line does it. */
	ASSERT_EQ(0, run(MAKE " print-kdir"));
	n = sscanf(out, "KDIR=%4095s", kdir);
	ASSERT_EQ(1, n) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd),
		 "env -u MAKEFLAGS -u MAKELEVEL make -s -C %s M=%s/usr/src/kcollider-%s modules 2>&1",
		 kdir, dest, KCOLLIDER_VERSION);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	snprintf(rel, sizeof(rel), "/usr/src/kcollider-%s/kmod/kcollider.ko", KCOLLIDER_VERSION);
	EXPECT_TRUE(exists(dest, rel));
	cleanup(dest);
	free(dest);
}

/*
 * make bench leaves its figures in build/bench/summary.md, each under its
 * benchmark's name with its command, after what they were measured on.
 */
TEST_F_TIMEOUT(mk, bench_writes_a_summary_of_its_figures, 120)
{
	char path[4096], *dir = scratch();

	ASSERT_NE(NULL, dir);
	snprintf(cmd, sizeof(cmd), "cd %s && BENCH=cli BENCH_CLI_REPORTS=2000 BUILD=%s "
		 KC_TOP "/selftests/runner/bench.sh > /dev/null 2>&1 && cat %s/bench/summary.md",
		 dir, dir, dir);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# make bench: summary\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\n- Commit: "));
	EXPECT_NE(NULL, strstr(out, "\n- Host: Linux "));
	EXPECT_NE(NULL, strstr(out, "\n- Benchmarks failed: 0\n"));
	EXPECT_NE(NULL, strstr(out, "\n## cli\n\nCommand: `selftests/runner/bench-cli.sh`"));
	/* a figure, not a comment */
	EXPECT_NE(NULL, strstr(out, "\nparse (report group): "));
	EXPECT_EQ(NULL, strstr(out, "\n# bench:"));
	snprintf(path, sizeof(path), "%s/bench/logs/cli.log", dir);
	EXPECT_EQ(0, access(path, R_OK));
	cleanup(dir);
	free(dir);
}

/* The man pages' sources, one name a line: "kcollider-report\n...". */
/*
 * "make clean" removes what builds made, never a source: kbuild's clean
 * deletes by name under its M= directory (*.ko.* among the names), and a
 * source such as Documentation/man/kcollider.ko.rst matches.
 */
TEST_F_TIMEOUT(mk, clean_keeps_every_source, 300)
{
	char *root = scratch();

	ASSERT_NE(NULL, root);
	snprintf(cmd, sizeof(cmd),
		 "git -C " KC_TOP " ls-files -z | (cd " KC_TOP " && xargs -0 cp --parents -t %s) 2>&1",
		 root);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	/* with a kernel build tree, or kbuild's clean would not run at all */
	snprintf(cmd, sizeof(cmd), CLEAN_ENV "make -s --no-print-directory -C %s print-kdir", root);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	out[strcspn(out, "\n")] = '\0';
	ASSERT_TRUE(exists(out + strlen("KDIR="), "/Makefile")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), CLEAN_ENV "make -s --no-print-directory -C %s clean 2>&1",
		 root);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd),
		 "git -C " KC_TOP " ls-files | while read -r f; do [ -e \"%s/$f\" ] || echo \"$f\"; done",
		 root);
	ASSERT_EQ(0, run(cmd));
	EXPECT_STREQ("", out);
	cleanup(root);
	free(root);
}

static void man_sources(struct __test_metadata *_metadata, char *list, size_t size)
{
	ASSERT_EQ(0, run("cd " KC_TOP "/Documentation/man && ls *.rst | sed 's/\\.rst$//'"));
	ASSERT_LT(strlen(out), size);
	strcpy(list, out);
}

/*
 * "make man" makes a page of every .rst file of Documentation/man/, in a
 * scratch BUILD (this make's pages, not an earlier one's), named after the
 * source and its ":Manual section:"; groff renders each without a warning;
 * no reST markup is left in the text, and the footer names the version.
 * Documentation/index.rst lists every page.
 */
TEST_F_TIMEOUT(mk, man_pages_render, 120)
{
	char *dir = scratch(), list[4096], *name, *save = NULL, path[512], index[8192];
	int n = 0;

	ASSERT_NE(NULL, dir);
	man_sources(_metadata, list, sizeof(list));
	snprintf(cmd, sizeof(cmd), MAKE " man BUILD=%s 2>&1", dir);
	ASSERT_EQ(0, run(cmd)) TH_LOG("make man: %s", out);
	ASSERT_EQ(0, run("cat " KC_TOP "/Documentation/index.rst"));
	ASSERT_LT(strlen(out), sizeof(index));
	strcpy(index, out);
	for (name = strtok_r(list, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		snprintf(path, sizeof(path), "/man/%s.%d", name,
			 strcmp(name, "kcollider.ko") ? 8 : 4);
		EXPECT_TRUE(exists(dir, path)) TH_LOG("%s%s not made", dir, path);
		snprintf(path, sizeof(path), "\n   man/%s\n", name);
		EXPECT_NE(NULL, strstr(index, path)) TH_LOG("index.rst lacks man/%s", name);
		n++;
	}
	EXPECT_GE(n, 8);
	/* nothing else: one page a source */
	snprintf(cmd, sizeof(cmd), "ls %s/man | wc -l", dir);
	ASSERT_EQ(0, run(cmd));
	EXPECT_EQ(n, atoi(out)) TH_LOG("%s/man holds %s", dir, out);
	snprintf(cmd, sizeof(cmd),
		 "cd %s/man && for f in *; do groff -man -Tutf8 -ww -z $f 2>&1 | sed \"s|^|$f: |\"; done",
		 dir);
	ASSERT_EQ(0, run(cmd));
	EXPECT_STREQ("", out);
	/* The text as man shows it: no markup, the version in every footer. */
	snprintf(cmd, sizeof(cmd),
		 "cd %s/man && for f in *; do groff -man -Tutf8 -P-cbou $f > $f.txt || echo $f; done; "
		 "grep -l -e '[*][*]' -e '``' -e '|version|' -e ':Manual' -e '^\\.\\. ' *.txt; "
		 "grep -L -e '^kcollider " KCOLLIDER_VERSION "  ' *.txt", dir);
	run(cmd);
	EXPECT_STREQ("", out);
	cleanup(dir);
	free(dir);
}

/*
 * Each command of "kcollider help" has a man page (its source), is among
 * kcollider(8)'s COMMANDS, and has a completion.
 */
TEST(every_command_has_a_man_page_and_completion)
{
	char help[4096], main_page[16384], *line, *save = NULL, name[64], path[512];
	int n = 0, fields;

	ASSERT_EQ(0, run("cat " KC_TOP "/Documentation/man/kcollider.rst"));
	ASSERT_LT(strlen(out), sizeof(main_page));
	strcpy(main_page, out);
	ASSERT_EQ(0, run(KC_TOP "/user/kcollider help"));
	strcpy(help, out);
	line = strstr(help, "COMMANDS:\n");
	ASSERT_NE(NULL, line);
	for (line = strtok_r(line + 10, "\n", &save); line && line[0] == ' ';
	     line = strtok_r(NULL, "\n", &save)) {
		fields = sscanf(line, " %63s", name);
		ASSERT_EQ(1, fields);
		snprintf(path, sizeof(path), "\n**%s**\n    ", name);
		EXPECT_NE(NULL, strstr(main_page, path)) TH_LOG("kcollider.rst: no %s", name);
		if (!strcmp(name, "help"))
			continue;
		snprintf(path, sizeof(path), "/Documentation/man/kcollider-%s.rst", name);
		EXPECT_TRUE(exists(KC_TOP, path)) TH_LOG("%s", path);
		snprintf(cmd, sizeof(cmd), "bash -c 'source " KC_TOP
			 "/scripts/kcollider.bash-completion; COMP_WORDS=(kcollider %.3s); "
			 "COMP_CWORD=1; _kcollider; echo \"${COMPREPLY[@]}\"'", name);
		ASSERT_EQ(0, run(cmd));
		EXPECT_NE(NULL, strstr(out, name)) TH_LOG("completion of %s: %s", name, out);
		n++;
	}
	EXPECT_GE(n, 5);
}

/*
 * kcollider.ko(4) (its source: an attribute is a term, "**NAME**" alone on
 * its line) and the ABI file document every attribute the module creates.
 */
TEST(module_man_page_names_every_sysfs_attribute)
{
	char attrs[4096], *a, *save = NULL, needle[128];
	int n = 0;

	ASSERT_EQ(0, run("sed -n 's/^KC_UINT_ATTR(\\([a-z][a-z_]*\\),.*/\\1/p; "
			 "s/.*__ATTR_R[OW]*(\\([a-z][a-z_]*\\)).*/\\1/p' " KC_TOP "/kmod/sysfs.c"));
	strcpy(attrs, out);
	ASSERT_EQ(0, run("cat " KC_TOP "/Documentation/man/kcollider.ko.rst "
			 KC_TOP "/Documentation/ABI/sysfs-kernel-kcollider"));
	for (a = strtok_r(attrs, "\n", &save); a; a = strtok_r(NULL, "\n", &save)) {
		snprintf(needle, sizeof(needle), "\n**%s**\n    ", a);
		EXPECT_NE(NULL, strstr(out, needle)) TH_LOG("%s undocumented", a);
		snprintf(needle, sizeof(needle),
			 "What:\t\t/sys/kernel/kcollider/%s\n", a);
		EXPECT_NE(NULL, strstr(out, needle)) TH_LOG("%s: no ABI entry", a);
		n++;
	}
	EXPECT_GE(n, 17);
}

TEST_HARNESS_MAIN
