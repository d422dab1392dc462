// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: adversarial writes to every writable file of
 * /sys/kernel/kcollider/ and /sys/kernel/debug/kcollider/.
 *
 * Every write below is invalid for its file: huge numbers, negatives,
 * embedded NULs, whitespace, 1-byte and 4-KiB writes, buffers that run
 * into an unmapped page, bytes from a fixed-seed generator, and the same
 * from 4 threads at once. Each must fail with its documented errno
 * (EINVAL; ENOENT for a well-formed name that names nothing; EFAULT for
 * an unreadable buffer) and leave the read-back of every writable file
 * exactly as it was; the kernel log must show no splat afterwards.
 *
 * Which inputs are invalid comes from a model of each file's documented
 * syntax (Documentation/detector.rst, "sysfs" and "debugfs"): an input the
 * model calls valid is never sent as an adversarial one. Valid values are
 * written only to show that a change is seen, and are restored.
 */
#include <dirent.h>
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/mount.h>

#include <kcollider/marks.h>

#include "kselftest_harness.h"
#include "vm_util.h"

#define KC_DEBUGFS_DIR	"/sys/kernel/debug/kcollider"
#define MAX_FILES	32
#define MAX_CASES	640
#define SNAP_LEN	8192
#define NR_THREADS	4
#define THREAD_WRITES	64
#define SEED		0x6b636f6cU	/* "kcol" */

enum kind {
	K_BOOL,		/* 0/1, y/n, Y/N, on/off */
	K_UINT,		/* decimal in [min, max] */
	K_STYLE,	/* report_style: one word */
	K_FILTERS,	/* NAME=BOOL */
	K_SUPPRESS,	/* [+-]NAME, clear */
	K_TARGETS,	/* specs, clear */
	K_CONTROL,	/* BOOL words, or +SPEC/-SPEC */
	K_MARKS,	/* "0xSTART LEN marked|data_race" lines, clear */
};

struct known {
	const char *name;
	enum kind kind;
	unsigned long min, max;
};

/* The writable files and their syntax (Documentation/detector.rst). */
static const struct known known_files[] = {
	{ .name = "enabled", .kind = K_BOOL },
	{ .name = "sample_percpu", .kind = K_BOOL },
	{ .name = "strict", .kind = K_BOOL },
	{ .name = "benign_full", .kind = K_BOOL },
	{ .name = "sample_rate", .kind = K_UINT, .min = 1, .max = 100000 },
	{ .name = "max_probes", .kind = K_UINT, .min = 1, .max = 256 },
	{ .name = "stall_share_permille", .kind = K_UINT, .min = 1, .max = 1000 },
	{ .name = "overhead_permille", .kind = K_UINT, .min = 1, .max = 1000 },
	{ .name = "window_sleep_us", .kind = K_UINT, .min = 1, .max = 100000 },
	{ .name = "window_atomic_us", .kind = K_UINT, .min = 1, .max = 1000 },
	{ .name = "arm_timeout_us", .kind = K_UINT, .min = 1, .max = 10000 },
	{ .name = "dedup_ms", .kind = K_UINT, .min = 0, .max = 3600000 },
	{ .name = "report_style", .kind = K_STYLE },
	{ .name = "filters", .kind = K_FILTERS },
	{ .name = "suppress", .kind = K_SUPPRESS },
	{ .name = "targets", .kind = K_TARGETS },
	{ .name = "control", .kind = K_CONTROL },
	{ .name = "marks", .kind = K_MARKS },
	{ .name = "fail_thread_start", .kind = K_UINT, .min = 0, .max = INT_MAX },
	{ .name = "reap_hold_ms", .kind = K_UINT, .min = 0, .max = 10000 },
};

struct wfile {
	char path[512];
	const struct known *k;
};

/* One adversarial write: its bytes and the errnos it may fail with. */
struct wcase {
	char *buf;
	size_t len;
	int err, alt_err;	/* alt_err 0: only err */
	char what[48];
};

