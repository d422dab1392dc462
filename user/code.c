// SPDX-License-Identifier: GPL-2.0
/*
 * Code sources. Both kinds end up as the same two tables: symbols sorted
 * by address (and by name) and file segments mapping addresses to file
 * offsets (PT_LOAD of the ELF or of /proc/kcore), read with pread().
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code.h"
#include "kallsyms.h"
#include "modules.h"

static int load_symtab(struct code_src *c, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i, n;
	int ret = 0;

	while ((scn = elf_nextscn(elf, scn)) && !ret) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; data && i < n && !ret; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && *name)
				ret = symtab_add(&c->image, name, NULL, sym.st_value,
						 sym.st_size);
		}
	}
	return ret;
}

static int load_phdrs(struct code_src *c, Elf *elf)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	c->segs = calloc(n + 1, sizeof(*c->segs));
	if (!c->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		c->segs[c->nsegs].addr = ph.p_vaddr;
		c->segs[c->nsegs].len = ph.p_filesz;
		c->segs[c->nsegs++].off = ph.p_offset;
	}
	return 0;
}

/* DWARF line info is optional: without it the witness has no source line. */
static void open_dwarf(struct code_src *c)
{
	static const Dwfl_Callbacks cb = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl *dwfl = dwfl_begin(&cb);

	if (!dwfl)
		return;
	if (!dwfl_report_offline(dwfl, "", c->path, -1)) {
		dwfl_end(dwfl);
		return;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	c->dwfl = dwfl;
}

int code_open_elf(struct code_src *c, const char *path, char *err, size_t len)
{
	GElf_Ehdr eh;
	Elf *elf;
	int ret;

	memset(c, 0, sizeof(*c));
	elf_version(EV_CURRENT);
	c->path = strdup(path);
	c->fd = open(path, O_RDONLY);
	if (c->fd < 0) {
		ret = -errno;
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return ret;
	}
	elf = elf_begin(c->fd, ELF_C_READ, NULL);
	c->elf = elf;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64) {
		snprintf(err, len, "%s: not an x86-64 ELF file", path);
		return -EINVAL;
	}
	ret = load_symtab(c, elf);
	if (!ret)
		ret = load_phdrs(c, elf);
	if (!ret && !c->image.nsyms) {
		snprintf(err, len, "%s: no function symbols (stripped?)", path);
		return -ENOENT;
	}
	if (!ret && !c->nsegs) {
		snprintf(err, len, "%s: no loadable segments", path);
		return -ENOENT;
	}
	if (ret) {
		snprintf(err, len, "%s: %s", path, strerror(-ret));
		return ret;
	}
	open_dwarf(c);
	return symtab_index(&c->image);
}

/* Text symbols are the functions; a module's others place its .ko's data. */
static int add_ksym(const struct kc_ksym *s, void *data)
{
	struct code_src *c = data;

	if (s->type == 't' || s->type == 'T')
		return symtab_add(&c->image, s->name, s->mod, s->addr, 0);
	return s->mod ? modset_live_data(c->ms, s->name, s->mod, s->addr) : 0;
}

/* /proc/kallsyms has no sizes: a function ends where the next one starts. */
static int load_kallsyms(struct code_src *c)
{
	struct kc_symtab *t = &c->image;
	size_t i;
	int ret;

	ret = kc_kallsyms_each(KC_KALLSYMS, add_ksym, c);
	if (ret)
		return ret;
	symtab_sort(t);
	for (i = 0; i + 1 < t->nsyms; i++)
		t->syms[i].size = t->syms[i + 1].addr - t->syms[i].addr;
	if (t->nsyms && !t->syms[t->nsyms - 1].addr)
		return -EPERM;	/* kptr_restrict: addresses hidden */
	return 0;
}

