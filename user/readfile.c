// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-file reads. A regular file's size gives the buffer at once; for
 * anything else (sysfs, procfs, pipes, stdin) the buffer doubles until
 * the end. The limit is checked against what was read, never against
 * what stat() claims, and a file longer than it is an error: no caller
 * may silently work on the first part of its input.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "readfile.h"

/* One byte past @max proves the file is longer: never read more. */
static bool grow(char **buf, size_t *cap, size_t want, size_t max)
{
	size_t c = want > max ? max + 1 : want;
	char *nb = realloc(*buf, c + 1);	/* + the NUL */

	if (!nb)
		return false;
	*buf = nb;
	*cap = c;
	return true;
}

static size_t first_size(FILE *f)
{
	struct stat st;

	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 4)
		return st.st_size + 1;	/* + 1: to see the end in one read */
	return 4096;
}

char *kc_read_stream(FILE *f, size_t max, size_t *len)
{
	size_t n = 0, cap = 0, want, got;
	char *buf = NULL;
	int err = 0;

	if (max > SIZE_MAX / 4)
		max = SIZE_MAX / 4;	/* room for the doubling below */
	want = first_size(f);
	for (;;) {
		if (n == cap && !grow(&buf, &cap, want, max)) {
			err = ENOMEM;
			break;
		}
		want = cap - n;
		errno = 0;
		got = fread(buf + n, 1, want, f);
		n += got;
		if (n > max) {
			err = EFBIG;
			break;
		}
		if (got < want) {
			err = ferror(f) ? (errno ? errno : EIO) : 0;
			break;
		}
		want = 2 * cap;
	}
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *kc_read_file(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	int err;

	if (!f)
		return NULL;
	buf = kc_read_stream(f, max, len);
	err = errno;
	fclose(f);
	errno = err;
	return buf;
}
