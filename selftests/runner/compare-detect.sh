#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Detection before and after: two builds of kcollider.ko in one VM boot,
# usage: compare-detect.sh A.ko B.ko [SCENARIO...] (default R1-R12 and
# N1-N7). Per scenario, bench-detect's trials with A and then with B.
# Prints per scenario each module's detected/trials and median seconds to
# the first report (R), or its reports and samples (N); the raw lines go
# to build/bench/compare-detect.csv. Environment: DETECT_TRIALS (10),
# DETECT_BUDGET (20), DETECT_NSECS (30), DETECT_TARGET (as bench-detect),
# KC_PLANTED, and as for check.sh
# (VM_IMAGE, KREL, VM_CPUS).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
[ $# -ge 2 ] || { echo "usage: $0 A.ko B.ko [SCENARIO...]" >&2; exit 2; }
planted=${KC_PLANTED:-$top/selftests/planted/kc_planted.ko}
for f in "$1" "$2" "$planted"; do
	[ -f "$f" ] || { echo "compare-detect: $f: no such file" >&2; exit 2; }
done
a=$(realpath "$1") b=$(realpath "$2")
shift 2
[ $# -gt 0 ] || set -- r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 r12 \
	n1 n2 n3 n4 n5 n6 n7
if [ -z "${KREL:-}" ] && [ -n "${KDIR:-}" ]; then
	KREL=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"$KDIR/include/generated/utsrelease.h" 2> /dev/null)
fi
mkdir -p "$build/bench"
raw=$build/bench/compare-detect.csv
"$top/selftests/runner/run-vm.sh" -o "$build/results/compare-detect" \
	-k "${VM_IMAGE:-}" -r "${KREL:-}" -c "${VM_CPUS:-4}" \
	-t "${VM_TIMEOUT:-5400}" -- \
	env KC_PLANTED="$(realpath "$planted")" KC_TOP="$top" \
	DETECT_TARGET="${DETECT_TARGET:-funcs}" \
	"$top/selftests/runner/compare-detect-guest.sh" "$a" "$b" \
	"${DETECT_TRIALS:-10}" "${DETECT_BUDGET:-20}" "${DETECT_NSECS:-30}" \
	"$@" > "$raw" ||
	{ echo "compare-detect: the VM failed; see $raw" >&2; exit 1; }
echo "A=$a"
echo "B=$b"
# module,scenario,kind,trial,detected,seconds,reports,samples,title,class
awk -F, '
function med(s,   n, v, i, j, t) {
	n = split(s, v, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
NF >= 8 && ($1 == "A" || $1 == "B") {
	k = $2 SUBSEP $1
	if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
	kind[$2] = $3
	if ($3 == "R") {
		tries[k]++
		if ($5 == 1) { hit[k]++; t[k] = t[k] " " $6 }
	} else {
		reports[k] += $7; samples[k] += $8
	}
}
function cell(k, s) {
	if (kind[s] == "R")
		return sprintf("%d/%d %s", hit[k], tries[k],
			       hit[k] ? sprintf("%.2f s", med(t[k])) : "-")
	return sprintf("%d reports, %d samples", reports[k], samples[k])
}
END {
	printf "%-9s %-28s %s\n", "scenario", "A: found, median to 1st",
	       "B: found, median to 1st"
	for (i = 1; i <= n; i++) {
		s = order[i]
		printf "%-9s %-28s %s\n", s, cell(s SUBSEP "A", s),
		       cell(s SUBSEP "B", s)
	}
}' "$raw"
