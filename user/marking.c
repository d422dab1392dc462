// SPDX-License-Identifier: GPL-2.0
/*
 * Marking from the source. A debug register sees a mov; whether the C was
 * READ_ONCE(x) or x is only in the source. DWARF maps the access
 * instruction to its innermost source line (the line of an inlined helper
 * such as arch_atomic_read() when there is one, else the line that
 * expanded the macro), and that line names the marker.
 *
 * Object files come from -M directories (.ko, relocated by libdwfl), the
 * debug directories of the running kernel's release and -V (a vmlinux with
 * DWARF); sources from the paths DWARF records, else under -S roots.
 */
#include <dirent.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <kcollider/marks.h>

#include "exempt.h"
#include "markers.h"
#include "marking.h"
#include "readfile.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KC_MARK_MAX_DEPTH 6	/* directories below an -M root */
#define KC_SRC_CACHE 16
#define KC_MARK_CACHE 1024
/* A call left open: the lines read on for its end, and their room. */
#define KC_STATEMENT_LINES 8
#define KC_STATEMENT_MAX 4096

struct dwarf_file {
	char *name;		/* module name, '-' read as '_'; "" for vmlinux */
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	bool opened;
};

struct src_file {
	char *path;		/* as DWARF names it */
	char *text;		/* NULL: not found */
	char **lines;
	int nlines;
	int *defines;		/* lines (0-based) of "#define NAME(" */
	int ndefines;
};

struct mark_memo {
	char key[KC_SYM_LEN + KC_MOD_LEN + 48];
	struct kc_mark mark;
};

struct kc_marking {
	struct dwarf_file *files;
	size_t nfiles, cap;
	bool defaults_added;
	char **roots;
	size_t nroots;
	/* the -S trees' KCSAN_SANITIZE rules, read when ranges are made */
	struct kc_exempt *exempt;
	struct src_file src[KC_SRC_CACHE];
	unsigned int src_next;
	struct mark_memo *memo;
	size_t nmemo;
};

/* ---- object files ---- */

static char *module_key(const char *name)
{
	char *k = strdup(name), *p;

	for (p = k; p && *p; p++)
		if (*p == '-')
			*p = '_';
	return k;
}

static int add_file(struct kc_marking *m, const char *name, const char *path)
{
	struct dwarf_file *f;

	if (m->nfiles == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 32;

		f = realloc(m->files, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		m->files = f;
		m->cap = cap;
	}
	f = &m->files[m->nfiles];
	memset(f, 0, sizeof(*f));
	f->name = module_key(name);
	f->path = strdup(path);
	if (!f->name || !f->path) {
		free(f->name);
		free(f->path);
		return -ENOMEM;
	}
	m->nfiles++;
	return 0;
}

static int scan_dir(struct kc_marking *m, const char *dir, int depth)
{
	struct dirent *d;
	DIR *dh = opendir(dir);
	int ret = 0;

	if (!dh)
		return -errno;
	while (!ret && (d = readdir(dh))) {
		char path[4096], name[256];
		struct stat st;
		size_t n = strlen(d->d_name);

		if (d->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >=
		    (int)sizeof(path) || stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < KC_MARK_MAX_DEPTH)
				scan_dir(m, path, depth + 1);
			continue;
		}
		if (n < 4 || strcmp(d->d_name + n - 3, ".ko") || n - 3 >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 3), d->d_name);
		ret = add_file(m, name, path);
	}
	closedir(dh);
	return ret;
}

int kc_marking_add_modules(struct kc_marking *m, const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return scan_dir(m, dir, 0);
}

int kc_marking_set_vmlinux(struct kc_marking *m, const char *path)
{
	if (access(path, R_OK))
		return -errno;
	return add_file(m, "", path);
}

