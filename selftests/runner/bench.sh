#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run every benchmark (not tests: they measure, they do not
# pass or fail): each program build/bench/*_bench, then each script
# selftests/runner/bench-*.sh. Each prints its figures; a benchmark that
# fails is reported and the run goes on. Exits non-zero if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
failed=0

run() {
	echo "# bench: $1"
	if ! (cd "$top" && "$@"); then
		echo "# bench: $1 failed" >&2
		failed=$((failed + 1))
	fi
}

for b in "$build"/bench/*_bench; do
	[ -x "$b" ] && run "$b"
done
for s in "$top"/selftests/runner/bench-*.sh; do
	# the -guest halves run inside the VM, started by their host halves
	case $s in *-guest.sh) continue ;; esac
	[ -x "$s" ] && run "$s"
done
[ $failed -eq 0 ]
