// SPDX-License-Identifier: GPL-2.0
/*
 * The corpus regression of "make fuzz": every file of
 * selftests/fuzz/corpus/<target>/ (the fixtures as seeds, and each input
 * the fuzzer ever crashed on) is fed to that target's entry point, the
 * same one libFuzzer calls, built here by gcc with ASan and UBSan
 * (-fno-sanitize-recover): one child process per input, which must exit 0
 * with no sanitizer report and no leak. The files are run in name order.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fuzz.h"

/* Seeds committed per target: a corpus that lost them fails. */
#define MIN_SEEDS 3

static char *read_all(const char *path, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (n == cap) {
			char *nb = realloc(buf, cap ? 2 * cap : 4096);

			if (!nb)
				break;
			buf = nb;
			cap = cap ? 2 * cap : 4096;
		}
		r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf ? buf : calloc(1, 1);
}

/* What a sanitizer prints when it did catch something. */
static bool sanitizer_said(const char *out)
{
	return strstr(out, "ERROR: AddressSanitizer") ||
	       strstr(out, "ERROR: LeakSanitizer") ||
	       strstr(out, "runtime error:");
}

/*
 * Run @fn on @path's bytes in a child. The child's stdout goes nowhere,
 * its stderr (the CLI's warnings, a sanitizer's report) into @out.
 * Returns the wait status, or -1 if the child could not be run.
 */
static int run_one(int (*fn)(const uint8_t *, size_t), const char *path,
		   char *out, size_t outlen)
{
	int errfd = memfd_create("kc-fuzz-stderr", 0);
	int status = -1, devnull;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (errfd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		uint8_t *data;
		size_t len;

		devnull = open("/dev/null", O_WRONLY);
		if (devnull < 0 || dup2(devnull, 1) < 0 || dup2(errfd, 2) < 0)
			_exit(100);
		data = (uint8_t *)read_all(path, &len);
		if (!data)
			_exit(101);
		fn(data, len);
		free(data);
		/* exit(), not _exit(): LeakSanitizer checks at exit. */
		exit(0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		status = -1;
	n = pread(errfd, out, outlen - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(errfd);
	return status;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int regular(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static void replay(struct __test_metadata *_metadata, const char *target,
		   int (*fn)(const uint8_t *, size_t))
{
	static char out[1 << 16];
	struct dirent **ents;
	char dir[512], path[1024];
	int i, n, failed = 0;

	snprintf(dir, sizeof(dir), "%s/%s", KC_FUZZ_CORPUS, target);
	n = scandir(dir, &ents, regular, by_name);
	ASSERT_LE(MIN_SEEDS, n) TH_LOG("%s: too few inputs (%d)", dir, n);
	for (i = 0; i < n; i++) {
		int st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		st = run_one(fn, path, out, sizeof(out));
		if (st != 0 || sanitizer_said(out)) {
			failed++;
			/* The whole report: the first lines say where. */
			TH_LOG("%s: wait status %#x; its stderr:\n%.4000s",
			       path, st, out);
		}
		free(ents[i]);
	}
	free(ents);
	EXPECT_EQ(0, failed) TH_LOG("%s: %d of %d inputs failed", target,
				    failed, n);
	TH_LOG("%s: %d inputs replayed", target, n);
}

TEST(report_corpus_replays_clean)
{
	replay(_metadata, "report", kc_fuzz_report);
}

TEST(tso_corpus_replays_clean)
{
	replay(_metadata, "tso", kc_fuzz_tso);
}

TEST(litmus_corpus_replays_clean)
{
	replay(_metadata, "litmus", kc_fuzz_litmus);
}

TEST_HARNESS_MAIN
