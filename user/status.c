// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider status: every attribute of /sys/kernel/kcollider, as it is.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcollider/version.h>
#include "main.h"

static int read_attr(const char *name, char *buf, size_t size)
{
	char path[512];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", KCOLLIDER_SYSFS_DIR, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

int do_status(int argc, char **argv)
{
	char *names[64], buf[8192];
	struct dirent *de;
	int i, n = 0;
	DIR *dir;

	dir = opendir(KCOLLIDER_SYSFS_DIR);
	if (!dir) {
		fprintf(stderr, "%s: %s: %s (is kcollider.ko loaded?)\n",
			prog_name, KCOLLIDER_SYSFS_DIR, strerror(errno));
		return 1;
	}
	while ((de = readdir(dir)) && n < 64)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(dir);
	qsort(names, n, sizeof(names[0]), cmp_names);

	if (json_output)
		putchar('{');
	for (i = 0; i < n; i++) {
		if (read_attr(names[i], buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "<unreadable>");
		if (json_output) {
			printf("%s", i ? "," : "");
			json_string(names[i]);
			putchar(':');
			json_string(buf);
		} else if (strchr(buf, '\n')) {
			printf("%s:\n  %s\n", names[i], buf);
		} else {
			printf("%-16s %s\n", names[i], buf);
		}
		free(names[i]);
	}
	if (json_output)
		printf("}\n");
	return 0;
}
