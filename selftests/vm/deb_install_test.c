// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: the Debian packages of make deb, installed as a user installs
 * them (apt-get install ./kcollider-dkms_*.deb ./kcollider_*.deb, dpkg
 * doing the work) into an overlay of the VM's root, so the host's stays
 * untouched: DKMS builds the module for the running kernel, modprobe loads
 * that build, and the packaged CLI reads its version.
 */
#include <sys/mount.h>
#include <sys/utsname.h>

#include "kselftest_harness.h"
#include <kcollider/version.h>
#include "vm_util.h"

#define DEB_DIR		"build/deb"
/* A shell command mounting a filesystem of type @fs, its source named @fs too. */
#define MOUNT_FS(fs, args)	"mount -t " fs " " fs " " args "; "

FIXTURE(deb) {
	char root[300];		/* the overlay's merged view */
	char base[256];
};

/* Every command runs chrooted in the overlay, with its own /proc, /sys, /dev. */
static int in_root(const char *root, const char *cmd)
{
	char line[16384];

	snprintf(line, sizeof(line),
		 "chroot '%s' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive sh -c '%s' > '%s/../cmd.log' 2>&1",
		 root, cmd, root);
	return system(line);
}

static void show_log(struct __test_metadata *_metadata, const char *root)
{
	char path[512], buf[8192];

	snprintf(path, sizeof(path), "%s/../cmd.log", root);
	if (kc_read_file(path, buf, sizeof(buf)) > 0)
		TH_LOG("%s", buf);
}

FIXTURE_SETUP(deb)
{
	char cmd[8192];
	struct utsname u;

	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	/*
	 * DKMS builds against the running kernel's installed headers: a
	 * self-built test kernel (KERNEL=debug) has none in the VM's root,
	 * and no package to give it any.
	 */
	ASSERT_EQ(0, uname(&u));
	snprintf(cmd, sizeof(cmd), "/lib/modules/%s/build/Makefile", u.release);
	if (!kc_path_exists(cmd))
		SKIP(return, "no headers of %s in the root for DKMS", u.release);
	kc_unload_module("kcollider");
	snprintf(self->base, sizeof(self->base), "%s/kc_deb",
		 getenv("TMPDIR") ?: "/tmp");
	snprintf(self->root, sizeof(self->root), "%s/root", self->base);
	snprintf(cmd, sizeof(cmd),
		 "set -e; b='%s'; rm -rf $b; mkdir -p $b/upper $b/work $b/root; "
		 "modprobe overlay; "
		 MOUNT_FS("overlay", "-o lowerdir=/,upperdir=$b/upper,workdir=$b/work $b/root")
		 MOUNT_FS("proc", "$b/root/proc") MOUNT_FS("sysfs", "$b/root/sys")
		 "mount --bind /dev $b/root/dev; "
		 MOUNT_FS("tmpfs", "$b/root/tmp") MOUNT_FS("tmpfs", "$b/root/run")
		 "mkdir -p $b/root/run/debs; "
		 "cp %s/" DEB_DIR "/kcollider-dkms_*_all.deb %s/" DEB_DIR
		 "/kcollider_*_amd64.deb $b/root/run/debs/",
		 self->base, kc_top(), kc_top());
	ASSERT_EQ(0, system(cmd)) TH_LOG("overlay root or packages (make deb) missing");
}

FIXTURE_TEARDOWN(deb)
{
	char cmd[8192];

	/* skipped before the overlay was made */
	if (!kc_in_vm() || !self->base[0])
		return;
	kc_unload_module("kcollider");
	snprintf(cmd, sizeof(cmd),
		 "b='%s'; for m in run tmp dev sys proc; do umount $b/root/$m; done; "
		 "umount $b/root; rm -rf $b", self->base);
	if (system(cmd))
		TH_LOG("cleanup of %s failed", self->base);
}

TEST_F_TIMEOUT(deb, packages_build_the_module_for_the_running_kernel, 1500)
{
	char cmd[8192], buf[256];
	struct utsname u;

	/* 6.1's harness runs the test even when its setup skipped */
	if (!self->base[0])
		SKIP(return, "its setup skipped it (not in the VM, or no headers for DKMS)");
	ASSERT_EQ(0, uname(&u));
	/* what README's Installing says, from the files of make deb */
	ASSERT_EQ(0, in_root(self->root,
			     "dpkg -i /run/debs/kcollider-dkms_*.deb /run/debs/kcollider_*.deb"))
		show_log(_metadata, self->root);
	/* DKMS built and installed it for this kernel */
	snprintf(cmd, sizeof(cmd), "dkms status -k %s kcollider | grep -q installed",
		 u.release);
	ASSERT_EQ(0, in_root(self->root, cmd)) show_log(_metadata, self->root);
	snprintf(cmd, sizeof(cmd),
		 "test \"$(modinfo -k %s -F vermagic kcollider | cut -d\" \" -f1)\" = %s",
		 u.release, u.release);
	ASSERT_EQ(0, in_root(self->root, cmd)) show_log(_metadata, self->root);
	/* modprobe finds that build, and the packaged CLI talks to it */
	ASSERT_EQ(0, in_root(self->root,
			     "modprobe kcollider && test -x /usr/sbin/kcollider && kcollider version | grep -qx \"kcollider "
			     KCOLLIDER_VERSION "\""))
		show_log(_metadata, self->root);
	ASSERT_LT(0, kc_read_attr("version", buf, sizeof(buf)));
	ASSERT_STREQ(KCOLLIDER_VERSION "\n", buf);
	ASSERT_EQ(0, kc_unload_module("kcollider"));
	/* and removing the package removes the module it built */
	ASSERT_EQ(0, in_root(self->root, "dpkg -r kcollider kcollider-dkms"))
		show_log(_metadata, self->root);
	snprintf(cmd, sizeof(cmd), "! modinfo -k %s kcollider", u.release);
	ASSERT_EQ(0, in_root(self->root, cmd)) show_log(_metadata, self->root);
}

TEST_HARNESS_MAIN
