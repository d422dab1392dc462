#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM for bench-tso.sh: gathers detector reports from
# planted scenarios, then times "kcollider tso" in live mode on them
# (/proc/kallsyms + /proc/kcore). Leaves in OUT: reports.log, kallsyms
# (for the offline half on the host) and live.txt (the figures).
# usage: bench-tso-guest.sh OUT ROUNDS [SCENARIO...]
set -u

out=$1 rounds=$2
shift 2
[ -n "${KC_RESULTS:-}" ] || { echo "bench-tso-guest: run me inside the test VM" >&2; exit 2; }
kc=$KC_TOP/user/kcollider
sysfs=/sys/kernel/kcollider
reports=/sys/kernel/debug/kcollider/reports
run=/sys/kernel/debug/kc_planted/run
tmp=${TMPDIR:-/tmp}

declare -A funcs=(
	[r1]="kc_r1_inc kc_r1_dec"
	[r9]="kc_r9_write_x kc_r9_read_y kc_r9_write_y kc_r9_read_x"
	[r10]="kc_r10_write_data kc_r10_write_flag kc_r10_read_flag kc_r10_read_data"
	[r11]="kc_r11_write64 kc_r11_read_hi16"
)
[ $# -gt 0 ] || set -- r1 r9 r10 r11

now() { date +%s%N; }
per_us() { echo $((($2 - $1) / 1000 / $3)); }

insmod "$KC_MODULE" || exit 1
insmod "$KC_PLANTED" || exit 1
for sc in "$@"; do
	spec=""
	for f in ${funcs[$sc]}; do spec="$spec${spec:+,}kc_planted:$f"; done
	echo "$spec" > "$sysfs/targets"
	echo 1 > "$sysfs/enabled"
	before=$(grep -c '^BUG: KCOLLIDER: ' "$reports")
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "$sc 2000" > "$run"
		[ "$(grep -c '^BUG: KCOLLIDER: ' "$reports")" -gt "$before" ] && break
	done
	echo 0 > "$sysfs/enabled"
done
cp "$reports" "$out/reports.log"
cat /proc/kallsyms > "$out/kallsyms"
n=$(grep -c '^BUG: KCOLLIDER: ' "$out/reports.log")
[ "$n" -gt 0 ] || { echo "bench-tso-guest: no reports" >&2; exit 1; }
for ((i = 0; i < rounds; i++)); do cat "$out/reports.log"; done > "$tmp/many.log"

{
	echo "# kernel $(uname -r), $(nproc) CPUs (QEMU), $n reports"
	a=$(now); "$kc" --json tso "$out/reports.log" > "$tmp/live.json"; b=$(now)
	echo "tso live, one process for the $n reports (incl. reading kallsyms): $(per_us "$a" "$b" "$n") us/report"
	a=$(now); "$kc" --json tso "$tmp/many.log" > /dev/null; b=$(now)
	echo "tso live, warm ($((n * rounds)) reports, one process): $(per_us "$a" "$b" $((n * rounds))) us/report"
	a=$(now); "$kc" tso /dev/null > /dev/null; b=$(now)
	echo "tso live, start-up alone (kallsyms + kcore, no report): $(per_us "$a" "$b" 1) us"
	a=$(now); "$kc" report group "$tmp/many.log" > /dev/null; b=$(now)
	echo "parse (report group), $((n * rounds)) reports: $(( n * rounds * 1000000 / ((b - a) / 1000 + 1) )) reports/s"
	echo -n "live verdicts: "
	"$kc" tso "$out/reports.log" | tail -n 1
} > "$out/live.txt" 2>&1
cp "$tmp/live.json" "$out/live.json"
cat "$out/live.txt"
rmmod kcollider
rmmod kc_planted
