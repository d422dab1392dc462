// SPDX-License-Identifier: GPL-2.0
/*
 * The backward search of Documentation/tso.rst.
 *
 * From the racy load, search backward over the control-flow graph for a
 * store that reaches the load on a path with no barrier (LOCK'd
 * instruction, XCHG with memory, MFENCE, serializing instruction):
 * - inside the function, breadth first, so the first witness found on any
 *   path is the one with the shortest path;
 * - at the function's entry, on into the caller, backward from the call
 *   instruction the reported stack names, up to the top of the stack;
 * - at a call met on the way, the callee's summary: may leave a store
 *   pending (the witness is inside it), fences every path (a barrier), or
 *   transparent (search on past the call). Summaries are memoized and
 *   depth-limited; an indirect call or code that cannot be read or decoded
 *   makes the answer unknown with that reason, never "not triangular".
 * A witness anywhere makes the race triangular. The fence point is the
 * earliest instruction on the shortest witness path such that a fence
 * before it closes every witness path (checked by searching again with the
 * path blocked there).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "common.h"
#include "tso.h"
#include "tso_mem.h"

enum sum_kind {
	SUM_TRANSPARENT,
	SUM_PENDING,		/* may leave a store pending at return */
	SUM_FENCES,		/* every path to a return crosses a barrier */
	SUM_UNKNOWN,
	SUM_NORETURN,
};

struct summary {
	enum sum_kind kind;
	const char *reason;	/* SUM_UNKNOWN */
	uint64_t ip;		/* barrier, witness or unknown instruction */
	int len;		/* SUM_PENDING: path length store..return */
	/*
	 * NULL, or right after the struct, in the same allocation:
	 * cfg_cache_free() frees the summary as one block.
	 */
	uint64_t *path;
};

enum { SUM_NONE, SUM_BUSY, SUM_DONE };

struct frame {
	struct kc_func *f;
	int link;		/* frame 0: the load; k > 0: the call */
	int *dist, *parent;	/* parent: encoded node, -1 at the start */
};

/* What one search found, nearest first. */
struct found {
	int w_cost, w_node;
	const struct summary *w_sum;	/* witness inside this callee */
	int b_dist;
	uint64_t b_ip;
	int u_dist;
	const char *u_reason;
	uint64_t u_ip;
	bool top;
};

struct bfs {
	const struct code_src *c;
	const struct tso_opts *o;
	int depth;			/* summary nesting */
	struct frame *fr;
	int nfr;			/* frames usable now */
	/* main search only: the reported stack, resolved lazily */
	const struct kc_access *acc;
	int stack_frames;
	int blocked;			/* node with a fence before it, or -1 */
	struct tso_mem load_mem;	/* main search: the load's operand */
	struct tso_cand *cands;		/* main search's first pass: stores met */
	int ncands;
	struct found fd;
	int *q;
	int qh, qn, qcap;
};

#define NODE(k, i) ((k) << 24 | (i))
#define NODE_K(n) ((n) >> 24)
#define NODE_I(n) ((n) & 0xffffff)

static struct summary sum_busy = { .kind = SUM_TRANSPARENT };

const char *tso_verdict_name(enum tso_verdict v)
{
	static const char * const names[] = {
		[TSO_SC_VIOLATION] = "sc-violation",
		[TSO_TRIANGULAR] = "triangular",
		[TSO_NOT_TRIANGULAR] = "not-triangular",
		[TSO_WRITE_WRITE] = "write-write",
		[TSO_LOCKED] = "locked",
		[TSO_UNKNOWN] = "unknown",
	};

	return names[v];
}

static bool counts_as_store(const struct tso_opts *o, const struct kc_dinsn *d)
{
	return (d->flags & DI_STORE) || (o->strict && (d->flags & DI_STACK_STORE));
}

static void found_init(struct found *fd)
{
	memset(fd, 0, sizeof(*fd));
	fd->w_cost = fd->b_dist = fd->u_dist = -1;
}

