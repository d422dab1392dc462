// SPDX-License-Identifier: GPL-2.0
/*
 * Field names through BTF (kcollider report --btf), against bpftool: the
 * fixture's BTF (gcc -g, pahole) is dumped with "bpftool btf dump file ...
 * format raw", the dump is parsed here and walked independently of the
 * CLI's libbpf code, and for every byte of the object the CLI's member
 * path, offset and size must equal the oracle's.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define KC KC_TOP "/user/kcollider"
#define MAX_TYPES 64
#define MAX_MEMBERS 16

/* One type of bpftool's raw dump. */
struct o_type {
	char kind[16], name[64];
	long size, type_id, nr_elems;
	int nmembers;
	struct { char name[64]; long type_id, bits, bitfield; } m[MAX_MEMBERS];
};

static struct o_type types[MAX_TYPES];
static char out[1 << 20];

static int run(const char *cmd, char *buf, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(buf, 1, len - 1, p);
	buf[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static long field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Parse "bpftool btf dump file F format raw" into types[]. */
static int load_oracle(void)
{
	char *line, *save = NULL;
	struct o_type *t = NULL;
	long id;

	if (run("bpftool btf dump file " KC_BTF_FIXTURE " format raw", out, sizeof(out)))
		return -1;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '[') {
			id = strtol(line + 1, NULL, 10);
			if (id <= 0 || id >= MAX_TYPES)
				return -1;
			t = &types[id];
			if (sscanf(strchr(line, ' ') + 1, "%15s '%63[^']'", t->kind,
				   t->name) != 2)
				return -1;
			t->size = field(line, " size=");
			t->type_id = field(line, " type_id=");
			t->nr_elems = field(line, " nr_elems=");
		} else if (t && line[0] == '\t' && t->nmembers < MAX_MEMBERS) {
			int k = t->nmembers++;

			if (sscanf(line, "\t'%63[^']'", t->m[k].name) != 1)
				return -1;
			t->m[k].type_id = field(line, " type_id=");
			t->m[k].bits = field(line, " bits_offset=");
			t->m[k].bitfield = field(line, " bitfield_size=");
		}
	}
	return 0;
}

static long o_find(const char *kind, const char *name)
{
	long i;

	for (i = 1; i < MAX_TYPES; i++)
		if (!strcmp(types[i].kind, kind) && !strcmp(types[i].name, name))
			return i;
	return -1;
}

static long o_size(long id)
{
	const struct o_type *t = &types[id];

	if (!strcmp(t->kind, "ARRAY"))
		return t->nr_elems * o_size(t->type_id);
	if (!strcmp(t->kind, "CONST") || !strcmp(t->kind, "VOLATILE") ||
	    !strcmp(t->kind, "TYPEDEF"))
		return o_size(t->type_id);
	return t->size;
}

/* The oracle's walk: member path of byte @off in type @id. */
static bool o_walk(long id, long off, long base, char *path, long *foff, long *fsize)
{
	const struct o_type *t = &types[id];
	int k;

	if (!strcmp(t->kind, "STRUCT") || !strcmp(t->kind, "UNION")) {
		for (k = 0; k < t->nmembers; k++) {
			long start = t->m[k].bits / 8;
			long sz = t->m[k].bitfield > 0 ?
				  (t->m[k].bits % 8 + t->m[k].bitfield + 7) / 8 :
				  o_size(t->m[k].type_id);

			if (off < start || off >= start + sz)
				continue;
			if (strcmp(t->m[k].name, "(anon)"))
				sprintf(path + strlen(path), "%s%s", *path ? "." : "",
					t->m[k].name);
			if (t->m[k].bitfield > 0) {
				*foff = base + start;
				*fsize = sz;
				return true;
			}
			return o_walk(t->m[k].type_id, off - start, base + start,
				      path, foff, fsize);
		}
		return false;
	}
	if (!strcmp(t->kind, "ARRAY")) {
		long esz = o_size(t->type_id);

		sprintf(path + strlen(path), "[%ld]", off / esz);
		return o_walk(t->type_id, off % esz, base + off / esz * esz,
			      path, foff, fsize);
	}
	*foff = base;
	*fsize = o_size(id);
	return true;
}

