// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's one whole-file reader (user/readfile.c): regular files,
 * streams whose size nobody knows (procfs, pipes), binary data, the limit
 * and the errors the commands report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "readfile.h"

static char path[64];

static int write_tmp(const void *data, size_t len)
{
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/kc_readfile_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f || fwrite(data, 1, len, f) != len)
		return -1;
	return fclose(f);
}

TEST(regular_file_binary_and_empty)
{
	static const char data[] = "ELF\0with\0NULs";
	size_t len = 1;
	char *buf;

	ASSERT_EQ(0, write_tmp(data, sizeof(data)));
	buf = kc_read_file(path, KC_READ_ANY, &len);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(sizeof(data), len);
	EXPECT_EQ(0, memcmp(buf, data, sizeof(data)));
	EXPECT_EQ('\0', buf[len]);
	free(buf);
	unlink(path);
	ASSERT_EQ(0, write_tmp("", 0));
	buf = kc_read_file(path, 16, &len);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(0, len);
	EXPECT_STREQ("", buf);
	free(buf);
	unlink(path);
}

/* procfs says size 0, sysfs 4096: only the end of the data counts. */
TEST(procfs_and_streams_of_unknown_size)
{
	static char big[100000];
	size_t len;
	char *buf;
	FILE *f;

	buf = kc_read_file("/proc/self/status", 1 << 20, &len);
	ASSERT_NE(NULL, buf);
	EXPECT_GT(len, 0);
	EXPECT_EQ(len, strlen(buf));
	EXPECT_EQ(0, strncmp(buf, "Name:", 5)) TH_LOG("%.80s", buf);
	free(buf);
	/* many times the first buffer: it grows, nothing lost */
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = 'y';
	f = fmemopen(big, sizeof(big), "r");
	ASSERT_NE(NULL, f);
	buf = kc_read_stream(f, sizeof(big), &len);
	fclose(f);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(sizeof(big), len);
	EXPECT_EQ('y', buf[len - 1]);
	EXPECT_EQ(0, memcmp(buf, big, len));
	free(buf);
}

TEST(limit_is_an_error_never_a_cut)
{
	static char data[5000];
	size_t len = 7;
	FILE *f;

	memset(data, 'a', sizeof(data));
	ASSERT_EQ(0, write_tmp(data, sizeof(data)));
	errno = 0;
	EXPECT_EQ(NULL, kc_read_file(path, sizeof(data) - 1, &len));
	EXPECT_EQ(EFBIG, errno);
	EXPECT_EQ(7, len);
	free(kc_read_file(path, sizeof(data), &len));
	EXPECT_EQ(sizeof(data), len);
	unlink(path);
	f = fmemopen(data, sizeof(data), "r");
	ASSERT_NE(NULL, f);
	errno = 0;
	EXPECT_EQ(NULL, kc_read_stream(f, 4096, NULL));
	EXPECT_EQ(EFBIG, errno);
	fclose(f);
}

TEST(errors_are_errno)
{
	errno = 0;
	EXPECT_EQ(NULL, kc_read_file("/nonexistent/file", 100, NULL));
	EXPECT_EQ(ENOENT, errno);
	errno = 0;
	EXPECT_EQ(NULL, kc_read_file("/tmp", 100, NULL));
	EXPECT_EQ(EISDIR, errno);
}

TEST_HARNESS_MAIN