static void add_witness(struct found *fd, int cost, int node,
			const struct summary *s)
{
	if (fd->w_cost < 0 || cost < fd->w_cost) {
		fd->w_cost = cost;
		fd->w_node = node;
		fd->w_sum = s;
	}
}

static void add_barrier(struct found *fd, int d, uint64_t ip)
{
	if (fd->b_dist < 0 || d < fd->b_dist) {
		fd->b_dist = d;
		fd->b_ip = ip;
	}
}

static void add_unknown(struct found *fd, int d, const char *why, uint64_t ip)
{
	if (fd->u_dist < 0 || d < fd->u_dist) {
		fd->u_dist = d;
		fd->u_reason = why;
		fd->u_ip = ip;
	}
}

static const struct summary *summarize(const struct code_src *c,
				       const struct tso_opts *o, uint64_t target,
				       int depth);

#define REGION_MAX 512

/* Intra-procedural successors of instruction @i; -1 when unknown. */
static int successors(const struct kc_func *f, int i, int succ[2])
{
	const struct kc_dinsn *d = &f->insn[i];
	int n = 0;

	if (!(d->flags & DI_STOP) && i + 1 < f->n)
		succ[n++] = i + 1;
	if (!(d->flags & DI_JUMP) || (d->flags & DI_TAIL))
		return n;
	if (d->flags & DI_INDIRECT)
		return -1;
	succ[n] = cfg_index(f, d->target, false);
	return succ[n] >= 0 ? n + 1 : -1;
}

/*
 * Does no instruction from store @st up to (not including) the load
 * write a register the load's address uses? Every path out of the store
 * is followed, also those that never reach the load: a clobber there
 * only makes the answer "no", the safe side.
 */
static bool regs_kept(const struct bfs *b, int st)
{
	const struct kc_func *f = b->fr[0].f;
	uint16_t regs = tso_mem_regs(&b->load_mem);
	int *q = malloc(REGION_MAX * sizeof(*q)), qh = 0, qn = 0, i, k, n;
	bool *seen = calloc(f->n, sizeof(*seen)), kept = q && seen;
	int succ[2];
	struct tso_mem m;

	if (kept) {
		q[qn++] = st;
		seen[st] = true;
	}
	while (kept && qh < qn) {
		i = q[qh++];
		if (!tso_mem_at(b->c, f->insn[i].addr, &m) || (m.writes & regs)) {
			kept = false;
			break;
		}
		n = successors(f, i, succ);
		for (k = 0; kept && k < n; k++) {
			if (succ[k] == b->fr[0].link || seen[succ[k]])
				continue;
			seen[succ[k]] = true;
			kept = qn < REGION_MAX;
			if (kept)
				q[qn++] = succ[k];
		}
		kept = kept && n >= 0;
	}
	free(q);
	free(seen);
	return kept;
}

/*
 * A store to the very location the load reads is no witness: the load is
 * served by it (forwarding) or by a later store, an SC-adjacent pair. Only
 * provably equal addresses count: the same static address, or in the
 * load's own function the same registers and displacement with neither
 * register written between them.
 */
static bool same_location(const struct bfs *b, int node)
{
	const struct kc_dinsn *d = &b->fr[NODE_K(node)].f->insn[NODE_I(node)];
	struct tso_mem st;

	if (!b->load_mem.valid || !tso_mem_at(b->c, d->addr, &st))
		return false;
	if (!tso_mem_same(&st, &b->load_mem))
		return false;
	return st.abs || (!NODE_K(node) && regs_kept(b, NODE_I(node)));
}