int kc_marking_add_source(struct kc_marking *m, const char *dir)
{
	char **r;
	struct stat st;

	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	r = realloc(m->roots, (m->nroots + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	m->roots = r;
	m->roots[m->nroots] = strdup(dir);
	return m->roots[m->nroots] ? (m->nroots++, 0) : -ENOMEM;
}

/* Once: the rules of every -S tree (a walk of its directories). */
static int read_exempt_rules(struct kc_marking *m)
{
	size_t i;
	int ret = 0;

	if (m->exempt)
		return 0;
	m->exempt = kc_exempt_new();
	if (!m->exempt)
		return -ENOMEM;
	for (i = 0; i < m->nroots && !ret; i++)
		ret = kc_exempt_add_tree(m->exempt, m->roots[i]);
	return ret;
}

/* Searched after what the command line gave: the release's debug files. */
static void add_defaults(struct kc_marking *m)
{
	static const char * const vmlinux[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/boot/vmlinux-%s",
	};
	struct utsname u;
	char path[512];
	size_t i;

	m->defaults_added = true;
	if (uname(&u))
		return;
	for (i = 0; i < ARRAY_SIZE(vmlinux); i++) {
		snprintf(path, sizeof(path), vmlinux[i], u.release);
		if (!access(path, R_OK)) {
			add_file(m, "", path);
			break;
		}
	}
	snprintf(path, sizeof(path), "/usr/lib/debug/lib/modules/%s", u.release);
	scan_dir(m, path, 0);
}

static Dwfl_Module *open_file(struct dwarf_file *f)
{
	static const Dwfl_Callbacks cb = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};

	if (f->opened)
		return f->mod;
	f->opened = true;
	f->dwfl = dwfl_begin(&cb);
	if (!f->dwfl)
		return NULL;
	f->mod = dwfl_report_offline(f->dwfl, f->name, f->path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	return f->mod;
}

/*
 * Calls @fn for each function symbol of @mod (name, size, address) until
 * it returns nonzero; returns that, or 0.
 */
typedef int (*func_cb)(const char *name, uint64_t size, GElf_Addr addr,
		       void *data);

static int each_func(Dwfl_Module *mod, func_cb fn, void *data)
{
	int i, ret = 0, n = dwfl_module_getsymtab(mod);

	for (i = 1; i < n && !ret; i++) {
		const char *name;
		GElf_Sym sym;
		GElf_Addr addr;

		name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL,
					       NULL);
		if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			ret = fn(name, sym.st_size, addr, data);
	}
	return ret;
}

struct func_query {
	const char *name;
	uint64_t size;
	bool found;
	GElf_Addr addr;
};

static int func_match(const char *name, uint64_t size, GElf_Addr addr,
		      void *data)
{
	struct func_query *q = data;

	if (strcmp(name, q->name))
		return 0;
	if (!q->found || size == q->size) {
		q->addr = addr;
		q->found = true;
	}
	return size == q->size;
}

/* The address of @func in @mod (of size @size when it has duplicates). */
static bool find_func(Dwfl_Module *mod, const char *func, uint64_t size,
		      GElf_Addr *out)
{
	struct func_query q = { .name = func, .size = size };

	each_func(mod, func_match, &q);
	*out = q.addr;
	return q.found;
}

/* ---- sources ---- */

static bool split_lines(struct src_file *s)
{
	char *p;
	int n = 1;

	for (p = s->text; *p; p++)
		n += *p == '\n';
	s->lines = calloc(n + 1, sizeof(*s->lines));
	if (!s->lines)
		return false;
	s->nlines = 0;
	for (p = s->text; p; ) {
		char *nl = strchr(p, '\n');

		s->lines[s->nlines++] = p;
		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : NULL;
	}
	return true;
}

/* A source file; bigger than any real one means it is not one. */
static char *read_text(const char *path)
{
	return kc_read_file(path, 64 << 20, NULL);
}

/* @path, else its tail under a -S root (DWARF names the build machine's). */
static char *find_source(const struct kc_marking *m, const char *path)
{
	const char *tail;
	size_t i;
	char *text = read_text(path);

	if (text)
		return text;
	for (i = 0; i < m->nroots; i++) {
		for (tail = path; tail; tail = strchr(tail + 1, '/')) {
			char cand[4096];

			snprintf(cand, sizeof(cand), "%s/%s", m->roots[i],
				 tail + (*tail == '/'));
			text = read_text(cand);
			if (text)
				return text;
		}
	}
	return NULL;
}

/* Where @s defines function-like macros: looked up by name later. */
static void index_defines(struct src_file *s)
{
	size_t len;
	int i;

	s->defines = calloc(s->nlines + 1, sizeof(*s->defines));
	if (!s->defines)
		return;
	for (i = 0; i < s->nlines; i++)
		if (kc_macro_defined(s->lines[i], &len))
			s->defines[s->ndefines++] = i;
}

static void src_file_free(struct src_file *s)
{
	free(s->path);
	free(s->text);
	free(s->lines);
	free(s->defines);
	memset(s, 0, sizeof(*s));
}

/* @path's source, read once and kept among the last few; NULL: none. */
static struct src_file *source_file(struct kc_marking *m, const char *path)
{
	struct src_file *s = NULL;
	unsigned int i;

	for (i = 0; i < KC_SRC_CACHE; i++)
		if (m->src[i].path && !strcmp(m->src[i].path, path))
			s = &m->src[i];
	if (!s) {
		s = &m->src[m->src_next++ % KC_SRC_CACHE];
		src_file_free(s);
		s->path = strdup(path);
		s->text = find_source(m, path);
		if (s->text && !split_lines(s)) {
			free(s->text);
			s->text = NULL;
		}
		if (s->text)
			index_defines(s);
	}
	return s->text ? s : NULL;
}

static const char *source_line(struct kc_marking *m, const char *path, int line)
{
	struct src_file *s = source_file(m, path);

	if (!s || line < 1 || line > s->nlines)
		return NULL;
	return s->lines[line - 1];
}

/* ---- one access ---- */

/* The innermost inlined helper at @addr, if it is a marked one. */
static const char *inlined_marker(Dwfl_Module *mod, GElf_Addr addr,
				  enum kc_mark_kind *kind)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias), *scopes = NULL;
	const char *hit = NULL;
	int i, n;

	if (!cu)
		return NULL;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (i = 0; i < n && !hit; i++) {
		Dwarf_Attribute attr;
		Dwarf_Die origin;
		const char *name;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		if (!dwarf_formref_die(dwarf_attr(&scopes[i], DW_AT_abstract_origin,
						  &attr), &origin))
			continue;
		name = dwarf_diename(&origin);
		if (name)
			hit = kc_marker_of_ident(name, kind);
		break;	/* the innermost only: an outer one is a caller */
	}
	free(scopes);
	return hit;
}

