// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider mark [OPTIONS] [MODULE...]
 *
 * Tells the loaded module which code ranges of the modules under test the
 * source marks (READ_ONCE(), smp_load_acquire(), atomic_read() ...) or
 * wraps in data_race(), read from their .ko's DWARF and their source: its
 * "marked" filter then keeps such pairs out of the harmful reports, in
 * dmesg already, as KCSAN would.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "main.h"
#include "marking.h"

#define KC_MARKS_FILE "/sys/kernel/kcollider/marks"
#define KC_SYS_MODULE "/sys/module"
#define KC_MARKS_CHUNK 4000	/* whole lines per write: under a page */

struct mark_ctx {
	const char *module;
	bool dry_run;
	int fd;			/* the marks file; -1 with --dry-run */
	char buf[KC_MARKS_CHUNK + 128];
	size_t len;
	unsigned long ranges, marked, data_race;
};

static void mark_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s mark [OPTIONS] [MODULE...]\n"
		"\n"
		"Write to " KC_MARKS_FILE " the code ranges whose\n"
		"accesses the source marks (READ_ONCE(), WRITE_ONCE(),\n"
		"smp_load_acquire(), smp_store_release(), atomic_read(), atomic_set(),\n"
		"rcu_dereference(), ...) or wraps in data_race(), for each loaded\n"
		"module with a .ko under the -M directories (only the MODULEs named,\n"
		"when some are). The module's \"marked\" filter then prints a pair\n"
		"both marked, or either in data_race(), as one benign line\n"
		"(filter=marked) instead of a report: KCSAN's rule. Run it after\n"
		"loading the modules under test; a module's ranges go when it is\n"
		"unloaded.\n"
		"\n"
		"OPTIONS:\n"
		"  -M, --modules DIR  .ko files with DWARF, searched below DIR\n"
		"                   (repeatable; at least one)\n"
		"  -S, --source DIR   a source tree for files DWARF names by a path\n"
		"                   that does not exist here (repeatable)\n"
		"  -n, --dry-run    print the lines instead of writing them\n"
		"                   (section-relative for a module not loaded)\n"
		KC_COMMON_USAGE
		"\n"
		"JSON: one object per module: module, ranges, marked, data_race,\n"
		"written.\n"
		"\n"
		KC_EXIT_HELP, prog_name);
}

/* The live address of @section of @module, from sysfs (root). */
static int section_base(const char *module, const char *section,
			uint64_t *base)
{
	char path[512], val[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KC_SYS_MODULE "/%s/sections/%s", module,
		 section);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	val[n] = '\0';
	*base = strtoull(val, NULL, 16);
	return *base ? 0 : -EPERM;	/* zeros: kptr_restrict, not root */
}

static int flush_lines(struct mark_ctx *c)
{
	ssize_t n;

	if (!c->len)
		return 0;
	if (c->dry_run) {
		fwrite(c->buf, 1, c->len, stdout);
		c->len = 0;
		return 0;
	}
	n = write(c->fd, c->buf, c->len);
	if (n < 0)
		return -errno;
	c->len = 0;
	return n == 0 ? -EIO : 0;
}

static int on_range(const char *section, uint64_t off, uint64_t len,
		    enum kc_mark_kind kind, void *data)
{
	struct mark_ctx *c = data;
	const char *word = kind == KC_MARK_DATA_RACE ? "data_race" : "marked";
	uint64_t base;
	int ret;

	/* init code is freed once loaded, exit code only runs at unload */
	if (!strncmp(section, ".init", 5) || !strncmp(section, ".exit", 5))
		return 0;
	ret = section_base(c->module, section, &base);
	if (ret && !c->dry_run)
		return ret;
	if (ret)
		c->len += snprintf(c->buf + c->len, sizeof(c->buf) - c->len,
				   "%s+0x%" PRIx64 " %" PRIu64 " %s\n", section,
				   off, len, word);
	else
		c->len += snprintf(c->buf + c->len, sizeof(c->buf) - c->len,
				   "0x%" PRIx64 " %" PRIu64 " %s\n", base + off,
				   len, word);
	c->ranges++;
	c->marked += kind == KC_MARK_MARKED;
	c->data_race += kind == KC_MARK_DATA_RACE;
	return c->len >= KC_MARKS_CHUNK ? flush_lines(c) : 0;
}

static bool module_loaded(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), KC_SYS_MODULE "/%s/sections", name);
	return !access(path, F_OK);
}

