// SPDX-License-Identifier: GPL-2.0
/*
 * Oracle test of the decoder: every instruction of a real distribution
 * kernel, decoded by kcollider's decoder (lib/x86_decode.c) and by capstone,
 * must agree on the length and, for memory operands, on base, index,
 * scale, displacement and (where kcollider claims exact semantics) size and
 * direction.
 *
 * Kernel: $KREL, else the newest /lib/modules/<release>-amd64. Its vmlinux
 * is extracted from /boot/vmlinuz-<release> into build/oracle/ (Debian's is
 * stripped: its executable sections are swept linearly, as objdump -d
 * does); every .ko under /lib/modules/<release>/kernel is walked function
 * by function (STT_FUNC symbols of executable sections).
 *
 * Prints "decoder: N insns, L length mismatches, O operand mismatches,
 * U undecodable" and the first mismatches grouped by opcode. Capstone 4's
 * known errata are in decoder_oracle_allow.txt, each with its reason.
 */
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "kselftest.h"
#include <kcollider/x86_decode.h>

#ifndef KC_TOP
#define KC_TOP "."
#endif

#define MAX_FILES	8192
#define MAX_ALLOW	64
#define MAX_SAMPLES	256
#define MAX_WORKERS	16
#define MAX_DISPUTES	2048
#define SLOT		32	/* objdump slot: insn + nop padding */
#define NCONTROL	2	/* objdump slots with known answers */

struct allow {
	char kind[24];
	char key[40];
	char reason[160];
};

struct sample {
	char kind[24];
	char key[40];
	unsigned long count;
	char example[200];
};

/*
 * A length capstone disputes (or cannot decode at all): settled by
 * binutils' objdump, a third decoder, at the end.
 */
struct dispute {
	u8 bytes[KC_INSN_MAX_LEN];
	u8 len;			/* kcollider's length */
	unsigned long count;
	char key[40];
	char capstone[224];	/* what capstone said */
};

/* One worker's results, in memory shared with the parent. */
struct stats {
	unsigned long insns, len_mis, op_mis, undec, both_undec, allowed;
	unsigned long files, bad_files, objdump_ok, lost_disputes, padding;
	unsigned long allow_hits[MAX_ALLOW];
	unsigned int nsamples, ndisputes;
	struct sample samples[MAX_SAMPLES];
	struct dispute disputes[MAX_DISPUTES];
};

static struct allow allow[MAX_ALLOW];
static unsigned int nallow;
static char *files[MAX_FILES];
static unsigned int nfiles;

static csh cs;
static cs_insn *ci;

static void load_allowlist(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nallow < MAX_ALLOW) {
		struct allow *a = &allow[nallow];
		int n = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%23s %39s %n", a->kind, a->key, &n) < 2)
			continue;
		snprintf(a->reason, sizeof(a->reason), "%s", line + n);
		a->reason[strcspn(a->reason, "\n")] = 0;
		nallow++;
	}
	fclose(f);
}

/* kcollider's "map.opcode/reg" name of an instruction. */
static void opkey(const struct kc_insn *k, char *buf, size_t len)
{
	static const char * const maps[] = { "", "0f", "0f38", "0f3a" };
	const char *vex = k->flags & KC_INSN_EVEX ? "evex." :
			  k->flags & KC_INSN_VEX ? "vex." : "";

	if (k->has_modrm)
		snprintf(buf, len, "%s%s%s%02x/%d", vex, maps[k->map & 3],
			 k->map ? "." : "", k->opcode, (k->modrm >> 3) & 7);
	else
		snprintf(buf, len, "%s%s%s%02x", vex, maps[k->map & 3],
			 k->map ? "." : "", k->opcode);
}

static int allowed(struct stats *st, const char *kind, const char *mnem,
		   const char *key)
{
	unsigned int i;

	for (i = 0; i < nallow; i++) {
		if (strcmp(allow[i].kind, kind))
			continue;
		if (!fnmatch(allow[i].key, mnem, 0) ||
		    !fnmatch(allow[i].key, key, 0)) {
			st->allow_hits[i]++;
			st->allowed++;
			return 1;
		}
	}
	return 0;
}

