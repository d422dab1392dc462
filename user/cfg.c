// SPDX-License-Identifier: GPL-2.0
/*
 * Disassembly (capstone) and control flow of whole functions.
 *
 * A function is decoded linearly from its symbol's start to its end; the
 * kernel's text has no data between instructions of a function (jump
 * tables live in .rodata and retpoline builds have none), so linear sweep
 * is exact. Should decoding fail (capstone's, or the shared decoder's on
 * an instruction capstone read), the function is marked and the analysis
 * says "unknown (decode failure)" rather than guess.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include <kcollider/x86_decode.h>
#include "cfg.h"

#define MAX_FUNC_BYTES (1 << 20)

static csh cs;
static bool cs_ready;

struct cache_ent {
	uint64_t addr;
	struct kc_func *f;
};

static struct cache_ent *cache;
static size_t cache_n, cache_cap;

static bool cs_init(void)
{
	if (cs_ready)
		return true;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return false;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	/* AT&T: what objdump -d and the kernel sources show. */
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_ready = true;
	return true;
}

static bool name_starts(const struct code_src *c, uint64_t addr, const char *p)
{
	const struct kc_sym *s = c ? code_find_addr(c, addr) : NULL;

	return s && s->addr == addr && !strncmp(s->name, p, strlen(p));
}

/*
 * capstone 4's operand access flags are wrong for a few instructions:
 * "testb $imm, mem" is marked as writing, CMPXCHG and XADD as only
 * reading. These lists override it.
 */
static bool never_writes(unsigned int id)
{
	switch (id) {
	case X86_INS_TEST: case X86_INS_CMP: case X86_INS_BT:
	case X86_INS_UCOMISS: case X86_INS_UCOMISD: case X86_INS_COMISS:
	case X86_INS_COMISD: case X86_INS_PTEST:
		return true;
	}
	return false;
}

static bool always_writes(unsigned int id)
{
	switch (id) {
	case X86_INS_CMPXCHG: case X86_INS_CMPXCHG8B: case X86_INS_CMPXCHG16B:
	case X86_INS_XADD:
		return true;
	}
	return false;
}

static void classify_mem(const cs_insn *ci, struct kc_dinsn *d)
{
	const cs_x86 *x = &ci->detail->x86;
	int i;

	if (ci->id == X86_INS_LEA || ci->id == X86_INS_NOP ||
	    ci->id == X86_INS_PREFETCH || ci->id == X86_INS_PREFETCHW ||
	    ci->id == X86_INS_PREFETCHT0 || ci->id == X86_INS_PREFETCHT1 ||
	    ci->id == X86_INS_PREFETCHT2 || ci->id == X86_INS_PREFETCHNTA ||
	    ci->id == X86_INS_CLFLUSH)
		return;
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type != X86_OP_MEM)
			continue;
		if ((op->access & CS_AC_READ) || always_writes(ci->id))
			d->flags |= DI_LOAD;
		if (((op->access & CS_AC_WRITE) && !never_writes(ci->id)) ||
		    always_writes(ci->id))
			d->flags |= op->mem.base == X86_REG_RSP ? DI_STACK_STORE
								: DI_STORE;
	}
	/* capstone 4 marks the string stores' destination as read only. */
	switch (ci->id) {
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ: case X86_INS_MOVSB: case X86_INS_MOVSW:
	case X86_INS_MOVSD: case X86_INS_MOVSQ:
		d->flags |= DI_STORE;
		break;
	}
}

static void classify_branch(const struct code_src *c, const cs_insn *ci,
			    struct kc_dinsn *d)
{
	const cs_x86 *x = &ci->detail->x86;
	bool imm = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

	if (imm)
		d->target = x->operands[0].imm;
	else
		d->flags |= DI_INDIRECT;
	if (ci->id == X86_INS_CALL) {
		/* ftrace's call site: a nop unless traced, and then transparent. */
		if (imm && name_starts(c, d->target, "__fentry__"))
			return;
		d->flags |= DI_CALL;
		/* Retpolines: an indirect call spelled as a direct one. */
		if (imm && name_starts(c, d->target, "__x86_indirect_"))
			d->flags |= DI_INDIRECT;
		return;
	}
	if (imm && name_starts(c, d->target, "__x86_return_thunk")) {
		d->flags |= DI_RET | DI_STOP;
		return;
	}
	if (imm && name_starts(c, d->target, "__x86_indirect_"))
		d->flags |= DI_INDIRECT;
	d->flags |= DI_JUMP;
	if (ci->id == X86_INS_JMP)
		d->flags |= DI_STOP;
	else
		d->flags |= DI_COND;
}