static bool path_ends_with(const char *file, const char *name)
{
	size_t n = strlen(file), k = strlen(name);

	return n >= k && !strcmp(file + n - k, name) &&
	       (n == k || file[n - k - 1] == '/');
}

/*
 * Headers whose every access is marked, whatever its lines say. The code
 * of seqlock.h touches only the sequence count, and KCSAN takes those
 * accesses as atomic: its readers and writers open atomic regions
 * (kcsan_atomic_next(), kcsan_nestable_atomic_begin()). Its lines cannot
 * say so themselves: the helpers are made by macros (SEQCOUNT_LOCKNAME),
 * whose rows are the line that invokes the macro, no READ_ONCE() in it.
 * x86's local.h is local_t's operations, asm statements whose lines name
 * no marker, and which KCSAN never sees.
 */
static const char *marked_header(const char *file)
{
	if (path_ends_with(file, "include/linux/seqlock.h"))
		return "seqcount";
	if (path_ends_with(file, "arch/x86/include/asm/local.h"))
		return "local_t";
	return NULL;
}

/*
 * The statement of @line when a call it opens runs on over the next lines
 * (the rows of a macro's expansion name the line that invokes it, and the
 * marker may be in an argument below: "wait_event(q,\n READ_ONCE(x))"),
 * joined into @buf; else @text itself.
 */
static const char *statement_text(struct kc_marking *m, const char *file,
				  int line, const char *text, char *buf,
				  size_t len)
{
	int depth = kc_open_calls(text), i;
	const char *next;
	size_t used;

	if (depth <= 0)
		return text;
	used = snprintf(buf, len, "%s", text);
	for (i = 1; i <= KC_STATEMENT_LINES && depth > 0 && used < len; i++) {
		next = source_line(m, file, line + i);
		if (!next)
			break;
		used += snprintf(buf + used, len - used, " %s", next);
		depth += kc_open_calls(next);
	}
	return buf;
}

/*
 * A marker in the body of the function-like macro called at @col, when
 * @file itself defines it: every row of a macro's expansion names the line
 * that invokes it, whichever line of its body the access is on (lockref.c
 * reads with READ_ONCE() inside its CMPXCHG_LOOP()). A macro defined twice
 * (under #if) counts if either body marks.
 */
static const char *macro_marker(struct kc_marking *m, const char *file,
				const char *line, int col,
				enum kc_mark_kind *kind)
{
	struct src_file *s = col > 0 ? source_file(m, file) : NULL;
	char name[64], body[KC_STATEMENT_MAX];
	const char *hit, *def;
	size_t len;
	int i;

	if (!s || !kc_called_at(line, col, name, sizeof(name)))
		return NULL;
	for (i = 0; i < s->ndefines; i++) {
		def = kc_macro_defined(s->lines[s->defines[i]], &len);
		if (!def || len != strlen(name) || strncmp(def, name, len))
			continue;
		kc_macro_body(s->lines, s->nlines, s->defines[i], body,
			      sizeof(body));
		hit = kc_marker_in_line(body, 0, kind);
		if (hit)
			return hit;
	}
	return NULL;
}

/*
 * Checks one source line of the access; true when it has a marker whose
 * call spans column @col (any, 0) (the line is then @out's). @have_text:
 * the line could be read.
 */
