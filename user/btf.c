// SPDX-License-Identifier: GPL-2.0
/*
 * BTF field names (libbpf). The kernel prints "slab cache=NAME offset=N
 * size=N" for a heap object: which type lives there is not recorded, so it
 * is inferred, and the report says how: "cache-name" when a dedicated
 * cache (KMEM_CACHE() names it after its struct) has a struct of that name
 * that fits, "dwarf" when the access went through a pointer whose type
 * DWARF gives (pointee.h) and that type lies inside the object,
 * "arguments" when both racing functions take a pointer to a struct whose
 * size fits the cache and whose member at the offset holds the access. The member at the offset is walked down through nested structs,
 * unions and arrays.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf.h"

struct kc_btf_mod {
	char *name;
	struct btf *btf;	/* NULL: tried, none */
};

struct kc_btf {
	char *dir;		/* modules' BTF files, read on demand */
	struct btf *base;
	struct btf **files;	/* --btf files, searched first */
	size_t nfiles;
	struct kc_btf_mod *mods;
	size_t nmods;
};

static int add_file(struct kc_btf *b, const char *path)
{
	struct btf **f = realloc(b->files, (b->nfiles + 1) * sizeof(*f));
	struct btf *btf;

	if (!f)
		return -ENOMEM;
	b->files = f;
	btf = b->base ? btf__parse_split(path, b->base) : btf__parse(path, NULL);
	if (!btf)
		return -errno;
	if (!b->base)
		b->base = btf;
	else
		b->files[b->nfiles++] = btf;
	return 0;
}

/* A module without BTF is normal: libbpf's complaints are not ours. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

int kc_btf_add(struct kc_btf **bp, const char *path)
{
	struct kc_btf *b = *bp;
	struct stat st;
	char *vmlinux;
	int ret;

	libbpf_set_print(quiet);
	if (stat(path, &st))
		return -errno;
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		*bp = b;
	}
	if (!S_ISDIR(st.st_mode))
		return add_file(b, path);
	if (b->base || b->dir)
		return -EEXIST;	/* one base only */
	if (asprintf(&vmlinux, "%s/vmlinux", path) < 0)
		return -ENOMEM;
	b->base = btf__parse(vmlinux, NULL);
	ret = b->base ? 0 : -errno;
	free(vmlinux);
	if (!ret)
		b->dir = strdup(path);
	return ret;
}

static void free_btf(struct btf *btf, const struct kc_btf *b)
{
	if (btf && btf != b->base)
		btf__free(btf);
}

void kc_btf_free(struct kc_btf *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nfiles; i++)
		free_btf(b->files[i], b);
	for (i = 0; i < b->nmods; i++) {
		free_btf(b->mods[i].btf, b);
		free(b->mods[i].name);
	}
	btf__free(b->base);
	free(b->files);
	free(b->mods);
	free(b->dir);
	free(b);
}

/* Module @name's BTF from the directory, split on vmlinux; NULL if none. */
static struct btf *module_btf(struct kc_btf *b, const char *name)
{
	struct kc_btf_mod *m;
	char *path;
	size_t i;

	if (!b->dir || !name || !*name)
		return NULL;
	for (i = 0; i < b->nmods; i++)
		if (!strcmp(b->mods[i].name, name))
			return b->mods[i].btf;
	m = realloc(b->mods, (b->nmods + 1) * sizeof(*m));
	if (!m)
		return NULL;
	b->mods = m;
	m = &b->mods[b->nmods];
	m->name = strdup(name);
	if (!m->name || asprintf(&path, "%s/%s", b->dir, name) < 0)
		return NULL;
	m->btf = btf__parse_split(path, b->base);
	free(path);
	b->nmods++;
	return m->btf;
}

/* The BTFs to search, most specific first: files, the report's modules, vmlinux. */
static size_t search_list(struct kc_btf *b, const struct kc_report *r,
			  struct btf **list, size_t max)
{
	size_t n = 0, i;
	int k;