/*
 * What drains the store buffer (MFENCE, LOCK, XCHG with memory, the
 * serializing instructions) and what is LOCK'd is the call of the shared
 * decoder, lib/x86_decode.c, which the module links (its locked= and
 * locked-racer filter): one classification. It decodes from the
 * instruction's start with every byte that follows (capstone 4 reads
 * ud1, the static call trampolines' signature, without its ModRM byte:
 * the sweep stays capstone's). False when it cannot decode the
 * instruction at all: the function is then not analysed, not guessed at.
 */
static bool classify_sync(const uint8_t *code, size_t avail, struct kc_dinsn *d)
{
	struct kc_insn k;

	if (kc_decode(code, avail, &k))
		return false;
	if (k.flags & KC_INSN_ATOMIC)
		d->flags |= DI_LOCKED;
	if (k.flags & KC_INSN_BARRIER)
		d->flags |= DI_BARRIER;
	return true;
}

/* @code: the instruction's bytes and the @avail that follow, for kc_decode. */
static bool classify(const struct code_src *c, const cs_insn *ci,
		     const uint8_t *code, size_t avail, struct kc_dinsn *d)
{
	d->addr = ci->address;
	d->len = ci->size;
	snprintf(d->text, sizeof(d->text), "%.31s%s%.60s", ci->mnemonic,
		 ci->op_str[0] ? " " : "", ci->op_str);
	classify_mem(ci, d);
	if (!classify_sync(code, avail, d))
		return false;
	/* A LOCK'd store drains the buffer: a barrier, not a witness. */
	if (d->flags & DI_LOCKED)
		d->flags &= ~(DI_STORE | DI_STACK_STORE);
	if (cs_insn_group(cs, ci, X86_GRP_JUMP) || ci->id == X86_INS_CALL)
		classify_branch(c, ci, d);
	if (cs_insn_group(cs, ci, X86_GRP_RET) || ci->id == X86_INS_IRETQ ||
	    ci->id == X86_INS_IRET || ci->id == X86_INS_IRETD)
		d->flags |= DI_RET | DI_STOP;
	if (ci->id == X86_INS_UD2 || ci->id == X86_INS_INT3)
		d->flags |= DI_STOP;
	return true;
}

int cfg_decode_one(const struct code_src *c, const uint8_t *code, size_t len,
		   uint64_t addr, struct kc_dinsn *out)
{
	cs_insn *ci;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!cs_init() || cs_disasm(cs, code, len, addr, 1, &ci) != 1)
		return -1;
	if (classify(c, ci, code, len, out))
		ret = 0;
	cs_free(ci, 1);
	return ret;
}

