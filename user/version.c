// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include <kcollider/version.h>
#include "main.h"

int do_version(int argc, char **argv)
{
	if (json_output)
		printf("{\"version\":\"%s\"}\n", KCOLLIDER_VERSION);
	else
		printf("kcollider %s\n", KCOLLIDER_VERSION);
	return 0;
}
