/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KCOLLIDER_MAIN_H
#define KCOLLIDER_MAIN_H

#include "common.h"

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *summary;
};

int do_help(int argc, char **argv);
int do_litmus(int argc, char **argv);
int do_mark(int argc, char **argv);
int do_report(int argc, char **argv);
int do_status(int argc, char **argv);
int do_tso(int argc, char **argv);
int do_version(int argc, char **argv);

#endif /* KCOLLIDER_MAIN_H */