/* A new log file, its name in @path (a static buffer). */
static FILE *new_log(char **path)
{
	static char name[32];
	int fd;

	strcpy(name, "/tmp/kc_btf_XXXXXX");
	fd = mkstemp(name);
	*path = name;
	return fd >= 0 ? fdopen(fd, "w") : NULL;
}

/* A log of one report per byte of the object, in cache @cache. */
static char *write_log(const char *cache, long obj_size, long nbytes)
{
	char *path;
	FILE *f = new_log(&path);
	long off;

	if (!f)
		return NULL;
	for (off = 0; off < nbytes; off++)
		fprintf(f, "==================================================================\n"
			"BUG: KCOLLIDER: data-race in kc_btf_use / kc_btf_use\n\n"
			"read to 0xffff888003a1c%03lx of 1 bytes by task 10 on cpu 0:\n"
			" kc_btf_use+0x10/0x40\n\n"
			"write to 0xffff888003a1c%03lx of 1 bytes by task 11 on cpu 1:\n"
			" kc_btf_use+0x4/0x40\n\n"
			"kcollider: object: slab cache=%s start=0xffff888003a1c000 offset=%ld size=%ld\n"
			"==================================================================\n",
			off, off, cache, off, obj_size);
	fclose(f);
	return path;
}

/* Report @n's "object" member of the CLI's JSON lines. */
static const char *nth_object(const char *json, long n)
{
	const char *p = json;

	while (n-- > 0 && p)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	return p;
}

static void check_every_byte(struct __test_metadata *_metadata, const char *cache,
			     long type, const char *by)
{
	long size = o_size(type), off, foff, fsize;
	char cmd[8192], expect[512], path[256];
	const char *log = write_log(cache, size, size), *line;

	ASSERT_NE(NULL, log);
	snprintf(cmd, sizeof(cmd), KC " -j report --btf " KC_BTF_FIXTURE " %s", log);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	unlink(log);
	for (off = 0; off < size; off++) {
		path[0] = '\0';
		foff = off;
		fsize = 0;
		if (!o_walk(type, off, 0, path, &foff, &fsize))
			path[0] = '\0', foff = off, fsize = 0;	/* padding */
		snprintf(expect, sizeof(expect),
			 "\"object\":{\"type\":\"struct %s\",\"field\":\"%s\",\"field_offset\":%ld,\"field_size\":%ld,\"offset\":%ld,\"cache\":\"%s\",\"by\":\"%s\"}}",
			 types[type].name, path, foff, fsize, off, cache, by);
		line = nth_object(out, off);
		ASSERT_NE(NULL, line);
		EXPECT_EQ(0, strncmp(strstr(line, "\"object\":{\"type\"") ?: "", expect,
				     strlen(expect)))
			TH_LOG("offset %ld: want %s\n%.600s", off, expect, line);
	}
}

TEST(dedicated_cache_every_byte_as_bpftool_says)
{
	long obj;

	ASSERT_EQ(0, load_oracle());
	obj = o_find("STRUCT", "kc_btf_obj");
	ASSERT_GT(obj, 0);
	check_every_byte(_metadata, "kc_btf_obj", obj, "cache-name");
}

/* kmalloc: the type comes from the racing function's pointer arguments. */
TEST(kmalloc_cache_type_from_the_arguments)
{
	long msg, obj;

	ASSERT_EQ(0, load_oracle());
	msg = o_find("STRUCT", "kc_btf_msg");
	obj = o_find("STRUCT", "kc_btf_obj");
	ASSERT_GT(msg, 0);
	ASSERT_GT(obj, 0);
	/* 128 bytes: kc_btf_obj (64) would sit in kmalloc-64, the message fits. */
	check_every_byte(_metadata, "kmalloc-128", msg, "arguments");
	check_every_byte(_metadata, "kmalloc-64", obj, "arguments");
}

