// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel modules as a code source: .ko files (ET_REL) loaded the way the
 * kernel's module loader would, so that the CFG of module code sees real
 * call targets.
 *
 * Each allocated section gets an address: offline, the modules are laid
 * out one after the other from KC_MODULES_BASE; live, where
 * /proc/kallsyms says the running module has the section (found through
 * any symbol the section defines). Then the RELA relocations are applied:
 * PC32/PLT32 (calls, jumps, RIP-relative operands), 32/32S and 64. A
 * symbol the module does not define resolves by name in the image
 * (vmlinux or kallsyms), then in the other loaded modules, else to a
 * placeholder address that carries its name, so "call __x86_return_thunk"
 * stays recognizable and a call to missing code is "code-unavailable".
 *
 * Live, a module's bytes come from its .ko rather than /proc/kcore: the
 * running text has int3s wherever a kprobe is armed (kcollider's own
 * sampler puts them on exactly the instructions that get reported).
 */
#include <dirent.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "modules.h"
#include "readfile.h"

/* One allocated section of a loaded .ko, at its (live or chosen) address. */
struct kc_section {
	uint64_t addr, size;
	uint8_t *data;		/* relocated bytes; NULL for NOBITS */
};

/* A .ko file: its sections, relocated, and its function symbols. */
struct kc_module {
	char *name;		/* as /proc/kallsyms and reports spell it */
	char *path;
	struct kc_section *secs;
	size_t nsecs;
	struct kc_symtab syms;	/* never added to once loaded */
};

struct kc_modset {
	const struct kc_symtab *image;
	bool live;
	struct kc_module **mods;
	size_t n;
	struct kc_sym **undef;		/* placeholders, in address order */
	size_t nundef;
	char **tried;			/* names looked up in /lib/modules */
	size_t ntried;
	struct kc_sym *live_data;	/* live: modules' non-text symbols */
	size_t nlive_data;
	uint64_t next_base;
};

/* A .ko being loaded: the ELF stays open until it is relocated. */
struct ko {
	char *buf;
	Elf *elf;
	size_t shnum;
	Elf_Data *symdata;
	size_t nsym, strndx;
	struct kc_module *m;
};