struct ctx {
	struct wfile files[MAX_FILES];
	int nfiles;
	char filter_name[64];	/* a real filter name, from read-back */
	char marks_line[64];	/* a range of kcollider's own code */
	char *snap[MAX_FILES];	/* read-back of every writable file */
	int kmsg;		/* /dev/kmsg, positioned after setup */
};

static struct ctx ctx;

/* ---- the files ---- */

static const struct known *find_known(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known_files); i++)
		if (!strcmp(known_files[i].name, name))
			return &known_files[i];
	return NULL;
}

/* Adds every writable regular file of @dir; -1 on an unknown one. */
static int scan_dir(const char *dir, char *unknown, size_t len)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int ret = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		struct wfile *f;
		struct stat st;
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & 0222))
			continue;
		if (!find_known(d->d_name)) {
			snprintf(unknown, len, "%s", path);
			ret = -1;
			continue;
		}
		if (ctx.nfiles == MAX_FILES)
			break;
		f = &ctx.files[ctx.nfiles++];
		snprintf(f->path, sizeof(f->path), "%s", path);
		f->k = find_known(d->d_name);
	}
	closedir(dp);
	return ret;
}

static int read_path(const char *path, char *buf, size_t size)
{
	return kc_read_file(path, buf, size);
}

/* One write(2) of @len bytes at @buf; 0 or -errno. Short writes: -EIO. */
static int write_buf(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	else
		n = (size_t)n == len ? 0 : -EIO;
	close(fd);
	return n;
}

static int write_str(const char *path, const char *s)
{
	return write_buf(path, s, strlen(s));
}

static void snapshot(char **snap)
{
	int i;

	for (i = 0; i < ctx.nfiles; i++) {
		if (!snap[i])
			snap[i] = malloc(SNAP_LEN);
		if (read_path(ctx.files[i].path, snap[i], SNAP_LEN) < 0)
			strcpy(snap[i], "(unreadable)");
	}
}

/* The first file whose read-back differs from ctx.snap, or -1. */
static int changed_file(char *now, size_t len)
{
	int i;

	for (i = 0; i < ctx.nfiles; i++) {
		if (read_path(ctx.files[i].path, now, len) < 0)
			strcpy(now, "(unreadable)");
		if (strcmp(now, ctx.snap[i]))
			return i;
	}
	return -1;
}

/* Has file @i's read-back changed from ctx.snap? */
static bool file_changed(int i, char *now, size_t len)
{
	if (read_path(ctx.files[i].path, now, len) < 0)
		strcpy(now, "(unreadable)");
	return strcmp(now, ctx.snap[i]);
}

/* New kernel log lines since setup that mean a splat. */
static const char *kmsg_trouble(char *line, size_t len)
{
	static const char * const bad[] = {
		"WARNING:", "BUG:", "Oops", "general protection", "kernel BUG",
		"Call Trace", "UBSAN", "KASAN", "list_add corruption",
		"list_del corruption", "refcount_t", "stack-protector", NULL,
	};
	char rec[8192];
	ssize_t n;
	int i;

	while ((n = read(ctx.kmsg, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* overwritten: go on */
			break;			/* EAGAIN: the end */
		}
		rec[n] = '\0';
		for (i = 0; bad[i]; i++) {
			if (strstr(rec, bad[i])) {
				snprintf(line, len, "%.200s", rec);
				return bad[i];
			}
		}
	}
	return NULL;
}

/* ---- the syntax model: is @buf possibly a valid write for @k? ---- */

static size_t strip_nl(const char *buf, size_t len)
{
	return len && buf[len - 1] == '\n' ? len - 1 : len;
}

static bool word_is(const char *buf, size_t len, const char *w)
{
	return strlen(w) == len && !memcmp(buf, w, len);
}

static bool bool_ok(const char *buf, size_t len)
{
	static const char * const words[] = {
		"1", "y", "Y", "on", "0", "n", "N", "off", NULL,
	};
	int i;

	len = strip_nl(buf, len);
	for (i = 0; words[i]; i++)
		if (word_is(buf, len, words[i]))
			return true;
	return false;
}

static bool uint_ok(const char *buf, size_t len, const struct known *k)
{
	unsigned long long v = 0;
	size_t i;

	len = strip_nl(buf, len);
	if (!len || len > 20)
		return false;
	for (i = 0; i < len; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return false;
		if (v > (~0ULL - 9) / 10)
			return false;
		v = v * 10 + buf[i] - '0';
	}
	return v >= k->min && v <= k->max;
}

static bool name_char(char c, bool glob)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' ||
	       (glob && (c == '*' || c == '?' || c == '[' || c == ']'));
}

