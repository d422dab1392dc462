#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel under QEMU with the host's root mounted read-only and run one
# command inside it. The command's output is streamed here as it runs; its
# exit status becomes ours. The whole console is kept in RESULTS/console.log
# and the guest's dmesg in RESULTS/dmesg.log.
#
# usage: run-vm.sh -o RESULTS [-k IMAGE] [-r RELEASE] [-m MODROOT]
#                  [-t SECONDS] [-c CPUS] [-M MEM] [-a APPEND] -- CMD [ARG...]
#
# Exit status: the command's, or 124 if the VM timed out, 125 if it did not
# boot or the command never finished.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
results=
image=
release=
modroot=/
timeout_s=600
cpus=4
mem=2048
append=

usage() { sed -n '/^# usage:/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "run-vm: $*" >&2; exit 125; }

while getopts "o:k:r:m:t:c:M:a:h" opt; do
	case $opt in
	o) results=$OPTARG ;;
	k) image=$OPTARG ;;
	r) release=$OPTARG ;;
	m) modroot=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	c) cpus=$OPTARG ;;
	M) mem=$OPTARG ;;
	a) append=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ -n "$results" ] && [ $# -gt 0 ] || usage

if [ -z "$release" ]; then
	release=$(ls /lib/modules | grep -- '-amd64$' | grep -vE -- '-(rt|cloud)-amd64$' |
		sort -V | tail -n1)
fi
[ -n "$image" ] || image=/boot/vmlinuz-$release
[ -r "$image" ] || die "kernel image $image not found (make deps installs linux-image-*)"
command -v qemu-system-x86_64 > /dev/null ||
	die "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"

mkdir -p "$results"
results=$(cd "$results" && pwd)
rm -f "$results"/{rc,output.log,console.log,dmesg.log,cmd.sh}

# One initramfs per kernel release, rebuilt when its inputs change.
cache=$here/../../build/vm-$release
mkdir -p "$cache"
initrd=$cache/initramfs.cpio.gz
if [ ! -s "$initrd" ] || [ "$here/guest-init" -nt "$initrd" ] ||
   [ "$here/mkinitramfs.sh" -nt "$initrd" ]; then
	"$here/mkinitramfs.sh" "$release" "$modroot" "$initrd" ||
		die "cannot build the initramfs for $release"
fi

{
	echo "cd $(printf '%q' "$PWD") || exit 125"
	printf 'exec'
	printf ' %q' "$@"
	echo
} > "$results/cmd.sh"
: > "$results/output.log"

accel="-accel tcg -cpu max"
if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
	accel="-accel kvm -cpu host"
fi

tail -n +1 -F "$results/output.log" 2> /dev/null &
tailer=$!

# shellcheck disable=SC2086
timeout --foreground -k 10 "$timeout_s" qemu-system-x86_64 \
	$accel -smp "$cpus" -m "$mem" -nographic -no-reboot \
	-kernel "$image" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=5 softlockup_panic=1 sysctl.kernel.panic_on_rcu_stall=1 rcupdate.rcu_cpu_stall_timeout=20 rdinit=/init $append" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$results,mount_tag=results,security_model=none" \
	-serial "file:$results/console.log" -monitor none -display none \
	-nic none < /dev/null > "$results/qemu.log" 2>&1
qemu_rc=$?

sleep 0.3
kill "$tailer" 2> /dev/null
wait "$tailer" 2> /dev/null

console_tail() {
	echo "--- last lines of $results/console.log ---" >&2
	tail -n 40 "$results/console.log" >&2
	[ -s "$results/qemu.log" ] && { echo "--- qemu ---" >&2; cat "$results/qemu.log" >&2; }
}

if [ -s "$results/rc" ]; then
	exit "$(cat "$results/rc")"
fi
# the firmware's escape sequences may share the marker's line
if ! grep -aq 'kc-vm: booted' "$results/console.log" 2> /dev/null; then
	echo "run-vm: FATAL: the VM did not boot ($image, qemu exit $qemu_rc)" >&2
	console_tail
	exit 125
fi
if grep -aq 'Kernel panic' "$results/console.log"; then
	echo "run-vm: FATAL: the guest kernel panicked; the command did not finish" >&2
	grep -a -m1 -B2 -A30 'BUG: kernel\|BUG: unable\|Oops\|kernel BUG' "$results/console.log" >&2
	console_tail
	exit 125
fi
if [ "$qemu_rc" = 124 ]; then
	echo "run-vm: FATAL: timeout after ${timeout_s}s; the command did not finish" >&2
	console_tail
	exit 124
fi
echo "run-vm: FATAL: the VM stopped before the command finished (qemu exit $qemu_rc)" >&2
console_tail
exit 125
