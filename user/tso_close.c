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
 *
 * The walk does not depend on the witnesses: it lists every statically
 * known load it meets, in the order met, and the list is kept for the
 * racer's store and stack, so that the same racer in a later report (a
 * log repeats its pairs) is matched without walking again.
 */
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "tso_close.h"

#define WALK_BUDGET	20000	/* instruction states per racer */
/*
 * Callees nested deeper are stepped over. The closing load of a real
 * store-buffering pair is near the racing store; deeper, the walk is in
 * the scheduler and printk, and costs more than every other step.
 */
#define FWD_MAX_DEPTH	3
#define WALK_MEMO	256
#define MAX_LOADS	65536	/* loads listed per racer */
#define MAX_KEY		(KC_MAX_FRAMES + 1)
#define EXIT_CLEAR	1	/* may return with no barrier since the store */
#define EXIT_FENCED	2	/* may return after a barrier */

struct memo {
	uint64_t addr;
	int fen;
	bool busy;
	int exits;
	uint64_t bar;
};

/* A load of a statically known location met by the walk. */
struct fload {
	uint64_t ip, bar;	/* bar: the barrier crossed before it, if fen */
	struct tso_mem m;
	int fen;
};

/* The walk from one racer: its store and its stack are the key. */
struct racer_walk {
	uint64_t key[MAX_KEY];
	int nkey;
	struct fload *loads;
	int n, cap;
};

struct walk {
	const struct code_src *c;
	const struct tso_opts *o;
	int max_depth;
	long budget;
	struct memo memo[WALK_MEMO];
	int nmemo;
	uint64_t exit_bar;	/* barrier of the last fenced exit */
	struct racer_walk *rw;
};

