/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the in-VM tests: load and unload kcollider.ko, read and write
 * its sysfs attributes. The tests run as root inside the test VM only; each
 * refuses to run elsewhere so a stray invocation never loads a module into
 * the build machine's kernel.
 */
#ifndef KC_VM_UTIL_H
#define KC_VM_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kcollider/version.h>

static inline bool kc_in_vm(void)
{
	const char *v = getenv("KC_IN_VM");

	return v && !strcmp(v, "1");
}

/* Path of the module to load: $KC_MODULE, set by the runner. */
static inline const char *kc_module_path(void)
{
	const char *p = getenv("KC_MODULE");

	return p ? p : "kmod/kcollider.ko";
}

/*
 * While kcollider registers a kprobe in a module (milliseconds), kprobes
 * holds a reference on it and an unload fails with EWOULDBLOCK: retry
 * for a while, as a user's rmmod would.
 */
static inline int kc_unload_module(const char *name)
{
	int i, ret;

	for (i = 0; i < 100; i++) {
		ret = syscall(SYS_delete_module, name, O_NONBLOCK);
		if (!ret || errno != EWOULDBLOCK)
			break;
		usleep(100000);
	}
	return ret;
}

static inline int kc_finit_module(const char *path, const char *params)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	close(fd);
	return ret;
}

/*
 * A test the harness killed (its timeout) leaves kcollider loaded: the
 * next test unloads it and starts clean rather than failing too. The
 * planted module stays loaded across tests on purpose (EEXIST is fine).
 */
static inline int kc_load_module(const char *path, const char *params)
{
	const char *base = strrchr(path, '/');
	char name[64];
	int ret;

	if (!kc_in_vm()) {
		errno = EPERM;
		return -1;
	}
	ret = kc_finit_module(path, params);
	if (!ret || errno != EEXIST)
		return ret;
	base = base ? base + 1 : path;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
	if (strcmp(name, "kcollider")) {
		errno = EEXIST;
		return ret;
	}
	fprintf(stderr, "# %s was still loaded: unloading it first\n", name);
	if (kc_unload_module(name))
		return -1;
	return kc_finit_module(path, params);
}

static inline const char *planted_path(void)
{
	const char *p = getenv("KC_PLANTED");

	return p ? p : "selftests/planted/kc_planted.ko";
}

/* The planted module, loaded now or still loaded by an earlier test. */
static inline int load_planted(void)
{
	return kc_load_module(planted_path(), NULL) && errno != EEXIST ? -1 : 0;
}

static inline bool kc_path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Reads a whole file of one read(); returns its length or -errno. */
static inline int kc_read_path(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* Reads a whole sysfs attribute; returns its length or -errno. */
static inline int kc_read_attr(const char *name, char *buf, size_t size)
{
	char path[512];

	snprintf(path, sizeof(path), KCOLLIDER_SYSFS_DIR "/%s", name);
	return kc_read_path(path, buf, size);
}

/* The counters, "NAME VALUE" a line (debugfs, like KCSAN's). */
static inline int kc_read_stats(char *buf, size_t size)
{
	return kc_read_path(KCOLLIDER_DEBUGFS_DIR "/stats", buf, size);
}

/* Writes @val in one write(2); returns 0 or -errno of the write. */
static inline int kc_write_attr(const char *name, const char *val)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KCOLLIDER_SYSFS_DIR "/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/*
 * The tests' sampling rate, whatever the module's defaults (an overhead
 * budget for long runs, not for finding a planted race in seconds).
 */
#define KC_TEST_SAMPLE_RATE	"200"

static inline int kc_enable(void)
{
	int ret = kc_write_attr("sample_rate", KC_TEST_SAMPLE_RATE);

	/* that rate, not what the default overhead budget would buy */
	ret = ret ?: kc_write_attr("overhead_permille", "1000");
	return ret ? ret : kc_write_attr("enabled", "1");
}

/* The checkout's top directory: the CLI is user/kcollider under it. */
static inline const char *kc_top(void)
{
	const char *t = getenv("KC_TOP");

	return t ? t : ".";
}

/* Runs @cmd through the shell, its stdout into @out; its exit status. */
static inline int kc_run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}