int code_open_live(struct code_src *c, char *err, size_t len)
{
	Elf *elf;
	int ret;

	memset(c, 0, sizeof(*c));
	elf_version(EV_CURRENT);
	c->live = true;
	c->path = strdup("/proc/kcore");
	/* Modules named by frames come from /lib/modules when found there. */
	c->ms = modset_new(&c->image, true);
	if (!c->path || !c->ms) {
		snprintf(err, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = load_kallsyms(c);
	if (ret) {
		snprintf(err, len, KC_KALLSYMS ": %s", strerror(-ret));
		return ret;
	}
	c->fd = open("/proc/kcore", O_RDONLY);
	if (c->fd < 0) {
		ret = -errno;
		snprintf(err, len,
			 "/proc/kcore: %s (live mode needs root and CONFIG_PROC_KCORE; or use --vmlinux)",
			 strerror(errno));
		return ret;
	}
	elf = elf_begin(c->fd, ELF_C_READ, NULL);
	c->elf = elf;
	if (!elf || load_phdrs(c, elf)) {
		snprintf(err, len, "/proc/kcore: not readable as ELF");
		return -EINVAL;
	}
	return symtab_index(&c->image);
}

void code_close(struct code_src *c)
{
	symtab_free(&c->image);
	modset_free(c->ms);
	if (c->dwfl)
		dwfl_end(c->dwfl);
	if (c->elf)
		elf_end(c->elf);
	if (c->fd > 0)
		close(c->fd);
	free(c->segs);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

int code_add_modules(struct code_src *c, const char *dir, char *err, size_t len)
{
	if (!c->ms)
		c->ms = modset_new(&c->image, c->live);
	if (!c->ms) {
		snprintf(err, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return modset_add_dir(c->ms, dir, err, len);
}

const struct kc_module *code_module(const struct code_src *c, const char *name)
{
	return c->ms ? modset_module(c->ms, name) : NULL;
}

/* A module's own .ko first: exact sizes, and bytes without kprobes. */
const struct kc_sym *code_find_name(const struct code_src *c, const char *name,
				    const char *mod, uint64_t size)
{
	const struct kc_sym *s = modset_find_name(c->ms, name, mod, size);

	return s ? s : symtab_find_name(&c->image, name, mod, size);
}

const struct kc_sym *code_find_addr(const struct code_src *c, uint64_t addr)
{
	const struct kc_sym *s = modset_find_addr(c->ms, addr);

	return s ? s : symtab_find_addr(&c->image, addr);
}

long code_read(const struct code_src *c, uint64_t addr, void *buf, size_t len)
{
	long n = modset_read(c->ms, addr, buf, len);
	size_t i;

	if (n != -2)
		return n;

	for (i = 0; i < c->nsegs; i++) {
		const struct code_seg *s = &c->segs[i];
		ssize_t n;

		if (addr < s->addr || addr >= s->addr + s->len)
			continue;
		if (len > s->addr + s->len - addr)
			len = s->addr + s->len - addr;
		n = pread(c->fd, buf, len, s->off + (addr - s->addr));
		return n < 0 ? -1 : n;
	}
	return -1;
}

char *code_sym(const struct code_src *c, uint64_t addr)
{
	const struct kc_sym *s = code_find_addr(c, addr);
	char *out;
	int n;

	if (s)
		n = asprintf(&out, "%s+0x%" PRIx64, s->name, addr - s->addr);
	else
		n = asprintf(&out, "0x%" PRIx64, addr);
	return n < 0 ? NULL : out;
}

void code_symbolize(const struct code_src *c, uint64_t addr, char *buf, size_t len)
{
	const struct kc_sym *s = code_find_addr(c, addr);

	if (s)
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr - s->addr);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
}

bool code_source_line(const struct code_src *c, uint64_t addr, char *buf,
		      size_t len)
{
	Dwfl_Module *m;
	Dwfl_Line *l;
	const char *file, *base;
	int line = 0;

	if (!c->dwfl)
		return false;
	m = dwfl_addrmodule(c->dwfl, addr);
	l = m ? dwfl_module_getsrc(m, addr) : NULL;
	file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
	if (!file)
		return false;
	base = strrchr(file, '/');
	snprintf(buf, len, "%s:%d", base ? base + 1 : file, line);
	return true;
}
