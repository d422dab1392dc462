/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The racer's half of a store-buffering cycle (tso_close.c), and what both
 * halves of the analysis share: the bounds of a search, the witness
 * stores it hands over, and where a reported access's instruction is.
 */
#ifndef KCOLLIDER_TSO_CLOSE_H
#define KCOLLIDER_TSO_CLOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "code.h"
#include "report_parse.h"
#include "tso_mem.h"

struct kc_func;

struct tso_opts {
	bool strict;		/* count %rsp-relative stores too */
	int max_depth;		/* callee summaries nested deeper: unknown */
	int max_frames;		/* caller frames followed */
};

#define TSO_MAX_PATH 4096
/* --max-depth: deeper nesting only costs time; this bounds the recursion. */
#define TSO_MAX_DEPTH 64
#define TSO_MAX_CANDS 64

/* A store that may be pending at the load: a possible witness. */
struct tso_cand {
	uint64_t ip;
	struct tso_mem m;
	int node, cost;		/* where the backward search met it */
	const void *sum;	/* inside this callee summary, or NULL */
};

/*
 * The racer's half of a store-buffering cycle: after its store to the
 * raced location it loads a witness's location (program order).
 */
struct tso_close {
	bool found;
	int cand;		/* the witness whose location it loads */
	uint64_t store_ip;	/* the racer's store */
	uint64_t next_ip;	/* the instruction after it */
	uint64_t load_ip;	/* the closing load */
	bool fenced;		/* every path store -> load crosses a barrier */
	uint64_t barrier_ip;	/* the first barrier met, when fenced */
	const char *why_not;	/* no start point: the reason */
};

/*
 * The racer @q's half: search forward from its access for a load of a
 * candidate's location (tso_close.c).
 */
void tso_close_cycle(const struct code_src *c, const struct kc_access *q,
		     const struct tso_opts *o, const struct tso_cand *cands,
		     int ncands, struct tso_close *out);
/* The function and instruction of access @a; NULL or the reason. */
const char *tso_locate(const struct code_src *c, const struct kc_access *a,
		       struct kc_func **fp, int *idx);
/* Drop the racers' walks kept by tso_close_cycle(). */
void tso_close_cache_free(void);

#endif /* KCOLLIDER_TSO_CLOSE_H */
