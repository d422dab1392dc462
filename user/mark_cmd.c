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
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "kallsyms.h"
#include "main.h"
#include "marking.h"
#include "readfile.h"

#include <kcollider/marks.h>

#define KC_MARKS_FILE "/sys/kernel/kcollider/marks"
#define KC_TARGETS_FILE "/sys/kernel/kcollider/targets"
#define KC_SYS_MODULE "/sys/module"
#define KC_KERNEL_NOTES "/sys/kernel/notes"
#define KC_MAX_GLOBS 64
#define KC_MARKS_CHUNK 4000	/* whole lines per write: under a page */
#define KC_IMAGE_MARKS_HEADER "# kcollider image marks: build-id "
#define KC_IMAGE_MARKS_MAX (64 << 20)	/* KC_MARKS_MAX lines, and then some */

struct mark_ctx {
	const char *module;
	bool dry_run;
	bool vmlinux;		/* the ranges are the kernel image's */
	uint64_t kaslr;		/* live minus link-time address */
	int fd;			/* the marks file; -1 with --dry-run */
	char buf[KC_MARKS_CHUNK + 128];
	size_t len;
	unsigned long ranges, marked, data_race, exempt, analysed;
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
		"unloaded. With -V, the kernel image's functions are marked too\n"
		"(its ranges stay until \"clear\"); at least one of -M, -V and\n"
		"--load.\n"
		"\n"
		"The Makefiles of the -S trees say which of the image's code the\n"
		"kernel builds without KCSAN (KCSAN_SANITIZE := n): its functions\n"
		"are written as \"exempt\", which the module's \"exempt\" filter\n"
		"treats as KCSAN does (filter=exempt).\n"
		"\n"
		"Every other function whose source was read is written as\n"
		"\"analysed\": there an access no range marks is plain, and a\n"
		"harmful report's \"marking:\" line says each side's marking.\n"
		"\n"
		"OPTIONS:\n"
		"  -M, --modules DIR  .ko files with DWARF, searched below DIR\n"
		"                   (repeatable; at least one)\n"
		"  -S, --source DIR   a source tree for files DWARF names by a path\n"
		"                   that does not exist here (repeatable)\n"
		"  -V, --vmlinux ELF  the running kernel's image with DWARF (the\n"
		"                   -dbg package's): mark its functions too\n"
		"  -f, --functions GLOB[,GLOB]  which functions of the image\n"
		"                   (repeatable; default: the vmlinux functions the\n"
		"                   targets name: GLOB specs, \"vmlinux\" and \"all\")\n"
		"  -n, --dry-run    print the lines instead of writing them\n"
		"                   (section-relative for a module not loaded,\n"
		"                   link-time addresses for the image, after a\n"
		"                   header line naming it: what --load reads)\n"
		"  -L, --load FILE  write the image's ranges that \"-V ELF -n\"\n"
		"                   saved (on a host, where DWARF is quick to read)\n"
		"                   if the running kernel is that image\n"
		KC_COMMON_USAGE
		"\n"
		"JSON: one object per module (\"vmlinux\" for the image): module,\n"
		"ranges, marked, data_race, exempt, analysed (functions),\n"
		"written.\n"
		"\n"
		KC_EXIT_HELP, prog_name);
}

/*
 * The live address of @section of @module, from sysfs (root). One read()
 * at offset 0, not kc_read_file(): the kernel answers only that one
 * (module_sect_read() fails any other offset with EINVAL).
 */
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
	const char *word = kc_mark_kind_name(kind);
	uint64_t base;
	int ret;

	if (c->vmlinux) {
		c->len += snprintf(c->buf + c->len, sizeof(c->buf) - c->len,
				   "0x%" PRIx64 " %" PRIu64 " %s\n",
				   off + c->kaslr, len, word);
		goto counted;
	}
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
counted:
	c->ranges += kind != KC_MARK_ANALYSED;
	c->analysed += kind == KC_MARK_ANALYSED;
	c->marked += kind == KC_MARK_MARKED;
	c->data_race += kind == KC_MARK_DATA_RACE;
	c->exempt += kind == KC_MARK_EXEMPT;
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
		json_int(&j, "exempt", c->exempt);
		json_int(&j, "analysed", c->analysed);
		json_bool(&j, "written", !c->dry_run);
		json_obj_end(&j);
		json_line_end(&j);
		return;
	}
	if (c->dry_run)
		printf("# %s: %lu ranges (%lu marked, %lu data_race, %lu exempt), %lu analysed\n",
		       c->module, c->ranges, c->marked, c->data_race,
		       c->exempt, c->analysed);
	else
		printf("%s: %lu ranges written (%lu marked, %lu data_race, %lu exempt), %lu analysed\n",
		       c->module, c->ranges, c->marked, c->data_race,
		       c->exempt, c->analysed);
}

