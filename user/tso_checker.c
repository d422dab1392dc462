// SPDX-License-Identifier: GPL-2.0
/*
 * The operational x86-TSO machine of Owens, Sarkar and Sewell, explored
 * exhaustively: every interleaving of the threads' steps and of the store
 * buffers' flushes to memory.
 *
 * - A store goes to its thread's FIFO buffer (under SC: straight to memory).
 * - A load reads the thread's newest buffered store to that location if
 *   any (forwarding), else memory.
 * - MFENCE can only step when its thread's buffer is empty; a LOCK'd
 *   instruction (XCHG with memory, LOCK ADD) too, and it then reads and
 *   writes memory in one step.
 * - At any time the oldest entry of any buffer may reach memory.
 * A final state is one where every thread has finished and every buffer
 * has drained. States are deduplicated in a hash set, so the exploration
 * is exhaustive but each state is expanded once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "litmus.h"

struct buf_entry {
	int32_t loc, val;
};

struct state {
	uint8_t pc[LIT_MAX_THREADS];
	uint8_t nbuf[LIT_MAX_THREADS];
	int32_t regs[LIT_MAX_THREADS][LIT_MAX_REGS];
	int32_t mem[LIT_MAX_LOCS];
	struct buf_entry buf[LIT_MAX_THREADS][LIT_MAX_INSNS];
};

struct set {
	struct state *slots;
	uint8_t *used;
	size_t cap, n;
};

struct explorer {
	const struct litmus *t;
	enum lit_model model;
	struct set seen, finals;
	struct lit_result *res;
	int err;
};

static uint64_t hash(const struct state *s)
{
	const uint8_t *p = (const uint8_t *)s;
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < sizeof(*s); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static int set_grow(struct set *set);

/* 1 if added, 0 if already there, -1 on allocation failure. */
static int set_add(struct set *set, const struct state *s)
{
	size_t i;

	if (2 * (set->n + 1) > set->cap && set_grow(set))
		return -1;
	for (i = hash(s) & (set->cap - 1); set->used[i]; i = (i + 1) & (set->cap - 1))
		if (!memcmp(&set->slots[i], s, sizeof(*s)))
			return 0;
	set->used[i] = 1;
	set->slots[i] = *s;
	set->n++;
	return 1;
}

static int set_grow(struct set *set)
{
	struct set bigger = { .cap = set->cap ? 2 * set->cap : 1024 };
	size_t i;

	bigger.slots = malloc(bigger.cap * sizeof(*bigger.slots));
	bigger.used = calloc(bigger.cap, 1);
	if (!bigger.slots || !bigger.used) {
		free(bigger.slots);
		free(bigger.used);
		return -1;
	}
	for (i = 0; i < set->cap; i++)
		if (set->used[i])
			set_add(&bigger, &set->slots[i]);
	free(set->slots);
	free(set->used);
	*set = bigger;
	return 0;
}

static void set_free(struct set *set)
{
	free(set->slots);
	free(set->used);
}

static int32_t read_mem(const struct state *s, int th, int loc, bool forward)
{
	int i;

	for (i = forward ? s->nbuf[th] - 1 : -1; i >= 0; i--)
		if (s->buf[th][i].loc == loc)
			return s->buf[th][i].val;
	return s->mem[loc];
}

/* Execute thread @th's next instruction into @n; false if not enabled. */
static bool step(const struct explorer *e, const struct state *s, int th,
		 struct state *n)
{
	const struct lit_insn *in = &e->t->t[th].insn[s->pc[th]];
	bool tso = e->model == LIT_TSO;
	int32_t v;

	*n = *s;
	n->pc[th]++;
	switch (in->op) {
	case LIT_STORE:
		v = in->from_reg ? s->regs[th][in->reg] : in->val;
		if (!tso) {
			n->mem[in->loc] = v;
			break;
		}
		n->buf[th][n->nbuf[th]].loc = in->loc;
		n->buf[th][n->nbuf[th]++].val = v;
		break;
	case LIT_LOAD:
		n->regs[th][in->reg] = read_mem(s, th, in->loc, tso);
		break;
	case LIT_MOVI:
		n->regs[th][in->reg] = in->val;
		break;
	case LIT_MFENCE:
		return s->nbuf[th] == 0;
	case LIT_XCHG:
		if (s->nbuf[th])
			return false;
		n->regs[th][in->reg] = s->mem[in->loc];
		n->mem[in->loc] = s->regs[th][in->reg];
		break;
	case LIT_LOCK_ADD:
		if (s->nbuf[th])
			return false;
		/* x86 wraps: no signed overflow (undefined in C) */
		n->mem[in->loc] = (int32_t)((uint32_t)s->mem[in->loc] +
					    (uint32_t)in->val);
		break;
	}
	return true;
}

static void flush(const struct state *s, int th, struct state *n)
{
	*n = *s;
	n->mem[s->buf[th][0].loc] = s->buf[th][0].val;
	memmove(&n->buf[th][0], &n->buf[th][1],
		(n->nbuf[th] - 1) * sizeof(n->buf[th][0]));
	n->nbuf[th]--;
	memset(&n->buf[th][n->nbuf[th]], 0, sizeof(n->buf[th][0]));
}

static bool satisfies(const struct litmus *t, const struct state *s)
{
	int i;

	for (i = 0; i < t->nterms; i++) {
		const struct lit_term *c = &t->terms[i];
		int32_t v = c->thread >= 0 ? s->regs[c->thread][c->reg] : s->mem[c->loc];

		if (v != c->val)
			return false;
	}
	return true;
}

static void final_state(struct explorer *e, const struct state *s)
{
	int added = set_add(&e->finals, s);

	if (added < 0) {
		e->err = -1;
		return;
	}
	if (!added)
		return;
	e->res->finals++;
	if (satisfies(e->t, s)) {
		e->res->positive++;
		e->res->reachable = true;
	}
}

static void explore(struct explorer *e, const struct state *s)
{
	struct state n;
	bool moved = false;
	int th, added;

	added = set_add(&e->seen, s);
	if (added <= 0) {
		if (added < 0)
			e->err = -1;
		return;
	}
	e->res->states++;
	for (th = 0; th < e->t->nthreads && !e->err; th++) {
		if (s->pc[th] < e->t->t[th].n && step(e, s, th, &n)) {
			moved = true;
			explore(e, &n);
		}
		if (s->nbuf[th]) {
			moved = true;
			flush(s, th, &n);
			explore(e, &n);
		}
	}
	if (!moved)
		final_state(e, s);
}

int lit_check(const struct litmus *t, enum lit_model m, struct lit_result *r)
{
	struct explorer e = { .t = t, .model = m, .res = r };
	struct state s;
	int i;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	for (i = 0; i < LIT_MAX_LOCS; i++)
		s.mem[i] = t->init_mem[i];
	memcpy(s.regs, t->init_reg, sizeof(s.regs));
	explore(&e, &s);
	set_free(&e.seen);
	set_free(&e.finals);
	return e.err;
}
