#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make hunt: a real-kernel race hunt. Boots the test VM, targets "all"
# (vmlinux and every module; HUNT_TARGETS, in the syntax of the targets
# parameter, narrows it to a subsystem), runs a parallel workload on real subsystems
# (ext4 on a loop device, tmpfs, pipes, unix sockets) for HUNT_SECS
# seconds (default 300) at HUNT_RATE samples a second at most (default 200)
# within HUNT_BUDGET thousandths of the CPUs' time (default 100), with
# HUNT_PARAMS as further kcollider.ko parameters (sample_percpu=0), then
# prints the races grouped by function pair,
# their TSO verdicts and kcollider's counters. The report log is kept in
# build/results/hunt/reports.log (HUNT_RESULTS: another directory).
# Environment as for check.sh.
#
# What the source marks: HUNT_MARK (directories of .ko files with DWARF,
# e.g. the linux-image-*-dbg package's /usr/lib/debug/lib/modules/REL)
# has "kcollider mark" teach the module before the workload; HUNT_VMLINUX
# (a vmlinux with DWARF) and HUNT_SOURCE (the kernel's source tree, for
# the paths DWARF names) give "kcollider report" each access's marking,
# and have "kcollider mark -V" teach it the image's targeted functions
# (bare GLOB specs; not for "all" or "vmlinux": minutes under TCG).
# The image's marks are computed on the host instead, once per image, when
# its -dbg package is installed (scripts/image-marks.sh), and the guest
# loads them ("kcollider mark --load"); HUNT_IMAGE_MARKS names another
# such file, or "none" to go without. With the package, HUNT_MARK and
# HUNT_SOURCE default to its modules and the kernel's source.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
results=${HUNT_RESULTS:-${BUILD:-$top/build}/results/hunt}
secs=${HUNT_SECS:-300}
case $secs in
''|*[!0-9]*) echo "hunt: HUNT_SECS=$secs: not a number of seconds" >&2; exit 2 ;;
esac
image_marks=${HUNT_IMAGE_MARKS:-}
if [ -z "$image_marks" ] && [ -n "${KREL:-}" ] &&
   [ -r "/usr/lib/debug/boot/vmlinux-$KREL" ]; then
	image_marks=$("$top/scripts/image-marks.sh" "$KREL") || exit 1
	# and "report" in the guest reads the same source for its marking lines
	[ -n "${HUNT_SOURCE:-}" ] ||
		HUNT_SOURCE=$("$top/scripts/image-marks.sh" --source) || exit 1
	# the loaded modules' too (ext4, jbd2, loop ...), from the package's
	# .ko files: a few modules, quick enough to read in the guest
	dbg_modules=/usr/lib/debug/lib/modules/$KREL
	[ -n "${HUNT_MARK:-}" ] || [ ! -d "$dbg_modules" ] ||
		HUNT_MARK=$dbg_modules
fi
[ "$image_marks" = none ] && image_marks=
"$top/selftests/runner/run-vm.sh" -o "$results" -k "${VM_IMAGE:-}" \
	-r "${KREL:-}" -c "${VM_CPUS:-4}" -M 3072 \
	-t "${VM_TIMEOUT:-$((secs + 900))}" -- \
	env HUNT_RATE="${HUNT_RATE:-200}" HUNT_BUDGET="${HUNT_BUDGET:-100}" \
	HUNT_TARGETS="${HUNT_TARGETS:-all}" HUNT_PARAMS="${HUNT_PARAMS:-}" \
	HUNT_MARK="${HUNT_MARK:-}" HUNT_VMLINUX="${HUNT_VMLINUX:-}" \
	HUNT_SOURCE="${HUNT_SOURCE:-}" HUNT_IMAGE_MARKS="$image_marks" \
	"$top/selftests/runner/hunt-guest.sh" "$top" "$secs"
