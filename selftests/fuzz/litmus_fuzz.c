// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a test read by "kcollider litmus --print" (the herd7 parser
 * and printer of user/litmus.c, the x86-TSO and SC machines of
 * user/tso_checker.c).
 */
#include <stdlib.h>

#include "fuzz.h"

int kc_fuzz_litmus(const uint8_t *data, size_t size)
{
	static const char *const text[] = { "litmus", "--print", NULL };
	static const char *const json[] = { "litmus", "-j", NULL };
	int ret;

	/* 0: decided, 1: the test does not parse; anything else is a bug. */
	ret = kc_fuzz_cli(data, size, text);
	if (ret == 0)
		ret = kc_fuzz_cli(data, size, json);
	if (ret != 0 && ret != 1)
		abort();
	return 0;
}

#ifdef KC_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return kc_fuzz_litmus(data, size);
}
#endif
