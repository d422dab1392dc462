#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KCSAN and kcollider side by side on the planted-race module (make
# bench-kcsan; a benchmark, not a test: nothing here fails on a number).
#  1. scripts/kcsan-kernel.sh builds (once, cached) two 6.1 kernels: with
#     CONFIG_KCSAN=y and without it.
#  2. kc_planted.ko is built against the KCSAN tree (instrumented: KCSAN
#     sees its accesses) in build/kcsan/planted/, not in selftests/planted/.
#  3. Three VM boots (bench-kcsan-guest.sh): the KCSAN kernel runs every
#     scenario until a KCSAN report names its functions (or BUDGET s), then
#     the workloads; the plain kernel runs the workloads; Debian's kernel
#     runs detect-guest.sh (kcollider, one trial per scenario, the same
#     BUDGET) and the workloads with kcollider off and on.
#  4. One table: scenario, the catalogue's expectation, each detector's
#     verdict and seconds to its first report, kcollider's class; then the
#     overhead ratios. Saved as build/bench/kcsan-table.txt.
#  5. The real workload (a stress-ng mix, BENCH_KCSAN_REAL s under KCSAN,
#     and as long under kcollider with targets=all at the default budget
#     and at the hunt's): the distinct racing function pairs each found
#     (kcsan-real-table.sh), in build/bench/kcsan-real.txt.
#
# usage: bench-kcsan.sh [SCENARIO...]   (default: all but h1)
# environment: BENCH_KCSAN_BOOTS ("kcsan plain kcollider"): the boots to
#                run, and the kernels to build; the table takes the others'
#                results from the last run that had them (the plain kernel
#                is a second kernel build: "kcsan kcollider" skips it),
#              BENCH_KCSAN_BUDGET (10 s per scenario and detector),
#              BENCH_KCSAN_REPS (3 timed runs per workload and state),
#              BENCH_KCSAN_REAL (300 s per real-workload run; 0: none),
#              BENCH_KCSAN_PARTS ("planted real": either part alone),
#              BENCH_KCSAN_KC_RUNS ("default hunt"; also hunt-nopercpu:
#                the hunt's with sample_percpu=0): kcollider's real-workload runs,
#              VM_IMAGE, KREL (Debian's kernel, as make passes them),
#              VM_CPUS (4), VM_TIMEOUT (3000 s per boot),
#              KC_MODULE, KC_PLANTED: other builds of the two modules.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
budget=${BENCH_KCSAN_BUDGET:-10}
cpus=${VM_CPUS:-4}
vm_timeout=${VM_TIMEOUT:-3000}
module=${KC_MODULE:-$top/kmod/kcollider.ko}
planted=${KC_PLANTED:-$top/selftests/planted/kc_planted.ko}
table=$build/bench/kcsan-table.txt
csv=$build/bench/kcsan.csv
runvm=$top/selftests/runner/run-vm.sh
guest=$top/selftests/runner/bench-kcsan-guest.sh

die() { echo "bench-kcsan: $*" >&2; exit 1; }

# The catalogue's expectation per scenario (Documentation/testing.rst,
# Planted races): racy must be reported, benign must not
# give a full report (kcollider names the filter), race-free must be
# silent. h1 is a benchmark loop, not a scenario. N9 is racy: a reader
# may read its object recycled and re-initialised under it. M2 is
# atomic_set() against atomic_inc(): both marked, no data race for the
# LKMM or KCSAN, and benign:marked for kcollider once `kcollider mark` has
# run, as here (without it the store is harmful: filters_test m2).
declare -A expect=(
	[r1]=racy [r2]=racy [r3]=racy [r4]=racy [r5]=racy [r6]=racy
	[r7]=racy [r8]=racy [r9]=racy [r10]=racy [r11]=racy [r12]=racy
	[r13]=racy [r14]=racy [r15]=racy [r16]=racy [r17]=racy [r18]=racy
	[r19]=racy [f1]=racy [m2]=race-free
	[b1]=benign [b2]=benign [b3]=benign [b4]=benign [b5]=benign [m1]=benign
	[n1]=race-free [n2]=race-free [n3]=race-free [n4]=race-free
	[n5]=race-free [n6]=race-free [n7]=race-free [n8]=race-free
	[n9]=racy
	[n10]=race-free [n11]=race-free [n12]=race-free
	[r20]=racy [r21]=racy [r22]=racy [b6]=benign [b7]=benign
	[r23]=racy [n13]=race-free [r24]=racy [r25]=racy
)
all="r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 r12 r13 r14 r15 r16 r17 r18 r19
	f1 b1 b2 b3 b4 b5 m1 m2 n1 n2 n3 n4 n5 n6 n7 n8 n9 n10 n11 n12
	r20 r21 r22 b6 b7 r23 n13 r24 r25"
