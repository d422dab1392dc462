// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider status: every attribute of /sys/kernel/kcollider and the
 * counters of /sys/kernel/debug/kcollider/stats, as a table for people and
 * as one nested JSON object for scripts. An attribute of "NAME VALUE" lines
 * (stats, filters, suppress, targets) becomes an object; numbers are
 * numbers, on/off are booleans.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcollider/version.h>
#include "json.h"
#include "main.h"
#include "readfile.h"

/* Attributes that are lists of "NAME VALUE" lines, even when empty. */
static const char * const table_attrs[] = {
	"filters", "stats", "suppress", "targets", NULL,
};

static void status_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s status [OPTIONS]\n"
		"\n"
		"Show every setting and statistic of the loaded module (the files\n"
		"of %s, KCOLLIDER_SYSFS overrides the directory, and the\n"
		"counters of %s/stats, KCOLLIDER_DEBUGFS overrides it).\n"
		"Lists (stats, filters, suppress, targets) are shown one entry a\n"
		"line, and as nested objects in JSON.\n"
		"\n"
		"OPTIONS:\n"
		KC_COMMON_USAGE
		"\n"
		KC_EXIT_HELP, prog_name, KCOLLIDER_SYSFS_DIR,
		KCOLLIDER_DEBUGFS_DIR);
}

static const char *sysfs_dir(void)
{
	const char *d = getenv("KCOLLIDER_SYSFS");

	return d && *d ? d : KCOLLIDER_SYSFS_DIR;
}

/* The counters are in debugfs; the settings, one a file, in sysfs. */
static const char *attr_dir(const char *sysfs, const char *name)
{
	const char *d = getenv("KCOLLIDER_DEBUGFS");

	if (strcmp(name, "stats"))
		return sysfs;
	return d && *d ? d : KCOLLIDER_DEBUGFS_DIR;
}

/* An attribute is a page; "targets" may list many sites: generous. */
#define KC_ATTR_MAX (1 << 20)

/* The whole attribute, trailing newlines dropped; NULL and errno on error. */
static char *read_attr(const char *dir, const char *name)
{
	char *path, *buf;
	size_t n;
	int err;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	buf = kc_read_file(path, KC_ATTR_MAX, &n);
	err = errno;
	free(path);
	if (!buf) {
		errno = err;
		return NULL;
	}
	while (n && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return buf;
}

static bool is_table(const char *name, const char *val)
{
	int i;

	for (i = 0; table_attrs[i]; i++)
		if (!strcmp(name, table_attrs[i]))
			return true;
	return strchr(val, '\n') != NULL;
}

static void json_value(struct json *j, const char *key, const char *val)
{
	if (!strcmp(val, "on") || !strcmp(val, "off"))
		json_bool(j, key, !strcmp(val, "on"));
	else
		json_auto(j, key, val);
}

/* "NAME VALUE" lines as members; a line without a value is true. */
static void json_table(struct json *j, const char *key, char *val)
{
	char *line, *save = NULL, *sp;

	json_obj_begin(j, key);
	for (line = strtok_r(val, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sp = strchr(line, ' ');
		if (sp)
			*sp++ = '\0';
		if (sp)
			json_value(j, line, sp);
		else
			json_bool(j, line, true);
	}
	json_obj_end(j);
}

static void text_table(const char *name, const char *val)
{
	const char *line = val;
	size_t n;

	printf("%s:%s\n", name, *val ? "" : " (none)");
	while (*line) {
		n = strcspn(line, "\n");
		printf("  %.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The attribute names of @dir, sorted; NULL and errno on error. */
static char **list_attrs(const char *dir, size_t *count)
{
	char **names = NULL, **nn;
	size_t i, n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	/* the counters, from debugfs, in their place in the list */
	for (i = 0; i < n && strcmp(names[i], "stats"); i++)
		;
	nn = i < n ? NULL : realloc(names, (n + 1) * sizeof(*names));
	if (nn) {
		names = nn;
		names[n] = strdup("stats");
		if (names[n])
			n++;
	}
	if (!names)
		names = calloc(1, sizeof(*names));
	qsort(names, n, sizeof(*names), cmp_names);
	*count = n;
	return names;
}

static void show(const char *dir, char **names, size_t n)
{
	struct json j;
	char *val;
	size_t i;

	if (json_output) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
	}
	for (i = 0; i < n; i++) {
		val = read_attr(attr_dir(dir, names[i]), names[i]);
		if (!val && json_output)
			json_null(&j, names[i]);
		else if (!val)
			printf("%-16s <unreadable: %s%s>\n", names[i], strerror(errno),
			       attr_dir(dir, names[i]) == dir ? "" :
			       "; is debugfs mounted on /sys/kernel/debug?");
		else if (json_output && is_table(names[i], val))
			json_table(&j, names[i], val);
		else if (json_output)
			json_value(&j, names[i], val);
		else if (is_table(names[i], val))
			text_table(names[i], val);
		else
			printf("%-16s %s\n", names[i], val);
		free(val);
	}
	if (json_output) {
		json_obj_end(&j);
		json_line_end(&j);
	}
}

int do_status(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_OPT_JSON,
		KC_OPT_PRETTY,
		KC_OPT_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = sysfs_dir();
	char **names;
	size_t i, n = 0;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, KC_COMMON_OPTS_SHORT, opts,
				  NULL)) != -1) {
		if (kc_common_option(opt))
			continue;
		status_usage(opt == 'h' ? stdout : stderr);
		return opt == 'h' ? KC_EXIT_OK : KC_EXIT_USAGE;
	}
	if (optind < argc) {
		status_usage(stderr);
		return KC_EXIT_USAGE;
	}
	names = list_attrs(dir, &n);
	if (!names) {
		kc_error("status: %s: %s (is kcollider.ko loaded?)", dir,
			 strerror(errno));
		return KC_EXIT_FAIL;
	}
	show(dir, names, n);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return KC_EXIT_OK;
}