static void record(struct stats *st, const char *kind, const char *key,
		   const u8 *code, unsigned int len, unsigned long n_insn,
		   const char *fmt, ...)
{
	struct sample *s = NULL;
	unsigned int i, n;
	va_list ap;

	for (i = 0; i < st->nsamples; i++) {
		if (!strcmp(st->samples[i].kind, kind) &&
		    !strcmp(st->samples[i].key, key)) {
			st->samples[i].count += n_insn;
			return;
		}
	}
	if (st->nsamples == MAX_SAMPLES)
		return;
	s = &st->samples[st->nsamples++];
	snprintf(s->kind, sizeof(s->kind), "%s", kind);
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->count = n_insn;
	n = 0;
	for (i = 0; i < len && i < 15; i++)
		n += snprintf(s->example + n, sizeof(s->example) - n, "%02x ",
			      code[i]);
	va_start(ap, fmt);
	vsnprintf(s->example + n, sizeof(s->example) - n, fmt, ap);
	va_end(ap);
}

/* capstone register -> enum kc_reg (64- and 32-bit address registers). */
static int kc_reg_of(unsigned int r)
{
	static const unsigned int r64[16] = {
		X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
		X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
		X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
		X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};
	static const unsigned int r32[16] = {
		X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX,
		X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI,
		X86_REG_R8D, X86_REG_R9D, X86_REG_R10D, X86_REG_R11D,
		X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D,
	};
	int i;

	if (r == X86_REG_INVALID)
		return KC_REG_NONE;
	if (r == X86_REG_RIP || r == X86_REG_EIP)
		return KC_REG_RIP;
	for (i = 0; i < 16; i++)
		if (r64[i] == r || r32[i] == r)
			return i;
	return -1;
}

static int same_address(const struct kc_insn *k, unsigned int n,
			const cs_x86_op *op)
{
	const struct kc_mem_operand *m = &k->mem[n];
	s64 disp = k->flags & KC_INSN_MOFFS ? k->imm : m->disp;

	if (kc_reg_of(op->mem.base) != m->base)
		return 0;
	if (!(k->flags & KC_INSN_VSIB) &&
	    (kc_reg_of(op->mem.index) != m->index ||
	     (m->index != KC_REG_NONE && op->mem.scale != m->scale)))
		return 0;
	if (op->mem.disp != disp)
		return 0;
	if ((m->seg == KC_SEG_FS) != (op->mem.segment == X86_REG_FS) ||
	    (m->seg == KC_SEG_GS) != (op->mem.segment == X86_REG_GS))
		return 0;
	return 1;
}

static const cs_x86_op *find_mem(const cs_x86 *x, const struct kc_insn *k,
				 unsigned int n, int *nmem)
{
	const cs_x86_op *hit = NULL;
	int i;

	*nmem = 0;
	for (i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM)
			continue;
		(*nmem)++;
		if (!hit && same_address(k, n, &x->operands[i]))
			hit = &x->operands[i];
	}
	return hit;
}

static void mismatch(struct stats *st, const char *kind,
		     const struct kc_insn *k, const u8 *code, const char *what)
{
	char key[40];

	opkey(k, key, sizeof(key));
	if (allowed(st, kind, ci->mnemonic, key))
		return;
	st->op_mis++;
	record(st, kind, ci->mnemonic, code, k->length, 1, "[%s] %s %s: %s", key,
	       ci->mnemonic, ci->op_str, what);
}

