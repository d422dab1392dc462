#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make hunt-soak: HUNT_SOAK hunts (default 10) one after the other, each in
# a fresh VM (hunt.sh, its settings from the same environment), to find
# what a single hunt is too short to: a hunt fails when its VM or workload
# fails, or when the guest's kernel log has a splat (panic, oops, WARNING,
# hung task, RCU stall, lockdep, KASAN, ...: splat-scan.sh); a hunt whose
# emulator crashed with a clean guest log runs again, once. Each hunt's
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
pass=0 fail=0 qemu_crashes=0
# One hunt into $out: its status in rc, its splat count in splats.
hunt() {
	HUNT_RESULTS=$out "$runner/hunt.sh" > "$results/$i.log" 2>&1
	rc=$?
	log=$out/dmesg.log
	[ -s "$log" ] || log=$out/console.log
	"$runner/splat-scan.sh" "$log" > "$out.splats"
	splats=$(tail -n1 "$out.splats")
}
for ((i = 1; i <= runs; i++)); do
	out=$results/$i
	echo "# hunt-soak: hunt $i of $runs ($out)"
	hunt
	# QEMU itself crashed (run-vm.sh's 126) with a clean guest log: the
	# emulator's fault, as check.sh counts it; the hunt runs again, once
	if [ $rc = 126 ] && [ "$splats" = 0 ]; then
		qemu_crashes=$((qemu_crashes + 1))
		echo "# hunt-soak: hunt $i: QEMU itself crashed, its guest clean: run again (first try kept in $out-qemu-crash)"
		rm -rf "$out-qemu-crash"
		mv "$out" "$out-qemu-crash"
		mv "$results/$i.log" "$out-qemu-crash.log"
		hunt
	fi
	reports=$(grep -c '^BUG: KCOLLIDER: \|BUG: KCSAN: data-race' "$out/reports.log" 2> /dev/null)
	broken=$(sed -n 's/^loops_broken //p' "$results/$i.log" | tail -n1)
	if [ $rc = 0 ] && [ "$splats" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $i hunt (${reports:-0} reports, loops_broken ${broken:-?})"
	else
		fail=$((fail + 1))
		echo "not ok $i hunt: status $rc, $splats splats (log: $results/$i.log)"
		head -n -1 "$out.splats"
		tail -n 20 "$results/$i.log" | sed 's/^/# /'
	fi
done
echo "# hunt-soak: $qemu_crashes hunts run again after QEMU itself crashed"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
