// SPDX-License-Identifier: GPL-2.0
/*
 * Memory operands for the TSO analysis (tso_mem.h), decoded with capstone
 * and cached by address: the searches ask about the same few hundred
 * instructions over and over, and a report batch shares most of them.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "tso_mem.h"

struct mem_ent {
	uint64_t ip;
	bool used, ok;
	struct tso_mem m;
};

static csh mem_cs;
static bool mem_cs_ready;
static struct mem_ent *mem_tab;
static size_t mem_cap, mem_n;

/* Register number 0-15 of any width of a general register, or -1. */
static int gpr(unsigned int reg)
{
	switch (reg) {
	case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL:
	case X86_REG_AH:
		return 0;
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL:
	case X86_REG_CH:
		return 1;
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL:
	case X86_REG_DH:
		return 2;
	case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL:
	case X86_REG_BH:
		return 3;
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:
		return 4;
	case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL:
		return 5;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:
		return 6;
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:
		return 7;
	}
	if (reg >= X86_REG_R8 && reg <= X86_REG_R15)
		return 8 + reg - X86_REG_R8;
	if (reg >= X86_REG_R8B && reg <= X86_REG_R15B)
		return 8 + reg - X86_REG_R8B;
	if (reg >= X86_REG_R8D && reg <= X86_REG_R15D)
		return 8 + reg - X86_REG_R8D;
	if (reg >= X86_REG_R8W && reg <= X86_REG_R15W)
		return 8 + reg - X86_REG_R8W;
	return -1;
}

static void fill_operand(const cs_insn *ci, const cs_x86_op *op,
			 struct tso_mem *m)
{
	const x86_op_mem *mm = &op->mem;

	m->valid = true;
	m->size = op->size;
	m->disp = mm->disp;
	m->scale = mm->scale;
	m->base = gpr(mm->base);
	m->index = gpr(mm->index);
	m->seg = mm->segment == X86_REG_FS || mm->segment == X86_REG_GS;
	if (mm->base == X86_REG_RIP && mm->index == X86_REG_INVALID) {
		m->abs = true;
		m->addr = ci->address + ci->size + mm->disp;
		m->base = TSO_NO_REG;
	} else if (mm->base == X86_REG_INVALID && mm->index == X86_REG_INVALID) {
		m->abs = true;
		m->addr = (uint64_t)mm->disp;
	}
	/* A per-CPU or per-task address is another location on each CPU. */
	if (m->seg)
		m->abs = false;
}

static void fill_writes(const cs_insn *ci, struct tso_mem *m)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr, i;
	int r;

	if (cs_regs_access(mem_cs, ci, rd, &nrd, wr, &nwr) != CS_ERR_OK) {
		m->writes = 0xffff;	/* unknown: everything may change */
		return;
	}
	for (i = 0; i < nwr; i++) {
		r = gpr(wr[i]);
		if (r >= 0)
			m->writes |= 1u << r;
	}
	if (ci->id == X86_INS_CALL)
		m->writes |= TSO_CALL_CLOBBERS;
}

static bool decode(const struct code_src *c, uint64_t ip, struct tso_mem *m)
{
	const cs_x86 *x;
	uint8_t buf[16];
	cs_insn *ci;
	long n;
	int i;

	memset(m, 0, sizeof(*m));
	m->base = m->index = TSO_NO_REG;
	if (!mem_cs_ready) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &mem_cs) != CS_ERR_OK)
			return false;
		cs_option(mem_cs, CS_OPT_DETAIL, CS_OPT_ON);
		mem_cs_ready = true;
	}
	n = code_read(c, ip, buf, sizeof(buf));
	if (n <= 0 || cs_disasm(mem_cs, buf, n, ip, 1, &ci) != 1)
		return false;
	x = &ci->detail->x86;
	for (i = 0; i < x->op_count; i++) {
		if (x->operands[i].type == X86_OP_MEM) {
			fill_operand(ci, &x->operands[i], m);
			break;
		}
	}
	fill_writes(ci, m);
	cs_free(ci, 1);
	return true;
}

static int tab_grow(void)
{
	size_t cap = mem_cap ? 2 * mem_cap : 1024, i, j;
	struct mem_ent *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < mem_cap; i++) {
		if (!mem_tab[i].used)
			continue;
		for (j = (mem_tab[i].ip * 0x9e3779b97f4a7c15ULL) >> 20 & (cap - 1);
		     t[j].used; j = (j + 1) & (cap - 1))
			;
		t[j] = mem_tab[i];
	}
	free(mem_tab);
	mem_tab = t;
	mem_cap = cap;
	return 0;
}

bool tso_mem_at(const struct code_src *c, uint64_t ip, struct tso_mem *m)
{
	size_t j;

	if (2 * (mem_n + 1) > mem_cap && tab_grow())
		return decode(c, ip, m);
	for (j = (ip * 0x9e3779b97f4a7c15ULL) >> 20 & (mem_cap - 1);
	     mem_tab[j].used; j = (j + 1) & (mem_cap - 1)) {
		if (mem_tab[j].ip == ip) {
			*m = mem_tab[j].m;
			return mem_tab[j].ok;
		}
	}
	mem_tab[j].used = true;
	mem_tab[j].ip = ip;
	mem_tab[j].ok = decode(c, ip, &mem_tab[j].m);
	mem_n++;
	*m = mem_tab[j].m;
	return mem_tab[j].ok;
}

uint16_t tso_mem_regs(const struct tso_mem *m)
{
	uint16_t r = 0;

	if (m->base >= 0)
		r |= 1u << m->base;
	if (m->index >= 0)
		r |= 1u << m->index;
	return r;
}

bool tso_mem_same(const struct tso_mem *st, const struct tso_mem *ld)
{
	if (!st->valid || !ld->valid || st->size < ld->size)
		return false;
	if (st->abs || ld->abs)
		return st->abs && ld->abs && st->addr == ld->addr;
	/* Register-relative: the caller checked the registers stay put. */
	return st->seg == ld->seg && !st->seg && st->base == ld->base &&
	       st->index == ld->index && st->disp == ld->disp &&
	       (st->index < 0 || st->scale == ld->scale);
}

bool tso_mem_alias(const struct tso_mem *a, const struct tso_mem *b)
{
	if (!a->valid || !b->valid || !a->abs || !b->abs)
		return false;
	return a->addr < b->addr + b->size && b->addr < a->addr + a->size;
}

void tso_mem_cache_free(void)
{
	free(mem_tab);
	mem_tab = NULL;
	mem_cap = mem_n = 0;
	if (mem_cs_ready)
		cs_close(&mem_cs);
	mem_cs_ready = false;
}