static int grow(void *pp, size_t n, size_t elem)
{
	void **p = pp, *q;

	/* Capacity is the next power of two: grow when n reaches one. */
	if (n & (n - 1) || (n && n < 16))
		return 0;
	q = realloc(*p, (n ? 2 * n : 16) * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

struct kc_modset *modset_new(const struct kc_symtab *image, bool live)
{
	struct kc_modset *ms = calloc(1, sizeof(*ms));

	if (!ms)
		return NULL;
	ms->image = image;
	ms->live = live;
	ms->next_base = KC_MODULES_BASE;
	return ms;
}

int modset_live_data(struct kc_modset *ms, const char *name, const char *mod,
		     uint64_t addr)
{
	struct kc_sym *s;

	if (grow(&ms->live_data, ms->nlive_data, sizeof(*s)))
		return -ENOMEM;
	s = &ms->live_data[ms->nlive_data];
	s->name = strdup(name);
	s->mod = strdup(mod);
	s->addr = addr;
	s->size = 0;
	if (!s->name || !s->mod)
		return -ENOMEM;
	ms->nlive_data++;
	return 0;
}

/* Live address of a module symbol, 0 when kallsyms does not list it. */
static uint64_t live_addr(const struct kc_modset *ms, const char *name,
			  const char *mod, bool text)
{
	const struct kc_sym *s;
	size_t i;

	if (text) {
		s = symtab_find_name(ms->image, name, mod, 0);
		return s ? s->addr : 0;
	}
	for (i = 0; ms && i < ms->nlive_data; i++) {
		s = &ms->live_data[i];
		if (!strcmp(s->name, name) && !strcmp(s->mod, mod))
			return s->addr;
	}
	return 0;
}

static uint64_t placeholder(struct kc_modset *ms, const char *name)
{
	struct kc_sym *s;
	size_t i;

	for (i = 0; i < ms->nundef; i++)
		if (!strcmp(ms->undef[i]->name, name))
			return ms->undef[i]->addr;
	if (grow(&ms->undef, ms->nundef, sizeof(*ms->undef)))
		return 0;
	s = calloc(1, sizeof(*s));
	if (s)
		s->name = strdup(name);
	if (!s || !s->name) {
		free(s);
		return 0;
	}
	s->addr = KC_UNDEF_BASE + ms->nundef * KC_UNDEF_STEP;
	ms->undef[ms->nundef++] = s;
	return s->addr;
}

static void module_free(struct kc_module *m)
{
	size_t i;

	if (!m)
		return;
	symtab_free(&m->syms);
	for (i = 0; i < m->nsecs; i++)
		free(m->secs[i].data);
	free(m->secs);
	free(m->name);
	free(m->path);
	free(m);
}

static void ko_close(struct ko *k)
{
	if (k->elf)
		elf_end(k->elf);
	free(k->buf);
	module_free(k->m);
	memset(k, 0, sizeof(*k));
}

/* "name=" of .modinfo, else the file name: what kallsyms calls it. */
static char *ko_name(struct ko *k, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i, shstrndx;
	char *name;

	if (!elf_getshdrstrndx(k->elf, &shstrndx)) {
		for (i = 1; i < k->shnum; i++) {
			Elf_Scn *scn = elf_getscn(k->elf, i);
			Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
			GElf_Shdr sh;
			const char *p, *end, *sn;

			if (!d || !gelf_getshdr(scn, &sh))
				continue;
			sn = elf_strptr(k->elf, shstrndx, sh.sh_name);
			if (!sn || strcmp(sn, ".modinfo") || !d->d_buf)
				continue;
			end = (const char *)d->d_buf + d->d_size;
			for (p = d->d_buf; p < end; p += strnlen(p, end - p) + 1)
				if (!strncmp(p, "name=", 5) && memchr(p, 0, end - p))
					return strdup(p + 5);
		}
	}
	name = strdup(base ? base + 1 : path);
	if (name && strchr(name, '.'))
		*strchr(name, '.') = '\0';
	for (i = 0; name && name[i]; i++)
		if (name[i] == '-')
			name[i] = '_';
	return name;
}

static int ko_open(struct ko *k, const char *path)
{
	GElf_Ehdr eh;
	size_t size, i;

	memset(k, 0, sizeof(*k));
	k->buf = kc_read_file(path, KC_READ_ANY, &size);
	if (!k->buf)
		return -errno;
	k->elf = elf_memory(k->buf, size);
	if (!k->elf || !gelf_getehdr(k->elf, &eh) || eh.e_type != ET_REL ||
	    eh.e_machine != EM_X86_64 || elf_getshdrnum(k->elf, &k->shnum))
		return -ENOEXEC;
	for (i = 1; i < k->shnum; i++) {
		Elf_Scn *scn = elf_getscn(k->elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		k->symdata = elf_getdata(scn, NULL);
		k->nsym = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		k->strndx = sh.sh_link;
	}
	if (!k->symdata)
		return -ENOEXEC;
	k->m = calloc(1, sizeof(*k->m));
	if (!k->m)
		return -ENOMEM;
	k->m->path = strdup(path);
	k->m->name = ko_name(k, path);
	k->m->nsecs = k->shnum;
	k->m->secs = calloc(k->shnum, sizeof(*k->m->secs));
	return k->m->path && k->m->name && k->m->secs ? 0 : -ENOMEM;
}

static const char *sym_name(const struct ko *k, const GElf_Sym *s)
{
	const char *n = elf_strptr(k->elf, k->strndx, s->st_name);

	return n && *n ? n : NULL;
}

/* Live: where the running module has section @i, 0 if nowhere known. */
static uint64_t live_section(const struct kc_modset *ms, const struct ko *k,
			     size_t i, bool text)
{
	size_t j;

	for (j = 1; j < k->nsym; j++) {
		GElf_Sym s;
		const char *n;
		uint64_t a;
		int t;

		if (!gelf_getsym(k->symdata, j, &s) || s.st_shndx != i)
			continue;
		t = GELF_ST_TYPE(s.st_info);
		n = sym_name(k, &s);
		if (!n || (t != STT_FUNC && t != STT_OBJECT && t != STT_NOTYPE))
			continue;
		a = live_addr(ms, n, k->m->name, text && t == STT_FUNC);
		if (a)
			return a - s.st_value;
	}
	return 0;
}

/* Addresses and bytes of the allocated sections. */
static int ko_place(struct kc_modset *ms, struct ko *k)
{
	uint64_t base = ms->next_base, end = base;
	size_t i;

	for (i = 1; i < k->shnum; i++) {
		Elf_Scn *scn = elf_getscn(k->elf, i);
		struct kc_section *sec = &k->m->secs[i];
		uint64_t align;
		Elf_Data *d;
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_size)
			continue;
		if (ms->live) {
			sec->addr = live_section(ms, k, i, sh.sh_flags & SHF_EXECINSTR);
		} else {
			align = sh.sh_addralign > 16 ? sh.sh_addralign : 16;
			sec->addr = (end + align - 1) & ~(align - 1);
			end = sec->addr + sh.sh_size;
		}
		sec->size = sh.sh_size;
		d = elf_getdata(scn, NULL);
		if (sh.sh_type == SHT_NOBITS || !d || d->d_size != sh.sh_size)
			continue;
		sec->data = malloc(sh.sh_size);
		if (!sec->data)
			return -ENOMEM;
		memcpy(sec->data, d->d_buf, sh.sh_size);
	}
	if (!ms->live)
		ms->next_base += (end - base + KC_MODULES_STRIDE - 1) &
				    ~(KC_MODULES_STRIDE - 1);
	return 0;
}

static bool placed(const struct ko *k, size_t shndx)
{
	return shndx > 0 && shndx < k->shnum && k->m->secs[shndx].addr;
}

/*
 * Function symbols. Live, each must be where kallsyms has it: a .ko that
 * is not the build of the running module is refused (-ESTALE).
 */
static int ko_syms(struct kc_modset *ms, struct ko *k)
{
	struct kc_module *m = k->m;
	size_t j;
	int ret;

	for (j = 1; j < k->nsym; j++) {
		const struct kc_sym *live;
		const char *name;
		uint64_t addr;
		GElf_Sym es;

		if (!gelf_getsym(k->symdata, j, &es) ||
		    GELF_ST_TYPE(es.st_info) != STT_FUNC || !placed(k, es.st_shndx))
			continue;
		name = sym_name(k, &es);
		if (!name)
			continue;
		addr = m->secs[es.st_shndx].addr + es.st_value;
		live = ms->live ? symtab_find_name(ms->image, name, m->name, 0) : NULL;
		if (live && live->addr != addr)
			return -ESTALE;
		ret = symtab_add(&m->syms, name, m->name, addr, es.st_size);
		if (ret)
			return ret;
	}
	return symtab_index(&m->syms);
}

/* An undefined symbol: the image, another module, else a placeholder. */
static uint64_t extern_addr(struct kc_modset *ms, const struct kc_module *self,
			    const char *name)
{
	const struct kc_sym *s = symtab_find_name(ms->image, name, NULL, 0);
	size_t i;

	if (s)
		return s->addr;
	for (i = 0; i < ms->n; i++) {
		if (ms->mods[i] == self)
			continue;
		s = symtab_find_name(&ms->mods[i]->syms, name,
				     ms->mods[i]->name, 0);
		if (s)
			return s->addr;
	}
	return placeholder(ms, name);
}

static void put(uint8_t *p, uint64_t v, int width)
{
	memcpy(p, &v, width);	/* x86-64: little endian, as the target */
}

/* S of a relocation: false when its section is not loaded. */
static bool sym_value(struct kc_modset *ms, struct ko *k, const GElf_Sym *es,
		      uint64_t *s)
{
	const char *name;

	if (es->st_shndx == SHN_ABS) {
		*s = es->st_value;
		return true;
	}
	if (placed(k, es->st_shndx)) {
		*s = k->m->secs[es->st_shndx].addr + es->st_value;
		return true;
	}
	name = es->st_shndx == SHN_UNDEF ? sym_name(k, es) : NULL;
	if (!name)
		return false;
	*s = extern_addr(ms, k->m, name);
	return true;
}

static void apply_one(struct kc_modset *ms, struct ko *k, struct kc_section *sec,
		      const GElf_Rela *r)
{
	uint64_t p = sec->addr + r->r_offset, s;
	size_t si = GELF_R_SYM(r->r_info);
	int type = GELF_R_TYPE(r->r_info), width;
	GElf_Sym es;

	switch (type) {
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
	case R_X86_64_32:
	case R_X86_64_32S:
		width = 4;
		break;
	case R_X86_64_64:
	case R_X86_64_PC64:
		width = 8;
		break;
	default:
		return;		/* not in kernel modules' text */
	}
	if (r->r_offset + width > sec->size || !gelf_getsym(k->symdata, si, &es))
		return;
	if (!sym_value(ms, k, &es, &s))
		return;		/* a section that is not loaded */
	s += r->r_addend;
	if (type == R_X86_64_PC32 || type == R_X86_64_PLT32 || type == R_X86_64_PC64)
		s -= p;
	put(sec->data + r->r_offset, s, width);
}

static void ko_relocate(struct kc_modset *ms, struct ko *k)
{
	size_t i, j, n;

	for (i = 1; i < k->shnum; i++) {
		Elf_Scn *scn = elf_getscn(k->elf, i);
		struct kc_section *sec;
		Elf_Data *d;
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_info >= k->shnum)
			continue;
		sec = &k->m->secs[sh.sh_info];
		d = elf_getdata(scn, NULL);
		if (!sec->addr || !sec->data || !d)
			continue;
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (j = 0; j < n; j++) {
			GElf_Rela r;

			if (gelf_getrela(d, j, &r))
				apply_one(ms, k, sec, &r);
		}
	}
}

static const struct kc_module *find_loaded(const struct kc_modset *ms,
					   const char *name)
{
	size_t i;

	for (i = 0; ms && i < ms->n; i++)
		if (!strcmp(ms->mods[i]->name, name))
			return ms->mods[i];
	return NULL;
}

static bool has_text(const struct ko *k)
{
	return k->m->syms.nsyms > 0;
}

/* Open, place and index one .ko; the caller relocates and adopts it. */
static int ko_load(struct kc_modset *ms, const char *path, struct ko *k)
{
	int ret = ko_open(k, path);

	if (!ret && find_loaded(ms, k->m->name))
		ret = -EEXIST;
	if (!ret)
		ret = ko_place(ms, k);
	if (!ret)
		ret = ko_syms(ms, k);
	if (!ret && !has_text(k))
		ret = -ENOENT;	/* live: not loaded; offline: no code */
	return ret;
}

static int adopt(struct kc_modset *ms, struct ko *k)
{

	if (grow(&ms->mods, ms->n, sizeof(*ms->mods)))
		return -ENOMEM;
	ms->mods[ms->n++] = k->m;
	k->m = NULL;
	ko_close(k);
	return 0;
}

static bool is_ko(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, ".ko");
}