static int mark_module(struct kc_marking *m, struct mark_ctx *c,
		       const char *name)
{
	int ret;

	c->module = name;
	c->ranges = c->marked = c->data_race = c->exempt = c->analysed = 0;
	c->len = 0;
	ret = kc_marking_module_ranges(m, name, on_range, c);
	if (!ret)
		ret = flush_lines(c);
	if (ret == -ENOENT) {
		kc_error("mark: no %s.ko under the -M directories", name);
		return ret;
	}
	if (ret == -ENODATA) {
		kc_error("mark: %s.ko has no DWARF line info: build it with -g (CONFIG_DEBUG_INFO, or ccflags-y += -g)",
			 name);
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
		if (!name[0])	/* the image, -V: see mark_vmlinux() */
			continue;
		if (!c->dry_run && !module_loaded(name))
			continue;
		bad += !!mark_module(m, c, name);
		done++;
	}
	if (!done && !bad)
		kc_error("mark: none of the .ko files found is loaded");
	return bad || !done ? KC_EXIT_FAIL : KC_EXIT_OK;
}

/* ---- the kernel image ---- */

struct glob_list {
	char *globs[KC_MAX_GLOBS];
	int n;
	bool all;		/* every function */
};

static int add_glob(struct glob_list *g, const char *s, size_t len)
{
	if ((len == 7 && !strncmp(s, "vmlinux", 7)) ||
	    (len == 3 && !strncmp(s, "all", 3))) {
		g->all = true;
		return 0;
	}
	if (!len || g->n == KC_MAX_GLOBS)
		return -EINVAL;
	g->globs[g->n] = strndup(s, len);
	return g->globs[g->n] ? (g->n++, 0) : -ENOMEM;
}

/* -f: comma-separated globs ("vmlinux": all of it). */
static int add_globs(struct glob_list *g, const char *arg)
{
	const char *p = arg, *comma;
	int ret;

	do {
		comma = strchr(p, ',');
		ret = add_glob(g, p, comma ? (size_t)(comma - p) : strlen(p));
		p = comma + 1;
	} while (!ret && comma);
	return ret;
}

/*
 * The vmlinux part of what the module targets, from its targets file:
 * "all" and "vmlinux" take the whole image, a bare GLOB its functions;
 * "module:NAME", "MOD:GLOB" and exclusions name no more of it (marking
 * a function that is not sampled costs only a range).
 */
static int targets_globs(struct glob_list *g)
{
	char line[512], *sp;
	FILE *f = fopen(KC_TARGETS_FILE, "r");
	int ret = 0;

	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		sp = strpbrk(line, "\n ");
		if (sp)
			*sp = '\0';
		if (!line[0] || line[0] == '-' || strchr(line, ':'))
			continue;
		if (!strcmp(line, "all"))
			g->all = true;
		else
			ret = add_glob(g, line, strlen(line));
	}
	fclose(f);
	return ret;
}

static bool glob_wants(const char *func, void *data)
{
	const struct glob_list *g = data;
	int i;

	if (g->all)
		return true;
	for (i = 0; i < g->n; i++)
		if (!fnmatch(g->globs[i], func, 0))
			return true;
	return false;
}