/* Walks of earlier reports, most recent last. */
static struct racer_walk **walks;
static size_t nwalks, capwalks;

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
	struct racer_walk *rw = w->rw;
	struct fload *l;
	struct tso_mem m;

	if (!tso_mem_at(w->c, d->addr, &m) || !m.abs || rw->n == MAX_LOADS)
		return;
	if (rw->n == rw->cap) {
		int cap = rw->cap ? 2 * rw->cap : 64;

		l = realloc(rw->loads, cap * sizeof(*l));
		if (!l)
			return;
		rw->loads = l;
		rw->cap = cap;
	}
	rw->loads[rw->n++] = (struct fload){ .ip = d->addr, .bar = bar, .m = m,
					     .fen = fen };
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
	if (!sym || sym->addr != target || depth > w->max_depth)
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
 * Breadth first from instruction @start of @f: the loads met go to
 * w->rw; returns how the function may return (EXIT_*), 0 if never.
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
	while (q.head < q.n && w->budget-- > 0) {
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

/* The key of a racer: its store, then the return addresses it reaches. */
static int racer_key(const struct code_src *c, const struct kc_access *q,
		     const struct tso_opts *o, uint64_t store, uint64_t *key)
{
	const struct kc_sym *sym;
	int k, n = 0;

	key[n++] = store;
	for (k = 1; k < q->nframes && k < o->max_frames && n < MAX_KEY; k++) {
		sym = code_find_name(c, q->frames[k].func, q->frames[k].mod,
				     q->frames[k].size);
		key[n++] = sym && q->frames[k].has_off ? sym->addr + q->frames[k].off : 0;
	}
	return n;
}

static struct racer_walk *walk_find(const uint64_t *key, int nkey)
{
	size_t i;

	for (i = nwalks; i-- > 0;)
		if (walks[i]->nkey == nkey &&
		    !memcmp(walks[i]->key, key, nkey * sizeof(*key)))
			return walks[i];
	return NULL;
}

static void walk_keep(struct racer_walk *rw)
{
	struct racer_walk **n;

	if (nwalks == capwalks) {
		size_t cap = capwalks ? 2 * capwalks : 16;

		n = realloc(walks, cap * sizeof(*n));
		if (!n) {
			free(rw->loads);
			free(rw);
			return;
		}
		walks = n;
		capwalks = cap;
	}
	walks[nwalks++] = rw;
}

void tso_close_cache_free(void)
{
	size_t i;

	for (i = 0; i < nwalks; i++) {
		free(walks[i]->loads);
		free(walks[i]);
	}
	free(walks);
	walks = NULL;
	nwalks = capwalks = 0;
}

/* Forward from the store at @f/@idx: every load met, into @rw. */
static void walk_racer(const struct code_src *c, const struct kc_access *q,
		       const struct tso_opts *o, struct kc_func *f, int idx,
		       struct racer_walk *rw)
{
	struct walk *w = calloc(1, sizeof(*w));
	int k, exits, next, fen;

	if (!w)
		return;
	*w = (struct walk){ .c = c, .o = o, .budget = WALK_BUDGET, .rw = rw,
			    .max_depth = o->max_depth < FWD_MAX_DEPTH ? o->max_depth
								      : FWD_MAX_DEPTH };
	exits = walk_func(w, f, idx + 1, 0, 0, 0);
	for (k = 1; exits && k < q->nframes && k < o->max_frames; k++) {
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

/*
 * The instruction of access @a: from kcollider's sym= (exact) or the top
 * frame, which for KCSAN's racer block is the instruction after it.
 */
const char *tso_locate(const struct code_src *c, const struct kc_access *a,
		       struct kc_func **fp, int *idx)
{
	const struct kc_frame *fr = a->have_sym ? &a->sym : a->nframes ? &a->frames[0] : NULL;
	const struct kc_sym *sym;
	struct kc_func *f;

	if (!fr || !fr->has_off)
		return "code-unavailable";
	sym = code_find_name(c, fr->func, fr->mod, fr->size);
	if (!sym)
		return "code-unavailable";
	f = cfg_get(c, sym);
	if (!f)
		return "code-unavailable";
	*idx = cfg_index(f, sym->addr + fr->off, a->top_is_after);
	*fp = f;
	if (*idx < 0)
		return "decode-failure";
	return NULL;
}

/* The first load, in the order met, of a candidate's location; unfenced first. */
static void match(const struct racer_walk *rw, const struct tso_cand *cands,
		  int ncands, struct tso_close *out)
{
	const struct fload *l;
	int fen, i, k;

	for (fen = 0; fen < 2; fen++) {
		for (i = 0; i < rw->n; i++) {
			l = &rw->loads[i];
			if (l->fen != fen)
				continue;
			for (k = 0; k < ncands; k++) {
				if (!tso_mem_alias(&cands[k].m, &l->m))
					continue;
				out->found = true;
				out->cand = k;
				out->load_ip = l->ip;
				out->fenced = fen;
				out->barrier_ip = fen ? l->bar : 0;
				return;
			}
		}
	}
}

void tso_close_cycle(const struct code_src *c, const struct kc_access *q,
		     const struct tso_opts *o, const struct tso_cand *cands,
		     int ncands, struct tso_close *out)
{
	uint64_t key[MAX_KEY];
	struct racer_walk *rw;
	struct kc_func *f = NULL;
	int idx = -1, nkey;

	memset(out, 0, sizeof(*out));
	out->why_not = tso_locate(c, q, &f, &idx);
	if (out->why_not)
		return;
	out->store_ip = f->insn[idx].addr;
	out->next_ip = out->store_ip + f->insn[idx].len;
	nkey = racer_key(c, q, o, out->store_ip, key);
	rw = walk_find(key, nkey);
	if (!rw) {
		rw = calloc(1, sizeof(*rw));
		if (!rw)
			return;
		memcpy(rw->key, key, nkey * sizeof(*key));
		rw->nkey = nkey;
		walk_racer(c, q, o, f, idx, rw);
		walk_keep(rw);
	}
	match(rw, cands, ncands, out);
}