static bool mark_line(struct kc_marking *m, const char *file, int line,
		      int col, struct kc_mark *out, bool *have_text)
{
	const char *text, *base, *hit;
	enum kc_mark_kind kind;
	char joined[KC_STATEMENT_MAX];

	hit = marked_header(file);
	if (hit) {
		*have_text = true;
		kind = KC_MARK_MARKED;
	} else {
		text = source_line(m, file, line);
		if (!text)
			return false;
		*have_text = true;
		text = statement_text(m, file, line, text, joined,
				      sizeof(joined));
		hit = kc_marker_in_line(text, col, &kind);
		if (!hit)
			hit = macro_marker(m, file, text, col, &kind);
		if (!hit)
			return false;
	}
	base = strrchr(file, '/');
	snprintf(out->where, sizeof(out->where), "%s:%d", base ? base + 1 : file,
		 line);
	snprintf(out->marker, sizeof(out->marker), "%s", hit);
	out->kind = kind;
	return true;
}

static bool same_line(Dwarf_Line *a, Dwarf_Line *b)
{
	int la, lb;

	return !dwarf_lineno(a, &la) && !dwarf_lineno(b, &lb) && la == lb &&
	       dwarf_linesrc(a, NULL, NULL) == dwarf_linesrc(b, NULL, NULL);
}

/*
 * Row @l of an address follows *@last: a statement row, or a later row of
 * the same line. The line stays the statement's, the column is the last
 * row's (0 when DWARF has none: the whole line).
 */
static void line_col(Dwarf_Line *l, Dwarf_Line **last, int *col)
{
	bool stmt;

	if (!*last || (!dwarf_linebeginstatement(l, &stmt) && stmt))
		*last = l;
	if (dwarf_linecol(l, col))
		*col = 0;
}

/*
 * GCC gives one instruction several line rows: the call site of each
 * inlined helper, then the helper's lines (atomic_read() in
 * atomic-instrumented.h, then arch_atomic_read() in atomic.h), or a
 * folded statement's lines (data_race()'s expression, then its closing
 * brace, not a statement). The last statement row is the innermost code
 * that made the access: an outer line's READ_ONCE() does not mark an
 * inlined helper's plain load. Within that line, the statement row's
 * column is the statement's start; the last row of the same line after
 * it has the access's own column (GCC: READ_ONCE's for its load, the
 * operator's for "+=").
 */
static bool mark_rows(struct kc_marking *m, Dwfl_Module *mod, GElf_Addr addr,
		      struct kc_mark *out, bool *have_text)
{
	int col = 0;
	Dwarf_Addr bias, row = 0, a;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Line *last = NULL;
	Dwarf_Lines *lines;
	const char *file;
	size_t i, n;
	bool stmt;
	int line;

	if (!cu || dwarf_getsrclines(cu, &lines, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) &&
		    a <= addr - bias && a > row)
			row = a;
	}
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (dwarf_lineaddr(l, &a) || a != row)
			continue;
		if (!last || (!dwarf_linebeginstatement(l, &stmt) && stmt) ||
		    same_line(l, last))
			line_col(l, &last, &col);
	}
	if (!last || dwarf_lineno(last, &line))
		return false;
	file = dwarf_linesrc(last, NULL, NULL);
	return file && mark_line(m, file, line, col, out, have_text);
}

static void mark_addr(struct kc_marking *m, Dwfl_Module *mod, GElf_Addr addr,
		      struct kc_mark *out)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	const char *file, *base, *helper;
	enum kc_mark_kind kind;
	bool have_text = false;
	int line = 0;

	file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
	if (!file) {
		snprintf(out->why, sizeof(out->why), "no DWARF line");
		return;
	}
	if (mark_rows(m, mod, addr, out, &have_text))
		return;
	base = strrchr(file, '/');
	snprintf(out->where, sizeof(out->where), "%s:%d", base ? base + 1 : file,
		 line);
	helper = inlined_marker(mod, addr, &kind);
	if (helper) {
		out->kind = kind;
		snprintf(out->marker, sizeof(out->marker), "%s", helper);
	} else if (!have_text) {
		snprintf(out->why, sizeof(out->why),
			 "source not found: %.120s (-S DIR)", file);
	} else {
		out->kind = KC_MARK_PLAIN;
		snprintf(out->marker, sizeof(out->marker), "plain");
	}
}

static struct dwarf_file *file_for(struct kc_marking *m, const char *mod_name)
{
	char *key = module_key(mod_name);
	size_t i;

	if (!key)
		return NULL;
	for (i = 0; i < m->nfiles; i++) {
		if (!strcmp(m->files[i].name, key) && open_file(&m->files[i]) &&
		    dwfl_module_getsymtab(m->files[i].mod) > 0) {
			free(key);
			return &m->files[i];
		}
	}
	free(key);
	return NULL;
}

