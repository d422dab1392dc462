// SPDX-License-Identifier: GPL-2.0
/*
 * Nothing the module runs in its trap handlers takes a kprobe: the set of
 * its functions marked NOKPROBE_SYMBOL() (the handlers, and what runs in
 * int3, #DB, IPI and watchdog context) must be closed under calls. The
 * built kcollider.ko is disassembled (objdump -dr), its calls and tail
 * jumps followed from every marked function, and each function of the
 * module reached must be marked too (nm lists the marks as _kbl_addr_*).
 * A kprobe on a helper of the int3 handler would be hit while kprobes is
 * handling ours: one level is counted as missed, a second is fatal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define KO KC_TOP "/kmod/kcollider.ko"
#define MAX_FUNCS 4096
#define MAX_CALLS 32768
#define NAME_LEN 96

struct graph {
	char names[MAX_FUNCS][NAME_LEN];
	bool marked[MAX_FUNCS], reached[MAX_FUNCS];
	int nr_funcs;
	int from[MAX_CALLS], nr_calls;
	char to[MAX_CALLS][NAME_LEN];
};

static struct graph g;

/* "kc_foo.constprop.0" and "kc_foo.cold" are kc_foo's code */
static void base_name(char *dst, const char *src)
{
	size_t n = strcspn(src, ".");

	if (n >= NAME_LEN)
		n = NAME_LEN - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int func_index(const char *name)
{
	char base[NAME_LEN];
	int i;

	base_name(base, name);
	for (i = 0; i < g.nr_funcs; i++)
		if (!strcmp(g.names[i], base))
			return i;
	return -1;
}

/* a section's own label (".text") is no function */
static int func_add(const char *name)
{
	int i = func_index(name);

	if (i >= 0 || g.nr_funcs == MAX_FUNCS || *name == '.')
		return i;
	base_name(g.names[g.nr_funcs], name);
	return g.nr_funcs++;
}

static void call_add(int from, const char *to)
{
	if (from < 0 || g.nr_calls == MAX_CALLS || *to == '.')
		return;
	g.from[g.nr_calls] = from;
	base_name(g.to[g.nr_calls], to);
	g.nr_calls++;
}

/*
 * A call's target is its relocation's symbol when the next line gives one
 * (calls out of the file, and ld -r keeps them), else the "<name>" objdump
 * resolved, unless that carries an offset (a jump inside the function).
 */
static int load_calls(void)
{
	char line[1024], name[NAME_LEN], pending[NAME_LEN] = "";
	int cur = -1, st;
	const char *p;
	FILE *f;

	f = popen("objdump -dr --no-show-raw-insn '" KO "'", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*x <%95[^>]>:", name) == 1) {
			if (*pending)
				call_add(cur, pending);
			*pending = '\0';
			cur = func_add(name);
			continue;
		}
		p = strstr(line, "R_X86_64_PLT32");
		if (!p && *pending)
			p = strstr(line, "R_X86_64_PC32");
		if (p) {
			if (sscanf(p, "%*s %95[A-Za-z0-9_.]", name) == 1)
				call_add(cur, name);
			*pending = '\0';
			continue;
		}
		if (*pending)
			call_add(cur, pending);
		*pending = '\0';
		p = strstr(line, "\tcall ");
		if (!p)
			p = strstr(line, "\tjmp ");
		if (p && sscanf(p, "%*s %*x <%95[A-Za-z0-9_.]>", name) == 1)
			strcpy(pending, name);
	}
	st = pclose(f);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

static int load_marks(void)
{
	char line[512], name[NAME_LEN];
	int i, marks = 0, st;
	FILE *f;

	f = popen("nm '" KO "'", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " _kbl_addr_");

		if (!p || sscanf(p, " _kbl_addr_%95s", name) != 1)
			continue;
		i = func_index(name);
		if (i >= 0) {
			g.marked[i] = true;
			marks++;
		}
	}
	st = pclose(f);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? marks : -1;
}

static void reach_from_marked(void)
{
	bool grew = true;
	int i, t;

	for (i = 0; i < g.nr_funcs; i++)
		g.reached[i] = g.marked[i];
	while (grew) {
		grew = false;
		for (i = 0; i < g.nr_calls; i++) {
			if (!g.reached[g.from[i]])
				continue;
			t = func_index(g.to[i]);
			if (t >= 0 && !g.reached[t]) {
				g.reached[t] = true;
				grew = true;
			}
		}
	}
}

static bool reached(const char *name)
{
	int i = func_index(name);

	return i >= 0 && g.reached[i];
}

TEST(every_function_the_trap_handlers_call_takes_no_kprobe)
{
	char unmarked[4096] = "";
	int i, marks, missing = 0;

	ASSERT_EQ(0, load_calls()) TH_LOG("objdump -dr %s failed", KO);
	ASSERT_GT(g.nr_funcs, 100) TH_LOG("%d functions in %s", g.nr_funcs,
					  KO);
	ASSERT_LT(g.nr_funcs, MAX_FUNCS);
	ASSERT_LT(g.nr_calls, MAX_CALLS);
	marks = load_marks();
	ASSERT_GT(marks, 0) TH_LOG("nm %s: no NOKPROBE_SYMBOL", KO);
	reach_from_marked();

	/* the walk follows calls: the int3 path's helpers are reached */
	ASSERT_TRUE(reached("kc_probe_hit"));
	ASSERT_TRUE(reached("kc_stall_try"));
	ASSERT_TRUE(reached("kc_watch_find_drn"));
	ASSERT_TRUE(reached("kc_effective_address"));
	/* and only calls: what sysfs runs is not */
	ASSERT_FALSE(reached("kc_targets_show"));
	ASSERT_FALSE(reached("kc_sampler_start"));

	for (i = 0; i < g.nr_funcs; i++) {
		if (g.reached[i] && !g.marked[i]) {
			missing++;
			if (strlen(unmarked) + NAME_LEN + 2 < sizeof(unmarked)) {
				strcat(unmarked, " ");
				strcat(unmarked, g.names[i]);
			}
		}
	}
	EXPECT_EQ(0, missing)
		TH_LOG("not NOKPROBE_SYMBOL, called on a trap path:%s",
		       unmarked);
}

TEST_HARNESS_MAIN