/* The running kernel's GNU build ID, from its notes; its length or -errno. */
static int running_build_id(unsigned char *id, size_t size)
{
	size_t pos = 0, n;
	unsigned char *notes = (unsigned char *)kc_read_file(KC_KERNEL_NOTES,
							     1 << 20, &n);
	int ret = -ENODATA;

	if (!notes)
		return -errno;
	while (pos + 12 <= n) {
		uint32_t namesz, descsz, type;
		size_t name_at = pos + 12, desc_at;

		memcpy(&namesz, notes + pos, 4);
		memcpy(&descsz, notes + pos + 4, 4);
		memcpy(&type, notes + pos + 8, 4);
		desc_at = name_at + ((namesz + 3) & ~3u);
		if (desc_at + descsz > n)
			break;
		if (type == 3 && namesz == 4 && !memcmp(notes + name_at, "GNU", 4) &&
		    descsz <= size) {
			memcpy(id, notes + desc_at, descsz);
			ret = descsz;
			break;
		}
		pos = desc_at + ((descsz + 3) & ~3u);
	}
	free(notes);
	return ret;
}

/*
 * Only the running kernel's own image will do: its addresses are what
 * the module checks against, and a close relative would mark the wrong
 * instructions. Then its KASLR offset, from a symbol both know.
 */
static int running_kernel_is(const unsigned char *id, int len,
			     const char *what)
{
	unsigned char live[64];
	int n = running_build_id(live, sizeof(live));

	if (n < 0) {
		kc_error("mark: " KC_KERNEL_NOTES ": %s", strerror(-n));
		return -1;
	}
	if (n != len || memcmp(live, id, n)) {
		kc_error("mark: %s is not the running kernel's (build IDs differ)",
			 what);
		return -1;
	}
	return 0;
}

static int kaslr_from_stext(uint64_t stext_link, struct mark_ctx *c)
{
	uint64_t addr;
	int ret = kc_kallsyms_lookup(KC_KALLSYMS, "_stext", &addr);

	if (ret) {
		kc_error("mark: cannot read _stext's address: " KC_KALLSYMS ": %s%s",
			 strerror(-ret), ret == -EPERM ? " (addresses hidden: run as root)" : "");
		return -1;
	}
	c->kaslr = addr - stext_link;
	return 0;
}

static int vmlinux_matches(struct kc_marking *m, struct mark_ctx *c)
{
	const unsigned char *id;
	int len = kc_marking_vmlinux_build_id(m, &id);
	uint64_t link;

	if (len <= 0) {
		kc_error("mark: -V image: no build ID in it");
		return -1;
	}
	if (running_kernel_is(id, len, "-V image"))
		return -1;
	if (kc_marking_vmlinux_symbol(m, "_stext", &link)) {
		kc_error("mark: -V image: no _stext symbol in it");
		return -1;
	}
	return kaslr_from_stext(link, c);
}

/*
 * What "--load" checks an image's saved ranges against: the image's build
 * ID and _stext, on the line before them. Nothing without both.
 */
static void print_image_header(struct kc_marking *m)
{
	const unsigned char *id;
	int len = kc_marking_vmlinux_build_id(m, &id), i;
	uint64_t link;

	if (len <= 0 || kc_marking_vmlinux_symbol(m, "_stext", &link))
		return;
	printf(KC_IMAGE_MARKS_HEADER);
	for (i = 0; i < len; i++)
		printf("%02x", id[i]);
	printf(" _stext 0x%" PRIx64 "\n", link);
}

static int mark_vmlinux(struct kc_marking *m, struct mark_ctx *c,
			struct glob_list *g)
{
	int ret;

	if (!g->all && !g->n) {
		ret = c->dry_run ? -ENOENT : targets_globs(g);
		if (ret || (!g->all && !g->n)) {
			kc_error("mark: -V: no function of the image targeted; "
				 "name some with -f GLOB");
			return KC_EXIT_FAIL;
		}
	}
	c->module = "vmlinux";
	c->vmlinux = true;
	c->ranges = c->marked = c->data_race = c->exempt = c->analysed = 0;
	c->len = 0;
	if (c->dry_run)
		print_image_header(m);
	ret = kc_marking_vmlinux_ranges(m, glob_wants, g, on_range, c);
	if (!ret)
		ret = flush_lines(c);
	c->vmlinux = false;
	if (ret == -ENODATA)
		kc_error("mark: the -V image has no DWARF (the -dbg package's has)");
	else if (ret == -ESRCH)
		kc_error("mark: -V: no function of the image matches");
	else if (ret)
		kc_error("mark: vmlinux: %s%s", c->dry_run ? "" :
			 KC_MARKS_FILE ": ", strerror(-ret));
	else
		print_result(c);
	return ret ? KC_EXIT_FAIL : KC_EXIT_OK;
}