static bool names_ok(const char *s, size_t len, bool glob)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!name_char(s[i], glob))
			return false;
	return true;
}

static bool spec_ok(const char *t, size_t len)
{
	const char *colon;

	if (len && (t[0] == '+' || t[0] == '-')) {
		t++;
		len--;
	}
	if (word_is(t, len, "clear") || word_is(t, len, "all") ||
	    word_is(t, len, "vmlinux"))
		return true;
	colon = memchr(t, ':', len);
	if (!colon)
		return names_ok(t, len, true);
	return names_ok(t, colon - t, false) &&
	       names_ok(colon + 1, len - (colon + 1 - t), true);
}

/* Every token well-formed (a sent one that is: -EINVAL expected). */
static bool targets_ok(const char *buf, size_t len)
{
	size_t i = 0, start;
	int tokens = 0;

	while (i < len) {
		while (i < len && (buf[i] == ',' || isspace((unsigned char)buf[i])))
			i++;
		start = i;
		while (i < len && buf[i] != ',' && !isspace((unsigned char)buf[i]))
			i++;
		if (i == start)
			continue;
		if (!spec_ok(buf + start, i - start))
			return false;
		tokens++;
	}
	return tokens > 0;
}

static bool suppress_ok(const char *buf, size_t len)
{
	len = strip_nl(buf, len);
	if (word_is(buf, len, "clear"))
		return true;
	if (len && (buf[0] == '+' || buf[0] == '-')) {
		buf++;
		len--;
	}
	return len < 512 && names_ok(buf, len, false);
}

static bool filters_ok(const char *buf, size_t len)
{
	const char *eq = memchr(buf, '=', len);

	return eq && eq > buf && bool_ok(eq + 1, len - (eq + 1 - buf));
}

/* Every line well-formed (its address may still name no code). */
static bool marks_ok(const char *buf, size_t len)
{
	struct kc_marks_range r;
	const char *line;
	size_t pos = 0, llen;
	int err = 0, lines = 0;

	if (word_is(buf, strip_nl(buf, len), "clear"))
		return true;
	while (kc_marks_next_line(buf, len, &pos, &line, &llen, &err)) {
		if (err || kc_marks_parse_line(line, llen, &r))
			return false;
		lines++;
	}
	return lines > 0;
}

static bool maybe_valid(const struct known *k, const char *buf, size_t len)
{
	switch (k->kind) {
	case K_BOOL:
		return bool_ok(buf, len);
	case K_UINT:
		return uint_ok(buf, len, k);
	case K_STYLE:
		len = strip_nl(buf, len);
		return word_is(buf, len, "kcollider") || word_is(buf, len, "kcsan");
	case K_FILTERS:
		return filters_ok(buf, len);
	case K_SUPPRESS:
		return suppress_ok(buf, len);
	case K_TARGETS:
		return targets_ok(buf, len);
	case K_MARKS:
		return marks_ok(buf, len);
	case K_CONTROL:
		return bool_ok(buf, len) ||
		       (len && (buf[0] == '+' || buf[0] == '-') &&
			targets_ok(buf, strip_nl(buf, len)));
	}
	return true;
}

/* ---- the adversarial inputs ---- */

struct cases {
	struct wcase c[MAX_CASES];
	int n, skipped;
};

static uint32_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* Adds @buf unless the model says it may be valid (then: skipped). */
static void add_case(struct cases *cs, const struct known *k, const void *buf,
		     size_t len, int err, const char *what)
{
	struct wcase *c;

	if (cs->n == MAX_CASES)
		return;
	if (err == EINVAL && maybe_valid(k, buf, len)) {
		cs->skipped++;
		return;
	}
	c = &cs->c[cs->n++];
	c->buf = malloc(len + 1);
	memcpy(c->buf, buf, len);
	c->buf[len] = '\0';
	c->len = len;
	c->err = err;
	c->alt_err = 0;
	snprintf(c->what, sizeof(c->what), "%s", what);
}