	for (i = 0; i < b->nfiles && n < max; i++)
		list[n++] = b->files[i];
	for (k = 0; k < r->nacc && n < max; k++) {
		struct btf *m = module_btf(b, r->acc[k].sym.mod);

		if (m && (!n || list[n - 1] != m))
			list[n++] = m;
	}
	if (b->base && n < max)
		list[n++] = b->base;
	return n;
}

static const struct btf_type *skip_mods(const struct btf *btf, __u32 *id)
{
	int r = btf__resolve_type(btf, *id);

	if (r > 0)
		*id = r;
	return btf__type_by_id(btf, *id);
}

static __s64 member_size(const struct btf *btf, const struct btf_type *t,
			 int i)
{
	unsigned int bit = btf_member_bit_offset(t, i);
	unsigned int bits = btf_member_bitfield_size(t, i);

	return bits ? (bit % 8 + bits + 7) / 8
		    : btf__resolve_size(btf, btf_members(t)[i].type);
}

/*
 * The member of @t that holds byte @off, or -1 (padding). In a union,
 * several do: the one that starts there and is as wide as the access
 * (@want bytes), if any (a 4-byte access to inode's i_pipe/i_dir_seq
 * union is i_dir_seq), else the first.
 */
static int member_at(const struct btf *btf, const struct btf_type *t,
		     unsigned int off, unsigned int want)
{
	int i, first = -1;

	for (i = 0; i < btf_vlen(t); i++) {
		unsigned int at = btf_member_bit_offset(t, i) / 8;
		__s64 sz = member_size(btf, t, i);

		if (sz <= 0 || off < at || off >= at + sz)
			continue;
		if (first < 0)
			first = i;
		if (!btf_is_union(t))
			break;
		if (at == off && sz == want && !btf_member_bitfield_size(t, i))
			return i;
	}
	return first;
}

/*
 * Walk down type @id to byte @off: the member path goes to @path, the
 * leaf's offset (from the object's start, @base) and size to @f.
 */
static bool walk(const struct btf *btf, __u32 id, unsigned int off,
		 unsigned int base, unsigned int want, FILE *path,
		 struct kc_btf_field *f)
{
	const struct btf_type *t = skip_mods(btf, &id);

	if (t && btf_is_composite(t)) {
		int i = member_at(btf, t, off, want);
		const struct btf_member *m;
		unsigned int at;
		const char *name;

		if (i < 0)
			return false;	/* padding */
		m = btf_members(t) + i;
		at = btf_member_bit_offset(t, i) / 8;
		name = btf__name_by_offset(btf, m->name_off);
		if (name && *name)
			fprintf(path, "%s%s", ftell(path) ? "." : "", name);
		if (btf_member_bitfield_size(t, i)) {
			f->field_offset = base + at;
			f->field_size = member_size(btf, t, i);
			f->bitfield = true;
			return true;
		}
		return walk(btf, m->type, off - at, base + at, want, path, f);
	}
	if (t && btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		__s64 esz = btf__resolve_size(btf, a->type);

		if (esz <= 0)
			return false;
		fprintf(path, "[%u]", (unsigned int)(off / esz));
		return walk(btf, a->type, off % esz,
			    base + (off / esz) * esz, want, path, f);
	}
	f->field_offset = base;
	f->field_size = btf__resolve_size(btf, id) > 0 ? btf__resolve_size(btf, id) : 0;
	return true;
}

/*
 * Type @id at byte @base of the object: its member at object byte @off,
 * for an access of @want bytes.
 */
static bool fill_at(const struct btf *btf, __u32 id, unsigned int off,
		    unsigned int base, unsigned int want,
		    struct kc_btf_field *f)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	size_t len = 0;
	FILE *path = open_memstream(&f->field, &len);
	bool ok;

	if (!path)
		return false;
	f->type_offset = base;
	ok = walk(btf, id, off - base, base, want, path, f);
	fclose(path);
	if (asprintf(&f->type, "%s %s", btf_is_union(t) ? "union" : "struct",
		     btf__name_by_offset(btf, t->name_off)) < 0)
		f->type = NULL;
	if (!ok) {
		/* In padding: the type is still right, no member holds it. */
		f->field[0] = '\0';
		f->field_offset = off;
		f->field_size = 0;
	}
	return f->type != NULL;
}