[ $# -gt 0 ] || set -- $all
for sc in "$@"; do
	[ -n "${expect[$sc]:-}" ] || die "unknown scenario $sc (one of: $(echo $all))"
done

for f in "$module" "$planted"; do
	[ -f "$f" ] || die "$f not built (make)"
done
# make exports KDIR; the release the VM boots is the one built against
if [ -z "${KREL:-}" ] && [ -n "${KDIR:-}" ]; then
	KREL=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"$KDIR/include/generated/utsrelease.h" 2> /dev/null)
fi

boots=${BENCH_KCSAN_BOOTS:-kcsan plain kcollider}
booting() { [[ " $boots " == *" $1 "* ]]; }
# checked before the KCSAN boot, not found missing after it
if booting kcollider && [ -z "${KREL:-}" ]; then
	die "no release to boot kcollider on: set KREL (make passes it) or KDIR"
fi

# 1. The two kernels (tens of minutes the first time, nothing after).
t0=$(date +%s)
ktree=$("$top/scripts/kcsan-kernel.sh" kdir kcsan)
ptree=$("$top/scripts/kcsan-kernel.sh" kdir plain)
booting kcsan && ktree=$("$top/scripts/kcsan-kernel.sh" build kcsan)
booting plain && ptree=$("$top/scripts/kcsan-kernel.sh" build plain)
echo "# bench-kcsan: kernels ready in $(($(date +%s) - t0)) s"
krel=$(cat "$ktree/include/config/kernel.release" 2> /dev/null || echo "?")
prel=$(cat "$ptree/include/config/kernel.release" 2> /dev/null || echo "?")

# 2. The planted module against the KCSAN tree, from a scratch copy of
# its sources: selftests/planted/ keeps the build make check uses.
pdir=$build/kcsan/planted
if booting kcsan; then
	mkdir -p "$pdir"
	cp "$top/selftests/planted/Kbuild" "$top/selftests/planted/kc_planted.c" "$pdir/"
	make -s -C "$ktree" M="$pdir" modules > "$pdir/build.log" 2>&1 ||
		{ cat "$pdir/build.log" >&2; die "kc_planted.ko does not build against $ktree"; }
	grep -i 'warning' "$pdir/build.log" >&2 || true
fi

# kcollider's real-workload runs know what the image's source marks when
# its -dbg package is installed, as KCSAN knows it from the compiler
# (the loaded modules' too, from the package's .ko files and the source)
image_marks= module_marks= source=
if booting kcollider && [ -n "${KREL:-}" ] &&
   [ -r "/usr/lib/debug/boot/vmlinux-$KREL" ]; then
	image_marks=$("$top/scripts/image-marks.sh" "$KREL") ||
		die "the image's marks (scripts/image-marks.sh $KREL) failed"
	source=$("$top/scripts/image-marks.sh" --source) ||
		die "the kernel's source (scripts/image-marks.sh --source) failed"
	[ ! -d "/usr/lib/debug/lib/modules/$KREL" ] ||
		module_marks=/usr/lib/debug/lib/modules/$KREL
fi
# and the table gives each harmful access its marking from the same DWARF,
# and a slab object's field from the image's BTF
table_marking=()
if [ -n "$image_marks" ]; then
	table_marking=(-V "/usr/lib/debug/boot/vmlinux-$KREL" -S "$source"
		       -B "/usr/lib/debug/boot/vmlinux-$KREL")
	[ -z "$module_marks" ] || table_marking+=(-M "$module_marks")
