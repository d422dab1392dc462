#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark (not a test) of the kcollider CLI: report parsing throughput
# (reports/s) and TSO analysis time per report, offline on the pattern
# fixture and, when available, on a vmlinux with symbols (VMLINUX=...) and
# live (root, /proc/kcore). Run from the repo top after "make selftests".
# usage: selftests/runner/bench-cli.sh [N]   (N reports per run, default
# $BENCH_CLI_REPORTS or 100000)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kc=$top/user/kcollider
fixture=${BUILD:-$top/build}/host/fixtures/tso_fixture
n=${1:-${BENCH_CLI_REPORTS:-100000}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }
per() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }'; }

# A log of n reports: the fixtures, repeated, with dmesg timestamps.
make_log() {
	local count=$1 out=$2 files per_round rounds
	files=("$top"/selftests/fixtures/tso/*.log "$top"/selftests/fixtures/reports/kcollider_two_sided.log)
	per_round=${#files[@]}
	rounds=$(( (count + per_round - 1) / per_round ))
	cat "${files[@]}" | sed 's/^/[   12.345678] /' > "$tmp/round"
	for ((i = 0; i < rounds; i++)); do cat "$tmp/round"; done > "$out"
	echo $((rounds * per_round))
}

total=$(make_log "$n" "$tmp/log")
bytes=$(stat -c %s "$tmp/log")
echo "# parse: $total reports, $((bytes / 1024 / 1024)) MiB"
a=$(now); "$kc" report group "$tmp/log" > /dev/null; b=$(now)
echo "parse (report group):        $(rate "$total" "$a" "$b") reports/s"
a=$(now); "$kc" --json report "$tmp/log" > /dev/null; b=$(now)
echo "parse + JSON (report --json): $(rate "$total" "$a" "$b") reports/s"

if [ -x "$fixture" ]; then
	m=$(make_log 15000 "$tmp/tso")
	a=$(now); "$kc" --json tso --vmlinux "$fixture" "$tmp/tso" > /dev/null; b=$(now)
	echo "tso offline, fixture, warm (one process, $m reports): $(per "$m" "$a" "$b") us/report"
	a=$(now)
	for f in "$top"/selftests/fixtures/tso/*.log; do
		"$kc" --json tso --vmlinux "$fixture" "$f" > /dev/null
	done
	b=$(now)
	k=$(ls "$top"/selftests/fixtures/tso/*.log | wc -l)
	echo "tso offline, fixture, cold (one process per report): $(per "$k" "$a" "$b") us/report"
fi
if [ -n "${VMLINUX:-}" ] && [ -n "${REPORTS:-}" ]; then
	k=$(grep -c 'BUG: ' "$REPORTS")
	a=$(now); "$kc" --json tso --vmlinux "$VMLINUX" "$REPORTS" > /dev/null; b=$(now)
	echo "tso offline, $VMLINUX: $(per "$k" "$a" "$b") us/report ($k reports, includes loading symbols)"
	if [ -r /proc/kcore ]; then
		a=$(now); "$kc" --json tso "$REPORTS" > /dev/null; b=$(now)
		echo "tso live: $(per "$k" "$a" "$b") us/report"
	fi
else
	echo "# Debian vmlinux: set VMLINUX=<vmlinux with symbols> REPORTS=<dmesg of reports>"
fi