static bool fill(const struct btf *btf, __u32 id, unsigned int off,
		 unsigned int want, struct kc_btf_field *f)
{
	return fill_at(btf, id, off, 0, want, f);
}

/*
 * Could an object of @size come from a kmalloc cache of @obj_size? Only if
 * no smaller bucket would have taken it: the buckets are the powers of two
 * from 8, and 96 and 192.
 */
static bool fits_bucket(__u32 size, unsigned int obj_size)
{
	unsigned int smaller;

	if (size > obj_size)
		return false;
	switch (obj_size) {
	case 96:
		smaller = 64;
		break;
	case 128:
		smaller = 96;
		break;
	case 192:
		smaller = 128;
		break;
	case 256:
		smaller = 192;
		break;
	default:
		smaller = obj_size / 2;
	}
	return size > smaller;
}

/*
 * A dedicated cache's object is its struct rounded up to the cache's
 * alignment (a cache line at most), with room for a free pointer kept
 * outside the object when the cache has a constructor. A struct much
 * smaller is not the object's type but one embedded in it: the VFS inode
 * in a filesystem's inode cache.
 */
#define KC_SLAB_SLACK	(64 + 8)

static bool fills_cache(const char *cache, __u32 size, unsigned int obj_size)
{
	if (strstr(cache, "kmalloc-"))
		return fits_bucket(size, obj_size);
	return size <= obj_size && obj_size - size < KC_SLAB_SLACK;
}

static int struct_named(struct btf **list, size_t n, const char *name,
			const struct btf **which)
{
	size_t i;
	int id;

	for (i = 0; i < n; i++) {
		id = btf__find_by_name_kind(list[i], name, BTF_KIND_STRUCT);
		if (id > 0) {
			*which = list[i];
			return id;
		}
	}
	return -1;
}

/*
 * A struct named after the cache ("-" read as "_"): its type, even where
 * larger than the objects (task_struct ends in FPU state sized at boot).
 * Else one named after the cache's stem, without "_cache" or "_cachep",
 * with "_info" or "_struct" added ("ext4_inode_cache" holds
 * ext4_inode_info), that fills the objects: a stem's struct may be
 * another one (ext4_inode is the inode on disk).
 */
static int by_cache_name(struct btf **list, size_t n, const char *cache,
			 unsigned int obj_size, const struct btf **which)
{
	static const char * const suffixes[] = { "_cachep", "_cache" };
	static const char * const added[] = { "", "_info", "_struct" };
	char *name = strdup(cache), *p, stem[128], cand[160];
	size_t i, k;
	int id;

	if (!name)
		return -1;
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	id = struct_named(list, n, name, which);
	if (id > 0)
		goto out;
	snprintf(stem, sizeof(stem), "%s", name);
	for (i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
		size_t sl = strlen(stem), xl = strlen(suffixes[i]);

		if (sl > xl && !strcmp(stem + sl - xl, suffixes[i])) {
			stem[sl - xl] = '\0';
			break;
		}
	}
	for (k = 0; k < sizeof(added) / sizeof(*added); k++) {
		snprintf(cand, sizeof(cand), "%s%s", stem, added[k]);
		id = struct_named(list, n, cand, which);
		if (id > 0 && fills_cache(cache,
					  btf__type_by_id(*which, id)->size,
					  obj_size))
			goto out;
	}
	id = -1;
out:
	free(name);
	return id;
}

/* The narrower of the reported accesses, in bytes; 0 when none says. */
static unsigned int access_size(const struct kc_report *r)
{
	unsigned int size = 0;
	int k;

	for (k = 0; k < r->nacc; k++)
		if (r->acc[k].size && (!size || r->acc[k].size < size))
			size = r->acc[k].size;
	return size;
}

/*
 * Whether the member @f a guessed type has at the offset @off holds the
 * reported accesses whole: an 8-byte load at a char array's first element
 * says the guess is wrong. A bitfield's word is read wider than its bits.
 */
static bool holds_access(const struct kc_report *r, unsigned int off,
			 const struct kc_btf_field *f)
{
	unsigned int size = access_size(r);

	return f->bitfield || !f->field_size || !size ||
	       off + size <= f->field_offset + f->field_size;
}