/*
 * One report of @sampled and @racer, @size-byte accesses at @off of a slab
 * object in @cache, or of per-CPU data when @cache is NULL. @exact:
 * with the module's sampled:/racer: lines, which name each access's own
 * instruction, its function's first (as the DWARF fixture's are).
 */
static char *write_one(const char *sampled, const char *racer,
		       const char *cache, long obj_size, long off, int size,
		       bool exact)
{
	char *path;
	FILE *f = new_log(&path);

	if (!f)
		return NULL;
	fprintf(f, "==================================================================\n"
		"BUG: KCOLLIDER: data-race in %s / %s\n\n"
		"write to 0xffff888003a1c%03lx of %d bytes by task 11 on cpu 1:\n"
		" %s+0x4/0x40\n\n"
		"read to 0xffff888003a1c%03lx of %d bytes by task 10 on cpu 0:\n"
		" %s+0x10/0x40\n\n",
		racer, sampled, off, size, racer, off, size, sampled);
	if (exact)
		fprintf(f, "kcollider: sampled: ip=0xffffffff81001000 sym=%s+0x0/0x40 mod= op=mov access=read size=%d\n"
			"kcollider: racer: ip=0xffffffff81001010 trap_ip=0xffffffff81001017 sym=%s+0x0/0x40 mod= op=mov access=write size=%d locked=0\n",
			sampled, size, racer, size);
	if (cache)
		fprintf(f, "kcollider: object: slab cache=%s start=0xffff888003a1c000 offset=%ld size=%ld\n",
			cache, off, obj_size);
	else	/* per-CPU data: no start, the offset in the CPU's unit */
		fprintf(f, "kcollider: object: percpu cpu=1 unit_offset=0x%lx\n",
			0x2d00 + off);
	fprintf(f, "==================================================================\n");
	fclose(f);
	return path;
}

/* The CLI's "object" for that one report, or NULL. */
static const char *object_of(struct __test_metadata *_metadata,
			     const char *sampled, const char *racer,
			     const char *cache, long obj_size, long off, int size)
{
	const char *log = write_one(sampled, racer, cache, obj_size, off, size,
				    false);
	char cmd[8192];

	if (!log)
		return NULL;
	snprintf(cmd, sizeof(cmd), KC " -j report --btf " KC_BTF_FIXTURE " %s", log);
	EXPECT_EQ(0, run(cmd, out, sizeof(out)));
	unlink(log);
	return strstr(out, "\"object\":{\"type\"");
}

/*
 * A dedicated cache named after its objects' stem holds the larger struct
 * that embeds the one a racing function takes: the embedding struct is
 * the type, its member path goes through the embedded one. The embedded
 * struct alone is too small for the cache's objects: never the guess.
 */
TEST(dedicated_cache_by_stem_not_by_an_embedded_argument)
{
	long node, obj;
	const char *o;
	char expect[256];

	ASSERT_EQ(0, load_oracle());
	node = o_find("STRUCT", "kc_btf_node_info");
	obj = o_find("STRUCT", "kc_btf_obj");
	ASSERT_GT(node, 0);
	ASSERT_GT(obj, 0);
	/* state[12] first: the embedded object's "in.a" at 96 + 12 */
	o = object_of(_metadata, "kc_btf_use", "kc_btf_node_use",
		      "kc_btf_node_cache", o_size(node) + 8, 96 + 12, 4);
	ASSERT_NE(NULL, o) TH_LOG("%s", out);
	snprintf(expect, sizeof(expect),
		 "\"object\":{\"type\":\"struct kc_btf_node_info\",\"field\":\"vfs.in.a\",\"field_offset\":108,\"field_size\":4,\"offset\":108,\"cache\":\"kc_btf_node_cache\",\"by\":\"cache-name\"}");
	EXPECT_EQ(0, strncmp(o, expect, strlen(expect))) TH_LOG("%s", o);
	/* another cache of that size: kc_btf_obj, half its size, is no guess */
	o = object_of(_metadata, "kc_btf_use", "kc_btf_use", "kc_btf_any",
		      o_size(node) + 8, 12, 4);
	EXPECT_EQ(NULL, o) TH_LOG("%s", out);
}