/* ---- generic file helpers ---- */

#include <stdarg.h>

/* The kernel log from now on: /dev/kmsg, positioned at its end. */
static inline int kc_kmsg_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * Every record logged since kc_kmsg_from_now() gave @fd, one per line as
 * the console printed it (allocated; NULL if out of memory).
 */
static inline char *kc_kmsg_text(int fd)
{
	size_t cap = 1 << 20, len = 0;
	char rec[8192], *out = calloc(1, cap), *text;
	ssize_t n;

	if (!out)
		return NULL;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		text[strcspn(text, "\n")] = '\0';
		if (len + strlen(text) + 2 > cap)
			break;
		len += sprintf(out + len, "%s\n", text);
	}
	return out;
}

/* Reads a whole file (up to @size - 1 bytes); length or -errno. */
static inline ssize_t kc_read_file(const char *path, char *buf, size_t size)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off + 1 < size && (n = read(fd, buf + off, size - 1 - off)) > 0)
		off += n;
	n = n < 0 ? -errno : (ssize_t)off;
	buf[off] = '\0';
	close(fd);
	return n;
}

/* One write(2) of @val to @path; 0 or -errno. */
static inline int kc_write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* Value of "name N" in the stats file, -1 if absent. */
static inline long kc_stat(const char *name)
{
	static char buf[8192];
	size_t len = strlen(name);
	char *p;

	if (kc_read_stats(buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ' ')
			return strtol(p + len + 1, NULL, 10);
	return -1;
}

/*
 * Address of a symbol /proc/kallsyms lists (0 if none): @name (NULL: the
 * first that matches the rest), of a type in @types (NULL: any; "tT" for
 * code), from @module (NULL: anywhere; "" the kernel image itself).
 */
static inline unsigned long long kc_kallsyms_find(const char *name,
						  const char *types,
						  const char *module)
{
	char line[512], sym[256], mod[72];
	unsigned long long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");
	char type;
	int n;

	while (f && !found && fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%llx %c %255s [%63[^]]", &addr, &type, sym,
			   mod);
		if (n < 3)
			continue;
		if (n == 3)
			mod[0] = '\0';
		if ((!name || !strcmp(sym, name)) &&
		    (!types || strchr(types, type)) &&
		    (!module || !strcmp(mod, module)))
			found = addr;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * The kernel log since kc_klog_mark(): a test judges only its own lines,
 * not, say, the task dump the suite asked for while an earlier test was
 * slow.
 */
#define KC_KLOG_ANCHOR	128

static inline char *kc_klog(void)
{
	static char klog[1 << 20];

	return klog;
}

static inline char *kc_klog_anchor(void)
{
	static char anchor[KC_KLOG_ANCHOR];

	return anchor;
}

static inline int kc_klog_read(void)
{
	int len = klogctl(3, kc_klog(), (1 << 20) - 1);	/* READ_ALL */

	kc_klog()[len > 0 ? len : 0] = '\0';
	return len > 0 ? len : 0;
}

/* Remember where the log is: only what comes after it is this test's. */
static inline void kc_klog_mark(void)
{
	int len = kc_klog_read();
	int n = len < KC_KLOG_ANCHOR - 1 ? len : KC_KLOG_ANCHOR - 1;

	memcpy(kc_klog_anchor(), kc_klog() + len - n, n);
	kc_klog_anchor()[n] = '\0';
}

/*
 * Where the first of @bad (NULL-terminated) appears in the log since the
 * mark, or NULL.
 */
static inline const char *kc_klog_find(const char * const *bad)
{
	const char *anchor = kc_klog_anchor(), *from, *at;
	int i;

	kc_klog_read();
	at = anchor[0] ? strstr(kc_klog(), anchor) : NULL;
	/* the ring buffer wrapped past the mark: all of it is new */
	from = at ? at + strlen(anchor) : kc_klog();
	for (i = 0; bad[i]; i++) {
		at = strstr(from, bad[i]);
		if (at)
			return at;
	}
	return NULL;
}

#endif /* KC_VM_UTIL_H */