/* Compare the memory operands of one instruction both decoded alike. */
static void compare_operands(struct stats *st, const struct kc_insn *k,
			     const u8 *code)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *op;
	char what[96];
	unsigned int i;
	int ncs;

	if (k->flags & KC_INSN_NOT_ACCESS) {
		if (!find_mem(x, k, 0, &ncs))
			mismatch(st, "addr", k, code, "address expression");
		return;
	}
	if (!(k->flags & KC_INSN_MEM)) {
		find_mem(x, k, 0, &ncs);
		if (ncs)
			mismatch(st, "missing-mem", k, code, "no memory operand");
		return;
	}
	for (i = 0; i < k->nmem; i++) {
		op = find_mem(x, k, i, &ncs);
		if (!op) {
			mismatch(st, ncs ? "addr" : "extra-mem", k, code,
				 ncs ? "address expression" : "capstone: no mem");
			return;
		}
		if (i || !(k->flags & KC_INSN_SEM_KNOWN))
			continue;
		if (op->size != k->mem[0].size) {
			snprintf(what, sizeof(what), "size %u, capstone %u",
				 k->mem[0].size, op->size);
			mismatch(st, "size", k, code, what);
			return;
		}
		if (op->access != k->mem[0].access) {
			snprintf(what, sizeof(what), "access %u, capstone %u",
				 k->mem[0].access, op->access);
			mismatch(st, "access", k, code, what);
			return;
		}
	}
}

static void dispute(struct stats *st, const u8 *code, const struct kc_insn *k,
		    const char *key, int cs_ok)
{
	struct dispute *d;
	unsigned int i;

	for (i = 0; i < st->ndisputes; i++) {
		d = &st->disputes[i];
		if (d->len == k->length && !memcmp(d->bytes, code, d->len)) {
			d->count++;
			return;
		}
	}
	if (st->ndisputes == MAX_DISPUTES) {
		st->lost_disputes++;	/* counted as mismatches */
		return;
	}
	d = &st->disputes[st->ndisputes++];
	memcpy(d->bytes, code, k->length);
	d->len = k->length;
	d->count = 1;
	snprintf(d->key, sizeof(d->key), "%s", key);
	if (cs_ok)
		snprintf(d->capstone, sizeof(d->capstone), "capstone: %s %s, len %u",
			 ci->mnemonic, ci->op_str, ci->size);
	else
		snprintf(d->capstone, sizeof(d->capstone), "capstone: invalid");
}

/*
 * Decode [buf, buf + len) at address @addr with both decoders. @linear:
 * a whole section (skip bytes neither decoder accepts, as data) rather
 * than one function (stop there).
 */
static void sweep(struct stats *st, const u8 *buf, size_t len, u64 addr,
		  int linear)
{
	struct kc_insn k;
	size_t off = 0;
	char key[40];
	int r, ok;

	while (off < len) {
		const u8 *code = buf + off;
		size_t size = len - off;
		u64 a = addr + off;

		/* int3 runs between functions are padding, not code */
		if (linear && len - off > 1 && buf[off] == 0xcc &&
		    buf[off + 1] == 0xcc) {
			while (off < len && buf[off] == 0xcc) {
				off++;
				st->padding++;
			}
			continue;
		}
		r = kc_decode(buf + off, len - off, &k);
		ok = cs_disasm_iter(cs, &code, &size, &a, ci);
		if (r) {
			if (!ok) {
				st->both_undec++;
				if (!linear)
					return;
				off++;
				continue;
			}
			st->insns++;
			snprintf(key, sizeof(key), "%s", ci->mnemonic);
			if (!allowed(st, "undecodable", ci->mnemonic, key)) {
				st->undec++;
				record(st, "undecodable", key, buf + off,
				       ci->size, 1, "%s %s (%d)", ci->mnemonic,
				       ci->op_str, r);
			}
			off += ci->size;
			continue;
		}
		st->insns++;
		opkey(&k, key, sizeof(key));
		if (!ok || k.length != ci->size)
			dispute(st, buf + off, &k, key, ok);
		else
			compare_operands(st, &k, buf + off);
		off += k.length;
	}
}

struct func {
	u64 value, size;
	size_t shndx;
};

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return 0;
}

static int exec_section(Elf *e, size_t ndx, GElf_Shdr *sh, Elf_Data **d)
{
	Elf_Scn *scn = elf_getscn(e, ndx);

	if (!scn || !gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS ||
	    !(sh->sh_flags & SHF_EXECINSTR))
		return 0;
	*d = elf_getdata(scn, NULL);
	return *d && (*d)->d_buf;
}

