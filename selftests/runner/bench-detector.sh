#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Detector benchmark, in one VM boot: sampling rate achieved against the
# configured one, arm latency, the fraction of fully armed watches, the
# workload slowdown with kcollider enabled, and the time to R1's first
# report. Prints a table; the raw figures go to build/bench/detector.txt.
# Environment as for check.sh (VM_IMAGE, KREL, VM_CPUS); BENCH_RATES (10 20
# 100 1000), BENCH_ROUNDS (5 a rate) and BENCH_DEFAULT_ROUNDS (9 at the
# default rate) for the overhead table; BENCH_BUDGETS (30) the budgets, in
# thousandths, of the budget rows after the default's (empty: none).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
results=$build/results/bench-detector
mkdir -p "$build/bench"
VM_PIN_VCPUS=${VM_PIN_VCPUS:-1} "$top/selftests/runner/run-vm.sh" -o "$results" -k "${VM_IMAGE:-}" \
	-r "${KREL:-}" -c "${VM_CPUS:-4}" -t "${VM_TIMEOUT:-2400}" -- \
	env BENCH_RATES="${BENCH_RATES:-10 20 100 1000}" \
	BENCH_ROUNDS="${BENCH_ROUNDS:-5}" \
	BENCH_DEFAULT_ROUNDS="${BENCH_DEFAULT_ROUNDS:-9}" \
	BENCH_BUDGETS="${BENCH_BUDGETS-30}" \
	"$top/selftests/runner/bench-detector-guest.sh" "$top" |
	tee "$build/bench/detector.txt"
