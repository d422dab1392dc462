#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of hunt.sh. usage: hunt-guest.sh TOP SECONDS
set -u
top=$1
secs=$2
cli=$top/user/kcollider
sys=/sys/kernel/kcollider
out=$KC_RESULTS
work=$TMPDIR/hunt
step() { printf '\n== %s\n' "$*"; }

step "ext4 on a loop device, tmpfs"
modprobe loop 2> /dev/null
modprobe ext4 2> /dev/null	# built in on the debug kernel
grep -qw ext4 /proc/filesystems || { echo "hunt: this kernel has no ext4" >&2; exit 1; }
mkdir -p "$work/ext4" "$work/tmpfs"
truncate -s 512M "$work/disk.img" || exit 1
mkfs.ext4 -q -F "$work/disk.img" || exit 1
dev=$(losetup -f --show "$work/disk.img") || exit 1
mount -t ext4 "$dev" "$work/ext4" || exit 1
mount -t tmpfs -o size=256M tmpfs "$work/tmpfs" || exit 1

# the parameter's specs are comma-separated: insmod splits at spaces
targets=$(echo "${HUNT_TARGETS:-all}" | tr -s ' ' ,)
step "insmod kcollider.ko ${HUNT_PARAMS:+$HUNT_PARAMS }targets=$targets"
# HUNT_PARAMS: words, never globs
set -f
insmod "$top/kmod/kcollider.ko" ${HUNT_PARAMS:-} "targets=$targets" || exit 1
set +f
cat $sys/targets
# the source's markings, from the .ko files HUNT_MARK names
marking=""
for d in ${HUNT_MARK:-}; do marking="$marking -M $d"; done
[ -n "${HUNT_SOURCE:-}" ] && marking="$marking -S $HUNT_SOURCE"
t0=$(date +%s)
if [ -n "${HUNT_MARK:-}" ]; then
	"$cli" mark $marking || exit 1
fi
# the image's, computed on the host (hunt.sh)
if [ -n "${HUNT_IMAGE_MARKS:-}" ]; then
	"$cli" mark --load "$HUNT_IMAGE_MARKS" || exit 1
fi
[ -z "${HUNT_MARK:-}${HUNT_IMAGE_MARKS:-}" ] ||
	echo "hunt: marks written in $(($(date +%s) - t0)) s"
[ -n "${HUNT_VMLINUX:-}" ] && marking="$marking -V $HUNT_VMLINUX"
# the image's targeted functions too; the whole of it takes far too long
# under TCG, and "report -V" marks its reports afterwards anyway
image_globs=""
set -f	# the specs are globs for the kernel, not for this directory
for spec in $(echo "$targets" | tr , " "); do
	case $spec in
	all | vmlinux) image_globs=whole; break ;;
	-* | *:*) ;;
	*) image_globs="$image_globs${image_globs:+,}${spec#+}" ;;
	esac
done
set +f
if [ -n "${HUNT_IMAGE_MARKS:-}" ]; then
	:
elif [ -n "${HUNT_VMLINUX:-}" ] && [ "$image_globs" = whole ]; then
	echo "hunt: the whole image is targeted: not marked in dmesg (report -V marks it)"
elif [ -n "${HUNT_VMLINUX:-}" ] && [ -n "$image_globs" ]; then
	"$cli" mark -V "$HUNT_VMLINUX" -f "$image_globs" \
		${HUNT_SOURCE:+-S "$HUNT_SOURCE"} || exit 1
fi
# a hunt trades overhead for samples: a budget of HUNT_BUDGET thousandths
# of the CPUs (default 100), 200/s at most unless HUNT_RATE says otherwise
echo "${HUNT_RATE:-200}" > $sys/sample_rate || exit 1
echo "${HUNT_BUDGET:-100}" > $sys/overhead_permille || exit 1
echo 1 > $sys/enabled || exit 1

step "workload: $secs s of stress-ng (pipes, unix sockets, files, directories)"
# unix sockets through socketpair(): "--sock --sock-domain unix" asks
# for protocol tcp on them, and stress-ng 0.15 fails that stressor
stress-ng --timeout "${secs}s" --metrics-brief \
	--pipe 2 --sockpair 2 \
	--hdd 1 --hdd-bytes 32M --temp-path "$work/ext4" \
	--dir 1 --dentry 1 --rename 1 --temp-path "$work/ext4" \
	> "$out/stress-ng.log" 2>&1 &
ext4=$!
stress-ng --timeout "${secs}s" --quiet \
	--dir 1 --rename 1 --temp-path "$work/tmpfs" &
tmpfs=$!
wait $ext4 || echo "hunt: a stressor failed (stress-ng exit $?): the workload ran short"
wait $tmpfs || echo "hunt: a tmpfs stressor failed (stress-ng exit $?)"
echo 0 > $sys/enabled
tail -12 "$out/stress-ng.log"

step "races by function pair (kcollider report group)"
cp /sys/kernel/debug/kcollider/reports "$out/reports.log"
"$cli" report group $marking "$out/reports.log"
"$cli" report list $marking "$out/reports.log" > "$out/reports.txt"
grep -E '^(#|  (marking|verdict|class))' "$out/reports.txt" | head -100

step "TSO verdicts (kcollider tso, live)"
"$cli" tso "$out/reports.log" 2> /dev/null | grep -E '^(#|verdict|[^ ].* / )' |
	head -200

step "kcollider status"
"$cli" status
# what ended loops on stale int3s under TCG (Documentation/detector.rst)
grep -E '^(hits_stale|scrubs_rescued|loops_broken) ' /sys/kernel/debug/kcollider/stats

rmmod kcollider || exit 1
umount "$work/ext4" "$work/tmpfs"
losetup -d "$dev"
! dmesg | grep -E 'WARNING:|Oops|BUG: (unable|kernel)|self-detected stall|soft lockup'