/* A module: each STT_FUNC symbol of an executable section, once. */
static void walk_module(struct stats *st, Elf *e)
{
	Elf_Scn *scn = NULL;
	struct func *fn = NULL;
	size_t nfn = 0, i, n;
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym sym;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		fn = calloc(n + 1, sizeof(*fn));
		for (i = 0; fn && d && i < n; i++) {
			if (!gelf_getsym(d, i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE)
				continue;
			fn[nfn++] = (struct func){ sym.st_value, sym.st_size,
						   sym.st_shndx };
		}
		break;
	}
	if (!fn)
		return;
	qsort(fn, nfn, sizeof(*fn), cmp_func);
	for (i = 0; i < nfn; i++) {
		if (i && !cmp_func(&fn[i], &fn[i - 1]))
			continue;		/* alias */
		if (!exec_section(e, fn[i].shndx, &sh, &d) ||
		    fn[i].value + fn[i].size > d->d_size)
			continue;
		sweep(st, (const u8 *)d->d_buf + fn[i].value, fn[i].size,
		      fn[i].value, 0);
	}
	free(fn);
}

/* The stripped vmlinux: every executable section, linearly. */
static void walk_image(struct stats *st, Elf *e)
{
	size_t i, n;
	GElf_Shdr sh;
	Elf_Data *d;

	if (elf_getshdrnum(e, &n))
		return;
	for (i = 1; i < n; i++)
		if (exec_section(e, i, &sh, &d))
			sweep(st, d->d_buf, d->d_size, sh.sh_addr, 1);
}

static void walk_file(struct stats *st, const char *path)
{
	GElf_Ehdr eh;
	Elf *e;
	int fd;

	fd = open(path, O_RDONLY);
	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64) {
		st->bad_files++;
	} else {
		st->files++;
		if (eh.e_type == ET_REL)
			walk_module(st, e);
		else
			walk_image(st, e);
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
}

static int add_module(const char *path, const struct stat *sb, int type,
		      struct FTW *ftw)
{
	size_t n = strlen(path);

	if (type == FTW_F && n > 3 && !strcmp(path + n - 3, ".ko") &&
	    nfiles < MAX_FILES)
		files[nfiles++] = strdup(path);
	return 0;
}

static int cmp_ver(const void *a, const void *b)
{
	return strverscmp(*(char * const *)a, *(char * const *)b);
}

/* $KREL, else the newest /lib/modules/<release>-amd64. */
static int pick_release(char *rel, size_t len)
{
	char *names[256];
	unsigned int n = 0, i;
	struct dirent *de;
	const char *env = getenv("KREL");
	DIR *dir;

	if (env && *env) {
		snprintf(rel, len, "%s", env);
		return 0;
	}
	dir = opendir("/lib/modules");
	while (dir && (de = readdir(dir)) && n < 256) {
		size_t l = strlen(de->d_name);

		if (l > 6 && !strcmp(de->d_name + l - 6, "-amd64"))
			names[n++] = strdup(de->d_name);
	}
	if (dir)
		closedir(dir);
	if (!n)
		return -1;
	qsort(names, n, sizeof(names[0]), cmp_ver);
	snprintf(rel, len, "%s", names[n - 1]);
	for (i = 0; i < n; i++)
		free(names[i]);
	return 0;
}

/* build/oracle/vmlinux-<rel>, extracted once from /boot/vmlinuz-<rel>. */
static int get_vmlinux(const char *rel, char *path, size_t len)
{
	char cmd[16384];
	struct stat sb;

	snprintf(path, len, "%s/build/oracle/vmlinux-%s", KC_TOP, rel);
	if (!stat(path, &sb) && sb.st_size > 0)
		return 0;
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/build/oracle && sh %s/build/oracle/extract-vmlinux /boot/vmlinuz-%s > %s.tmp && mv %s.tmp %s",
		 KC_TOP, KC_TOP, rel, path, path, path);
	return system(cmd) ? -1 : 0;
}

static void worker(struct stats *st, unsigned int w, unsigned int nw)
{
	unsigned int i;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		exit(2);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs_malloc(cs);
	for (i = w; i < nfiles; i += nw)
		walk_file(st, files[i]);
	cs_free(ci, 1);
	cs_close(&cs);
	exit(0);
}