/* Every pending store is a candidate for the racer's closing load. */
static void add_cand(struct bfs *b, int cost, int node,
		     const struct summary *s, uint64_t ip)
{
	struct tso_cand *cd;

	if (!b->cands || b->ncands == TSO_MAX_CANDS)
		return;
	cd = &b->cands[b->ncands++];
	cd->ip = ip;
	cd->node = node;
	cd->cost = cost;
	cd->sum = s;
	if (!tso_mem_at(b->c, ip, &cd->m))
		memset(&cd->m, 0, sizeof(cd->m));
}

static void add_store(struct bfs *b, int cost, int node,
		      const struct summary *s, uint64_t ip)
{
	add_witness(&b->fd, cost, node, s);
	add_cand(b, cost, node, s, ip);
}

/* A call met backward: the callee's summary decides. */
static bool visit_call(struct bfs *b, const struct kc_dinsn *d, int dist,
		       int node)
{
	const struct summary *s;

	if (d->flags & DI_INDIRECT) {
		add_unknown(&b->fd, dist, "indirect-call", d->addr);
		return false;
	}
	s = summarize(b->c, b->o, d->target, b->depth + 1);
	switch (s->kind) {
	case SUM_PENDING:
		add_store(b, dist - 1 + s->len, node, s, s->ip);
		return false;
	case SUM_FENCES:
		add_barrier(&b->fd, dist, s->ip);
		return false;
	case SUM_UNKNOWN:
		add_unknown(&b->fd, dist, s->reason, s->ip ? s->ip : d->addr);
		return false;
	case SUM_NORETURN:
		return false;
	default:
		return true;
	}
}

/*
 * Classify node @d met at distance @dist: returns true when the search
 * goes on past it (to its predecessors).
 */
static bool visit(struct bfs *b, const struct kc_dinsn *d, int dist, int node)
{
	if (d->flags & DI_BARRIER) {
		add_barrier(&b->fd, dist, d->addr);
		return false;
	}
	if (counts_as_store(b->o, d)) {
		if (same_location(b, node))
			return true;
		add_store(b, dist, node, NULL, d->addr);
		return false;
	}
	if (!(d->flags & DI_CALL) && !(d->flags & DI_TAIL))
		return true;
	/* Not taken when met through its fall through: nothing ran. */
	if ((d->flags & DI_TAIL) && (d->flags & DI_COND))
		return true;
	return visit_call(b, d, dist, node);
}

static uint64_t node_addr(const struct bfs *b, int node)
{
	return b->fr[NODE_K(node)].f->insn[NODE_I(node)].addr;
}

static int node_parent(const struct bfs *b, int node)
{
	return b->fr[NODE_K(node)].parent[NODE_I(node)];
}

/* Witness to load (or to return), in program order. */
static uint64_t *build_path(const struct bfs *b, int *len)
{
	const struct summary *s = b->fd.w_sum;
	int node = b->fd.w_node, n = 0, i;
	uint64_t *p = calloc(b->fd.w_cost + 1, sizeof(*p));

	if (!p)
		return NULL;
	if (s) {
		for (i = 0; i < s->len && n < b->fd.w_cost; i++)
			p[n++] = s->path[i];
		node = node_parent(b, node);	/* the call precedes the store */
	}
	for (; node >= 0 && n < b->fd.w_cost; node = node_parent(b, node))
		p[n++] = node_addr(b, node);
	*len = n;
	return p;
}

static int frame_alloc(struct frame *fr, struct kc_func *f, int link)
{
	fr->f = f;
	fr->link = link;
	fr->dist = malloc((f->n + 1) * sizeof(int));
	fr->parent = malloc((f->n + 1) * sizeof(int));
	if (!fr->dist || !fr->parent)
		return -1;
	memset(fr->dist, 0xff, (f->n + 1) * sizeof(int));
	return 0;
}

static void frame_free(struct frame *fr)
{
	free(fr->dist);
	free(fr->parent);
	fr->dist = fr->parent = NULL;
}