static void add_str(struct cases *cs, const struct known *k, const char *s,
		    const char *what)
{
	add_case(cs, k, s, strlen(s), EINVAL, what);
}

static void add_fill(struct cases *cs, const struct known *k, const char *head,
		     char fill, size_t len, const char *what)
{
	char *b = malloc(len);
	size_t h = strlen(head);

	memset(b, fill, len);
	memcpy(b, head, h < len ? h : len);
	add_case(cs, k, b, len, EINVAL, what);
	free(b);
}

/* A value the file accepts, or "" when there is none to try. */
static const char *valid_value(const struct known *k)
{
	switch (k->kind) {
	case K_BOOL:
	case K_CONTROL:
		return "1";
	case K_UINT:
		return "5";
	case K_STYLE:
		return "kcsan";
	case K_FILTERS:
		return NULL;	/* built from the filter's name */
	case K_SUPPRESS:
		return "kcfz_sym";
	case K_TARGETS:
		return "module:kcfz_mod";
	case K_MARKS:
		return ctx.marks_line;
	}
	return "";
}

static void build_cases(struct cases *cs, const struct known *k)
{
	static const char * const strs[] = {
		/* huge numbers */
		"18446744073709551616", "18446744073709551615",
		"9223372036854775808", "4294967296", "4294967297",
		"4294967301", "99999999999999999999999999999999",
		"100001", "1001", "10001", "3600001", "257",
		/* negatives and signs */
		"-1", "-0", "-2147483648", "-9223372036854775808",
		"-18446744073709551615", "+1", "+5", "--1", "-",
		"+", "+-", "-+",
		/* other notations */
		"0x10", "0x", "1e3", "1.5", "5.", ".5", "0b1", "1_0",
		"5,", ",5", "5;", "5:", ":", "::", "module:", ":x",
		"a:b:c", "yes", "no", "true", "false", "ON", "OFF",
		"Off", "2", "10", "11", "oo", "onn", "of", "offf",
		"kcsa", "kcsann", "KCSAN", "kcollider2", "=", "=on",
		"=1", "x=", "x==on", "x=on=off", "x=on,y=off",
		"x=on\ny=off", "clear\nclear", "clearx", "clear:",
		/* whitespace */
		" ", "  ", "\t", "\n", "\n\n", "\r", "\r\n", "\x20\n",
		"\v", "\f", " 5", "5 ", "5\t", "\t5", "5\n\n", "5\r\n",
		"5\r", " 1\n", "1\x20\n", "on\x20\n", " on", "kcsan ",
		" kcsan", "x =on", "x= on", "x=on ", "x=on\n\n",
		"+ kcfz", "- kcfz",
		/* bytes no file takes */
		"\x01", "\x7f", "\xff", "\xc3\xa9", "\xd9\xa1",
		"5\x01", "kcfz\x01", "kcfz;x", "kcfz/x", "kcfz'x",
		"kcfz\"x", "kcfz\\x", "%s%s%n", "../../x", "kcfz-x",
		"kcfz[x", "*\x01", "module:*", "module:x*",
	};
	static const char * const nul[] = {
		"0", "1", "5", "on", "off", "kcsan", "kcollider",
		"clear", "all", "kcfz_sym", "module:kcfz_mod",
	};
	char b[1024];
	size_t i, n;
	int r, j;

	cs->n = cs->skipped = 0;
	for (i = 0; i < ARRAY_SIZE(strs); i++)
		add_str(cs, k, strs[i], "catalogue");
	/* embedded NULs: before, inside and after values that are valid */
	for (i = 0; i < ARRAY_SIZE(nul); i++) {
		n = strlen(nul[i]);
		b[0] = '\0';
		memcpy(b + 1, nul[i], n);
		add_case(cs, k, b, n + 1, EINVAL, "NUL first");
		memcpy(b, nul[i], n);
		b[n] = '\0';
		add_case(cs, k, b, n + 1, EINVAL, "NUL after");
		b[n + 1] = '\n';
		add_case(cs, k, b, n + 2, EINVAL, "NUL newline after");
		if (n > 1) {
			memcpy(b, nul[i], n);
			b[n / 2] = '\0';
			add_case(cs, k, b, n, EINVAL, "NUL inside");
		}
	}
	if (k->kind == K_FILTERS) {
		snprintf(b, sizeof(b), "%s=on", ctx.filter_name);
		n = strlen(b);
		b[n - 2] = '\0';
		add_case(cs, k, b, n, EINVAL, "filter NUL value");
		snprintf(b, sizeof(b), "%s=2", ctx.filter_name);
		add_str(cs, k, b, "filter value 2");
		snprintf(b, sizeof(b), "%s", ctx.filter_name);
		add_str(cs, k, b, "filter without value");
		snprintf(b, sizeof(b), "%s=on\n%s=off", ctx.filter_name,
			 ctx.filter_name);
		add_str(cs, k, b, "two filters");
		snprintf(b, sizeof(b), "%sx=on", ctx.filter_name);
		add_str(cs, k, b, "filter name + x");
		snprintf(b, sizeof(b), "%.*s=on", (int)strlen(ctx.filter_name) - 1,
			 ctx.filter_name);
		add_str(cs, k, b, "filter name - 1");
	}
	/* every 1-byte write */
	for (r = 0; r < 256; r++) {
		b[0] = r;
		add_case(cs, k, b, 1, EINVAL, "1 byte");
	}
	/* 4 KiB and longer: a page and more */
	add_fill(cs, k, "", 'A', 4096, "4 KiB of A");
	add_fill(cs, k, "", '9', 4096, "4 KiB of 9");
	add_fill(cs, k, "1", '\0', 4096, "1 and 4095 NULs");
	add_fill(cs, k, "", '\0', 4096, "4 KiB of NUL");
	add_fill(cs, k, "", ' ', 4096, "4 KiB of spaces");
	add_fill(cs, k, "", 'A', 4095, "4095 bytes of A");
	add_fill(cs, k, "", 'A', 600, "600 bytes of A");
	add_fill(cs, k, "+", 'A', 600, "+ and 599 A");
	add_fill(cs, k, "-", 'A', 600, "- and 599 A");
	add_fill(cs, k, "", 'A', 8192, "8 KiB of A");
	/* random bytes from a fixed seed, each with a byte no file takes */
	rnd_state = SEED;
	for (j = 0; j < 48; j++) {
		n = 1 + rnd() % (j < 40 ? 64 : sizeof(b) - 1);
		for (i = 0; i < n; i++)
			b[i] = rnd();
		b[rnd() % n] = '\x01';
		add_case(cs, k, b, n, EINVAL, "random bytes");
	}
	/* well-formed names that name nothing: the documented -ENOENT */
	if (k->kind == K_SUPPRESS)
		add_case(cs, k, "-kcfz_absent", 12, ENOENT, "remove absent");
	if (k->kind == K_TARGETS)
		add_case(cs, k, "kcfz_no_such_function", 21, ENOENT,
			 "function naming nothing");
	if (k->kind == K_CONTROL)
		add_case(cs, k, "+kcfz_no_such_function", 22, ENOENT,
			 "function naming nothing");
}