int cfg_index(const struct kc_func *f, uint64_t addr, bool end)
{
	int lo = 0, hi = f->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		uint64_t a = f->insn[mid].addr + (end ? f->insn[mid].len : 0);

		if (a == addr)
			return mid;
		if (a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static bool falls_through(const struct kc_dinsn *d)
{
	return !(d->flags & DI_STOP);
}

/* Intra-procedural edges; jumps out of the function are tail calls. */
static int build_preds(struct kc_func *f)
{
	uint64_t lo = f->sym->addr, hi = f->sym->addr + f->sym->size;
	int *count = calloc(f->n + 1, sizeof(int));
	int i, t, total = 0;

	if (!count)
		return -1;
	for (i = 0; i < f->n; i++) {
		struct kc_dinsn *d = &f->insn[i];

		if (i + 1 < f->n && falls_through(d))
			count[i + 1]++;
		if (!(d->flags & DI_JUMP))
			continue;
		if (d->flags & DI_INDIRECT) {
			if (!(d->flags & DI_TAIL))
				f->indirect_jump = true;
			continue;
		}
		if (d->target < lo || d->target >= hi) {
			d->flags |= DI_TAIL;
			continue;
		}
		t = cfg_index(f, d->target, false);
		if (t >= 0)
			count[t]++;
	}
	f->pred_start = calloc(f->n + 1, sizeof(int));
	for (i = 0; i < f->n; i++)
		total += count[i];
	f->pred = calloc(total + 1, sizeof(int));
	if (!f->pred_start || !f->pred) {
		free(count);
		return -1;
	}
	for (i = 0; i < f->n; i++)
		f->pred_start[i + 1] = f->pred_start[i] + count[i];
	memset(count, 0, (f->n + 1) * sizeof(int));
	for (i = 0; i < f->n; i++) {
		struct kc_dinsn *d = &f->insn[i];

		if (i + 1 < f->n && falls_through(d))
			f->pred[f->pred_start[i + 1] + count[i + 1]++] = i;
		if (!(d->flags & DI_JUMP) || (d->flags & (DI_INDIRECT | DI_TAIL)))
			continue;
		t = cfg_index(f, d->target, false);
		if (t >= 0)
			f->pred[f->pred_start[t] + count[t]++] = i;
	}
	free(count);
	return 0;
}

static void disassemble(const struct code_src *c, struct kc_func *f,
			const uint8_t *code, size_t len)
{
	const uint8_t *p = code;
	uint64_t addr = f->sym->addr;
	cs_insn *ci = cs_malloc(cs);
	size_t left = len, cap = 64;

	f->insn = calloc(cap, sizeof(*f->insn));
	while (ci && f->insn && left) {
		if (!cs_disasm_iter(cs, &p, &left, &addr, ci)) {
			f->decode_failed = true;
			f->fail_addr = addr;
			break;
		}
		if ((size_t)f->n == cap) {
			struct kc_dinsn *n = realloc(f->insn, 2 * cap * sizeof(*n));

			if (!n)
				break;
			f->insn = n;
			cap *= 2;
		}
		memset(&f->insn[f->n], 0, sizeof(f->insn[0]));
		if (!classify(c, ci, p - ci->size, left + ci->size,
			      &f->insn[f->n])) {
			f->decode_failed = true;
			f->fail_addr = ci->address;
			break;
		}
		f->n++;
	}
	if (ci)
		cs_free(ci, 1);
}

static struct kc_func *cache_find(uint64_t addr)
{
	size_t i;

	for (i = 0; i < cache_n; i++)
		if (cache[i].addr == addr)
			return cache[i].f;
	return NULL;
}

static void cache_add(uint64_t addr, struct kc_func *f)
{
	if (cache_n == cache_cap) {
		size_t cap = cache_cap ? 2 * cache_cap : 64;
		struct cache_ent *n = realloc(cache, cap * sizeof(*n));

		if (!n)
			return;
		cache = n;
		cache_cap = cap;
	}
	cache[cache_n].addr = addr;
	cache[cache_n++].f = f;
}

struct kc_func *cfg_get(const struct code_src *c, const struct kc_sym *sym)
{
	struct kc_func *f = cache_find(sym->addr);
	uint8_t *code;
	long n;

	if (f)
		return f;
	if (!cs_init() || !sym->size || sym->size > MAX_FUNC_BYTES)
		return NULL;
	code = malloc(sym->size);
	if (!code)
		return NULL;
	n = code_read(c, sym->addr, code, sym->size);
	if (n <= 0) {
		free(code);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (f) {
		f->sym = sym;
		disassemble(c, f, code, n);
		if (n < (long)sym->size && !f->decode_failed) {
			f->decode_failed = true;
			f->fail_addr = sym->addr + n;
		}
		if (build_preds(f)) {
			free(f->insn);
			free(f);
			f = NULL;
		}
	}
	free(code);
	if (f)
		cache_add(sym->addr, f);
	return f;
}

void cfg_cache_free(void)
{
	size_t i;

	for (i = 0; i < cache_n; i++) {
		free(cache[i].f->insn);
		free(cache[i].f->pred_start);
		free(cache[i].f->pred);
		free(cache[i].f->summary);
		free(cache[i].f);
	}
	free(cache);
	cache = NULL;
	cache_n = cache_cap = 0;
}