static void enqueue(struct bfs *b, int k, int i, int d, int parent)
{
	struct frame *fr = &b->fr[k];

	if (fr->dist[i] >= 0)
		return;
	fr->dist[i] = d;
	fr->parent[i] = parent;
	if (b->qn == b->qcap) {
		int cap = b->qcap ? 2 * b->qcap : 256;
		int *q = realloc(b->q, cap * sizeof(*q));

		if (!q)
			return;
		b->q = q;
		b->qcap = cap;
	}
	b->q[b->qn++] = NODE(k, i);
}

/*
 * Caller frame @k (1-based on the stack): its function and the call
 * instruction that ends at the return address. NULL reason on success.
 */
static const char *resolve_caller(struct bfs *b, int k, uint64_t *ip)
{
	const struct kc_frame *kf = &b->acc->frames[k];
	const struct kc_sym *sym = code_find_name(b->c, kf->func, kf->mod,
						  kf->size);
	struct kc_func *f;
	int link;

	*ip = 0;
	if (k >= b->o->max_frames)
		return "depth";
	if (!sym || !kf->has_off)
		return "code-unavailable";
	*ip = sym->addr + kf->off;
	f = cfg_get(b->c, sym);
	if (!f)
		return "code-unavailable";
	link = cfg_index(f, sym->addr + kf->off, true);
	if (link < 0 || !(f->insn[link].flags & DI_CALL))
		return f->decode_failed ? "decode-failure" : "code-unavailable";
	if (frame_alloc(&b->fr[k], f, link))
		return "code-unavailable";
	b->nfr = k + 1;
	return NULL;
}

/* At a function entry: on into the caller along the reported stack. */
static void to_caller(struct bfs *b, int k, int d, int node)
{
	const char *why;
	uint64_t ip;

	if (!b->acc || k + 1 >= b->stack_frames) {
		b->fd.top = true;
		return;
	}
	if (k + 1 >= b->nfr) {
		why = resolve_caller(b, k + 1, &ip);
		if (why) {
			add_unknown(&b->fd, d, why, ip);
			return;
		}
	}
	enqueue(b, k + 1, b->fr[k + 1].link, d + 1, node);
}

static void expand(struct bfs *b, int node, int d)
{
	int k = NODE_K(node), i = NODE_I(node), p;
	struct kc_func *f = b->fr[k].f;
	bool start = (k == 0 && b->acc) || k > 0 ? i == b->fr[k].link : false;

	if (!start && !visit(b, &f->insn[i], d, node))
		return;
	if (node == b->blocked)
		return;
	for (p = f->pred_start[i]; p < f->pred_start[i + 1]; p++)
		enqueue(b, k, f->pred[p], d + 1, node);
	if (i == 0)
		to_caller(b, k, d, node);
	else if (f->pred_start[i] == f->pred_start[i + 1] && f->indirect_jump)
		add_unknown(&b->fd, d, "indirect-jump", f->insn[i].addr);
	if (f->decode_failed)
		add_unknown(&b->fd, d, "decode-failure", f->fail_addr);
}

static void run(struct bfs *b)
{
	while (b->qh < b->qn) {
		int node = b->q[b->qh++];
		struct frame *fr = &b->fr[NODE_K(node)];

		expand(b, node, fr->dist[NODE_I(node)]);
	}
}

static void bfs_reset(struct bfs *b)
{
	int k;

	for (k = 0; k < b->nfr; k++)
		memset(b->fr[k].dist, 0xff, (b->fr[k].f->n + 1) * sizeof(int));
	b->qh = b->qn = 0;
	found_init(&b->fd);
}

static struct summary *summary_from(struct bfs *b, bool any_exit)
{
	size_t room = b->fd.w_cost >= 0 ? b->fd.w_cost + 1 : 0;
	struct summary *s = calloc(1, sizeof(*s) + room * sizeof(uint64_t));
	uint64_t *path;

