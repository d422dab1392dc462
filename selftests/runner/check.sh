#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the host unit tests, then the in-VM tests on the test kernel.
# Prints a KTAP summary per group and ends with exactly one line
# "N passed, N failed" (", N skipped" when any were skipped). Exits non-zero
# on any failure, on a VM that did not boot, or when no test ran at all.
#
# Environment: VM_IMAGE, KREL (from the Makefile), VM_CPUS, VM_TIMEOUT,
# KC_TESTS (space-separated in-VM test programs to run; default all),
# KC_SPLAT_SCAN=1 (make check KERNEL=debug: every splat in the guest's kernel
# log counts as one failed test, see splat-scan.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
runner=$top/selftests/runner
results=${KC_RESULTS_DIR:-$build/results}
total_pass=0
total_fail=0
total_skip=0

count() {
	local name=$1 file=$2 status=$3 p f s
	read -r p f s < <("$runner/ktap-count.sh" "$name" "$file" "$status")
	group_pass=$((group_pass + p))
	group_fail=$((group_fail + f))
	group_skip=$((group_skip + s))
}

group_end() {
	echo "# $1: $group_pass passed, $group_fail failed, $group_skip skipped"
	total_pass=$((total_pass + group_pass))
	total_fail=$((total_fail + group_fail))
	total_skip=$((total_skip + group_skip))
}

rm -rf "$results"
mkdir -p "$results/host" "$results/vm"

# The host tests are about the host's Debian kernel, never the debug one
# (KERNEL=debug: the VM's KREL, and make's KERNEL would reach the nested makes).
host_env=(env)
[ "${KC_SPLAT_SCAN:-0}" = 1 ] && host_env=(env -u KERNEL -u KREL)

# The Debian packages of make deb: deb_test checks them on the host and
# deb_install_test installs them in the VM. When they cannot be built both
# fail for want of them, and build/deb/build.log says why.
"$top/scripts/deb.sh" > "$results/host/deb.log" 2>&1 ||
	{ tail -n 40 "$results/host/deb.log" >&2; echo "# host: make deb failed" >&2; }

echo "# ==== host unit tests ===="
group_pass=0 group_fail=0 group_skip=0
for t in "$build"/host/*_test; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	echo "# host: $name"
	(cd "$top" && "${host_env[@]}" "$t") > "$results/host/$name.ktap" 2>&1
	status=$?
	cat "$results/host/$name.ktap"
	count "$name" "$results/host/$name.ktap" "$status"
done
group_end host

# make_test plays a fresh machine in this tree, and its makes build the
# modules for the Debian amd64 kernel: back to the tree of the kernel the
# VM boots (the rt flavour's or the debug kernel's; a no-op for amd64).
make -C "$top" --no-print-directory kmod > "$results/host/kmod-rebuild.log" 2>&1 ||
	{ cat "$results/host/kmod-rebuild.log" >&2; echo "# vm: cannot rebuild the modules for $KDIR" >&2; }

echo "# ==== in-VM tests (kernel ${KREL:-?}, ${VM_CPUS:-4} CPUs) ===="
group_pass=0 group_fail=0 group_skip=0
KC_MODULE=$top/kmod/kcollider.ko
KC_PLANTED=$top/selftests/planted/kc_planted.ko
export KC_MODULE KC_PLANTED
run_suite() {
	"$runner/run-vm.sh" -o "$1" -k "${VM_IMAGE:-}" -r "${KREL:-}" \
		-c "${VM_CPUS:-4}" -t "${VM_TIMEOUT:-3000}" -- \
		env KC_MODULE="$KC_MODULE" KC_PLANTED="$KC_PLANTED" KC_TOP="$top" \
		KC_SOAK_CYCLES="${KC_SOAK_CYCLES:-50}" \
		"$runner/vm-suite.sh" "$build" "${@:2}"
}

# The in-VM tests that have no result in $results/vm yet.
unfinished_tests() {
	local t name

	for t in "$build"/vm/*_test; do
		name=$(basename "$t")
		if [ -n "${KC_TESTS:-}" ] && ! [[ " $KC_TESTS " == *" $name "* ]]; then
			continue
		fi
		[ -f "$results/vm/$name.rc" ] || echo "$name"
	done
}

# shellcheck disable=SC2086
run_suite "$results/vm" ${KC_TESTS:-}
vm_status=$?
# A crash of QEMU itself (run-vm.sh's 126) is the emulator's fault, not
# the guest's: the test it interrupted and those after it run again, from
# the start, in a new VM - once. Their results replace nothing: they had
# none. The first VM's console stays in $results/vm for the post-mortem.
if [ $vm_status = 126 ]; then
	again=$(unfinished_tests | tr '\n' ' ')
	echo "# vm: QEMU crashed (see above); not a test failure, but counted as one if it happens again: rerunning in a new VM: $again" >&2
	run_suite "$results/vm-again" $again
	vm_status=$?
	for name in $again; do
		for f in ktap rc; do
			[ -f "$results/vm-again/$name.$f" ] &&
				cp "$results/vm-again/$name.$f" "$results/vm/$name.$f"
		done
	done
fi
if [ $vm_status -ge 124 ]; then
	echo "# vm: FATAL: the test VM failed (status $vm_status); every in-VM test counts as failed" >&2
	group_fail=$((group_fail + 1))
fi
ran=0
for t in "$build"/vm/*_test; do
	name=$(basename "$t")
	if [ -n "${KC_TESTS:-}" ] && ! [[ " $KC_TESTS " == *" $name "* ]]; then
		continue
	fi
	ran=1
	ktap=$results/vm/$name.ktap
	if [ ! -f "$ktap" ] || [ ! -f "$results/vm/$name.rc" ]; then
		echo "# vm: $name: no result from the VM: counted as failed" >&2
		group_fail=$((group_fail + 1))
		continue
	fi
	count "$name" "$ktap" "$(cat "$results/vm/$name.rc")"
done
[ $ran = 1 ] || { echo "# vm: no in-VM test program" >&2; group_fail=$((group_fail + 1)); }
if [ "${KC_SPLAT_SCAN:-0}" = 1 ]; then
	for vm in "$results/vm" "$results/vm-again"; do
		[ -d "$vm" ] || continue
		# the guest's dmesg, or the console when it never got to write it
		klog=$vm/dmesg.log
		[ -s "$klog" ] || klog=$vm/console.log
		echo "# ==== splats in the guest's kernel log ($klog) ===="
		"$runner/splat-scan.sh" "$klog" > "$vm/splats.txt"
		splats=$(tail -n1 "$vm/splats.txt")
		head -n -1 "$vm/splats.txt"
		echo "# vm: $splats splats: each counted as a failed test"
		group_fail=$((group_fail + splats))
	done
fi
group_end vm

if [ $((total_pass + total_fail)) -eq 0 ]; then
	echo "# no test ran" >&2
	total_fail=1
fi
line="$total_pass passed, $total_fail failed"
[ $total_skip -gt 0 ] && line="$line, $total_skip skipped"
echo "$line"
[ $total_fail -eq 0 ]
