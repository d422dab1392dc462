// SPDX-License-Identifier: GPL-2.0
/*
 * Report sources: a saved log, stdin, the kernel log through /dev/kmsg (as
 * dmesg reads it), or the module's debugfs report file, optionally
 * followed. All of them end up as lines fed to the report parser.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "common.h"

static const char *input_path(const struct kc_input *in)
{
	if (in->kind == KC_IN_KMSG)
		return "/dev/kmsg";
	if (in->kind == KC_IN_DEBUGFS)
		return KC_DEBUGFS_REPORTS;
	return in->path ? in->path : "-";
}

/* A directory opens and reads as empty: say what it is instead. */
static int check_fd(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? -EISDIR : 0;
}

int kc_input_check(const struct kc_input *in)
{
	const char *path = input_path(in);
	int fd, ret;

	if (!strcmp(path, "-"))
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	ret = check_fd(fd);
	close(fd);
	return ret;
}

/* kernel.dmesg_restrict: 1 means only CAP_SYSLOG may read the log. */
static bool dmesg_restricted(void)
{
	FILE *f = fopen("/proc/sys/kernel/dmesg_restrict", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v == 1;
}

static const char *input_hint(const struct kc_input *in, int err)
{
	bool denied = err == -EPERM || err == -EACCES;

	if (in->kind == KC_IN_KMSG && denied && dmesg_restricted())
		return " (kernel.dmesg_restrict=1: reading the kernel log needs CAP_SYSLOG, e.g. root)";
	if (in->kind == KC_IN_KMSG && denied)
		return " (reading the kernel log needs CAP_SYSLOG)";
	if (in->kind == KC_IN_DEBUGFS && err == -ENOENT)
		return " (is kcollider.ko loaded and debugfs mounted on /sys/kernel/debug?)";
	if (in->kind == KC_IN_DEBUGFS && denied)
		return " (debugfs is readable by root only)";
	return "";
}

void kc_input_error(const char *cmd, const struct kc_input *in, int err)
{
	const char *path = input_path(in);

	kc_error("%s: %s: %s%s", cmd, strcmp(path, "-") ? path : "stdin",
		 strerror(-err), input_hint(in, err));
}

int kc_input_option(struct kc_input *in, int opt, const char *arg)
{
	switch (opt) {
	case 'f':
		in->follow = true;
		return 1;
	case 'K':
		in->kind = KC_IN_KMSG;
		return 1;
	case 'D':
		in->kind = KC_IN_DEBUGFS;
		return 1;
	}
	return 0;
}

/*
 * /dev/kmsg hands out one record per read(): "prio,seq,usec,flags;text"
 * then dictionary lines that begin with a space; those must not reach the
 * parser, which would read them as stack frames. Multi-line messages are
 * escaped as \x0a by the kernel; they are split back here.
 */
static int parse_kmsg(struct kc_parser *p, bool follow)
{
	char rec[8192], line[8192];
	int fd, ret = 0;
	ssize_t n;

	fd = open("/dev/kmsg", O_RDONLY | (follow ? 0 : O_NONBLOCK));
	if (fd < 0)
		return -errno;
	for (;;) {
		char *text, *nl, *o;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: skip ahead */
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		nl = strchr(++text, '\n');
		if (nl)
			*nl = '\0';
		for (o = line; *text && o < line + sizeof(line) - 1; text++) {
			if (!strncmp(text, "\\x0a", 4)) {
				*o = '\0';
				ret = kc_parser_line(p, line);
				o = line;
				text += 3;
				continue;
			}
			*o++ = *text;
		}
		*o = '\0';
		ret = kc_parser_line(p, line);
		if (ret)
			break;
	}
	close(fd);
	return ret < 0 ? ret : 0;
}

static int parse_stream(struct kc_parser *p, FILE *f, bool follow)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	for (;;) {
		if (getline(&line, &cap, f) >= 0) {
			ret = kc_parser_line(p, line);
			if (ret)
				break;
			continue;
		}
		if (ferror(f)) {
			ret = -(errno ? errno : EIO);
			break;
		}
		if (!follow)
			break;
		/* tail -f: wait for the file to grow. */
		clearerr(f);
		usleep(200 * 1000);
	}
	free(line);
	return ret < 0 ? ret : 0;
}

int kc_input_parse(const struct kc_input *in, kc_report_cb cb, void *data,
		   unsigned long *nreports, unsigned long *nbad)
{
	const char *path = in->path ? in->path : "-";
	struct kc_parser p;
	FILE *f = NULL;
	int ret;

	if (in->kind == KC_IN_DEBUGFS)
		path = KC_DEBUGFS_REPORTS;
	kc_parser_init(&p, in->kind == KC_IN_KMSG ? "/dev/kmsg" : path, cb, data);
	if (in->kind == KC_IN_KMSG) {
		ret = parse_kmsg(&p, in->follow);
	} else {
		f = strcmp(path, "-") ? fopen(path, "r") : stdin;
		if (!f)
			return -errno;
		ret = check_fd(fileno(f));
		if (!ret)
			ret = parse_stream(&p, f, in->follow);
		if (f != stdin)
			fclose(f);
	}
	if (!ret)
		ret = kc_parser_finish(&p);
	free(p.cur);
	p.cur = NULL;
	if (nreports)
		*nreports = p.nreports;
	if (nbad)
		*nbad = p.nbad;
	return ret < 0 ? ret : 0;
}