static void free_cases(struct cases *cs)
{
	int i;

	for (i = 0; i < cs->n; i++)
		free(cs->c[i].buf);
	cs->n = 0;
}

/* Printable, for the log. */
static const char *show(const char *buf, size_t len)
{
	static char out[160];
	size_t i, o = 0;

	for (i = 0; i < len && o + 8 < sizeof(out); i++) {
		unsigned char c = buf[i];

		if (isprint(c) && c != '\\')
			out[o++] = c;
		else
			o += snprintf(out + o, sizeof(out) - o, "\\x%02x", c);
	}
	if (i < len)
		o += snprintf(out + o, sizeof(out) - o, "...(%zu bytes)", len);
	out[o] = '\0';
	return out;
}

/* "0x<addr> 1 marked": the first byte of a function of kcollider's. */
static bool own_code_range(char *line, size_t len)
{
	unsigned long long addr = kc_kallsyms_find(NULL, "tT", "kcollider");

	if (addr)
		snprintf(line, len, "0x%llx 1 marked", addr);
	return addr != 0;
}

/* ---- the tests ---- */

FIXTURE(attrs) {
	int unused;
};

FIXTURE_SETUP(attrs)
{
	char unknown[512] = "", buf[SNAP_LEN], *nl;

	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load %s: %s", kc_module_path(), strerror(errno));
	memset(&ctx, 0, sizeof(ctx));
	ASSERT_EQ(0, scan_dir(KCOLLIDER_SYSFS_DIR, unknown, sizeof(unknown)))
		TH_LOG("writable file %s has no syntax in this test: add it",
		       unknown[0] ? unknown : KCOLLIDER_SYSFS_DIR);
	if (!kc_path_exists(KC_DEBUGFS_DIR))
		mount("none", "/sys/kernel/debug", "debugfs", 0, NULL);
	ASSERT_EQ(0, scan_dir(KC_DEBUGFS_DIR, unknown, sizeof(unknown)))
		TH_LOG("writable file %s has no syntax in this test: add it",
		       unknown[0] ? unknown : KC_DEBUGFS_DIR);
	/* Every documented writable file was found writable. */
	ASSERT_EQ(ARRAY_SIZE(known_files), ctx.nfiles);
	ASSERT_LT(0, kc_read_attr("filters", buf, sizeof(buf)));
	nl = strchr(buf, ' ');
	ASSERT_NE(NULL, nl);
	*nl = '\0';
	snprintf(ctx.filter_name, sizeof(ctx.filter_name), "%.63s", buf);
	ASSERT_TRUE(own_code_range(ctx.marks_line, sizeof(ctx.marks_line)));
	snapshot(ctx.snap);
	ctx.kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, ctx.kmsg);
	lseek(ctx.kmsg, 0, SEEK_END);
}