/* @func's prototype in the first of @list that has it, and which one. */
static const struct btf_type *func_proto(struct btf **list, size_t n,
					 const char *func,
					 const struct btf **which)
{
	const struct btf_type *proto;
	size_t i;
	int fid;

	for (i = 0; i < n; i++) {
		fid = btf__find_by_name_kind(list[i], func, BTF_KIND_FUNC);
		if (fid <= 0)
			continue;
		proto = btf__type_by_id(list[i], btf__type_by_id(list[i], fid)->type);
		*which = list[i];
		return proto && btf_is_func_proto(proto) ? proto : NULL;
	}
	return NULL;
}

/* The struct pointer argument @k of @proto points to, or NULL. */
static const struct btf_type *arg_struct(const struct btf *btf,
					 const struct btf_type *proto, int k,
					 __u32 *id)
{
	const struct btf_type *t;

	*id = btf_params(proto)[k].type;
	t = skip_mods(btf, id);
	if (!t || !btf_is_ptr(t))
		return NULL;
	*id = t->type;
	t = skip_mods(btf, id);
	return t && btf_is_struct(t) ? t : NULL;
}

/*
 * Whether @func, when BTF knows it, takes a pointer to a struct named
 * @name too: the guess must hold for both racing functions, or a function
 * passed another object (a statfs given the dentry of a superblock whose
 * private data raced) names fields that are not there.
 */
static bool takes_struct(struct btf **list, size_t n, const char *func,
			 const char *name)
{
	const struct btf *btf;
	const struct btf_type *proto = func_proto(list, n, func, &btf);
	const struct btf_type *t;
	__u32 id;
	int k;

	if (!proto)
		return true;
	for (k = 0; k < btf_vlen(proto); k++) {
		t = arg_struct(btf, proto, k, &id);
		if (t && !strcmp(btf__name_by_offset(btf, t->name_off), name))
			return true;
	}
	return false;
}

/*
 * The struct a pointer argument of side @side's function points to that
 * fits @cache, holds the access at @off, and the other side's function
 * takes too; its member path in @out.
 */
static int by_arguments(struct btf **list, size_t n, const struct kc_report *r,
			int side, const char *cache, unsigned int obj_size,
			unsigned int off, struct kc_btf_field *out)
{
	const struct btf *btf;
	const struct btf_type *proto, *t;
	const char *name;
	__u32 id;
	int k, j;

	proto = func_proto(list, n, r->acc[side].sym.func, &btf);
	for (k = 0; proto && k < btf_vlen(proto); k++) {
		t = arg_struct(btf, proto, k, &id);
		if (!t || off >= t->size || !fills_cache(cache, t->size, obj_size))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		for (j = 0; j < r->nacc; j++)
			if (j != side && r->acc[j].have_sym &&
			    !takes_struct(list, n, r->acc[j].sym.func, name))
				break;
		if (j < r->nacc)
			continue;
		if (fill(btf, id, off, access_size(r), out) &&
		    holds_access(r, off, out))
			return id;
		kc_btf_field_free(out);
	}
	return -1;
}

/*
 * The type a hint names, when it lies inside the object where the access
 * puts it (the access @disp bytes into it) and its member there holds the
 * access. It need not be the object's own type: a pointer to a struct
 * embedded in the object names that struct's field, which is still the
 * field raced on.
 */
static int by_hint(struct btf **list, size_t n, const struct kc_report *r,
		   const struct kc_btf_hint *h, unsigned int obj_size,
		   unsigned int off, struct kc_btf_field *out)
{
	int kind = h->is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	const struct btf_type *t;
	unsigned int base;
	size_t i;
	int id;

	if (h->disp < 0 || (unsigned int)h->disp > off)
		return -1;
	base = off - h->disp;
	for (i = 0; i < n; i++) {
		id = btf__find_by_name_kind(list[i], h->name, kind);
		if (id <= 0)
			continue;
		t = btf__type_by_id(list[i], id);
		if ((unsigned int)h->disp >= t->size || base + t->size > obj_size)
			return -1;
		if (fill_at(list[i], id, off, base, access_size(r), out) &&
		    holds_access(r, off, out))
			return id;
		kc_btf_field_free(out);
		return -1;
	}
	return -1;
}