/*
 * Whether the image's code at @addr is in a unit the -S trees build
 * without KCSAN: then it is exempt whole, whatever its line says.
 */
static bool exempt_addr(struct kc_marking *m, Dwfl_Module *mod,
			GElf_Addr addr, struct kc_mark *out)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	const char *name;

	if (read_exempt_rules(m) || !kc_exempt_rules(m->exempt))
		return false;
	cu = dwfl_module_addrdie(mod, addr, &bias);
	name = cu ? dwarf_diename(cu) : NULL;
	if (!kc_exempt_cu(m->exempt, name))
		return false;
	out->kind = KC_MARK_EXEMPT;
	snprintf(out->marker, sizeof(out->marker), "exempt");
	snprintf(out->where, sizeof(out->where), "%s", name);
	return true;
}

/*
 * The DWARF file and address of frame @f (one byte into the access when
 * @after, enough for its line); NULL with the reason in @why.
 */
static struct dwarf_file *locate(struct kc_marking *m, const struct kc_frame *f,
				 bool after, GElf_Addr *addr, char *why,
				 size_t len)
{
	struct dwarf_file *file;

	if (!f->has_off || (after && !f->off)) {
		snprintf(why, len, "no offset in the frame");
		return NULL;
	}
	file = file_for(m, f->mod);
	if (!file && !m->defaults_added) {
		add_defaults(m);
		file = file_for(m, f->mod);
	}
	if (!file) {
		if (f->mod[0])
			snprintf(why, len, "no %s.ko with symbols (-M DIR)",
				 f->mod);
		else
			snprintf(why, len, "no vmlinux with DWARF (-V ELF)");
		return NULL;
	}
	if (!find_func(file->mod, f->func, f->size, addr)) {
		snprintf(why, len, "%.60s not in %.90s", f->func, file->path);
		return NULL;
	}
	*addr += f->off - (after ? 1 : 0);
	return file;
}

static void mark_frame(struct kc_marking *m, const struct kc_frame *f,
		       bool after, struct kc_mark *out)
{
	struct dwarf_file *file;
	GElf_Addr addr;

	memset(out, 0, sizeof(*out));
	out->kind = KC_MARK_UNKNOWN;
	file = locate(m, f, after, &addr, out->why, sizeof(out->why));
	if (!file)
		return;
	if (!f->mod[0] && exempt_addr(m, file->mod, addr, out))
		return;
	mark_addr(m, file->mod, addr, out);
}

bool kc_marking_pointee(struct kc_marking *m, const struct kc_frame *f,
			struct kc_pointee *out)
{
	struct dwarf_file *file;
	GElf_Addr addr;
	char why[160];

	file = locate(m, f, false, &addr, why, sizeof(why));
	return file && kc_pointee_at(file->mod, addr, out);
}

void kc_marking_of(struct kc_marking *m, const struct kc_frame *f,
		   bool after, struct kc_mark *out)
{
	char key[sizeof(m->memo[0].key)];
	size_t i;

	snprintf(key, sizeof(key), "%s+%llx/%llx[%s]%d", f->func,
		 (unsigned long long)f->off, (unsigned long long)f->size,
		 f->mod, after);
	for (i = 0; i < m->nmemo; i++) {
		if (!strcmp(m->memo[i].key, key)) {
			*out = m->memo[i].mark;
			return;
		}
	}
	mark_frame(m, f, after, out);
	if (m->nmemo < KC_MARK_CACHE) {
		snprintf(m->memo[m->nmemo].key, sizeof(key), "%s", key);
		m->memo[m->nmemo++].mark = *out;
	}
}

bool kc_marking_silent(const struct kc_mark *a, const struct kc_mark *b)
{
	if (a->kind == KC_MARK_UNKNOWN || b->kind == KC_MARK_UNKNOWN)
		return false;
	if (a->kind == KC_MARK_DATA_RACE || b->kind == KC_MARK_DATA_RACE)
		return true;
	return a->kind == KC_MARK_MARKED && b->kind == KC_MARK_MARKED;
}

/* ---- every marked range of a module ---- */

struct func_span {
	GElf_Addr start, end;
};

struct range_emit {
	Dwfl_Module *mod;
	kc_mark_range_cb cb;
	void *data;
	bool absolute;		/* vmlinux: link addresses, no sections */
	const struct func_span *spans;	/* NULL: every function */
	size_t nspans;
	const GElf_Addr *syms;	/* every symbol's address, sorted */
	size_t nsyms;
	GElf_Addr start, end;	/* pending, in dwfl's layout */
	GElf_Addr func_end;	/* of the function the pending range is in */
	enum kc_mark_kind kind;
};