fi

# 3. The three boots. run-vm.sh's exit status is the guest's; a failed
# boot leaves the table without that column rather than ending the bench.
# The guest's console is progress, kept as the benchmark's notes: the
# tables below are made from the results each boot leaves.
boot() {
	local name=$1 image=$2 rel=$3
	shift 3
	local res=$build/results/kcsan-$name
	booting "$name" || { echo "# bench-kcsan: $name VM skipped (BENCH_KCSAN_BOOTS)"; return 0; }
	echo "# bench-kcsan: $name VM ($rel)"
	"$runvm" -o "$res" -k "$image" -r "$rel" -c "$cpus" -t "$vm_timeout" -- \
		env BENCH_KCSAN_REPS="${BENCH_KCSAN_REPS:-3}" \
		BENCH_KCSAN_REAL="${BENCH_KCSAN_REAL:-300}" \
		BENCH_KCSAN_PARTS="${BENCH_KCSAN_PARTS:-planted real}" \
		BENCH_KCSAN_KC_RUNS="${BENCH_KCSAN_KC_RUNS:-default hunt}" \
		BENCH_KCSAN_IMAGE_MARKS="$image_marks" \
		BENCH_KCSAN_MODULE_MARKS="$module_marks" \
		BENCH_KCSAN_SOURCE="$source" "$guest" "$name" \
		/run/kc/results "$@" | sed -u '/^#/!s/^/# /' ||
		echo "bench-kcsan: the $name VM failed (status $?; $res)" >&2
}
boot kcsan "$ktree/arch/x86/boot/bzImage" "$krel" "$pdir/kc_planted.ko" "$budget" "$@"
boot plain "$ptree/arch/x86/boot/bzImage" "$prel"
boot kcollider "${VM_IMAGE:-/boot/vmlinuz-${KREL:-}}" "${KREL:-}" "$module" "$planted" "$budget" "$@"

kres=$build/results/kcsan-kcsan
pres=$build/results/kcsan-plain
cres=$build/results/kcsan-kcollider
mkdir -p "$build/bench"

# 4. Per scenario: KCSAN's first report after its start marker (dmesg
# timestamps), kcollider's from detect-guest.sh's CSV.
kcsan_first() {
	awk -v sc="$1" '
	function ts(l) { sub(/^\[ */, "", l); sub(/\].*/, "", l); return l + 0 }
	$0 ~ "kc-bench: start " sc "$" { on = 1; t0 = ts($0); next }
	on && /kc-bench: start / { exit }
	on && $0 ~ "BUG: KCSAN: .*kc_" sc "_" {
		t = $0; sub(/.*BUG: KCSAN: /, "", t)
		printf "1 %.2f %s\n", ts($0) - t0, t; found = 1; exit
	}
	END { if (!found) print "0 - -" }' "$kres/dmesg.txt" 2> /dev/null || echo "? - -"
}
kc_first() {
	awk -F, -v sc="$1" '
	$1 == sc {
		det = $2 == "R" ? $4 : ($6 > 0)
		printf "%d %s %s\n", det, det && $2 == "R" ? $5 : "-", $9 == "" ? "-" : $9
		found = 1; exit
	}
	END { if (!found) print "? - -" }' "$cres/detect.csv" 2> /dev/null || echo "? - -"
}
yn() { case $1 in 1) echo yes ;; 0) echo no ;; *) echo "?" ;; esac; }

# The median of a workload's timings in one results file and mode ("*":
# every mode).
median() {
	awk -v w="$2" -v m="$3" '$1 == w && (m == "*" || $2 == m) { print $3 }' \
		"$1/workload.txt" 2> /dev/null | sort -g |
		awk '{ a[NR] = $1 } END { if (NR) print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }' ||
		true	# (a boot that did not run: no file, no median)
}
ratio() {
	if [ -n "$1" ] && [ -n "$2" ]; then
		awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "?" }'
	else
		echo "?"
	fi
}