static void merge(struct stats *t, const struct stats *s)
{
	unsigned int i, j;

	t->insns += s->insns;
	t->len_mis += s->len_mis;
	t->op_mis += s->op_mis;
	t->undec += s->undec;
	t->both_undec += s->both_undec;
	t->padding += s->padding;
	t->allowed += s->allowed;
	t->files += s->files;
	t->bad_files += s->bad_files;
	t->lost_disputes += s->lost_disputes;
	for (i = 0; i < MAX_ALLOW; i++)
		t->allow_hits[i] += s->allow_hits[i];
	for (i = 0; i < s->ndisputes; i++) {
		const struct dispute *d = &s->disputes[i];

		for (j = 0; j < t->ndisputes; j++)
			if (t->disputes[j].len == d->len &&
			    !memcmp(t->disputes[j].bytes, d->bytes, d->len))
				break;
		if (j < t->ndisputes)
			t->disputes[j].count += d->count;
		else if (t->ndisputes < MAX_DISPUTES)
			t->disputes[t->ndisputes++] = *d;
		else
			t->lost_disputes += d->count;
	}
	for (i = 0; i < s->nsamples; i++) {
		for (j = 0; j < t->nsamples; j++)
			if (!strcmp(t->samples[j].kind, s->samples[i].kind) &&
			    !strcmp(t->samples[j].key, s->samples[i].key))
				break;
		if (j < t->nsamples)
			t->samples[j].count += s->samples[i].count;
		else if (t->nsamples < MAX_SAMPLES)
			t->samples[t->nsamples++] = s->samples[i];
	}
}

/*
 * objdump's length of every disputed instruction: each sits in its own
 * 32-byte slot padded with nops, so a disagreement cannot shift the next.
 * Returns 0 and fills @len[i] (0: objdump cannot decode it either).
 */
static int objdump_lengths(const struct stats *t, u8 *len)
{
	char path[] = "/tmp/kc-oracle-XXXXXX", cmd[256], line[512];
	unsigned int i, off, n;
	u8 slot[SLOT];
	FILE *f, *p;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	/* controls: objdump must give them 10 and 2, or it is not trusted */
	memset(slot, 0x90, sizeof(slot));
	memcpy(slot, "\x48\xb8\1\2\3\4\5\6\7\x08", 10);
	fwrite(slot, 1, sizeof(slot), f);
	memset(slot, 0x90, sizeof(slot));
	memcpy(slot, "\x0f\x0b", 2);
	fwrite(slot, 1, sizeof(slot), f);
	for (i = 0; i < t->ndisputes; i++) {
		memset(slot, 0x90, sizeof(slot));
		memcpy(slot, t->disputes[i].bytes, t->disputes[i].len);
		fwrite(slot, 1, sizeof(slot), f);
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "objdump -D -b binary -m i386:x86-64 --insn-width=16 %s",
		 path);
	p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return -1;
	}
	memset(len, 0, t->ndisputes + NCONTROL);
	while (fgets(line, sizeof(line), p)) {
		char *tab = strchr(line, '\t'), *mn;

		if (sscanf(line, " %x:", &off) != 1 || !tab || off % SLOT)
			continue;
		mn = strchr(tab + 1, '\t');
		n = 0;
		for (tab++; mn && tab < mn; tab += 3)
			if (tab[0] != ' ')
				n++;
		if (mn && strncmp(mn + 1, "(bad)", 5) &&
		    strncmp(mn + 1, ".byte", 5) &&
		    off / SLOT < t->ndisputes + NCONTROL)
			len[off / SLOT] = n;
	}
	pclose(p);
	unlink(path);
	return len[0] == 10 && len[1] == 2 ? 0 : -1;
}

