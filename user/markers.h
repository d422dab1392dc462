/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The markers of KCSAN's rules, as the source spells them: see markers.c.
 */
#ifndef KCOLLIDER_MARKERS_H
#define KCOLLIDER_MARKERS_H

#include <stdbool.h>
#include <stddef.h>

#include "marking.h"

/* The marker identifier @id names, with its kind; NULL when none. */
const char *kc_marker_of_ident(const char *id, enum kc_mark_kind *kind);

/*
 * The identifier of @line called like a function that marks an access
 * (data_race() wins over the others); comments and string literals are
 * skipped. @col, DWARF's 1-based column of the access (GCC counts bytes:
 * a tab is one), keeps only a marker whose call spans it: in
 * "c += READ_ONCE(b);" the load of b is marked and the add to c is not.
 * GCC gives an access inside nested macros the outermost one's column
 * ("unlikely(READ_ONCE(s->seq) != start)": unlikely's), so a call
 * starting at @col takes the markers inside it too. 0: any marker of the
 * line. Returns a static copy of it.
 */
const char *kc_marker_in_line(const char *line, int col,
			      enum kc_mark_kind *kind);

/* Calls opened and not closed in @text: more '(' than ')'. */
int kc_open_calls(const char *text);

/* The identifier called at 1-based column @col of @line, into @name. */
bool kc_called_at(const char *line, int col, char *name, size_t len);

/* The name of a function-like macro @line defines, or NULL; its length. */
const char *kc_macro_defined(const char *line, size_t *len);

/*
 * The definition starting at @lines[@i], its continuation lines joined
 * into @buf without their backslashes.
 */
void kc_macro_body(char *const *lines, int nlines, int i, char *buf,
		   size_t len);

#endif /* KCOLLIDER_MARKERS_H */
