// SPDX-License-Identifier: GPL-2.0
/*
 * Runs one CLI command on an input held in a memfd, in this process: the
 * input reaches the command through the same open/getline path as a file
 * given on the command line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "main.h"

#define KC_FUZZ_MAX_ARGS 16

static int input_fd = -1;

static int write_input(const uint8_t *data, size_t size)
{
	size_t off = 0;
	ssize_t n;

	if (input_fd < 0) {
		input_fd = memfd_create("kc-fuzz-input", 0);
		if (input_fd < 0) {
			perror("memfd_create");
			abort();
		}
	}
	if (ftruncate(input_fd, 0))
		return -1;
	while (off < size) {
		n = pwrite(input_fd, data + off, size - off, off);
		if (n <= 0)
			return -1;
		off += n;
	}
	return 0;
}

int kc_fuzz_cli(const uint8_t *data, size_t size, const char *const *args)
{
	char *argv[KC_FUZZ_MAX_ARGS + 3];
	char path[64];
	int argc = 0, ret;

	if (write_input(data, size)) {
		perror("kc-fuzz: writing the input");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", input_fd);
	argv[argc++] = "kcollider";
	while (*args && argc < KC_FUZZ_MAX_ARGS)
		argv[argc++] = (char *)*args++;
	argv[argc++] = path;
	argv[argc] = NULL;
	/* A fresh CLI: getopt from the start, no -j left from the last run. */
	optind = 0;
	json_output = false;
	json_pretty = false;
	ret = kc_cli_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	return ret;
}