/*
 * kmalloc: a type both racing functions take, and whose member at the
 * offset holds the access; a statfs-like function that takes another
 * struct, or an access wider than the member, leaves no guess.
 */
TEST(kmalloc_guess_needs_both_functions_and_the_access_to_fit)
{
	const char *o;

	ASSERT_EQ(0, load_oracle());
	/* kc_btf_msg in kmalloc-128; "seq" is 8 bytes at 0 */
	o = object_of(_metadata, "kc_btf_use", "kc_btf_use", "kmalloc-128",
		      128, 0, 8);
	ASSERT_NE(NULL, o) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(o, "\"object\":{\"type\":\"struct kc_btf_msg\",\"field\":\"seq\"",
			     strlen("\"object\":{\"type\":\"struct kc_btf_msg\",\"field\":\"seq\"")))
		TH_LOG("%s", o);
	/* kc_btf_other_use() takes no kc_btf_msg */
	EXPECT_EQ(NULL, object_of(_metadata, "kc_btf_use", "kc_btf_other_use",
				  "kmalloc-128", 128, 0, 8)) TH_LOG("%s", out);
	/* 8 bytes at body[0], a char: not a kc_btf_msg's access */
	EXPECT_EQ(NULL, object_of(_metadata, "kc_btf_use", "kc_btf_use",
				  "kmalloc-128", 128, 8, 8)) TH_LOG("%s", out);
	/* the same at one byte is body[0] */
	o = object_of(_metadata, "kc_btf_use", "kc_btf_use", "kmalloc-128",
		      128, 8, 1);
	ASSERT_NE(NULL, o) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(o, "\"field\":\"body[0]\"")) TH_LOG("%s", o);
}

/* The CLI's "object" for that report, with the fixture's image as -V or not. */
static const char *pointee_object(struct __test_metadata *_metadata,
				  bool dwarf, const char *sampled,
				  const char *racer, const char *cache,
				  long obj_size, long off)
{
	const char *log = write_one(sampled, racer, cache, obj_size, off, 4,
				    true);
	char cmd[8192];

	if (!log)
		return NULL;
	snprintf(cmd, sizeof(cmd), KC " -j report %s --btf " KC_PT_FIXTURE ".btf %s",
		 dwarf ? "-V " KC_PT_FIXTURE : "", log);
	EXPECT_EQ(0, run(cmd, out, sizeof(out)));
	unlink(log);
	return strstr(out, "\"object\":{\"type\"");
}

/* The object a 4-byte access at @off ("48") in @cache is, by DWARF. */
#define PT_OBJECT_IN(type, field, off, cache) \
	"\"object\":{\"type\":\"struct " type "\",\"field\":\"" field \
	"\",\"field_offset\":" off ",\"field_size\":4,\"offset\":" off \
	",\"cache\":\"" cache "\",\"by\":\"dwarf\""
#define PT_OBJECT(type, field, off) \
	PT_OBJECT_IN(type, field, off, "kmalloc-256")

/*
 * kmalloc: no function takes the 216-byte kc_pt_outer but one, and
 * kc_pt_inner is too small for kmalloc-256, so the arguments suggest
 * nothing. DWARF says what each access goes through: the whole object
 * (kc_pt_outer, in.flags at 48) or the struct embedded at 40
 * (kc_pt_inner, flags at 8 into it); the whole object wins.
 */