static void warn_ko(const char *path, int ret)
{
	/* Live, modules that are not loaded are simply not used. */
	if (ret == -ENOENT || ret == -EEXIST)
		return;
	fprintf(stderr, "kcollider: %s: %s\n", path,
		ret == -ENOEXEC ? "not a relocatable x86-64 object" :
		ret == -ESTALE ? "not the build of the loaded module (skipped)" :
		strerror(-ret));
}

int modset_add_dir(struct kc_modset *ms, const char *dir, char *err,
		   size_t len)
{
	struct ko *ks = NULL;
	size_t nk = 0, i;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d) {
		ret = -errno;
		snprintf(err, len, "%s: %s", dir, strerror(errno));
		return ret;
	}
	/* All placed first: relocations may name another module's symbols. */
	while ((de = readdir(d)) && !ret) {
		char *path;
		int r;

		if (!is_ko(de->d_name))
			continue;
		if (grow(&ks, nk, sizeof(*ks)) ||
		    grow(&ms->mods, ms->n, sizeof(*ms->mods))) {
			ret = -ENOMEM;
			break;
		}
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		r = ko_load(ms, path, &ks[nk]);
		if (r) {
			warn_ko(path, r);
			ko_close(&ks[nk]);
		}
		free(path);
		if (r)
			continue;
		/* Visible to the other modules' relocations, not yet relocated. */
		ms->mods[ms->n++] = ks[nk++].m;
	}
	closedir(d);
	for (i = 0; i < nk; i++) {
		ko_relocate(ms, &ks[i]);
		ks[i].m = NULL;	/* owned by the module set */
		ko_close(&ks[i]);
	}
	free(ks);
	if (ret)
		snprintf(err, len, "%s: %s", dir, strerror(-ret));
	return ret;
}

