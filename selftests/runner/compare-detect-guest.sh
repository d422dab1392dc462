#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of compare-detect.sh: usage: compare-detect-guest.sh A.ko B.ko
# TRIALS BUDGET NSECS SCENARIO...
# For each scenario, detect-guest.sh with A and then with B, so that the
# host's drift falls on both; detect-guest.sh's CSV lines on stdout, each
# prefixed with "A," or "B,". Each trial's counters stay beside the
# results, under detect-A/ and detect-B/.
set -u
a=$1 b=$2 trials=$3 budget=$4 nsecs=$5
shift 5
[ -n "${KC_RESULTS:-}" ] || { echo "compare-detect-guest: run me inside the test VM" >&2; exit 2; }
detect=$(dirname "$0")/detect-guest.sh
for sc in "$@"; do
	for m in A B; do
		[ $m = A ] && ko=$a || ko=$b
		csv=$KC_RESULTS/detect-$m/compare-detect.csv
		mkdir -p "$KC_RESULTS/detect-$m"
		KC_MODULE=$ko "$detect" "$csv" "$trials" "$budget" "$nsecs" \
			"$sc" > /dev/null || exit 1
		sed "s/^/$m,/" "$csv"
	done
done
