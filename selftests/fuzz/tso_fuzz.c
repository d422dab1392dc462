// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a log read by "kcollider tso", offline on the tso_fixture
 * executable (KC_FUZZ_TSO_BIN) and its module-like objects
 * (KC_FUZZ_TSO_MODS): the report parser, the frames' lookup in the code,
 * the backward and forward searches, the litmus tests of a cycle and the
 * output.
 */
#include <stdlib.h>

#include "fuzz.h"

int kc_fuzz_tso(const uint8_t *data, size_t size)
{
	static const char *const json[] = {
		"tso", "-j", "--litmus", "--vmlinux", KC_FUZZ_TSO_BIN,
		"--modules", KC_FUZZ_TSO_MODS, NULL
	};
	static const char *const text[] = {
		"tso", "--strict", "--litmus", "--max-depth", "3",
		"--vmlinux", KC_FUZZ_TSO_BIN, NULL
	};
	int ret;

	ret = kc_fuzz_cli(data, size, json);
	ret |= kc_fuzz_cli(data, size, text);
	/* The code opens and any log reads: exit status 0. */
	if (ret)
		abort();
	return 0;
}

#ifdef KC_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return kc_fuzz_tso(data, size);
}
#endif
