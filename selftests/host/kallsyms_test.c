// SPDX-License-Identifier: GPL-2.0
/*
 * The one /proc/kallsyms reader of the CLI (user/kallsyms.c), on saved
 * copies: names longer than any fixed buffer, module suffixes, symbols
 * of the image and of modules that share a name, hidden addresses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "kallsyms.h"

#define LONG_LEN 480	/* under KSYM_NAME_LEN (512), over any 255 */

static char path[64];

/* A saved kallsyms with @text; the test removes it. */
static int write_copy(const char *text)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/kc_kallsyms_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

struct seen {
	int n;
	char *names[8], *mods[8];
	char types[8];
	uint64_t addrs[8];
};

static int collect(const struct kc_ksym *s, void *data)
{
	struct seen *w = data;

	if (w->n == 8)
		return -1;
	w->names[w->n] = strdup(s->name);
	w->mods[w->n] = s->mod ? strdup(s->mod) : NULL;
	w->types[w->n] = s->type;
	w->addrs[w->n++] = s->addr;
	return 0;
}

static char *long_name(void)
{
	char *name = malloc(LONG_LEN + 1);

	memset(name, 'l', LONG_LEN);
	memcpy(name, "_R", 2);
	strcpy(name + LONG_LEN - 7, ".cold.0");
	return name;
}

TEST(names_of_any_length_and_modules)
{
	char *name = long_name(), text[2048];
	struct seen w = { 0 };
	int i;

	snprintf(text, sizeof(text),
		 "ffffffff81000000 T _stext\n"
		 "ffffffff81001000 t %s\n"
		 "ffffffffc0a00000 t kc_r1_inc.isra.0\t[kc_planted]\n"
		 "ffffffffc0a02010 d kc_r1_count\t[kc_planted]\n"
		 "ffffffffc0a03000 t %s\t[a_module_with_a_long_name]\n",
		 name, name);
	ASSERT_EQ(0, write_copy(text));
	ASSERT_EQ(0, kc_kallsyms_each(path, collect, &w));
	unlink(path);
	ASSERT_EQ(5, w.n);
	EXPECT_STREQ("_stext", w.names[0]);
	EXPECT_EQ('T', w.types[0]);
	EXPECT_EQ(0xffffffff81000000ull, w.addrs[0]);
	EXPECT_EQ(NULL, w.mods[0]);
	/* cut at 255 it would name another symbol, or none */
	EXPECT_STREQ(name, w.names[1]);
	EXPECT_EQ(NULL, w.mods[1]);
	EXPECT_STREQ("kc_r1_inc.isra.0", w.names[2]);
	EXPECT_STREQ("kc_planted", w.mods[2]);
	EXPECT_EQ('d', w.types[3]);
	EXPECT_STREQ("kc_r1_count", w.names[3]);
	EXPECT_STREQ(name, w.names[4]);
	EXPECT_STREQ("a_module_with_a_long_name", w.mods[4]);
	EXPECT_EQ(0xffffffffc0a03000ull, w.addrs[4]);
	for (i = 0; i < w.n; i++) {
		free(w.names[i]);
		free(w.mods[i]);
	}
	free(name);
}

TEST(lookup_in_the_image_only)
{
	char *name = long_name(), text[2048];
	uint64_t addr = 1;

	snprintf(text, sizeof(text),
		 "ffffffffc0a00000 t dup\t[kc_planted]\n"
		 "ffffffff81002000 t dup\n"
		 "ffffffff81003000 t %s\n"
		 "ffffffffc0a01000 t only_in_a_module\t[kc_planted]\n",
		 name);
	ASSERT_EQ(0, write_copy(text));
	EXPECT_EQ(0, kc_kallsyms_lookup(path, "dup", &addr));
	EXPECT_EQ(0xffffffff81002000ull, addr);
	EXPECT_EQ(0, kc_kallsyms_lookup(path, name, &addr));
	EXPECT_EQ(0xffffffff81003000ull, addr);
	/* a prefix of a long name is not that name */
	name[255] = '\0';
	EXPECT_EQ(-ENOENT, kc_kallsyms_lookup(path, name, &addr));
	EXPECT_EQ(-ENOENT, kc_kallsyms_lookup(path, "only_in_a_module", &addr));
	unlink(path);
	free(name);
}

TEST(hidden_addresses_and_errors)
{
	uint64_t addr = 1;

	/* kptr_restrict: every address printed as zeros */
	ASSERT_EQ(0, write_copy("0000000000000000 T _stext\n"
				"0000000000000000 t f\t[m]\n"));
	EXPECT_EQ(-EPERM, kc_kallsyms_lookup(path, "_stext", &addr));
	unlink(path);
	/* lines that are no symbol are skipped, not misread */
	ASSERT_EQ(0, write_copy("garbage\n\nffffffff81000000 T\n"
				"ffffffff81000000 T _stext"));
	EXPECT_EQ(0, kc_kallsyms_lookup(path, "_stext", &addr));
	EXPECT_EQ(0xffffffff81000000ull, addr);
	unlink(path);
	EXPECT_EQ(-ENOENT, kc_kallsyms_lookup("/nonexistent/kallsyms", "_stext",
					      &addr));
}

TEST_HARNESS_MAIN