FIXTURE_TEARDOWN(attrs)
{
	int i;

	if (!kc_in_vm())
		return;
	for (i = 0; i < MAX_FILES; i++) {
		free(ctx.snap[i]);
		ctx.snap[i] = NULL;
	}
	if (ctx.kmsg > 0)
		close(ctx.kmsg);
	kc_write_attr("enabled", "0");
	EXPECT_EQ(0, kc_unload_module("kcollider"))
		TH_LOG("unload: %s", strerror(errno));
}

/* Sends @cs to @f one by one; the number of failures. */
static int send_cases(struct __test_metadata *_metadata, const struct wfile *f,
		      const struct cases *cs)
{
	static char now[SNAP_LEN];
	int i, ret, bad = 0, ch;

	for (i = 0; i < cs->n; i++) {
		const struct wcase *c = &cs->c[i];

		ret = write_buf(f->path, c->buf, c->len);
		ch = changed_file(now, sizeof(now));
		if ((ret != -c->err && (!c->alt_err || ret != -c->alt_err)) ||
		    ch >= 0) {
			bad++;
			TH_LOG("%s: %s \"%s\": write returned %d (%s), want -%s%s",
			       f->path, c->what, show(c->buf, c->len), ret,
			       ret ? strerror(-ret) : "success",
			       strerror(c->err),
			       ch >= 0 ? "; a file changed" : "");
			if (ch >= 0) {
				TH_LOG("%s now: %s", ctx.files[ch].path,
				       show(now, strlen(now)));
				/* go on from the new state */
				snapshot(ctx.snap);
			}
		}
	}
	return bad;
}