static int range_flush(struct range_emit *e)
{
	Dwarf_Addr rel = e->start;
	uint64_t len = e->end - e->start;
	const char *sec;
	int idx;

	if (e->end <= e->start)
		return 0;
	e->end = e->start;	/* nothing pending */
	if (e->absolute)
		return e->cb("", rel, len, e->kind, e->data);
	idx = dwfl_module_relocate_address(e->mod, &rel);
	sec = idx < 0 ? NULL : dwfl_module_relocation_info(e->mod, idx, NULL);
	return sec ? e->cb(sec, rel, len, e->kind, e->data) : 0;
}

/*
 * A row's range runs to the next row, which may be past the end of its
 * function (padding, the next function): ranges stop at the function's
 * end, as the module checks, and never merge across one.
 */
static int range_add(struct range_emit *e, GElf_Addr start, GElf_Addr end,
		     enum kc_mark_kind kind)
{
	GElf_Off off;
	GElf_Sym sym;
	GElf_Addr func_end;
	int ret = 0;

	if (!dwfl_module_addrinfo(e->mod, start, &off, &sym, NULL, NULL, NULL) ||
	    !sym.st_size)
		return 0;
	func_end = start - off + sym.st_size;
	if (start >= func_end)
		return 0;
	if (end > func_end)
		end = func_end;
	if (e->end > e->start &&
	    (start != e->end || kind != e->kind || func_end != e->func_end))
		ret = range_flush(e);
	if (ret)
		return ret;
	if (e->end <= e->start) {
		e->start = start;
		e->kind = kind;
		e->func_end = func_end;
	}
	e->end = end;
	return 0;
}

/* The marking of line row @l (KC_MARK_PLAIN when the source is missing). */
static enum kc_mark_kind row_kind(struct kc_marking *m, Dwarf_Line *l,
				  int col)
{
	struct kc_mark mk = { .kind = KC_MARK_PLAIN };
	const char *file = dwarf_linesrc(l, NULL, NULL);
	bool have_text = false;
	int line;

	if (!file || dwarf_lineno(l, &line) ||
	    !mark_line(m, file, line, col, &mk, &have_text))
		return KC_MARK_PLAIN;
	return mk.kind;
}

/*
 * The rows of one address: the last statement row is the access's line,
 * *@col its column (see mark_rows()); *@next is the index of the next
 * address's first row.
 */
static Dwarf_Line *address_rows(Dwarf_Lines *lines, size_t n, size_t i,
				size_t *next, int *col)
{
	Dwarf_Line *last = NULL;
	Dwarf_Addr a, ka;
	bool flag;
	size_t j;

	dwarf_lineaddr(dwarf_onesrcline(lines, i), &a);
	for (j = i; j < n; j++) {
		Dwarf_Line *k = dwarf_onesrcline(lines, j);

		if (dwarf_lineaddr(k, &ka) || ka != a ||
		    (!dwarf_lineendsequence(k, &flag) && flag))
			break;
		if (!last || (!dwarf_linebeginstatement(k, &flag) && flag) ||
		    same_line(k, last))
			line_col(k, &last, col);
	}
	*next = j;
	return last;
}

/* Is @a in one of the chosen functions (sorted spans)? */
static bool in_spans(const struct range_emit *e, GElf_Addr a)
{
	size_t lo = 0, hi = e->nspans;

	if (!e->spans)
		return true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < e->spans[mid].start)
			hi = mid;
		else if (a >= e->spans[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static int cu_ranges(struct kc_marking *m, struct range_emit *e,
		     Dwarf_Die *cu, Dwarf_Addr bias)
{
	Dwarf_Lines *lines;
	size_t n, i, next;
	int ret = 0;

	if (dwarf_getsrclines(cu, &lines, &n))
		return 0;
	for (i = 0; i < n && !ret; i = next) {
		int col = 0;
		Dwarf_Line *row = address_rows(lines, n, i, &next, &col);
		Dwarf_Addr a, b;
		enum kc_mark_kind kind;

		if (!row) {	/* an end-of-sequence row */
			next = i + 1;
			continue;
		}
		if (next >= n || dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) ||
		    dwarf_lineaddr(dwarf_onesrcline(lines, next), &b) || b <= a ||
		    !in_spans(e, a + bias))
			continue;
		kind = row_kind(m, row, col);
		if (kind == KC_MARK_MARKED || kind == KC_MARK_DATA_RACE)
			ret = range_add(e, a + bias, b + bias, kind);
	}
	return ret ? ret : range_flush(e);
}

static int module_analysed(struct kc_marking *m, struct range_emit *e);

int kc_marking_module_ranges(struct kc_marking *m, const char *name,
			     kc_mark_range_cb cb, void *data)
{
	struct dwarf_file *f = file_for(m, name);
	struct range_emit e = { .cb = cb, .data = data };
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t ncu = 0;
	int ret = 0;

	if (!f)
		return -ENOENT;
	e.mod = f->mod;
	while (!ret && (cu = dwfl_module_nextcu(f->mod, cu, &bias))) {
		ret = cu_ranges(m, &e, cu, bias);
		ncu++;
	}
	if (ret || !ncu)
		return ret ? ret : -ENODATA;
	return module_analysed(m, &e);
}

static int addr_cmp(const void *a, const void *b)
{
	const GElf_Addr *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Every symbol's address in @mod, sorted: where kallsyms starts one. */
static int symbol_addrs(Dwfl_Module *mod, GElf_Addr **out, size_t *nout)
{
	int i, n = dwfl_module_getsymtab(mod);
	GElf_Addr *v;
	size_t len = 0;

	*out = NULL;
	*nout = 0;
	if (n <= 1)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;

		if (dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL,
					    NULL))
			v[len++] = addr;
	}
	qsort(v, len, sizeof(*v), addr_cmp);
	*out = v;
	*nout = len;
	return 0;
}