	if (!s)
		return NULL;
	if (b->fd.w_cost >= 0) {
		s->kind = SUM_PENDING;
		path = build_path(b, &s->len);
		if (path) {
			s->path = memcpy(s + 1, path, s->len * sizeof(*path));
			free(path);
		}
		s->ip = s->path ? s->path[0] : 0;
	} else if (b->fd.u_dist >= 0) {
		s->kind = SUM_UNKNOWN;
		s->reason = b->fd.u_reason;
		s->ip = b->fd.u_ip;
	} else if (b->fd.top) {
		s->kind = SUM_TRANSPARENT;
	} else if (b->fd.b_dist >= 0) {
		s->kind = SUM_FENCES;
		s->ip = b->fd.b_ip;
	} else {
		s->kind = any_exit ? SUM_TRANSPARENT : SUM_NORETURN;
	}
	return s;
}

static struct summary *summary_unknown(const char *why, uint64_t ip)
{
	static struct summary pool[4];
	static int next;
	struct summary *s = &pool[next++ % 4];

	s->kind = SUM_UNKNOWN;
	s->reason = why;
	s->ip = ip;
	return s;
}

/* Backward from every return (and tail call) of the callee. */
static const struct summary *summarize(const struct code_src *c,
				       const struct tso_opts *o, uint64_t target,
				       int depth)
{
	const struct kc_sym *sym = code_find_addr(c, target);
	struct bfs b = { .c = c, .o = o, .depth = depth, .blocked = -1 };
	struct frame fr;
	struct kc_func *f;
	struct summary *s;
	bool any_exit = false;
	int i;

	if (!sym || sym->addr != target)
		return summary_unknown("code-unavailable", target);
	f = cfg_get(c, sym);
	if (!f)
		return summary_unknown("code-unavailable", target);
	if (f->sum_state == SUM_DONE)
		return f->summary;
	if (f->sum_state == SUM_BUSY)
		return &sum_busy;	/* recursion: the other paths decide */
	if (depth > o->max_depth)
		return summary_unknown("depth", target);
	if (frame_alloc(&fr, f, -1))
		return summary_unknown("code-unavailable", target);
	f->sum_state = SUM_BUSY;
	b.fr = &fr;
	b.nfr = 1;
	found_init(&b.fd);
	for (i = 0; i < f->n; i++) {
		if (!(f->insn[i].flags & (DI_RET | DI_TAIL)) || (f->insn[i].flags & DI_COND))
			continue;
		any_exit = true;
		enqueue(&b, 0, i, 1, -1);
	}
	run(&b);
	s = summary_from(&b, any_exit);
	free(b.q);
	frame_free(&fr);
	f->summary = s;
	f->sum_state = s ? SUM_DONE : SUM_NONE;
	return s ? s : summary_unknown("code-unavailable", target);
}

static bool is_load(const struct kc_access *a)
{
	return a->type == KC_ACC_TYPE_READ || a->type == KC_ACC_TYPE_READ_WRITE;
}

static bool is_store(const struct kc_access *a)
{
	return a->type == KC_ACC_TYPE_WRITE || a->type == KC_ACC_TYPE_READ_WRITE;
}

/* The detail text, whatever its length (it may hold symbol names). */
static __printf(2, 3) void set_detail(struct tso_result *res, const char *fmt, ...)
{
	va_list ap;

	free(res->detail);
	va_start(ap, fmt);
	if (vasprintf(&res->detail, fmt, ap) < 0)
		res->detail = NULL;
	va_end(ap);
}

static void set_unknown(struct tso_result *res, const char *why, uint64_t ip,
			const struct code_src *c)
{
	char *sym;

	res->verdict = TSO_UNKNOWN;
	res->reason = why;
	if (ip) {
		res->have_unknown_ip = true;
		res->unknown_ip = ip;
		sym = code_sym(c, ip);
		set_detail(res, "%s at %s", why, sym ? sym : "?");
		free(sym);
	} else {
		set_detail(res, "%s", why);
	}
}