/* The header's build ID and _stext; false if @line is not that header. */
static bool parse_image_header(const char *line, size_t len,
			       unsigned char *id, int *id_len, uint64_t *link)
{
	size_t hl = strlen(KC_IMAGE_MARKS_HEADER), i;
	char tail[64];
	int n = 0;

	if (len <= hl || strncmp(line, KC_IMAGE_MARKS_HEADER, hl))
		return false;
	for (i = hl; i + 1 < len && line[i] != ' ' && n < 64; i += 2, n++) {
		unsigned int byte;

		if (sscanf(line + i, "%2x", &byte) != 1)
			return false;
		id[n] = byte;
	}
	if (!n || i >= len || line[i] != ' ' || len - i >= sizeof(tail))
		return false;
	memcpy(tail, line + i, len - i);
	tail[len - i] = '\0';
	*id_len = n;
	return sscanf(tail, " _stext 0x%" SCNx64 "%n", link, &n) == 1 &&
	       tail[n] == '\0';
}

/* Every range line of @buf moved by c->kaslr, into the marks file. */
static int load_ranges(struct mark_ctx *c, const char *buf, size_t len)
{
	size_t pos = 0, llen;
	const char *line;
	int empty;

	while (kc_marks_next_line(buf, len, &pos, &line, &llen, &empty)) {
		struct kc_marks_range r;
		int ret;

		if (!llen || line[0] == '#')
			continue;
		kc_marks_parse_line(line, llen, &r);
		c->len += snprintf(c->buf + c->len, sizeof(c->buf) - c->len,
				   "0x%" PRIx64 " %u %s\n", r.start + c->kaslr,
				   r.len, kc_marks_kind_word(r.kind));
		c->ranges += r.kind != KC_MARKS_ANALYSED;
		c->analysed += r.kind == KC_MARKS_ANALYSED;
		c->marked += r.kind == KC_MARKS_MARKED;
		c->data_race += r.kind == KC_MARKS_DATA_RACE;
		c->exempt += r.kind == KC_MARKS_EXEMPT;
		if (c->len >= KC_MARKS_CHUNK) {
			ret = flush_lines(c);
			if (ret)
				return ret;
		}
	}
	return flush_lines(c);
}

/*
 * The whole file is checked before a line is written: a bad one changes
 * nothing. The header, then range lines at link-time addresses.
 */
static int check_image_marks(const char *path, const char *buf, size_t len,
			     unsigned char *id, int *id_len, uint64_t *link)
{
	size_t pos = 0, llen;
	unsigned int lineno = 0;
	bool header = false;
	const char *line;
	int empty;

	while (kc_marks_next_line(buf, len, &pos, &line, &llen, &empty)) {
		struct kc_marks_range r;

		lineno++;
		if (!header) {
			header = parse_image_header(line, llen, id, id_len,
						    link);
			if (!header) {
				kc_error("mark: %s:1: not an image's marks (make them with: kcollider mark -V IMAGE -f all -n > %s)",
					 path, path);
				return -1;
			}
			continue;
		}
		if (!llen || line[0] == '#')
			continue;
		if (kc_marks_parse_line(line, llen, &r)) {
			kc_error("mark: %s:%u: not a range (0xADDR LEN marked|data_race|exempt|analysed): %.*s",
				 path, lineno, (int)(llen > 80 ? 80 : llen),
				 line);
			return -1;
		}
	}
	if (!header)
		kc_error("mark: %s: empty", path);
	return header ? 0 : -1;
}

/*
 * --load FILE: an image's ranges computed where DWARF is quick to read
 * ("mark -V IMAGE -n" on the host that has the -dbg package; inside a
 * TCG guest it takes minutes), for the running kernel if it is that
 * image, moved by its KASLR offset.
 */
