/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KCOLLIDER_LOGS_H
#define KCOLLIDER_LOGS_H

#include <stddef.h>

/* Symbolic links may loop: directories nest this deep at most. */
#define KC_LOGS_MAX_DEPTH	16

struct kc_logs {
	char **paths;
	size_t n, cap;
	char *bad;	/* the path an error was about */
};

/*
 * Adds @path: a file, "-" (stdin), or a directory's regular files, in
 * name order and recursively. 0 or -errno (-ENODATA: a directory with no
 * file in it); @l->bad names the path that failed.
 */
int kc_logs_add(struct kc_logs *l, const char *path);
void kc_logs_free(struct kc_logs *l);

#endif /* KCOLLIDER_LOGS_H */
