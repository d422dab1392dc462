#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make hunt-soak: HUNT_SOAK hunts (default 10) one after the other, each in
# a fresh VM (hunt.sh, its settings from the same environment), to find
# what a single hunt is too short to: a hunt fails when its VM or workload
# fails, or when the guest's kernel log has a splat (panic, oops, WARNING,
# hung task, RCU stall, lockdep, KASAN, ...: splat-scan.sh). Each hunt's
# results stay in build/results/hunt-soak/N/; the last line is
# "N passed, N failed" (hunts), and the status is non-zero if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
runner=$top/selftests/runner
results=${BUILD:-$top/build}/results/hunt-soak
runs=${HUNT_SOAK:-10}
case $runs in
'' | *[!0-9]* | 0) echo "hunt-soak: HUNT_SOAK=$runs: not a positive number" >&2; exit 2 ;;
esac

rm -rf "$results"
mkdir -p "$results"
pass=0 fail=0
for ((i = 1; i <= runs; i++)); do
	out=$results/$i
	echo "# hunt-soak: hunt $i of $runs ($out)"
	HUNT_RESULTS=$out "$runner/hunt.sh" > "$results/$i.log" 2>&1
	rc=$?
	log=$out/dmesg.log
	[ -s "$log" ] || log=$out/console.log
	"$runner/splat-scan.sh" "$log" > "$out.splats"
	splats=$(tail -n1 "$out.splats")
	reports=$(grep -c '^BUG: KCOLLIDER: \|BUG: KCSAN: data-race' "$out/reports.log" 2> /dev/null)
	if [ $rc = 0 ] && [ "$splats" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $i hunt (${reports:-0} reports)"
	else
		fail=$((fail + 1))
		echo "not ok $i hunt: status $rc, $splats splats (log: $results/$i.log)"
		head -n -1 "$out.splats"
		tail -n 20 "$results/$i.log" | sed 's/^/# /'
	fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
