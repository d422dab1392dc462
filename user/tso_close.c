// SPDX-License-Identifier: GPL-2.0
/*
 * The racer's half of a store-buffering cycle.
 *
 * A triangular race, P: W(b) ... R(a) racing Q: W(a), shows x86 an
 * outcome SC forbids when Q, after its store to a, loads b: P's load may
 * miss Q's store (still in Q's buffer) while Q's load misses P's (still in
 * P's). So search Q's code forward from its store for a load of a witness
 * store's location, nearest first:
 * - inside the function over its CFG;
 * - into direct callees (and tail calls), memoized per search, nested at
 *   most --max-depth deep; an indirect call is stepped over;
 * - at a return of the racing function, on into its callers at the
 *   return addresses its reported stack names.
 * Each state also says whether a barrier was crossed since the store: a
 * fence on Q's side alone does not forbid the outcome (SB with one MFENCE
 * is allowed on x86), but it decides where fences must go to fix it.
 * Only statically known locations are matched (RIP-relative or absolute
 * operands: globals, module data), never per-CPU ones.
 */
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "tso.h"

#define WALK_BUDGET	50000	/* instruction states per report */
#define WALK_MEMO	256
#define EXIT_CLEAR	1	/* may return with no barrier since the store */
#define EXIT_FENCED	2	/* may return after a barrier */

struct memo {
	uint64_t addr;
	int fen;
	bool busy;
	int exits;
	uint64_t bar;
};

struct walk {
	const struct code_src *c;
	const struct tso_opts *o;
	const struct tso_cand *cands;
	int ncands;
	long budget;
	bool done;		/* an unfenced closing load was found */
	struct memo memo[WALK_MEMO];
	int nmemo;
	uint64_t exit_bar;	/* barrier of the last fenced exit */
	struct tso_close *out;
};

struct state {
	int i, fen;
	uint64_t bar;		/* the barrier that set fen */
};

struct queue {
	struct state *s;
	int head, n, cap;
	uint8_t *seen;		/* per instruction: bit per fen */
};

static int walk_func(struct walk *w, struct kc_func *f, int start, int fen,
		     uint64_t bar, int depth);

static void push(struct queue *q, int i, int fen, uint64_t bar)
{
	struct state *s;

	if (q->seen[i] & (1 << fen))
		return;
	q->seen[i] |= 1 << fen;
	if (q->n == q->cap) {
		int cap = q->cap ? 2 * q->cap : 64;

		s = realloc(q->s, cap * sizeof(*s));
		if (!s)
			return;
		q->s = s;
		q->cap = cap;
	}
	q->s[q->n++] = (struct state){ .i = i, .fen = fen, .bar = bar };
}

static void check_load(struct walk *w, const struct kc_dinsn *d, int fen,
		       uint64_t bar)
{
	struct tso_close *out = w->out;
	struct tso_mem m;
	int k;

	if (!tso_mem_at(w->c, d->addr, &m) || !m.abs)
		return;
	for (k = 0; k < w->ncands; k++) {
		if (!tso_mem_alias(&w->cands[k].m, &m))
			continue;
		if (out->found && (out->fenced <= fen))
			return;
		out->found = true;
		out->cand = k;
		out->load_ip = d->addr;
		out->fenced = fen;
		out->barrier_ip = fen ? bar : 0;
		w->done = !fen;
		return;
	}
}

static struct memo *memo_get(struct walk *w, uint64_t addr, int fen)
{
	int k;

	for (k = 0; k < w->nmemo; k++)
		if (w->memo[k].addr == addr && w->memo[k].fen == fen)
			return &w->memo[k];
	if (w->nmemo == WALK_MEMO)
		return NULL;
	w->memo[w->nmemo] = (struct memo){ .addr = addr, .fen = fen };
	return &w->memo[w->nmemo++];
}

/* Exits of callee @target entered with @fen; 0 if it never returns. */
static int walk_callee(struct walk *w, uint64_t target, int fen, uint64_t bar,
		       int depth, uint64_t *exit_bar)
{
	const struct kc_sym *sym = code_find_addr(w->c, target);
	struct kc_func *f;
	struct memo *m;
	int exits;

	*exit_bar = bar;
	/* Code we cannot follow is stepped over: it may hide a load, no more. */
	if (!sym || sym->addr != target || depth > w->o->max_depth)
		return 1 << fen;
	f = cfg_get(w->c, sym);
	m = memo_get(w, target, fen);
	if (!f || !m)
		return 1 << fen;
	if (m->busy || m->exits) {	/* recursion: the other paths decide */
		*exit_bar = m->exits ? m->bar : bar;
		return m->exits ? m->exits : 1 << fen;
	}
	m->busy = true;
	exits = walk_func(w, f, 0, fen, bar, depth);
	m = memo_get(w, target, fen);
	m->busy = false;
	m->exits = exits ? exits : -1;
	m->bar = w->exit_bar;
	*exit_bar = w->exit_bar;
	return exits;
}

