// SPDX-License-Identifier: GPL-2.0
/*
 * Many logs at once: the console logs of a test farm's machines, named
 * one by one or as directories (every regular file below, in name order,
 * so two runs over the same tree read the same sequence).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "logs.h"

static int logs_add(struct kc_logs *l, const char *path)
{
	char *copy;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **p = realloc(l->paths, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->paths = p;
		l->cap = cap;
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	l->paths[l->n++] = copy;
	return 0;
}

static int logs_add_dir(struct kc_logs *l, const char *dir, int depth)
{
	struct dirent **names;
	struct stat st;
	char *path;
	int i, n, ret = 0;

	if (depth > KC_LOGS_MAX_DEPTH)
		return -ELOOP;
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (!ret && strcmp(name, ".") && strcmp(name, "..")) {
			if (asprintf(&path, "%s/%s", dir, name) < 0) {
				ret = -ENOMEM;
			} else {
				if (stat(path, &st))
					ret = -errno;
				else if (S_ISDIR(st.st_mode))
					ret = logs_add_dir(l, path, depth + 1);
				else if (S_ISREG(st.st_mode))
					ret = logs_add(l, path);
				if (ret && !l->bad)
					l->bad = strdup(path);
				free(path);
			}
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int kc_logs_add(struct kc_logs *l, const char *path)
{
	struct stat st;
	size_t before = l->n;
	int ret;

	if (!strcmp(path, "-"))
		return logs_add(l, path);
	if (stat(path, &st))
		ret = -errno;
	else if (S_ISDIR(st.st_mode))
		ret = logs_add_dir(l, path, 0);
	else
		ret = logs_add(l, path);
	if (!ret && l->n == before)
		ret = -ENODATA;
	if (ret && !l->bad)
		l->bad = strdup(path);
	return ret;
}

void kc_logs_free(struct kc_logs *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->bad);
	memset(l, 0, sizeof(*l));
}