/*
 * /lib/modules/$(uname -r)/modules.dep: the file of module @name, allocated
 * (free() it), or NULL.
 */
static char *lib_modules_path(const char *name)
{
	char dir[PATH_MAX], *line = NULL, *out = NULL;
	struct utsname u;
	bool found = false;
	size_t cap = 0;
	FILE *f;

	if (uname(&u))
		return NULL;
	snprintf(dir, sizeof(dir), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(dir, "r");
	if (!f)
		return NULL;
	*strrchr(dir, '/') = '\0';
	/* Lines of any length: a dependency list can be long. */
	while (!found && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *base, *p;

		if (!colon)
			continue;
		*colon = '\0';
		if (!is_ko(line))
			continue;	/* compressed: not readable here */
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (asprintf(&out, "%s/%s", dir, line) < 0)
			break;
		base[strlen(base) - 3] = '\0';
		for (p = base; *p; p++)
			if (*p == '-')
				*p = '_';
		found = !strcmp(base, name);
		if (!found) {
			free(out);
			out = NULL;
		}
	}
	free(line);
	fclose(f);
	return out;
}

/* Live: a module named by a frame but not in --modules DIR. */
static const struct kc_module *load_lazily(struct kc_modset *ms, const char *name)
{
	char *path;
	struct ko k;
	size_t i;
	int ret;

	for (i = 0; i < ms->ntried; i++)
		if (!strcmp(ms->tried[i], name))
			return NULL;
	if (grow(&ms->tried, ms->ntried, sizeof(*ms->tried)))
		return NULL;
	ms->tried[ms->ntried] = strdup(name);
	if (!ms->tried[ms->ntried])
		return NULL;
	ms->ntried++;
	path = lib_modules_path(name);
	if (!path)
		return NULL;
	ret = ko_load(ms, path, &k);
	if (!ret) {
		ko_relocate(ms, &k);
		ret = adopt(ms, &k);
	}
	if (ret) {
		warn_ko(path, ret);
		ko_close(&k);
	}
	free(path);
	if (ret)
		return NULL;
	return ms->mods[ms->n - 1];
}

const struct kc_module *modset_module(struct kc_modset *ms, const char *name)
{
	const struct kc_module *m = find_loaded(ms, name);

	if (!m && ms && ms->live)
		m = load_lazily(ms, name);
	return m;
}

static const struct kc_section *section_at(const struct kc_modset *ms,
					   uint64_t addr,
					   const struct kc_module **mp)
{
	size_t i, j;

	for (i = 0; ms && i < ms->n; i++) {
		const struct kc_module *m = ms->mods[i];

		for (j = 0; j < m->nsecs; j++) {
			const struct kc_section *s = &m->secs[j];

			if (s->addr && addr >= s->addr && addr < s->addr + s->size) {
				*mp = m;
				return s;
			}
		}
	}
	return NULL;
}

const struct kc_sym *modset_find_addr(const struct kc_modset *ms, uint64_t addr)
{
	const struct kc_module *m;
	uint64_t i;

	if (!ms)
		return NULL;
	if (section_at(ms, addr, &m))
		return symtab_find_addr(&m->syms, addr);
	if (addr < KC_UNDEF_BASE || (addr - KC_UNDEF_BASE) % KC_UNDEF_STEP)
		return NULL;
	i = (addr - KC_UNDEF_BASE) / KC_UNDEF_STEP;
	return i < ms->nundef ? ms->undef[i] : NULL;
}

const struct kc_sym *modset_find_name(struct kc_modset *ms, const char *name,
				      const char *mod, uint64_t size)
{
	const struct kc_module *m;

	if (!ms || !mod || !*mod)
		return NULL;
	m = modset_module(ms, mod);
	return m ? symtab_find_name(&m->syms, name, mod, size) : NULL;
}

long modset_read(const struct kc_modset *ms, uint64_t addr, void *buf,
		 size_t len)
{
	const struct kc_section *s;
	const struct kc_module *m;

	s = section_at(ms, addr, &m);
	if (!s)
		return -2;
	if (!s->data)
		return -1;
	if (len > s->addr + s->size - addr)
		len = s->addr + s->size - addr;
	memcpy(buf, s->data + (addr - s->addr), len);
	return len;
}

void modset_free(struct kc_modset *ms)
{
	size_t i;

	if (!ms)
		return;
	for (i = 0; i < ms->n; i++)
		module_free(ms->mods[i]);
	for (i = 0; i < ms->nundef; i++) {
		free((char *)ms->undef[i]->name);
		free(ms->undef[i]);
	}
	for (i = 0; i < ms->ntried; i++)
		free(ms->tried[i]);
	for (i = 0; i < ms->nlive_data; i++) {
		free((char *)ms->live_data[i].name);
		free((char *)ms->live_data[i].mod);
	}
	free(ms->mods);
	free(ms->undef);
	free(ms->tried);
	free(ms->live_data);
	free(ms);
}