TEST_F_TIMEOUT(attrs, every_adversarial_write_fails_and_changes_nothing, 600)
{
	static struct cases cs;
	char line[256];
	const char *splat;
	int i, bad = 0, sent = 0, skipped = 0;

	for (i = 0; i < ctx.nfiles; i++)
		TH_LOG("%s: %s", ctx.files[i].path,
		       show(ctx.snap[i], strlen(ctx.snap[i])));
	for (i = 0; i < ctx.nfiles; i++) {
		static char now[SNAP_LEN];

		/* A 0-byte write never reaches the file (VFS): no change. */
		write_buf(ctx.files[i].path, "", 0);
		EXPECT_EQ(-1, changed_file(now, sizeof(now)))
			TH_LOG("%s: a 0-byte write changed something", ctx.files[i].path);
		build_cases(&cs, ctx.files[i].k);
		bad += send_cases(_metadata, &ctx.files[i], &cs);
		sent += cs.n;
		skipped += cs.skipped;
		free_cases(&cs);
	}
	/* stderr: the harness's child ends with _exit(), stdout unflushed */
	TH_LOG("%d files, %d adversarial writes, %d inputs valid for the file not sent",
	       ctx.nfiles, sent, skipped);
	EXPECT_EQ(0, bad);
	EXPECT_LT(ctx.nfiles * 250, sent);
	splat = kmsg_trouble(line, sizeof(line));
	EXPECT_EQ(NULL, splat) TH_LOG("kernel log: %s", line);
}

/*
 * A value the file accepts, at the very end of a mapped page, with the
 * write's count running one byte into an unmapped one: the whole write
 * must fail with EFAULT, not apply the part that was readable. Then a
 * buffer wholly unmapped.
 */
TEST_F_TIMEOUT(attrs, unreadable_buffers_fail_with_efault_and_change_nothing, 600)
{
	static char now[SNAP_LEN];
	long page = sysconf(_SC_PAGESIZE);
	char *map, line[256], val[96];
	const char *splat;
	int i, ret, ch, bad = 0;

	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_NONE));
	for (i = 0; i < ctx.nfiles; i++) {
		const struct wfile *f = &ctx.files[i];
		const char *v = valid_value(f->k);
		size_t n;

		if (!v) {
			snprintf(val, sizeof(val), "%s=off", ctx.filter_name);
			v = val;
		}
		n = strlen(v);
		memcpy(map + page - n, v, n);
		ret = write_buf(f->path, map + page - n, n + 1);
		ch = changed_file(now, sizeof(now));
		if (ret != -EFAULT || ch >= 0) {
			bad++;
			TH_LOG("%s: \"%s\" then an unmapped byte: %d (%s)%s", f->path,
			       v, ret, ret ? strerror(-ret) : "success",
			       ch >= 0 ? ", a file changed" : "");
			snapshot(ctx.snap);
		}
		ret = write_buf(f->path, map + page, 16);
		ch = changed_file(now, sizeof(now));
		if (ret != -EFAULT || ch >= 0) {
			bad++;
			TH_LOG("%s: unmapped buffer: %d%s", f->path, ret,
			       ch >= 0 ? ", a file changed" : "");
			snapshot(ctx.snap);
		}
	}
	munmap(map, 2 * page);
	EXPECT_EQ(0, bad);
	splat = kmsg_trouble(line, sizeof(line));
	EXPECT_EQ(NULL, splat) TH_LOG("kernel log: %s", line);
}

/*
 * The check can fail: a valid value does change the read-back, and
 * writing the old value back restores it exactly.
 */
