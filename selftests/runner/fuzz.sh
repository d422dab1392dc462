#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: each libFuzzer target of build/fuzz/ for FUZZ_SECONDS (default
# 60) from the committed corpus selftests/fuzz/corpus/<target>/ (read
# only); the inputs it grows go to build/fuzz/corpus/<target>/, an input
# that crashes, leaks, trips UBSan, times out (FUZZ_TIMEOUT seconds, default
# 10) or runs out of memory to build/fuzz/crashes/<target>/. Prints one
# line per target and exits non-zero when any target found something.
#
# Environment: FUZZ_SECONDS, FUZZ_TIMEOUT, FUZZ_TARGETS (default: all),
# FUZZ_JOBS (libFuzzer -jobs/-workers, default 1), BUILD.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
seconds=${FUZZ_SECONDS:-60}
timeout=${FUZZ_TIMEOUT:-10}
targets=${FUZZ_TARGETS:-$(cd "$top/selftests/fuzz" && ls *_fuzz.c | sed 's/_fuzz\.c$//')}
failed=0

for t in $targets; do
	bin=$build/fuzz/${t}_fuzz
	seeds=$top/selftests/fuzz/corpus/$t
	work=$build/fuzz/corpus/$t
	crashes=$build/fuzz/crashes/$t
	log=$build/fuzz/$t.log
	if [ ! -x "$bin" ]; then
		echo "fuzz: $t: no $bin (make fuzz builds it)" >&2
		failed=1
		continue
	fi
	# the words of the format, when the target has a dictionary
	opts=()
	[ -f "$top/selftests/fuzz/$t.dict" ] && opts+=(-dict="$top/selftests/fuzz/$t.dict")
	mkdir -p "$work" "$crashes"
	# -close_fd_mask=3: the CLI's own output goes nowhere; libFuzzer and
	# the sanitizers keep a copy of stderr for what they find.
	"$bin" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
		-max_len=16384 -close_fd_mask=3 -print_final_stats=1 \
		"${opts[@]}" \
		-artifact_prefix="$crashes/" "$work" "$seeds" > "$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	found=$(find "$crashes" -type f | wc -l)
	echo "fuzz: $t: ${runs:-?} executions in ${secs:-?} s, ${cov:-cov: ?}," \
	     "corpus $(find "$work" -type f | wc -l) inputs, $found in $crashes (status $status)"
	if [ "$status" != 0 ] || [ "$found" != 0 ]; then
		failed=1
		grep -m1 -E 'ERROR: |runtime error:|deadly signal|Timeout|out-of-memory' "$log" >&2
		echo "fuzz: $t: log in $log; reproduce: $bin $crashes/<file>;" \
		     "save the fixed input as selftests/fuzz/corpus/$t/crash-<what>" >&2
	fi
done
exit $failed