echo "scenario,expected,kcsan_detected,kcsan_first_s,kcsan_title,kc_detected,kc_first_s,kc_class" > "$csv"
{
	echo "KCSAN vs kcollider on the planted scenarios, $(date -u +%Y-%m-%d)," \
	     "-smp $cpus, QEMU TCG; up to ${budget}s per scenario and detector"
	echo "KCSAN: $(cat "$kres/kernel" 2> /dev/null || echo "$krel") (6.1 defaults)," \
	     "kc_planted.ko instrumented; kcollider: $(cat "$cres/kernel" 2> /dev/null ||
	     echo "${KREL:-?}"), default settings, the scenario's functions targeted"
	for r in "$kres" "$pres" "$cres"; do
		printf '%s: %s  ' "${r##*/kcsan-}" \
			"$(date -u -r "$r/workload.txt" '+%F %H:%M UTC' 2> /dev/null || echo "not run")"
	done
	echo
	printf "%-8s %-9s | %-6s %-8s | %-6s %-8s %s\n" scenario expected KCSAN "1st s" \
		kcoll. "1st s" "kcollider class"
	kc_ok=0 ks_ok=0 n=0
	for sc in "$@"; do
		read -r kd ks kt <<< "$(kcsan_first "$sc")"
		read -r cd cs cc <<< "$(kc_first "$sc")"
		printf "%-8s %-9s | %-6s %-8s | %-6s %-8s %s\n" "$sc" "${expect[$sc]}" \
			"$(yn "$kd")" "$ks" "$(yn "$cd")" "$cs" "$cc"
		echo "$sc,${expect[$sc]},$kd,$ks,${kt//,/;},$cd,$cs,$cc" >> "$csv"
		# as expected: racy reported, benign and race-free not
		n=$((n + 1))
		want=$([ "${expect[$sc]}" = racy ] && echo 1 || echo 0)
		[ "$kd" = "$want" ] && ks_ok=$((ks_ok + 1))
		[ "$cd" = "$want" ] && kc_ok=$((kc_ok + 1))
		[ "$kd" = "?" ] && ks_ok="?"
		[ "$cd" = "?" ] && kc_ok="?"
	done
	echo "as the catalogue expects (racy reported, benign/race-free not):" \
	     "KCSAN $ks_ok/$n, kcollider $kc_ok/$n"
	echo "overhead (median of ${BENCH_KCSAN_REPS:-3} timed runs per state; ratios only," \
	     "the host is shared): pipe = dd bs=64 x 100000 | cat, files = 300 small files in tmpfs"
	# KCSAN on / off in one kernel leaves out the instrumentation's own
	# cost (the calls stay): a lower bound when the plain kernel is absent.
	printf "  %-9s %-14s %-20s %-20s %s\n" workload "KCSAN / plain" \
		"KCSAN-off / plain" "KCSAN on / off" "kcollider on / off"
	for w in pipe files; do
		off=$(median "$pres" $w "*")
		printf "  %-9s %-14s %-20s %-20s %s\n" $w "$(ratio "$(median "$kres" $w on)" "$off")" \
			"$(ratio "$(median "$kres" $w off)" "$off")" \
			"$(ratio "$(median "$kres" $w on)" "$(median "$kres" $w off)")" \
			"$(ratio "$(median "$cres" $w on)" "$(median "$cres" $w off)")"
	done
	echo "  (plain: the same 6.1 config without KCSAN; KCSAN-off: switched off at run time;" \
	     "kcollider: targets=all, default sample_rate)"
} | tee "$table"
echo "# bench-kcsan: $table, $csv; raw: $kres $pres $cres"

# 5. The real workload, when both boots ran it.
if [ "${BENCH_KCSAN_REAL:-300}" != 0 ] && [ -s "$kres/real.txt" ] && [ -s "$cres/real.txt" ]; then
	echo
	"$top/selftests/runner/kcsan-real-table.sh" "$kres" "$cres" "$build/bench/kcsan-real" \
		"${table_marking[@]}"
	echo "# bench-kcsan: $build/bench/kcsan-real.txt, $build/bench/kcsan-real.csv"
fi
