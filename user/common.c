// SPDX-License-Identifier: GPL-2.0
/*
 * What every command shares: the output mode its options set, and errors
 * printed so that a script reading --json output always gets JSON.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "common.h"
#include "json.h"

bool json_output;
bool json_pretty;
const char *prog_name = "kcollider";

bool kc_common_option(int opt)
{
	switch (opt) {
	case 'p':
		json_pretty = true;
		/* fall through */
	case 'j':
		json_output = true;
		return true;
	}
	return false;
}

void kc_error(const char *fmt, ...)
{
	struct json j;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (json_output) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "error", msg ? msg : "out of memory");
		json_obj_end(&j);
		json_line_end(&j);
		fflush(stdout);
	} else {
		fprintf(stderr, "%s: %s\n", prog_name, msg ? msg : "out of memory");
	}
	free(msg);
}
