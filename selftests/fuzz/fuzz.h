/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzz targets of the kcollider CLI: each takes one input (bytes, NULs
 * included) and runs it through a command the way a user's file would
 * reach it. libFuzzer calls them through LLVMFuzzerTestOneInput() (built
 * with -DKC_FUZZ_LIBFUZZER by "make fuzz"); the corpus regression of
 * "make check" (selftests/host/fuzz_corpus_test.c) calls them directly.
 */
#ifndef KC_FUZZ_H
#define KC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* "report list" and "report group", text and JSON. */
int kc_fuzz_report(const uint8_t *data, size_t size);
/* "tso" on the tso_fixture executable and its modules, text and JSON. */
int kc_fuzz_tso(const uint8_t *data, size_t size);
/* "litmus --print", text and JSON. */
int kc_fuzz_litmus(const uint8_t *data, size_t size);

/* The CLI's main(), renamed (cli_main.c). */
int kc_cli_main(int argc, char **argv);

/*
 * Run "kcollider ARGS... FILE" in this process, FILE holding @data (a
 * memfd). @args ends with NULL. Returns the command's exit status.
 */
int kc_fuzz_cli(const uint8_t *data, size_t size, const char *const *args);

#ifdef KC_FUZZ_LIBFUZZER
/* libFuzzer's entry point: each *_fuzz.c defines it, calling its target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif

#endif /* KC_FUZZ_H */