static void print_result(const struct mark_ctx *c)
{
	struct json j;

	if (json_output) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "module", c->module);
		json_int(&j, "ranges", c->ranges);
		json_int(&j, "marked", c->marked);
		json_int(&j, "data_race", c->data_race);
		json_bool(&j, "written", !c->dry_run);
		json_obj_end(&j);
		json_line_end(&j);
		return;
	}
	if (c->dry_run)
		printf("# %s: %lu ranges (%lu marked, %lu data_race)\n",
		       c->module, c->ranges, c->marked, c->data_race);
	else
		printf("%s: %lu ranges written (%lu marked, %lu data_race)\n",
		       c->module, c->ranges, c->marked, c->data_race);
}

static int mark_module(struct kc_marking *m, struct mark_ctx *c,
		       const char *name)
{
	int ret;

	c->module = name;
	c->ranges = c->marked = c->data_race = 0;
	c->len = 0;
	ret = kc_marking_module_ranges(m, name, on_range, c);
	if (!ret)
		ret = flush_lines(c);
	if (ret == -ENOENT) {
		kc_error("mark: no %s.ko under the -M directories", name);
		return ret;
	}
	if (ret == -ENODATA) {
		kc_error("mark: %s.ko has no DWARF line info: build it with -g "
			 "(CONFIG_DEBUG_INFO, or ccflags-y += -g)", name);
		return ret;
	}
	if (ret) {
		kc_error("mark: %s: %s%s", name, c->dry_run ? "" :
			 KC_MARKS_FILE ": ", strerror(-ret));
		return ret;
	}
	print_result(c);
	return 0;
}

static int open_marks(struct mark_ctx *c)
{
	if (c->dry_run) {
		c->fd = -1;
		return 0;
	}
	c->fd = open(KC_MARKS_FILE, O_WRONLY);
	if (c->fd >= 0)
		return 0;
	kc_error("mark: %s: %s%s", KC_MARKS_FILE, strerror(errno),
		 errno == ENOENT ? " (is kcollider.ko loaded?)" : "");
	return -1;
}

/* Every module -M found that is loaded, or the ones named. */
static int mark_all(struct kc_marking *m, struct mark_ctx *c, int argc,
		    char **argv)
{
	const char *name;
	int i, bad = 0, done = 0;
	size_t k;

	if (argc) {
		for (i = 0; i < argc; i++) {
			if (!c->dry_run && !module_loaded(argv[i])) {
				kc_error("mark: module %s is not loaded", argv[i]);
				bad++;
				continue;
			}
			bad += !!mark_module(m, c, argv[i]);
		}
		return bad ? KC_EXIT_FAIL : KC_EXIT_OK;
	}
	for (k = 0; (name = kc_marking_module_name(m, k)); k++) {
		if (!c->dry_run && !module_loaded(name))
			continue;
		bad += !!mark_module(m, c, name);
		done++;
	}
	if (!done && !bad)
		kc_error("mark: none of the .ko files found is loaded");
	return bad || !done ? KC_EXIT_FAIL : KC_EXIT_OK;
}

int do_mark(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_COMMON_LONGOPTS,
		{ "modules", required_argument, NULL, 'M' },
		{ "source", required_argument, NULL, 'S' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct kc_marking *m = kc_marking_new();
	struct mark_ctx *c = calloc(1, sizeof(*c));
	int opt, ret, status = KC_EXIT_FAIL, ndirs = 0;

	if (!m || !c) {
		kc_error("mark: out of memory");
		goto out;
	}
	optind = 1;
	while ((opt = getopt_long(argc, argv, KC_COMMON_OPTS_SHORT "M:S:n",
				  opts, NULL)) != -1) {
		if (kc_common_option(opt))
			continue;
		switch (opt) {
		case 'M':
		case 'S':
			ret = opt == 'M' ? kc_marking_add_modules(m, optarg) :
			      kc_marking_add_source(m, optarg);
			if (ret) {
				kc_error("mark: -%c %s: %s", opt, optarg,
					 strerror(-ret));
				goto out;
			}
			ndirs += opt == 'M';
			break;
		case 'n':
			c->dry_run = true;
			break;
		case 'h':
			mark_usage(stdout);
			status = KC_EXIT_OK;
			goto out;
		default:
			goto usage;
		}
	}
	if (!ndirs) {
		kc_error("mark: no -M DIR: where are the .ko files?");
		goto usage;
	}
	if (open_marks(c))
		goto out;
	status = mark_all(m, c, argc - optind, argv + optind);
	if (c->fd >= 0)
		close(c->fd);
out:
	kc_marking_free(m);
	free(c);
	return status;
usage:
	mark_usage(stderr);
	kc_marking_free(m);
	free(c);
	return KC_EXIT_USAGE;
}
