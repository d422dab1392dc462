#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Counts one kselftest program's KTAP output.
# usage: ktap-count.sh NAME KTAP_FILE EXIT_STATUS
# Prints "PASS FAIL SKIP" on stdout and, on stderr, why a program that
# crashed or stopped before its plan was complete counts as failed.
name=$1
file=$2
status=$3

awk -v name="$name" -v status="$status" '
/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; have_plan = 1 }
/^ok [0-9]+/ { if ($0 ~ /# SKIP/) skip++; else pass++ }
/^not ok [0-9]+/ { fail++ }
END {
	seen = pass + fail + skip
	if (!have_plan) {
		printf "%s: no KTAP plan (exit status %s): counted as failed\n", name, status > "/dev/stderr"
		fail++
	} else if (seen < plan) {
		printf "%s: %d of %d tests never reported (exit status %s): counted as failed\n", name, plan - seen, plan, status > "/dev/stderr"
		fail += plan - seen
	} else if (status != 0 && fail == 0) {
		printf "%s: exit status %s with no failed test: counted as failed\n", name, status > "/dev/stderr"
		fail++
	}
	printf "%d %d %d\n", pass, fail, skip
}' "$file"
