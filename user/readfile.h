/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole files into memory: the one reader of every command that needs a
 * file at once (a .ko, a source file, a litmus test, a sysfs attribute).
 */
#ifndef KCOLLIDER_READFILE_H
#define KCOLLIDER_READFILE_H

#include <stddef.h>
#include <stdio.h>

/* No limit but memory (a .ko with DWARF can be hundreds of MB). */
#define KC_READ_ANY ((size_t)-1)

/*
 * All of @f to its end, in one malloc()ed buffer with a NUL after the
 * last byte (binary data may hold NULs: @len, if not NULL, says how many
 * bytes were read). A stream's size is never trusted: sysfs says 4096,
 * a pipe says 0. NULL with errno set: EFBIG when there are more than
 * @max bytes, ENOMEM, or the read's own error (EISDIR for a directory).
 */
char *kc_read_stream(FILE *f, size_t max, size_t *len);
/* The same for the file @path; also fopen()'s errors (ENOENT, EACCES). */
char *kc_read_file(const char *path, size_t max, size_t *len);

#endif /* KCOLLIDER_READFILE_H */