TEST_F_TIMEOUT(attrs, valid_values_change_and_restore, 600)
{
	static char now[SNAP_LEN], restore[SNAP_LEN];
	int i, ch;

	for (i = 0; i < ctx.nfiles; i++) {
		const struct wfile *f = &ctx.files[i];
		const char *v = valid_value(f->k);
		char val[96];

		switch (f->k->kind) {
		case K_BOOL:
		case K_CONTROL:
			v = !strcmp(ctx.snap[i], "1\n") || !strcmp(ctx.snap[i], "on\n") ?
			    "0" : "1";
			snprintf(restore, sizeof(restore), "%s", ctx.snap[i]);
			break;
		case K_UINT:
			v = !strcmp(ctx.snap[i], "5\n") ? "6" : "5";
			snprintf(restore, sizeof(restore), "%s", ctx.snap[i]);
			break;
		case K_STYLE:
			v = !strcmp(ctx.snap[i], "kcsan\n") ? "kcollider" : "kcsan";
			snprintf(restore, sizeof(restore), "%s", ctx.snap[i]);
			break;
		case K_FILTERS:
			snprintf(val, sizeof(val), "%s=off", ctx.filter_name);
			v = val;
			snprintf(restore, sizeof(restore), "%s=on", ctx.filter_name);
			break;
		case K_SUPPRESS:
			snprintf(restore, sizeof(restore), "-%s", v);
			break;
		case K_TARGETS:
			snprintf(restore, sizeof(restore), "-%s", v);
			break;
		case K_MARKS:
			snprintf(restore, sizeof(restore), "clear");
			break;
		}
		ASSERT_EQ(0, write_str(f->path, v)) TH_LOG("%s: %s", f->path, v);
		EXPECT_TRUE(file_changed(i, now, sizeof(now)))
			TH_LOG("%s: \"%s\" did not change it", f->path, v);
		ASSERT_EQ(0, write_str(f->path, restore))
			TH_LOG("%s: restore %s", f->path, restore);
		ch = changed_file(now, sizeof(now));
		EXPECT_EQ(-1, ch) TH_LOG("%s: not restored: %s", f->path,
					 ch >= 0 ? show(now, strlen(now)) : "");
	}
}

struct hammer {
	const struct wfile *f;
	const struct cases *cs;
	int first, ok, bad_errno, writes;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	int i, ret;

	for (i = 0; i < THREAD_WRITES; i++) {
		const struct wcase *c = &h->cs->c[(h->first + 7 * i) % h->cs->n];

		ret = write_buf(h->f->path, c->buf, c->len);
		h->writes++;
		if (!ret)
			h->ok++;
		else if (ret != -c->err && (!c->alt_err || ret != -c->alt_err))
			h->bad_errno++;
	}
	return NULL;
}

/*
 * NR_THREADS writers at once on each file, and a reader: every write
 * fails, nothing changes, no splat.
 */
TEST_F_TIMEOUT(attrs, concurrent_adversarial_writers_change_nothing, 600)
{
	static struct cases cs;
	static char now[SNAP_LEN];
	struct hammer h[NR_THREADS];
	pthread_t th[NR_THREADS];
	char line[256];
	const char *splat;
	int i, t, ch, total = 0;

	for (i = 0; i < ctx.nfiles; i++) {
		build_cases(&cs, ctx.files[i].k);
		ASSERT_LT(0, cs.n);
		for (t = 0; t < NR_THREADS; t++) {
			h[t] = (struct hammer){ .f = &ctx.files[i], .cs = &cs,
						.first = t * cs.n / NR_THREADS };
			ASSERT_EQ(0, pthread_create(&th[t], NULL, hammer_thread,
						    &h[t]));
		}
		for (t = 0; t < THREAD_WRITES; t++)
			read_path(ctx.files[i].path, now, sizeof(now));
		for (t = 0; t < NR_THREADS; t++) {
			pthread_join(th[t], NULL);
			total += h[t].writes;
			EXPECT_EQ(0, h[t].ok) TH_LOG("%s: %d writes succeeded",
						     ctx.files[i].path, h[t].ok);
			EXPECT_EQ(0, h[t].bad_errno)
				TH_LOG("%s: %d writes with another errno",
				       ctx.files[i].path, h[t].bad_errno);
		}
		ch = changed_file(now, sizeof(now));
		EXPECT_EQ(-1, ch) TH_LOG("%s changed: %s",
					 ch >= 0 ? ctx.files[ch].path : "",
					 ch >= 0 ? show(now, strlen(now)) : "");
		if (ch >= 0)
			snapshot(ctx.snap);
		free_cases(&cs);
	}
	TH_LOG("%d concurrent writes", total);
	EXPECT_EQ(ctx.nfiles * NR_THREADS * THREAD_WRITES, total);
	splat = kmsg_trouble(line, sizeof(line));
	EXPECT_EQ(NULL, splat) TH_LOG("kernel log: %s", line);
}

TEST_HARNESS_MAIN
