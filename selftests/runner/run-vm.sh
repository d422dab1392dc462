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
# boot or the command never finished, 126 if QEMU itself crashed (a signal
# killed the emulator: its fault, whatever the guest did; the backtrace of
# its core, when the host lets it dump one, is in RESULTS/qemu-backtrace.txt).
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
rm -f "$results"/{rc,output.log,console.log,dmesg.log,cmd.sh,qemu-backtrace.txt}
rm -f "$results"/core "$results"/core.[0-9]*

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

# A QEMU monitor for post-mortems of a hung guest ("info registers -a");
# in /tmp: a unix socket path must stay short whatever the clone's path.
monitor=$(mktemp -u "${TMPDIR:-/tmp}/kc-vm-XXXXXX.sock")
echo "$monitor" > "$results/monitor.path"

# The host's root and the results reach the guest over virtio-9p; a kernel
# built without 9p (Debian's cloud flavour) gets them over virtiofs, served
# by QEMU's virtiofsd (chroot sandbox: no namespaces needed).
fs_args=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	 -virtfs "local,path=$results,mount_tag=results,security_model=none")
virtiofsd=/usr/lib/qemu/virtiofsd
daemons=()
socks=()
kmods=$modroot/lib/modules/$release
if [ -d "$kmods" ] && ! find "$kmods" -name '9p.ko*' | grep -q . &&
   find "$kmods" -name 'virtiofs.ko*' | grep -q .; then
	[ -x "$virtiofsd" ] || die "$virtiofsd not found (apt-get install qemu-system-common)"
	# vhost-user needs the guest's memory shared with the daemons
	size=$mem
	[[ $size =~ ^[0-9]+$ ]] && size=${size}M
	fs_args=(-object "memory-backend-memfd,id=mem,size=$size,share=on" -numa node,memdev=mem)
	# The host root through the guest's page cache: with cache=none
	# every read is direct, and 6.1's virtiofs bounces a kernel
	# buffer's direct read through one kmalloc() of its whole size,
	# which fails for a module larger than kmalloc() serves (with its
	# debug info, ours is; finit_module() then hangs
	# in the request). And cached for good, as 9p's cache=loose does:
	# it is read-only and the host does not change it while the VM
	# runs, and with cache=auto every lookup older than a second goes
	# back to the daemon, which made a DKMS build of the module in the
	# guest (thousands of headers looked up per file) outlast its
	# test. The results uncached: the host follows them as the guest
	# writes.
	for share in hostroot:/:always "results:$results:none"; do
		sock=$(mktemp -u "${TMPDIR:-/tmp}/kc-vfs-XXXXXX.sock")
		cache=${share##*:} share=${share%:*}
		"$virtiofsd" --socket-path="$sock" -o source="${share#*:}" \
			-o sandbox=chroot -o cache="$cache" -o no_posix_lock \
			> "$results/virtiofsd-${share%%:*}.log" 2>&1 &
		daemons+=($!)
		for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
		[ -S "$sock" ] || die "virtiofsd did not start (see $results/virtiofsd-${share%%:*}.log)"
		fs_args+=(-chardev "socket,id=${share%%:*},path=$sock"
			  -device "vhost-user-fs-pci,chardev=${share%%:*},tag=${share%%:*}")
		socks+=("$sock")
	done
	append="$append kc.fs=virtiofs"
fi

tail -n +1 -F "$results/output.log" 2> /dev/null &
tailer=$!

# VM_PIN_VCPUS=1 (the benchmarks): vCPU n runs on host CPU n modulo the
# host's count. Left to the host's scheduler, the two vCPUs a benchmark
# pins its workload to shared one host core in some minutes and not in
# others, and the same boot's "off" runs differed by more than the effect
# measured.
pin_vcpus() {
	local qemu_pid=$1 n=$(nproc) t name i
	for i in $(seq 100); do
		[ "$(grep -l '^CPU [0-9]*/' /proc/$qemu_pid/task/*/comm 2> /dev/null |
			wc -l)" -ge "$cpus" ] && break
		sleep 0.2
	done
	for t in /proc/$qemu_pid/task/*; do
		name=$(cat "$t/comm" 2> /dev/null) || continue
		[[ $name =~ ^CPU\ ([0-9]+)/ ]] || continue
		taskset -p -c $((BASH_REMATCH[1] % n)) "${t##*/}" > /dev/null ||
			echo "run-vm: cannot pin $name" >&2
	done
}

