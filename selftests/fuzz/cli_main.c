// SPDX-License-Identifier: GPL-2.0
/* The CLI's main() as kc_cli_main(), for the fuzz targets to call. */
#define main kc_cli_main
#include "../../user/main.c"