/* Search again with a fence before @node: does any witness survive? */
static bool fence_closes(struct bfs *b, int node)
{
	bool closed;

	bfs_reset(b);
	b->blocked = node;
	enqueue(b, 0, b->fr[0].link, 1, -1);
	run(b);
	closed = b->fd.w_cost < 0;
	b->blocked = -1;
	return closed;
}

/* The earliest point after the witness on its path that closes them all. */
static void find_fence(struct bfs *b, struct tso_result *res)
{
	int nodes[TSO_MAX_PATH], n = 0, node = b->fd.w_node, i;

	for (node = node_parent(b, node); node >= 0 && n < TSO_MAX_PATH;
	     node = node_parent(b, node))
		nodes[n++] = node;
	for (i = 0; i < n; i++) {
		if (fence_closes(b, nodes[i])) {
			res->have_fence = true;
			res->fence_ip = node_addr(b, nodes[i]);
			return;
		}
	}
}

/* The witness shown: the one the racer reads back, else the nearest. */
static void pick_witness(struct bfs *b, const struct tso_close *q)
{
	const struct tso_cand *cd;

	if (!q->found)
		return;
	cd = &b->cands[q->cand];
	b->fd.w_cost = cd->cost;
	b->fd.w_node = cd->node;
	b->fd.w_sum = cd->sum;
}

static void set_triangular(struct bfs *b, struct tso_result *res)
{
	res->verdict = res->q.found ? TSO_SC_VIOLATION : TSO_TRIANGULAR;
	res->reason = res->q.found ? "store-buffering" : "pending-store";
	pick_witness(b, &res->q);
	res->path = build_path(b, &res->path_len);
	res->have_witness = res->path && res->path_len;
	res->witness_ip = res->have_witness ? res->path[0] : 0;
	if (res->q.found)
		set_detail(res, "the racer loads the witness's location after its store: %s",
			 res->q.fenced ? "one-sided fence, still allowed on x86"
				       : "no fence on either side");
	else
		set_detail(res, "a store may still be in the store buffer at the load");
	b->cands = NULL;	/* the fence searches collect nothing */
	find_fence(b, res);
}

static void verdict_from(struct bfs *b, struct tso_result *res)
{
	const struct code_src *c = b->c;

	if (b->fd.w_cost >= 0) {
		set_triangular(b, res);
	} else if (b->fd.u_dist >= 0) {
		set_unknown(res, b->fd.u_reason, b->fd.u_ip, c);
	} else if (b->fd.b_dist >= 0) {
		res->verdict = TSO_NOT_TRIANGULAR;
		res->reason = "barrier";
		res->have_barrier = true;
		res->barrier_ip = b->fd.b_ip;
		set_detail(res, "every path from a store to the load crosses a barrier");
	} else {
		res->verdict = TSO_NOT_TRIANGULAR;
		res->reason = "no-store";
		set_detail(res, "no store before the load on any path of the reported stack");
	}
}

static bool start_load(const struct code_src *c, const struct kc_access *a,
		       struct kc_func **f, int *idx, struct tso_result *res)
{
	const char *why = tso_locate(c, a, f, idx);

	if (why) {
		set_unknown(res, why, 0, c);
		return false;
	}
	res->have_load = true;
	res->load_ip = (*f)->insn[*idx].addr;
	snprintf(res->load_insn, sizeof(res->load_insn), "%s", (*f)->insn[*idx].text);
	if (!((*f)->insn[*idx].flags & DI_LOCKED))
		return true;
	res->verdict = TSO_LOCKED;
	res->reason = "locked-load";
	set_detail(res, "the load is LOCK'd: it drains the store buffer first");
	return false;
}

/*
 * Load side @a, racing store side @q (NULL if it does not store): the
 * backward search, then, if triangular, the racer's forward search.
 */