/* Settle length disputes: objdump agreeing with kcollider wins. */
static void settle(struct stats *t)
{
	static u8 lens[NCONTROL + MAX_DISPUTES];
	const u8 *len = lens + NCONTROL;
	unsigned int i;
	int have = !objdump_lengths(t, lens);

	if (!have && t->ndisputes)
		ksft_print_msg("objdump unusable: every disputed length counts as a mismatch\n");
	t->len_mis += t->lost_disputes;
	for (i = 0; i < t->ndisputes; i++) {
		struct dispute *d = &t->disputes[i];

		if (have && len[i] == d->len) {
			t->objdump_ok += d->count;
			continue;
		}
		t->len_mis += d->count;
		record(t, "len", d->key, d->bytes, d->len, d->count,
		       "len %u, objdump %u, %s", d->len, have ? len[i] : 0,
		       d->capstone);
	}
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void report(struct stats *t, double secs)
{
	unsigned int i, limit = getenv("KC_ORACLE_SAMPLES") ? atoi(getenv("KC_ORACLE_SAMPLES")) : 40;

	printf("decoder: %lu insns, %lu length mismatches, %lu operand mismatches, %lu undecodable\n",
	       t->insns, t->len_mis, t->op_mis, t->undec);
	ksft_print_msg("%lu files (%lu unreadable), %.1f s, %lu allowlisted, %lu bytes neither decoder accepts (data in text), %lu int3 padding bytes skipped\n",
		       t->files, t->bad_files, secs, t->allowed, t->both_undec,
		       t->padding);
	ksft_print_msg("%lu instructions capstone 4 decodes differently or not at all, where objdump agrees with kcollider\n",
		       t->objdump_ok);
	for (i = 0; i < nallow; i++)
		if (t->allow_hits[i])
			ksft_print_msg("allowlisted %s %s: %lu (%s)\n",
				       allow[i].kind, allow[i].key,
				       t->allow_hits[i], allow[i].reason);
	qsort(t->samples, t->nsamples, sizeof(t->samples[0]), cmp_sample);
	for (i = 0; i < t->nsamples && i < limit; i++)
		ksft_print_msg("%s %s x%lu: %s\n", t->samples[i].kind,
			       t->samples[i].key, t->samples[i].count,
			       t->samples[i].example);
}

int main(void)
{
	char rel[128], vmlinux[PATH_MAX], moddir[PATH_MAX];
	struct stats *st, *total = calloc(1, sizeof(*total));
	struct timespec t0, t1;
	unsigned int w, nw;
	long ncpu;

	ksft_print_header();
	ksft_set_plan(4);
	load_allowlist(KC_TOP "/selftests/host/decoder_oracle_allow.txt");
	elf_version(EV_CURRENT);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pick_release(rel, sizeof(rel)) || get_vmlinux(rel, vmlinux,
							  sizeof(vmlinux)))
		ksft_exit_fail_msg("no kernel image to check (KREL, /lib/modules, /boot/vmlinuz-*)\n");
	ksft_print_msg("kernel %s\n", rel);
	files[nfiles++] = vmlinux;
	snprintf(moddir, sizeof(moddir), "/lib/modules/%s/kernel", rel);
	nftw(moddir, add_module, 32, FTW_PHYS);

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	nw = ncpu < 1 ? 1 : ncpu > MAX_WORKERS ? MAX_WORKERS : ncpu;
	st = mmap(NULL, nw * sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		ksft_exit_fail_msg("mmap\n");
	fflush(stdout);
	for (w = 0; w < nw; w++)
		if (!fork())
			worker(&st[w], w, nw);
	for (w = 0; w < nw; w++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			ksft_exit_fail_msg("a worker failed\n");
	}
	for (w = 0; w < nw; w++)
		merge(total, &st[w]);
	settle(total);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	report(total, t1.tv_sec - t0.tv_sec +
		       (t1.tv_nsec - t0.tv_nsec) / 1e9);

	ksft_test_result(total->files > 1 && total->insns > 1000000,
			 "decoded the image and %lu modules\n",
			 total->files - 1);
	ksft_test_result(total->len_mis == 0, "no length mismatch\n");
	ksft_test_result(total->undec == 0, "nothing undecodable\n");
	ksft_test_result(total->op_mis * 100000 < total->insns,
			 "operand mismatches below 1 in 100000\n");
	ksft_finished();
}
