// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a log read by "kcollider report" (the report parser,
 * user/report_parse.c, and what prints its result: report_out.c, json.c,
 * the grouping of report.c).
 */
#include <stdlib.h>

#include "fuzz.h"

int kc_fuzz_report(const uint8_t *data, size_t size)
{
	static const char *const list_json[] = { "report", "list", "-j", NULL };
	static const char *const list_text[] = { "report", "list", NULL };
	static const char *const group_pretty[] = { "report", "group", "-p", NULL };
	static const char *const group_text[] = { "report", "group", NULL };
	int ret;

	ret = kc_fuzz_cli(data, size, list_json);
	ret |= kc_fuzz_cli(data, size, list_text);
	ret |= kc_fuzz_cli(data, size, group_pretty);
	ret |= kc_fuzz_cli(data, size, group_text);
	/* Any log reads: exit status 0 whatever it holds (README, CLI). */
	if (ret)
		abort();
	return 0;
}

#ifdef KC_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return kc_fuzz_report(data, size);
}
#endif
