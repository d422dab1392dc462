// SPDX-License-Identifier: GPL-2.0
/*
 * selftests/runner/splat-scan.sh, which fails "make check KERNEL=debug"
 * and "make hunt-soak" on a splat in the guest's log, on logs written
 * here: a race report is a splat only where the detector is the access
 * (the access's frame or its caller's is of [kcollider]), not where kernel
 * code the detector's thread called is; other splats are counted as ever.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SCAN KC_TOP "/selftests/runner/splat-scan.sh"

static char out[1 << 14];

/* splat-scan.sh's count for @log (its last line), -1 if it did not run. */
static long scan(const char *log)
{
	char path[] = "/tmp/kc_splat_XXXXXX", cmd[8192];
	const char *last;
	size_t n;
	FILE *p;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, log, strlen(log)) != (ssize_t)strlen(log)) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "bash '%s' %s", SCAN, path);
	p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return -1;
	}
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	unlink(path);
	if (pclose(p) || !n)
		return -1;
	while (n && out[n - 1] == '\n')
		out[--n] = '\0';
	last = strrchr(out, '\n');
	return strtol(last ? last + 1 : out, NULL, 10);
}

/* an empty line of the log: the timestamp's space before the newline */
#define BLANK(t) "[" t "]\x20\n"
#define HEAD "[  445.1] ==================================================================\n"
#define TAIL BLANK("  445.2") \
	"[  445.2] Reported by kcollider on:\n" \
	"[  445.2] CPU: 1 PID: 97 Comm: kc 6.1.0\n" \
	"[  445.2] ==================================================================\n"

/* a thread of the detector sleeps on a timer: the kernel's race, no splat */
static const char deep_caller[] = HEAD
	"[  445.1] BUG: KCOLLIDER: data-race in __free_object / fill_pool\n"
	BLANK("  445.1")
	"[  445.1] read to 0xffffffff83410a60 of 4 bytes by interrupt on cpu 3:\n"
	"[  445.1]  fill_pool+0x5c/0x210\n"
	"[  445.1]  debug_objects_fill_pool+0x2c/0x3d\n"
	"[  445.1]  asm_sysvec_apic_timer_interrupt+0x16/0x20\n"
	BLANK("  445.1")
	"[  445.1] write to 0xffffffff83410a60 of 4 bytes by task 97 on cpu 1:\n"
	"[  445.1]  __free_object+0x1c0/0x34c\n"
	"[  445.1]  free_object+0x5/0x64\n"
	"[  445.1]  debug_object_free+0x160/0x23b\n"
	"[  445.1]  schedule_timeout+0x192/0x1f2\n"
	"[  445.1]  kc_keeper_fn+0x24e/0x347 [kcollider]\n"
	"[  445.1]  kthread+0x226/0x235\n"
	TAIL;

/* the detector's read of a watched value, in its arming IPI */
static const char own_read[] = HEAD
	"[  139.6] BUG: KCOLLIDER: data-race in copy_from_kernel_nofault / do_get_write_access\n"
	BLANK("  139.6")
	"[  139.6] read-write to 0xff3233bc41c5b518 of 4 bytes by interrupt on cpu 3:\n"
	"[  139.6]  copy_from_kernel_nofault+0x35/0xe0\n"
	"[  139.6]  kc_watch_apply_local+0x275/0x2a0 [kcollider]\n"
	"[  139.6]  kc_watch_ipi+0xa/0x20 [kcollider]\n"
	BLANK("  139.6")
	"[  139.6] read-write to 0xff3233bc41c5b518 of 4 bytes by task 176 on cpu 3:\n"
	"[  139.6]  do_get_write_access+0x301/0x3b0 [jbd2]\n"
	TAIL;

/* the int3 handler's carried-out load, named as the racer itself */
static const char own_frame[] = HEAD
	"[   20.1] BUG: KCOLLIDER: data-race in kc_emul_read / kc_r29_add\n"
	BLANK("   20.1")
	"[   20.1] read to 0xffff88800803b130 of 8 bytes by task 5 on cpu 1:\n"
	"[   20.1]  kc_emul_read+0x10/0x40 [kcollider]\n"
	BLANK("   20.1")
	"[   20.1] write to 0xffff88800803b130 of 8 bytes by task 6 on cpu 0:\n"
	"[   20.1]  kc_r29_add+0x10/0x40 [kc_planted]\n"
	TAIL;

static const char warning[] =
	"[   30.0] WARNING: CPU: 1 PID: 7 at kernel/foo.c:10 foo+0x1/0x2\n"
	"[   30.0] Modules linked in: kcollider\n";

TEST(kernel_code_the_detector_calls_is_no_splat)
{
	ASSERT_EQ(0, scan(deep_caller)) TH_LOG("%s", out);
}

TEST(the_detector_as_the_access_or_its_caller_is_a_splat)
{
	char log[8192];

	ASSERT_EQ(1, scan(own_read)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "kc_watch_apply_local"));
	ASSERT_EQ(1, scan(own_frame)) TH_LOG("%s", out);
	snprintf(log, sizeof(log), "%s%s%s", deep_caller, own_read,
		 own_frame);
	ASSERT_EQ(2, scan(log)) TH_LOG("%s", out);
}

TEST(other_splats_are_counted_beside_race_reports)
{
	char log[8192];

	snprintf(log, sizeof(log), "%s%s", deep_caller, warning);
	ASSERT_EQ(1, scan(log)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "WARNING:"));
}

TEST_HARNESS_MAIN