# In RESULTS, with core dumps allowed and the guest's memory left out of
# them: when QEMU crashes, the backtrace is what tells its bugs from ours.
run_qemu() (
	cd "$results" || exit 125
	ulimit -c unlimited 2> /dev/null
	# shellcheck disable=SC2086
	exec timeout --foreground -k 10 "$timeout_s" qemu-system-x86_64 \
		$accel -machine dump-guest-core=off \
		-smp "$cpus" -m "$mem" -nographic -no-reboot \
		-kernel "$image" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=5 softlockup_panic=1 softlockup_all_cpu_backtrace=1 sysctl.kernel.panic_on_rcu_stall=1 rcupdate.rcu_cpu_stall_timeout=20 rdinit=/init $append" \
		"${fs_args[@]}" \
		-serial "file:$results/console.log" -display none \
		-monitor "unix:$monitor,server,nowait" \
		-name kc-vm,debug-threads=on \
		-nic none < /dev/null > "$results/qemu.log" 2>&1
)
if [ "${VM_PIN_VCPUS:-0}" = 1 ]; then
	run_qemu &
	qemu_job=$!
	qemu_pid=
	for _ in $(seq 50); do
		for p in $(pgrep -f "unix:$monitor,server"); do
			[ "$(cat /proc/$p/comm 2> /dev/null)" = qemu-system-x86 ] &&
				qemu_pid=$p
		done
		[ -n "$qemu_pid" ] && break
		sleep 0.1
	done
	if [ -n "$qemu_pid" ]; then
		pin_vcpus "$qemu_pid"
	else
		echo "run-vm: VM_PIN_VCPUS: QEMU's process not found" >&2
	fi
	wait "$qemu_job"
else
	run_qemu
fi
qemu_rc=$?
rm -f "$monitor"
for d in "${daemons[@]}"; do kill "$d" 2> /dev/null; wait "$d" 2> /dev/null; done
rm -f "${socks[@]}"

sleep 0.3
kill "$tailer" 2> /dev/null
wait "$tailer" 2> /dev/null

console_tail() {
	echo "--- last lines of $results/console.log ---" >&2
	tail -n 40 "$results/console.log" >&2
	[ -s "$results/qemu.log" ] && { echo "--- qemu ---" >&2; cat "$results/qemu.log" >&2; }
}

# QEMU's backtrace from its core, when the host's core_pattern left one in
# RESULTS and gdb is installed; the core itself is too big to keep.
qemu_backtrace() {
	local core

	core=$(ls -t "$results"/core "$results"/core.[0-9]* 2> /dev/null | head -n1)
	if [ -z "$core" ]; then
		echo "run-vm: no core of QEMU in $results (core_pattern: $(cat /proc/sys/kernel/core_pattern))" >&2
		return
	fi
	if command -v gdb > /dev/null; then
		# gdb starts in the thread the signal killed
		gdb -q -batch -ex 'echo kc-crashing-thread\n' -ex 'bt 30' \
			-ex 'echo kc-all-threads\n' -ex 'thread apply all bt 25' \
			"$(command -v qemu-system-x86_64)" "$core" \
			> "$results/qemu-backtrace.txt" 2>&1
		echo "--- QEMU's crashing thread (all threads: $results/qemu-backtrace.txt) ---" >&2
		sed -n '/^kc-crashing-thread/,/^kc-all-threads/p' \
			"$results/qemu-backtrace.txt" | grep '^#' >&2
	fi
	rm -f "$core"
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
# timeout(1) says 128+N when its command died of signal N, and 137 when
# it had to kill a QEMU that ignored the end of the time
if [ "$qemu_rc" -gt 128 ] && [ "$qemu_rc" != 137 ]; then
	sig=$(kill -l $((qemu_rc - 128)) 2> /dev/null || echo $((qemu_rc - 128)))
	echo "run-vm: FATAL: QEMU itself crashed (SIG$sig): an emulator fault, not the guest's" >&2
	qemu_backtrace
	console_tail
	exit 126
fi
if [ "$qemu_rc" = 124 ]; then
	echo "run-vm: FATAL: timeout after ${timeout_s}s; the command did not finish" >&2
	console_tail
	exit 124
fi
echo "run-vm: FATAL: the VM stopped before the command finished (qemu exit $qemu_rc)" >&2
console_tail
exit 125
