#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two builds of kcollider.ko side by side in one VM boot, on the pipe
# workload of bench-detector.sh: usage: compare-modules.sh A.ko B.ko
# (e.g. main's module copied aside, then the working tree's). Off, A and B
# alternate within each round, so the host's drift falls on all three.
# Prints per rate and module the medians of the times and of each round's
# on/off ratio (the slowdown); the raw lines go to
# build/bench/compare-modules.txt. Environment as for check.sh (VM_IMAGE,
# KREL, VM_CPUS); COMPARE_RATES, COMPARE_DD_COUNT, COMPARE_ROUNDS (3),
# COMPARE_WARMUP (at least 2 s of sampling the workload before the timing),
# COMPARE_SET_A and COMPARE_SET_B (sysfs NAME=VALUE settings for A or B),
# COMPARE_STATS (debugfs stats keys, e.g. "cost_armer_ms armer_rounds":
# each one's change over the timed runs is printed per sample taken).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
[ $# -eq 2 ] || { echo "usage: $0 A.ko B.ko" >&2; exit 2; }
for ko in "$1" "$2"; do
	[ -f "$ko" ] || { echo "compare-modules: $ko: no such file" >&2; exit 2; }
done
a=$(realpath "$1") b=$(realpath "$2")
mkdir -p "$build/bench"
raw=$build/bench/compare-modules.txt
VM_PIN_VCPUS=${VM_PIN_VCPUS:-1} "$top/selftests/runner/run-vm.sh" -o "$build/results/compare-modules" \
	-k "${VM_IMAGE:-}" -r "${KREL:-}" -c "${VM_CPUS:-4}" \
	-t "${VM_TIMEOUT:-2400}" -- \
	env COMPARE_RATES="${COMPARE_RATES:-5 20 100 1000}" \
	COMPARE_DD_COUNT="${COMPARE_DD_COUNT:-300000}" \
	COMPARE_ROUNDS="${COMPARE_ROUNDS:-3}" \
	COMPARE_WARMUP="${COMPARE_WARMUP:-2}" \
	COMPARE_SET_A="${COMPARE_SET_A:-}" COMPARE_SET_B="${COMPARE_SET_B:-}" \
	COMPARE_STATS="${COMPARE_STATS:-}" \
	"$top/selftests/runner/compare-modules-guest.sh" "$a" "$b" > "$raw" ||
	{ echo "compare-modules: the VM failed; see $raw" >&2; exit 1; }
echo "A=$a"
echo "B=$b"
awk '
function med(s,   n, v, i, j, t) {
	n = split(s, v, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
	return v[int((n + 1) / 2)]
}
$1 == "rate" {
	k = $2 " " $6
	off[k] = off[k] " " $8; on[k] = on[k] " " $10
	ratio[k] = ratio[k] " " ($10 / $8)
	fired[k] += $12; samples[k] += $14; hits[k] += $16; stall[k] += $18
	ton[k] += $10
	if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
	for (f = 19; f < NF; f += 2) {
		extra[k, $f] += $(f + 1)
		if (!($f in named)) { named[$f] = 1; names[++nn] = $f }
	}
}
END {
	printf "%-6s %-3s %8s %8s %9s %9s %12s %11s\n", "rate", "mod",
	       "off_s", "on_s", "slowdown", "fired/s", "traps/sample",
	       "stall_share"
	for (i = 1; i <= nk; i++) {
		k = keys[i]; split(k, p, " ")
		printf "%-6s %-3s %8.3f %8.3f %8.2fx %9.1f %12.1f %11.3f\n",
		       p[1], toupper(p[2]), med(off[k]), med(on[k]),
		       med(ratio[k]), fired[k] / ton[k],
		       hits[k] / (fired[k] ? fired[k] : 1),
		       stall[k] / 1e6 / ton[k]
	}
	if (!nn)
		exit
	printf "\nper sample taken:\n%-6s %-3s", "rate", "mod"
	for (j = 1; j <= nn; j++)
		printf " %14s", names[j]
	printf "\n"
	for (i = 1; i <= nk; i++) {
		k = keys[i]; split(k, p, " ")
		printf "%-6s %-3s", p[1], toupper(p[2])
		n = samples[k] ? samples[k] : 1
		for (j = 1; j <= nn; j++)
			printf " %14.3f", extra[k, names[j]] / n
		printf "\n"
	}
}' "$raw"
