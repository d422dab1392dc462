// SPDX-License-Identifier: GPL-2.0
/*
 * KCSAN_SANITIZE rules of a kernel tree (see exempt.h). Kbuild applies a
 * directory's KCSAN_SANITIZE to that directory's objects only, and an
 * object's own KCSAN_SANITIZE_<obj>.o before it (scripts/Makefile.lib),
 * so a rule is a path: "kernel/sched" for a directory, "mm/slub" for an
 * object, with the value it sets.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exempt.h"
#include "readfile.h"

#define KC_EXEMPT_MAX_DEPTH 8
#define KC_EXEMPT_MAKEFILE_MAX (1 << 20)

struct exempt_rule {
	char *path;		/* "kernel/sched", "mm/slub" */
	bool object;		/* KCSAN_SANITIZE_<obj>.o, not a directory's */
	bool sanitized;		/* := y */
};

struct kc_exempt {
	struct exempt_rule *rules;
	unsigned int n, cap;
};

struct kc_exempt *kc_exempt_new(void)
{
	return calloc(1, sizeof(struct kc_exempt));
}

void kc_exempt_free(struct kc_exempt *x)
{
	unsigned int i;

	if (!x)
		return;
	for (i = 0; i < x->n; i++)
		free(x->rules[i].path);
	free(x->rules);
	free(x);
}

unsigned int kc_exempt_rules(const struct kc_exempt *x)
{
	return x ? x->n : 0;
}

static int add_rule(struct kc_exempt *x, const char *dir, const char *obj,
		    size_t objlen, bool sanitized)
{
	struct exempt_rule *r;
	size_t len = strlen(dir) + objlen + 2;
	char *path = malloc(len);

	if (!path)
		return -ENOMEM;
	if (objlen)
		snprintf(path, len, "%s%s%.*s", dir, *dir ? "/" : "",
			 (int)objlen, obj);
	else
		snprintf(path, len, "%s", dir);
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 32;
		r = realloc(x->rules, x->cap * sizeof(*r));
		if (!r) {
			free(path);
			return -ENOMEM;
		}
		x->rules = r;
	}
	x->rules[x->n++] = (struct exempt_rule) {
		.path = path, .object = objlen > 0, .sanitized = sanitized,
	};
	return 0;
}

/*
 * One line: "KCSAN_SANITIZE[_<obj>.o] (:=|=) (y|n)", leading blanks
 * allowed, anything after the value ignored (a comment).
 */
static int parse_line(struct kc_exempt *x, const char *dir, const char *p)
{
	static const char var[] = "KCSAN_SANITIZE";
	const char *obj = NULL;
	size_t objlen = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, var, sizeof(var) - 1))
		return 0;
	p += sizeof(var) - 1;
	if (*p == '_') {
		obj = ++p;
		while (*p && !isspace((unsigned char)*p) && *p != ':' &&
		       *p != '=')
			p++;
		objlen = p - obj;
		if (objlen < 3 || strncmp(p - 2, ".o", 2))
			return 0;
		objlen -= 2;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == ':')
		p++;
	if (*p++ != '=')
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != 'y' && *p != 'n')
		return 0;
	if (p[1] && !isspace((unsigned char)p[1]) && p[1] != '#')
		return 0;
	return add_rule(x, dir, obj, objlen, *p == 'y');
}

int kc_exempt_add_makefile(struct kc_exempt *x, const char *dir,
			   const char *text)
{
	const char *line = text;
	char buf[512];
	int ret = 0;

	while (line && *line && !ret) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			ret = parse_line(x, dir, buf);
		}
		line = end ? end + 1 : NULL;
	}
	return ret;
}

static int read_makefile(struct kc_exempt *x, const char *root,
			 const char *dir, const char *name)
{
	char path[4096];
	char *text;
	int ret;

	snprintf(path, sizeof(path), "%s%s%s/%s", root, *dir ? "/" : "", dir,
		 name);
	text = kc_read_file(path, KC_EXEMPT_MAKEFILE_MAX, NULL);
	if (!text)
		return errno == ENOMEM ? -ENOMEM : 0;
	ret = strstr(text, "KCSAN_SANITIZE") ?
	      kc_exempt_add_makefile(x, dir, text) : 0;
	free(text);
	return ret;
}

/* Not kernel code, or not built into a kernel that runs. */
static bool skipped_dir(const char *name)
{
	return name[0] == '.' || !strcmp(name, "tools") ||
	       !strcmp(name, "Documentation") || !strcmp(name, "scripts") ||
	       !strcmp(name, "samples") || !strcmp(name, "usr");
}

static int scan(struct kc_exempt *x, const char *root, const char *dir,
		int depth)
{
	char path[4096], sub[4096];
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", root,
			     *dir ? "/" : "", dir) >= sizeof(path))
		return 0;
	dp = opendir(path);
	if (!dp)
		return 0;
	ret = read_makefile(x, root, dir, "Makefile");
	if (!ret)
		ret = read_makefile(x, root, dir, "Kbuild");
	while (!ret && depth < KC_EXEMPT_MAX_DEPTH && (d = readdir(dp))) {
		if (skipped_dir(d->d_name) ||
		    fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", dir,
				     *dir ? "/" : "", d->d_name) < sizeof(sub))
			ret = scan(x, root, sub, depth + 1);
	}
	closedir(dp);
	return ret;
}

int kc_exempt_add_tree(struct kc_exempt *x, const char *root)
{
	return scan(x, root, "", 0);
}

/*
 * @path (@len bytes) is @rule, or, when absolute (the build's directory
 * before the tree's path), ends in "/" @rule.
 */
static bool ends_in(const char *path, size_t len, const char *rule)
{
	size_t rlen = strlen(rule);

	if (!rlen || rlen > len || memcmp(path + len - rlen, rule, rlen))
		return false;
	return rlen == len || (path[0] == '/' && path[len - rlen - 1] == '/');
}

/* The last rule of @object kind matching: later lines win, as in make. */
static const struct exempt_rule *match(const struct kc_exempt *x,
				       const char *path, size_t len,
				       bool object)
{
	const struct exempt_rule *found = NULL;
	unsigned int i;

	for (i = 0; i < x->n; i++)
		if (x->rules[i].object == object &&
		    ends_in(path, len, x->rules[i].path))
			found = &x->rules[i];
	return found;
}

bool kc_exempt_cu(const struct kc_exempt *x, const char *cu)
{
	const struct exempt_rule *r;
	const char *slash, *dot;
	size_t len;

	if (!x || !x->n || !cu)
		return false;
	slash = strrchr(cu, '/');
	dot = strrchr(cu, '.');
	len = dot && (!slash || dot > slash) ? (size_t)(dot - cu) : strlen(cu);
	r = match(x, cu, len, true);
	if (r)
		return !r->sanitized;
	if (!slash)
		return false;
	r = match(x, cu, slash - cu, false);
	return r && !r->sanitized;
}