/*
 * The hint whose type starts lowest in the object: of a pointer to the
 * object and one to a struct inside it, the first names the field whole.
 */
static int by_hints(struct btf **list, size_t n, const struct kc_report *r,
		    const struct kc_btf_hint *hints, int nhints,
		    unsigned int obj_size, unsigned int off,
		    struct kc_btf_field *out)
{
	struct kc_btf_field f;
	int best = -1, id, k;

	for (k = 0; k < nhints; k++) {
		memset(&f, 0, sizeof(f));
		id = by_hint(list, n, r, &hints[k], obj_size, off, &f);
		if (id <= 0)
			continue;
		if (best > 0 && f.type_offset >= out->type_offset) {
			kc_btf_field_free(&f);
			continue;
		}
		if (best > 0)
			kc_btf_field_free(out);
		*out = f;
		best = id;
	}
	return best;
}

static bool kv_uint(const struct kc_tool_line *t, const char *key,
		    unsigned int *v)
{
	const char *s = kc_tool_line_get(t, key);
	char *end;
	unsigned long x;

	if (!s)
		return false;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || *end || x > ~0U)
		return false;
	*v = x;
	return true;
}

/*
 * Per-CPU data: the report gives the offset in its CPU's unit, not where
 * the allocation starts, so the type is DWARF's alone and the offsets are
 * the access's in it; "cache" says "percpu".
 */
static bool resolve_percpu(struct kc_btf *b, const struct kc_report *r,
			   const struct kc_btf_hint *hints, int nhints,
			   struct kc_btf_field *out)
{
	struct btf *list[16];
	size_t n = search_list(b, r, list, 16);
	int k;

	for (k = 0; k < nhints; k++) {
		if (hints[k].disp < 0 ||
		    by_hint(list, n, r, &hints[k], ~0U, hints[k].disp, out) <= 0)
			continue;
		out->by = "dwarf";
		out->offset = hints[k].disp;
		out->cache = strdup("percpu");
		return out->cache != NULL;
	}
	return false;
}

bool kc_btf_resolve(struct kc_btf *b, const struct kc_report *r,
		    const struct kc_btf_hint *hints, int nhints,
		    struct kc_btf_field *out)
{
	const struct kc_tool_line *t = kc_report_tool_line(r, "object");
	struct btf *list[16];
	const struct btf *which = NULL;
	unsigned int off, obj_size;
	const char *cache;
	size_t n;
	int id, k;

	memset(out, 0, sizeof(*out));
	if (b && t && !strcmp(t->words, "percpu"))
		return resolve_percpu(b, r, hints, nhints, out);
	if (!b || !t || strcmp(t->words, "slab"))
		return false;
	cache = kc_tool_line_get(t, "cache");
	if (!cache || !kv_uint(t, "offset", &off) || !kv_uint(t, "size", &obj_size))
		return false;
	n = search_list(b, r, list, 16);
	id = by_cache_name(list, n, cache, obj_size, &which);
	if (id > 0 && !fill(which, id, off, access_size(r), out)) {
		kc_btf_field_free(out);
		id = -1;
	}
	if (id <= 0) {
		id = by_hints(list, n, r, hints, nhints, obj_size, off, out);
		out->by = "dwarf";
	}
	for (k = 0; id <= 0 && k < r->nacc; k++) {
		if (!r->acc[k].have_sym)
			continue;
		id = by_arguments(list, n, r, k, cache, obj_size, off, out);
		out->by = "arguments";
	}
	if (id <= 0) {
		kc_btf_field_free(out);
		return false;
	}
	if (!out->by)
		out->by = "cache-name";
	out->offset = off;
	out->cache = strdup(cache);
	return out->cache != NULL;
}

void kc_btf_field_free(struct kc_btf_field *f)
{
	free(f->type);
	free(f->field);
	free(f->cache);
	memset(f, 0, sizeof(*f));
}
