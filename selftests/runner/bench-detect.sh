#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Detection-rate benchmark (not a test): boots the test VM once and runs
# selftests/runner/detect-guest.sh in it. For each R scenario of the
# planted catalogue, the fraction of TRIALS trials detected within BUDGET
# seconds and the median time to the first report; for each N scenario,
# the reports over NSECS seconds. Default detector settings.
# Writes build/bench/detect.csv and build/bench/detect.txt (the table).
#
# usage: bench-detect.sh [SCENARIO...]
# environment: DETECT_TRIALS (10), DETECT_BUDGET (20), DETECT_NSECS (60),
#              DETECT_TARGET (funcs: each scenario's own functions;
#              module: every function of kc_planted, as a user would),
#              DETECT_PARAMS: kcollider.ko parameters for every trial
#              (sample_percpu=0), beside the default settings;
#              VM_IMAGE, KREL, VM_CPUS (4) - as make check uses them;
#              KC_MODULE, KC_PLANTED: other builds of the two modules.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
trials=${DETECT_TRIALS:-10}
budget=${DETECT_BUDGET:-20}
nsecs=${DETECT_NSECS:-60}
results=$build/results/detect
csv=$build/bench/detect.csv
table=$build/bench/detect.txt

module=${KC_MODULE:-$top/kmod/kcollider.ko}
planted=${KC_PLANTED:-$top/selftests/planted/kc_planted.ko}
for f in "$module" "$planted"; do
	[ -f "$f" ] || { echo "bench-detect: $f not built (make)" >&2; exit 1; }
done
# make exports KDIR; the release the VM boots is the one built against
if [ -z "${KREL:-}" ] && [ -n "${KDIR:-}" ]; then
	KREL=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"$KDIR/include/generated/utsrelease.h" 2> /dev/null)
fi
mkdir -p "$results" "$build/bench"

# The guest's console is progress, kept as notes: the table is made from
# the CSV it leaves.
"$top/selftests/runner/run-vm.sh" -o "$results" -k "${VM_IMAGE:-}" \
	-r "${KREL:-}" -c "${VM_CPUS:-4}" -t "${VM_TIMEOUT:-2400}" -- \
	env KC_MODULE="$module" KC_PLANTED="$planted" \
	DETECT_TARGET="${DETECT_TARGET:-funcs}" \
	DETECT_PARAMS="${DETECT_PARAMS:-}" \
	"$top/selftests/runner/detect-guest.sh" /run/kc/results/detect.csv \
	"$trials" "$budget" "$nsecs" "$@" | sed -u '/^#/!s/^/# /'
status=$?
[ -s "$results/detect.csv" ] || { echo "bench-detect: no results (VM status $status)" >&2; exit 1; }
{
	echo "scenario,kind,trial,detected,seconds,reports,samples,title,class"
	cat "$results/detect.csv"
} > "$csv"

kernel=$(cat "$results/kernel" 2> /dev/null || echo "${KREL:-?}")

# One row per scenario: R as detected/trials and median seconds to the
# first report (over the detected trials), N as reports over the run.
awk -F, -v kernel="$kernel" -v cpus="${VM_CPUS:-4}" -v budget="$budget" -v target="${DETECT_TARGET:-funcs}" '
NR == 1 { next }
{
	if (!($1 in kind)) order[n++] = $1
	kind[$1] = $2
	if ($2 == "R") {
		tries[$1]++
		if ($4 == 1) { hit[$1]++; t[$1, hit[$1]] = $5 }
	} else {
		reports[$1] = $6; secs[$1] = $5; samples[$1] = $7
	}
}
function median(s, k,   i, j, x, a) {
	for (i = 1; i <= k; i++) a[i] = t[s, i]
	for (i = 2; i <= k; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
		}
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
	printf "detection rate, kernel %s, %s vCPUs (QEMU TCG), default settings, targets: %s\n", kernel, cpus, target
	printf "%-9s %-22s %-24s %s\n", "scenario", "detected", "median s to 1st report", "samples"
	for (i = 0; i < n; i++) {
		s = order[i]
		if (kind[s] == "R")
			printf "%-9s %-22s %-24s\n", s,
				sprintf("%d/%d within %ss", hit[s], tries[s], budget),
				hit[s] ? sprintf("%.2f", median(s, hit[s])) : "-"
		else
			printf "%-9s %-22s %-24s %s\n", s,
				sprintf("%d reports in %ss", reports[s], secs[s]), "-", samples[s]
	}
}' "$csv" | tee "$table"
echo "# bench-detect: $csv, $table"
[ "$status" = 0 ]
