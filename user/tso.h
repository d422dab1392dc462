/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Triangular-race analysis of a reported pair under x86-TSO: the static
 * approximation described in Documentation/tso.rst.
 */
#ifndef KCOLLIDER_TSO_H
#define KCOLLIDER_TSO_H

#include <stdbool.h>
#include <stdint.h>

#include "code.h"
#include "report_parse.h"
#include "tso_close.h"

/* In rank order: the most urgent first. */
enum tso_verdict {
	TSO_SC_VIOLATION,	/* triangular, and the racer closes the cycle */
	TSO_TRIANGULAR,
	TSO_NOT_TRIANGULAR,
	TSO_WRITE_WRITE,
	TSO_LOCKED,
	TSO_UNKNOWN,
	TSO_NVERDICTS
};

struct tso_result {
	enum tso_verdict verdict;
	const char *reason;	/* short code, see tso_reason_text() */
	char *detail;		/* allocated: names are never cut */
	int side;		/* index in r->acc of the load analysed, -1 */
	bool have_load;
	uint64_t load_ip;
	char load_insn[96];
	bool have_witness;
	uint64_t witness_ip;
	int path_len;		/* instructions from witness to load, both in */
	uint64_t *path;		/* path_len addresses, program order */
	bool have_barrier;
	uint64_t barrier_ip;
	bool have_fence;
	uint64_t fence_ip;	/* a smp_mb() before this instruction */
	bool have_unknown_ip;
	uint64_t unknown_ip;
	int other;		/* index of the racing access, -1 */
	/* TSO_SC_VIOLATION: the racer's half, and where its fence goes */
	struct tso_close q;
};

const char *tso_verdict_name(enum tso_verdict v);
/* Analyse one parsed report. Always fills @res (verdict unknown on error). */
void tso_analyze(const struct code_src *c, const struct kc_report *r,
		 const struct tso_opts *o, struct tso_result *res);
void tso_result_free(struct tso_result *res);
/* Drop every cache (decoded functions, summaries, operands, walks). */
void tso_cache_free(void);

#endif /* KCOLLIDER_TSO_H */