/* Calls and tail calls: push the states after it; true if handled. */
static bool step_call(struct walk *w, struct kc_func *f, struct queue *q,
		      const struct state *s, int depth, int *exits)
{
	const struct kc_dinsn *d = &f->insn[s->i];
	bool tail = (d->flags & DI_TAIL) != 0;
	uint64_t ebar;
	int e;

	if (!(d->flags & DI_CALL) && !tail)
		return false;
	e = d->flags & DI_INDIRECT ? 1 << s->fen
				   : walk_callee(w, d->target, s->fen, s->bar,
						 depth + 1, &ebar);
	if (d->flags & DI_INDIRECT)
		ebar = s->bar;
	if (e < 0)
		e = 0;
	if (tail) {
		*exits |= e;
		if (e & EXIT_FENCED)
			w->exit_bar = ebar;
		if ((d->flags & DI_COND) && s->i + 1 < f->n)
			push(q, s->i + 1, s->fen, s->bar);
		return true;
	}
	if (s->i + 1 < f->n) {
		if (e & EXIT_CLEAR)
			push(q, s->i + 1, 0, 0);
		if (e & EXIT_FENCED)
			push(q, s->i + 1, 1, s->fen ? s->bar : ebar);
	}
	return true;
}

static void step_plain(struct kc_func *f, struct queue *q,
		       const struct state *s, int *exits, struct walk *w)
{
	const struct kc_dinsn *d = &f->insn[s->i];
	int t;

	if (d->flags & DI_RET) {
		*exits |= 1 << s->fen;
		if (s->fen)
			w->exit_bar = s->bar;
		return;
	}
	if (!(d->flags & DI_STOP) && s->i + 1 < f->n)
		push(q, s->i + 1, s->fen, s->bar);
	if ((d->flags & DI_JUMP) && !(d->flags & DI_INDIRECT)) {
		t = cfg_index(f, d->target, false);
		if (t >= 0)
			push(q, t, s->fen, s->bar);
	}
}

/*
 * Breadth first from instruction @start of @f: closing loads go to
 * w->out; returns how the function may return (EXIT_*), 0 if never.
 */
static int walk_func(struct walk *w, struct kc_func *f, int start, int fen,
		     uint64_t bar, int depth)
{
	struct queue q = { 0 };
	int exits = 0;

	if (start < 0 || start >= f->n)
		return 0;
	q.seen = calloc(f->n, 1);
	if (!q.seen)
		return 0;
	push(&q, start, fen, bar);
	while (q.head < q.n && !w->done && w->budget-- > 0) {
		struct state s = q.s[q.head++];
		const struct kc_dinsn *d = &f->insn[s.i];

		if ((d->flags & DI_BARRIER) && !s.fen) {
			s.fen = 1;
			s.bar = d->addr;
		}
		if (d->flags & DI_LOAD)
			check_load(w, d, s.fen, s.bar);
		if (!step_call(w, f, &q, &s, depth, &exits))
			step_plain(f, &q, &s, &exits, w);
	}
	free(q.s);
	free(q.seen);
	return exits;
}

/* Return address of caller frame @k of @a: its function and index. */
static struct kc_func *caller_at(const struct code_src *c,
				 const struct kc_access *a, int k, int *idx)
{
	const struct kc_frame *fr = &a->frames[k];
	const struct kc_sym *sym;
	struct kc_func *f;

	if (!fr->has_off)
		return NULL;
	sym = code_find_name(c, fr->func, fr->mod, fr->size);
	f = sym ? cfg_get(c, sym) : NULL;
	*idx = f ? cfg_index(f, sym->addr + fr->off, false) : -1;
	return *idx >= 0 ? f : NULL;
}

void tso_close_cycle(const struct code_src *c, const struct kc_access *q,
		     const struct tso_opts *o, const struct tso_cand *cands,
		     int ncands, struct tso_close *out)
{
	struct walk *w = calloc(1, sizeof(*w));
	struct kc_func *f = NULL;
	int idx = -1, k, exits, next, fen;

	memset(out, 0, sizeof(*out));
	if (!w)
		return;
	*w = (struct walk){ .c = c, .o = o, .cands = cands, .ncands = ncands,
			    .budget = WALK_BUDGET, .out = out };
	out->why_not = tso_locate(c, q, &f, &idx);
	if (out->why_not) {
		free(w);
		return;
	}
	out->store_ip = f->insn[idx].addr;
	out->next_ip = out->store_ip + f->insn[idx].len;
	exits = walk_func(w, f, idx + 1, 0, 0, 0);
	for (k = 1; exits && !w->done && k < q->nframes && k < o->max_frames; k++) {
		f = caller_at(c, q, k, &idx);
		if (!f)
			break;
		next = 0;
		for (fen = 0; fen < 2; fen++)
			if (exits & (1 << fen))
				next |= walk_func(w, f, idx, fen, w->exit_bar, 0);
		exits = next;
	}
	free(w);
}
