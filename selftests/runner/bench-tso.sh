#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TSO-analysis benchmark (not a test) on Debian's kernel: boots the test VM
# once (nokaslr) and runs bench-tso-guest.sh in it, which gathers detector
# reports from planted scenarios and times "kcollider tso" live there
# (/proc/kallsyms + /proc/kcore). Then, on the host, the same reports
# offline: Debian ships vmlinux stripped and its System.map empty, so
# the vmlinux extracted from /boot/vmlinuz (scripts/extract-vmlinux) gets
# the guest's /proc/kallsyms text symbols added (objcopy; nokaslr makes
# them the ELF's addresses), and "tso --vmlinux ... --modules" runs on it.
# Everything goes to build/bench/ (never committed).
#
# usage: bench-tso.sh [ROUNDS]   (warm runs repeat the reports ROUNDS times)
# BENCH_TSO_REUSE=1 skips the VM and reuses its last results.
# environment: VM_IMAGE, KREL, VM_CPUS, KC_MODULE, KC_PLANTED as for make check
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
rounds=${1:-20}
kc=$top/user/kcollider
results=$build/results/bench-tso
module=${KC_MODULE:-$top/kmod/kcollider.ko}
planted=${KC_PLANTED:-$top/selftests/planted/kc_planted.ko}
for f in "$module" "$planted" "$kc"; do
	[ -f "$f" ] || { echo "bench-tso: $f not built (make)" >&2; exit 1; }
done
if [ -z "${KREL:-}" ] && [ -n "${KDIR:-}" ]; then
	KREL=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"$KDIR/include/generated/utsrelease.h" 2> /dev/null)
fi
mkdir -p "$results" "$build/bench"

now() { date +%s%N; }
per_us() { echo $((($2 - $1) / 1000 / $3)); }

# BENCH_TSO_REUSE=1: the offline half again on the last VM run's reports.
# The guest's console is kept as notes: its figures are in live.txt.
if [ -z "${BENCH_TSO_REUSE:-}" ]; then
	rm -rf "${results:?}"/*
	"$top/selftests/runner/run-vm.sh" -o "$results" -k "${VM_IMAGE:-}" \
		-r "${KREL:-}" -c "${VM_CPUS:-4}" -t "${VM_TIMEOUT:-1200}" -a nokaslr -- \
		env KC_MODULE="$module" KC_PLANTED="$planted" KC_TOP="$top" \
		"$top/selftests/runner/bench-tso-guest.sh" /run/kc/results "$rounds" |
		sed -u '/^#/!s/^/# /' ||
		{ echo "bench-tso: the VM run failed" >&2; exit 1; }
fi
grep -q . "$results/reports.log" || { echo "bench-tso: no reports" >&2; exit 1; }

# Offline: Debian's vmlinux, symbolized from the guest's kallsyms.
rel=$(sed -n 's/^# kernel \([^ ,]*\).*/\1/p' "$results/live.txt")
image=${VM_IMAGE:-/boot/vmlinuz-$rel}
vmlinux=$build/bench/vmlinux-$rel
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2> /dev/null | sort -V | tail -n1)
if [ ! -s "$vmlinux" ]; then
	tar -xJf "$tarball" -C "$build/bench" --strip-components=2 \
		--wildcards '*/scripts/extract-vmlinux' || exit 1
	"$build/bench/extract-vmlinux" "$image" > "$vmlinux" || exit 1
fi
text=$(readelf -SW "$vmlinux" | sed 's/^ *\[ *[0-9]*\] *//' |
	awk '$1 == ".text" { print $3, $5 }')
read -r tstart tsize <<< "$text"
ksym=$(sed -n 's/^\([0-9a-f]*\) T _text$/\1/p' "$results/kallsyms")
if [ "$ksym" != "$tstart" ]; then
	echo "bench-tso: kallsyms _text $ksym is not the ELF's .text $tstart (KASLR?)" >&2
	exit 1
fi
# "addr t name" of the image (no [module]) inside .text, as .text offsets
awk -v s="$tstart" -v n="$tsize" 'NF == 3 && ($2 == "t" || $2 == "T") {
	print $1, $3 }' "$results/kallsyms" | while read -r a name; do
	off=$((0x$a - 0x$tstart))
	[ $off -ge 0 ] && [ $off -lt $((0x$tsize)) ] &&
		echo "--add-symbol=$name=.text:$off,function,global"
done > "$build/bench/syms.rsp"
objcopy @"$build/bench/syms.rsp" "$vmlinux" "$vmlinux.sym" || exit 1

n=$(grep -c '^BUG: KCOLLIDER: ' "$results/reports.log")
for ((i = 0; i < rounds; i++)); do cat "$results/reports.log"; done > "$results/many.log"
cat "$results/live.txt"
echo "# offline: $vmlinux.sym ($(wc -l < "$build/bench/syms.rsp") text symbols from the guest's kallsyms), --modules $(dirname "$planted")"
a=$(now)
"$kc" --json tso --vmlinux "$vmlinux.sym" --modules "$(dirname "$planted")" \
	"$results/reports.log" > "$results/offline.json"
b=$(now)
echo "tso offline, one process for the $n reports (incl. loading vmlinux): $(per_us "$a" "$b" "$n") us/report"
a=$(now)
"$kc" --json tso --vmlinux "$vmlinux.sym" --modules "$(dirname "$planted")" \
	"$results/many.log" > /dev/null
b=$(now)
echo "tso offline, warm ($((n * rounds)) reports, one process): $(per_us "$a" "$b" $((n * rounds))) us/report"
a=$(now); "$kc" tso --vmlinux "$vmlinux.sym" /dev/null > /dev/null; b=$(now)
echo "tso offline, start-up alone (symbols of vmlinux, no report): $(per_us "$a" "$b" 1) us"
echo -n "offline verdicts: "
"$kc" tso --vmlinux "$vmlinux.sym" --modules "$(dirname "$planted")" \
	"$results/reports.log" | tail -n 1