static int mark_load(struct mark_ctx *c, const char *path)
{
	unsigned char id[64];
	int id_len = 0, status = KC_EXIT_FAIL, ret;
	uint64_t link = 0;
	size_t len;
	char *buf = kc_read_file(path, KC_IMAGE_MARKS_MAX, &len);

	c->fd = -1;
	if (!buf) {
		kc_error("mark: --load %s: %s", path, strerror(errno));
		return KC_EXIT_FAIL;
	}
	if (check_image_marks(path, buf, len, id, &id_len, &link) ||
	    running_kernel_is(id, id_len, path) || kaslr_from_stext(link, c) ||
	    open_marks(c))
		goto out;
	c->module = "vmlinux";
	c->ranges = c->marked = c->data_race = c->exempt = c->analysed = 0;
	c->len = 0;
	ret = load_ranges(c, buf, len);
	if (ret) {
		kc_error("mark: --load %s: " KC_MARKS_FILE ": %s", path,
			 strerror(-ret));
		goto out;
	}
	print_result(c);
	status = KC_EXIT_OK;
out:
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(buf);
	return status;
}

int do_mark(int argc, char **argv)
{
	static const struct option opts[] = {
		KC_OPT_JSON,
		KC_OPT_PRETTY,
		KC_OPT_HELP,
		{ "modules", required_argument, NULL, 'M' },
		{ "source", required_argument, NULL, 'S' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "vmlinux", required_argument, NULL, 'V' },
		{ "functions", required_argument, NULL, 'f' },
		{ "load", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct kc_marking *m = kc_marking_new();
	struct mark_ctx *c = calloc(1, sizeof(*c));
	struct glob_list globs = { .n = 0 };
	int opt, ret, status = KC_EXIT_FAIL, ndirs = 0, i;
	const char *load = NULL;
	bool image = false;

	if (!m || !c) {
		kc_error("mark: out of memory");
		goto out;
	}
	optind = 1;
	while ((opt = getopt_long(argc, argv, KC_COMMON_OPTS_SHORT "M:S:nV:f:L:",
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
		case 'V':
			ret = image ? -EEXIST : kc_marking_set_vmlinux(m, optarg);
			if (ret) {
				kc_error("mark: -V %s: %s", optarg, ret == -EEXIST ?
					 "one image only" : strerror(-ret));
				goto usage_or_fail;
			}
			image = true;
			break;
		case 'f':
			if (add_globs(&globs, optarg)) {
				kc_error("mark: -f %s: empty, or over %d globs",
					 optarg, KC_MAX_GLOBS);
				goto usage;
			}
			break;
		case 'L':
			load = optarg;
			break;
		case 'h':
			mark_usage(stdout);
			status = KC_EXIT_OK;
			goto out;
		default:
			goto usage;
		}
	}
	if (load && (ndirs || image || globs.n || globs.all || optind < argc)) {
		kc_error("mark: --load FILE stands alone (no -M, -V, -f or MODULE)");
		goto usage;
	}
	if (load) {
		status = mark_load(c, load);
		goto out;
	}
	if (!ndirs && !image) {
		kc_error("mark: no -M DIR, no -V ELF and no --load FILE: what to mark?");
		goto usage;
	}
	if ((globs.n || globs.all) && !image) {
		kc_error("mark: -f names functions of the image: give -V ELF");
		goto usage;
	}
	if (!ndirs && optind < argc) {
		kc_error("mark: modules named without -M DIR");
		goto usage;
	}
	/* a wrong image is refused before anything is written */
	if (image && !c->dry_run && vmlinux_matches(m, c))
		goto out;
	if (open_marks(c))
		goto out;
	status = KC_EXIT_OK;
	if (ndirs)
		status = mark_all(m, c, argc - optind, argv + optind);
	if (image && mark_vmlinux(m, c, &globs) != KC_EXIT_OK)
		status = KC_EXIT_FAIL;
	if (c->fd >= 0)
		close(c->fd);
out:
	for (i = 0; i < globs.n; i++)
		free(globs.globs[i]);
	kc_marking_free(m);
	free(c);
	return status;
usage_or_fail:
	if (ret != -EEXIST)
		goto out;
usage:
	mark_usage(stderr);
	status = KC_EXIT_USAGE;
	goto out;
}
