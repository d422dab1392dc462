#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run every benchmark (not tests: they measure, they do not
# pass or fail): each program build/bench/*_bench, then each script
# selftests/runner/bench-*.sh. Each prints its figures; a benchmark that
# fails is reported and the run goes on. Exits non-zero if any failed.
#
# The figures of the run, with what they were measured on (kernel, host,
# date, commit) and the command of each, go to build/bench/summary.md:
# Documentation/benchmarks.rst quotes the latest one. A benchmark's lines
# starting with '#' are its comments; the others are its figures.
# BENCH="cli tso" runs only the benchmarks of those names.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
out=$build/bench
failed=0

mkdir -p "$out/logs"
summary=$out/summary.md
body=$(mktemp)
trap 'rm -f "$body"' EXIT

selected() {
	[ -z "${BENCH:-}" ] || [[ " $BENCH " == *" $1 "* ]]
}

run() {
	local name=$1 log=$out/logs/$1.log status

	shift
	echo "# bench: $name"
	(cd "$top" && "$@") 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	{
		echo
		echo "## $name"
		echo
		echo "Command: \`${*#"$top"/}\` (from the top of the tree)"
		echo
		if [ "$status" != 0 ]; then
			echo "**Failed** (exit $status); its output: build/bench/logs/$name.log"
		elif grep -q -v '^#' "$log"; then
			echo '```'
			grep -v '^#' "$log"
			echo '```'
		else
			echo "No figure (its notes: build/bench/logs/$name.log)."
		fi
	} >> "$body"
	if [ "$status" != 0 ]; then
		echo "# bench: $name failed" >&2
		failed=$((failed + 1))
	fi
}

for b in "$build"/bench/*_bench; do
	[ -x "$b" ] || continue
	name=$(basename "$b" _bench)
	selected "$name" && run "$name" "$b"
done
for s in "$top"/selftests/runner/bench-*.sh; do
	# the -guest halves run inside the VM, started by their host halves
	case $s in *-guest.sh) continue ;; esac
	name=$(basename "$s" .sh)
	name=${name#bench-}
	[ -x "$s" ] && selected "$name" && run "$name" "$s"
done

commit=$(git -C "$top" describe --always --dirty 2> /dev/null || echo "not a git tree")
{
	echo "# make bench: summary"
	echo
	echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- Commit: $commit"
	echo "- Test kernel (VM): ${KREL:-the default of run-vm.sh} (${VM_IMAGE:-/boot/vmlinuz-\$KREL})"
	echo "- Host: $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
	echo "- Emulator: $(qemu-system-x86_64 --version 2> /dev/null | head -n1 || echo none)"
	echo "- Benchmarks failed: $failed"
	cat "$body"
} > "$summary"
echo "# bench: summary in $summary"
[ $failed -eq 0 ]