TEST(kmalloc_type_from_the_pointer_dwarf_gives)
{
	const char *o;

	o = pointee_object(_metadata, true, "kc_pt_read_flags",
			   "kc_pt_write_flags", "kmalloc-256", 256, 48);
	ASSERT_NE(NULL, o) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(o, PT_OBJECT("kc_pt_outer", "in.flags", "48") "}",
			     strlen(PT_OBJECT("kc_pt_outer", "in.flags", "48") "}")))
		TH_LOG("%s", o);
	/* an untyped racer: the sampled side's embedded struct, and where */
	o = pointee_object(_metadata, true, "kc_pt_read_flags", "kc_pt_poke",
			   "kmalloc-256", 256, 48);
	ASSERT_NE(NULL, o) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(o, PT_OBJECT("kc_pt_inner", "flags", "48") ",\"type_offset\":40}",
			     strlen(PT_OBJECT("kc_pt_inner", "flags", "48") ",\"type_offset\":40}")))
		TH_LOG("%s", o);
	/* without the image's DWARF: no guess */
	EXPECT_EQ(NULL, pointee_object(_metadata, false, "kc_pt_read_flags",
				       "kc_pt_poke", "kmalloc-256", 256, 48))
		TH_LOG("%s", out);
}

/* Of a union's members, the one the access is as wide as: "seq", not "link". */
TEST(union_member_as_wide_as_the_access)
{
	static const char want[] = PT_OBJECT("kc_pt_outer", "seq", "56") "}";
	const char *o;

	o = pointee_object(_metadata, true, "kc_pt_read_seq", "kc_pt_poke",
			   "kmalloc-256", 256, 56);
	ASSERT_NE(NULL, o) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(o, want, strlen(want))) TH_LOG("%s", o);
}

/*
 * Per-CPU data: the report says where in the CPU's unit, not where the
 * allocation starts. The type is the pointer's, through %gs
 * (this_cpu_read()) as through a plain per_cpu_ptr(); the offsets are in
 * it.
 */
TEST(percpu_type_from_the_pointer_dwarf_gives)
{
	static const char want[] =
		PT_OBJECT_IN("kc_pt_inner", "flags", "8", "percpu") "}";
	const char *o;

	o = pointee_object(_metadata, true, "kc_pt_this_cpu_flags", "kc_pt_poke",
			   NULL, 0, 48);
	ASSERT_NE(NULL, o) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(o, want, strlen(want))) TH_LOG("%s", o);
	/* no typed side, or no DWARF: nothing */
	EXPECT_EQ(NULL, pointee_object(_metadata, true, "kc_pt_poke", "kc_pt_poke",
				       NULL, 0, 48)) TH_LOG("%s", out);
	EXPECT_EQ(NULL, pointee_object(_metadata, false, "kc_pt_this_cpu_flags",
				       "kc_pt_poke", NULL, 0, 48)) TH_LOG("%s", out);
}

/* A type the access would put outside the object is not the object's. */
TEST(dwarf_type_must_lie_inside_the_object)
{
	/* in.flags is 48 bytes in: not at offset 8 */
	EXPECT_EQ(NULL, pointee_object(_metadata, true, "kc_pt_poke",
				       "kc_pt_write_flags", "kmalloc-64", 64, 8))
		TH_LOG("%s", out);
	/* 216 bytes do not fit a 128-byte object */
	EXPECT_EQ(NULL, pointee_object(_metadata, true, "kc_pt_poke",
				       "kc_pt_write_flags", "kmalloc-128", 128, 48))
		TH_LOG("%s", out);
}

TEST(no_fitting_type_no_field)
{
	char cmd[8192];
	const char *log;

	/* Nothing of 32 bytes or less: no guess at all. */
	log = write_log("kmalloc-32", 32, 1);
	ASSERT_NE(NULL, log);
	snprintf(cmd, sizeof(cmd), KC " -j report --btf " KC_BTF_FIXTURE " %s", log);
	ASSERT_EQ(0, run(cmd, out, sizeof(out)));
	unlink(log);
	EXPECT_EQ(NULL, strstr(out, "\"object\":{\"type\""));
	EXPECT_EQ(1, run(KC " report --btf /nonexistent /dev/null 2>&1", out, sizeof(out)));
	EXPECT_STREQ("kcollider: report: --btf /nonexistent: No such file or directory\n", out);
}

TEST_HARNESS_MAIN
