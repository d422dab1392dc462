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
function record(num, result) {
	if (num in seen_num && seen_num[num] != result) {
		printf "%s: test %d reported twice with different results\n", name, num > "/dev/stderr"
		result = "fail"
	}
	if (!(num in seen_num))
		order[++n] = num
	seen_num[num] = result
}
/^ok [0-9]+/ { record($2 + 0, $0 ~ /# SKIP/ ? "skip" : "pass") }
/^not ok [0-9]+/ { record($3 + 0, "fail") }
END {
	for (i = 1; i <= n; i++) {
		r = seen_num[order[i]]
		if (r == "pass") pass++
		else if (r == "skip") skip++
		else fail++
	}
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