static void analyze_load(const struct code_src *c, const struct kc_access *a,
			 const struct kc_access *q, const struct tso_opts *o,
			 struct tso_result *res)
{
	struct frame fr[KC_MAX_FRAMES];
	struct tso_cand cands[TSO_MAX_CANDS];
	struct bfs b = { .c = c, .o = o, .fr = fr, .acc = a, .blocked = -1,
			 .cands = cands };
	struct kc_func *f = NULL;
	int idx = -1, k;

	if (!start_load(c, a, &f, &idx, res))
		return;
	if (frame_alloc(&fr[0], f, idx)) {
		set_unknown(res, "code-unavailable", 0, c);
		return;
	}
	tso_mem_at(c, res->load_ip, &b.load_mem);
	b.nfr = 1;
	b.stack_frames = a->nframes ? a->nframes : 1;
	found_init(&b.fd);
	enqueue(&b, 0, idx, 1, -1);
	run(&b);
	if (b.fd.w_cost >= 0 && q)
		tso_close_cycle(c, q, o, cands, b.ncands, &res->q);
	verdict_from(&b, res);
	for (k = 0; k < b.nfr; k++)
		frame_free(&fr[k]);
	free(b.q);
}

/* Which side's answer the report gets: the most urgent. */
static int rank(enum tso_verdict v)
{
	switch (v) {
	case TSO_SC_VIOLATION:
		return 5;
	case TSO_TRIANGULAR:
		return 4;
	case TSO_UNKNOWN:
		return 3;
	case TSO_NOT_TRIANGULAR:
		return 2;
	default:
		return 1;
	}
}

/* Operand caches are keyed by address: another code source, new caches. */
static void cache_check(const struct code_src *c)
{
	static const struct code_src *last;
	static const struct kc_sym *last_syms;

	if (c == last && c->image.syms == last_syms)
		return;
	tso_mem_cache_free();
	tso_close_cache_free();
	last = c;
	last_syms = c->image.syms;
}

static void write_write(const struct code_src *c, const struct kc_report *r,
			int sampled, int racer, struct tso_result *res)
{
	res->verdict = TSO_WRITE_WRITE;
	res->reason = "both-stores";
	res->side = sampled;
	res->other = racer;
	set_detail(res, "%s", r->nacc ? "both accesses are stores: stores drain in order"
				 : "no access in the report");
	if (!r->nacc)
		set_unknown(res, "malformed-report", 0, c);
}

void tso_analyze(const struct code_src *c, const struct kc_report *r,
		 const struct tso_opts *o, struct tso_result *res)
{
	int order[2], n = 0, i, sampled = kc_report_sampled(r);
	int racer = kc_report_racer(r), other;
	struct tso_result tmp;

	cache_check(c);
	memset(res, 0, sizeof(*res));
	res->side = res->other = -1;
	/* The sampled side first: its instruction is exact. */
	if (sampled >= 0 && is_load(&r->acc[sampled]))
		order[n++] = sampled;
	if (racer >= 0 && is_load(&r->acc[racer]))
		order[n++] = racer;
	if (!n) {
		write_write(c, r, sampled, racer, res);
		return;
	}
	for (i = 0; i < n; i++) {
		memset(&tmp, 0, sizeof(tmp));
		other = order[i] == sampled ? racer : sampled;
		analyze_load(c, &r->acc[order[i]],
			     other >= 0 && is_store(&r->acc[other]) ? &r->acc[other] : NULL,
			     o, &tmp);
		tmp.side = order[i];
		tmp.other = other;
		if (!i || rank(tmp.verdict) > rank(res->verdict)) {
			tso_result_free(res);
			*res = tmp;
		} else {
			tso_result_free(&tmp);
		}
	}
}

void tso_result_free(struct tso_result *res)
{
	free(res->path);
	res->path = NULL;
	free(res->detail);
	res->detail = NULL;
}

void tso_cache_free(void)
{
	cfg_cache_free();
	tso_mem_cache_free();
	tso_close_cache_free();
}