static int span_cmp(const void *a, const void *b)
{
	const struct func_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The functions of @mod that @want takes, sorted; -errno. */
struct span_list {
	kc_mark_func_cb want;
	void *data;
	struct func_span *v;
	size_t len, cap;
};

static int span_add(const char *name, uint64_t size, GElf_Addr addr,
		    void *data)
{
	struct span_list *l = data;
	struct func_span *t;

	if (!size || !l->want(name, l->data))
		return 0;
	if (l->len == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		t = realloc(l->v, l->cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		l->v = t;
	}
	l->v[l->len].start = addr;
	l->v[l->len++].end = addr + size;
	return 0;
}

static int chosen_spans(Dwfl_Module *mod, kc_mark_func_cb want, void *data,
			struct func_span **out, size_t *nout)
{
	struct span_list l = { .want = want, .data = data };

	if (each_func(mod, span_add, &l)) {
		free(l.v);
		return -ENOMEM;
	}
	if (l.len)
		qsort(l.v, l.len, sizeof(*l.v), span_cmp);
	*out = l.v;
	*nout = l.len;
	return 0;
}

/* The first symbol address after @a, or @end. */
static GElf_Addr next_symbol(const struct range_emit *e, GElf_Addr a,
			     GElf_Addr end)
{
	size_t lo = 0, hi = e->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->nsyms && e->syms[lo] < end ? e->syms[lo] : end;
}

/*
 * A function whole, as @kind: one range from each symbol in it to the
 * next (the module checks a range against the symbol kallsyms finds at its
 * start, and an assembler function may hold other symbols), none longer
 * than a range may be.
 */
static int whole_span(struct range_emit *e, const struct func_span *s,
		      enum kc_mark_kind kind)
{
	GElf_Addr a = s->start, end;
	int ret = 0;

	while (a < s->end && !ret) {
		end = next_symbol(e, a, s->end);
		if (end - a > KC_MARKS_MAX_LEN)
			end = a + KC_MARKS_MAX_LEN;
		e->start = a;
		e->end = end;
		e->kind = kind;
		ret = range_flush(e);
		a = end;
	}
	return ret;
}

/*
 * The functions whose line tables were read, as "analysed": there an
 * access no range marks is plain, and the module's reports say so.
 * Those of a unit built without KCSAN are exempt instead.
 */
static int analysed_spans(struct kc_marking *m, struct range_emit *e)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	size_t i;
	int ret = 0;

	for (i = 0; i < e->nspans && !ret; i++) {
		cu = dwfl_module_addrdie(e->mod, e->spans[i].start, &bias);
		if (cu && !(m->exempt &&
			    kc_exempt_cu(m->exempt, dwarf_diename(cu))))
			ret = whole_span(e, &e->spans[i], KC_MARK_ANALYSED);
	}
	return ret;
}

/*
 * The compilation units holding @spans, each once: decoding every line
 * table of vmlinux takes far longer than the few a target list needs.
 */
static int span_cus(struct kc_marking *m, struct range_emit *e)
{
	Dwarf_Off *seen = NULL, *t, off;
	size_t nseen = 0, cap = 0, i, j;
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	int ret = 0;

	for (i = 0; i < e->nspans && !ret; i++) {
		cu = dwfl_module_addrdie(e->mod, e->spans[i].start, &bias);
		if (!cu)
			continue;
		if (kc_exempt_cu(m->exempt, dwarf_diename(cu))) {
			ret = whole_span(e, &e->spans[i], KC_MARK_EXEMPT);
			continue;
		}
		off = dwarf_dieoffset(cu);
		for (j = 0; j < nseen && seen[j] != off; j++)
			;
		if (j < nseen)
			continue;
		if (nseen == cap) {
			cap = cap ? 2 * cap : 64;
			t = realloc(seen, cap * sizeof(*seen));
			if (!t) {
				ret = -ENOMEM;
				break;
			}
			seen = t;
		}
		seen[nseen++] = off;
		ret = cu_ranges(m, e, cu, bias);
	}
	free(seen);
	return ret;
}

static bool any_func(const char *name, void *data)
{
	return true;
}

/* Every function of a module with a unit in its DWARF, as analysed. */
static int module_analysed(struct kc_marking *m, struct range_emit *e)
{
	struct func_span *spans;
	GElf_Addr *syms;
	int ret;

	ret = chosen_spans(e->mod, any_func, NULL, &spans, &e->nspans);
	if (ret)
		return ret;
	ret = symbol_addrs(e->mod, &syms, &e->nsyms);
	e->spans = spans;
	e->syms = syms;
	if (!ret)
		ret = analysed_spans(m, e);
	e->spans = NULL;
	e->nspans = 0;
	e->syms = NULL;
	free(syms);
	free(spans);
	return ret;
}

int kc_marking_vmlinux_ranges(struct kc_marking *m, kc_mark_func_cb want,
			      void *want_data, kc_mark_range_cb cb, void *data)
{
	struct dwarf_file *f = file_for(m, "");
	struct range_emit e = { .cb = cb, .data = data, .absolute = true };
	struct func_span *spans;
	GElf_Addr *syms = NULL;
	Dwarf_Addr bias;
	size_t nspans;
	int ret;

	if (!f)
		return -ENOENT;
	if (!dwfl_module_nextcu(f->mod, NULL, &bias))
		return -ENODATA;
	e.mod = f->mod;
	ret = chosen_spans(f->mod, want, want_data, &spans, &nspans);
	if (ret)
		return ret;
	e.spans = spans;
	e.nspans = nspans;
	ret = read_exempt_rules(m);
	if (!ret)
		ret = symbol_addrs(f->mod, &syms, &e.nsyms);
	e.syms = syms;
	if (!ret)
		ret = nspans ? span_cus(m, &e) : -ESRCH;
	if (!ret)
		ret = analysed_spans(m, &e);
	free(syms);
	free(spans);
	return ret;
}

int kc_marking_vmlinux_symbol(struct kc_marking *m, const char *name,
			      uint64_t *addr)
{
	struct dwarf_file *f = file_for(m, "");
	int i, n;

	if (!f)
		return -ENOENT;
	n = dwfl_module_getsymtab(f->mod);
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(f->mod, i, &sym, &a,
							NULL, NULL, NULL);

		if (s && !strcmp(s, name)) {
			*addr = a;
			return 0;
		}
	}
	return -ESRCH;
}

