// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms, parsed in place line by line. Names are not copied into
 * fixed buffers: a kernel symbol may be long (KSYM_NAME_LEN is 512 in
 * 6.1; Rust and .isra/.cold/.constprop suffixes make long ones common),
 * and a name cut short would resolve to nothing, or to another symbol.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

/* "ffffffff81000000 T _stext" or "ffffffffc0a00000 t f\t[mod]". */
static bool parse_line(char *line, struct kc_ksym *s)
{
	char *p, *end, sep;

	s->addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return false;
	s->type = end[1];
	s->name = p = end + 3;
	p += strcspn(p, " \t\r\n");
	if (p == s->name)
		return false;
	sep = *p;
	*p = '\0';
	s->mod = NULL;
	if (sep != ' ' && sep != '\t')
		return true;
	p += 1 + strspn(p + 1, " \t");
	end = *p == '[' ? strchr(p, ']') : NULL;
	if (end && end > p + 1) {
		*end = '\0';
		s->mod = p + 1;
	}
	return true;
}

int kc_kallsyms_each(const char *path, kc_ksym_cb cb, void *data)
{
	char *line = NULL;
	size_t cap = 0;
	struct kc_ksym s;
	int ret = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0)
		if (parse_line(line, &s))
			ret = cb(&s, data);
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	return ret;
}

struct lookup {
	const char *name;
	uint64_t addr;
	bool found;
};

static int lookup_one(const struct kc_ksym *s, void *data)
{
	struct lookup *l = data;

	if (s->mod || strcmp(s->name, l->name))
		return 0;
	l->addr = s->addr;
	l->found = true;
	return 1;
}

int kc_kallsyms_lookup(const char *path, const char *name, uint64_t *addr)
{
	struct lookup l = { .name = name };
	int ret = kc_kallsyms_each(path, lookup_one, &l);

	*addr = l.addr;
	if (ret < 0)
		return ret;
	if (!l.found)
		return -ENOENT;
	return l.addr ? 0 : -EPERM;	/* zeros: kptr_restrict, not root */
}