int kc_marking_vmlinux_build_id(struct kc_marking *m,
				const unsigned char **id)
{
	struct dwarf_file *f = file_for(m, "");
	GElf_Addr vaddr;

	if (!f)
		return -ENOENT;
	return dwfl_module_build_id(f->mod, id, &vaddr);
}

const char *kc_marking_module_name(const struct kc_marking *m, size_t i)
{
	return i < m->nfiles ? m->files[i].name : NULL;
}

const char *kc_mark_kind_name(enum kc_mark_kind k)
{
	static const char * const names[] = {
		[KC_MARK_UNKNOWN] = "unknown",
		[KC_MARK_PLAIN] = "plain",
		[KC_MARK_MARKED] = "marked",
		[KC_MARK_DATA_RACE] = "data_race",
		[KC_MARK_EXEMPT] = "exempt",
		[KC_MARK_ANALYSED] = "analysed",
	};

	return names[k];
}

struct kc_marking *kc_marking_new(void)
{
	struct kc_marking *m = calloc(1, sizeof(*m));

	if (m)
		m->memo = calloc(KC_MARK_CACHE, sizeof(*m->memo));
	if (m && !m->memo) {
		free(m);
		return NULL;
	}
	return m;
}

void kc_marking_free(struct kc_marking *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nfiles; i++) {
		if (m->files[i].dwfl)
			dwfl_end(m->files[i].dwfl);
		free(m->files[i].name);
		free(m->files[i].path);
	}
	for (i = 0; i < KC_SRC_CACHE; i++)
		src_file_free(&m->src[i]);
	for (i = 0; i < m->nroots; i++)
		free(m->roots[i]);
	free(m->roots);
	kc_exempt_free(m->exempt);
	free(m->files);
	free(m->memo);
	free(m);
}
