#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM for bench-kcsan.sh. Three modes, one per boot:
#
#   kcsan OUTDIR PLANTED BUDGET SCENARIO...
#	On the KCSAN kernel: loads the (KCSAN-instrumented) planted module
#	and runs each scenario until KCSAN reports a race naming its
#	functions (kc_<id>_) or BUDGET seconds pass. "kc-bench: start <id>"
#	goes to /dev/kmsg first: the host takes the time to the first
#	report from the dmesg timestamps (OUTDIR/dmesg.txt). Then the
#	workloads, timed, with KCSAN on and off at run time.
#   plain OUTDIR
#	On the same kernel without KCSAN: the workloads, timed.
#   kcollider OUTDIR MODULE PLANTED BUDGET SCENARIO...
#	On Debian's kernel: detect-guest.sh (one trial per scenario, the
#	detection-rate benchmark's code), then the workloads with kcollider
#	off and on (targets=all, default sample_rate), alternated.
#
# Both the kcsan and the kcollider mode end with the real workload when
# BENCH_KCSAN_REAL (seconds, default 300; 0: none) is set: a stress-ng mix
# on tmpfs and on ext4 on a loop device, once under KCSAN, and under
# kcollider (targets=all) once per run of BENCH_KCSAN_KC_RUNS (below). The kernel log of each run, between
# "kc-bench: real start NAME" and "kc-bench: real end NAME", goes to
# OUTDIR/real.txt; the kernel's function names to OUTDIR/functions.txt
# (kcsan-real-table.sh compares the two kernels' reports by function pair).
# BENCH_KCSAN_PARTS ("planted real") leaves out either part.
#
# Workload timings go to OUTDIR/workload.txt, one "NAME MODE SECONDS" line
# each. Timings are reported as ratios only: the host is shared.
set -u

[ -n "${KC_RESULTS:-}" ] || { echo "bench-kcsan-guest: run me inside the test VM" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
run=/sys/kernel/debug/kc_planted/run
kcsan_ctl=/sys/kernel/debug/kcsan
reps=${BENCH_KCSAN_REPS:-3}
# shellcheck source=selftests/runner/kmsg-watch.sh
. "$here/kmsg-watch.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The workloads: the pipe one of bench-detector-guest.sh, and small files
# in tmpfs (open/write/close, read, unlink: VFS and shmem paths).
wl_pipe() {
	dd if=/dev/zero bs=64 count=100000 status=none | cat > /dev/null
}
wl_files() {
	local d=$TMPDIR/wl.$$ i
	mkdir -p "$d"
	for i in $(seq 300); do echo "$i $i $i" > "$d/f$i"; done
	cat "$d"/f* > /dev/null
	rm -rf "$d"
}

# time_wl NAME MODE: one timed run, appended to workload.txt.
time_wl() {
	local t0 t1
	t0=$(now_ms)
	"wl_$1"
	t1=$(now_ms)
	echo "$1 $2 $(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.3f", t / 1000 }')" >> "$out/workload.txt"
}

# Alternates the two states REPS times (the host's load drifts: the ratio
# must not). ON and OFF are commands that switch the detector.
alternate() {
	local on=$1 off=$2 w i
	for w in pipe files; do
		"wl_$w"		# warm the caches once
		for ((i = 1; i <= reps; i++)); do
			$off; time_wl $w off
			$on; time_wl $w on
		done
	done
	$off
}

# The real workload: pipes, unix socket pairs, directories, dentries and
# renames on tmpfs, file writes there, fork, futex, mmap and signal queues,
# one instance of each; beside it, file writes, directories and renames on
# ext4 on a loop device (the journal, writeback, the block layer), as make
# hunt's workload does; for REAL seconds, and a monitor that polls both
# file systems' free blocks, as node exporters do. The kernel log is
# followed from the start, so a log buffer that wraps loses nothing.
real_secs=${BENCH_KCSAN_REAL:-300}
parts=${BENCH_KCSAN_PARTS:-planted real}
part() { [[ " $parts " == *" $1 "* ]]; }
real_dir=$TMPDIR/real

# statfs() sums a per-CPU counter over the CPUs (__percpu_counter_sum():
# tmpfs' used blocks, ext4's free clusters), while the file writers' CPUs
# add to their own copies.
real_monitor() {
	while :; do
		stat -f "$real_dir/tmpfs" "$real_dir/ext4" > /dev/null
	done
}

# Once per boot, before the function list is read: ext4 may be a module.
real_mount() {
	local dev
	mkdir -p "$real_dir/tmpfs" "$real_dir/ext4"
	mountpoint -q "$real_dir/tmpfs" ||
		mount -t tmpfs -o size=256M tmpfs "$real_dir/tmpfs" || exit 1
	mountpoint -q "$real_dir/ext4" && return 0
	modprobe loop 2> /dev/null	# built in on the KCSAN kernel
	modprobe ext4 2> /dev/null
	grep -qw ext4 /proc/filesystems ||
		{ echo "bench-kcsan: this kernel has no ext4" >&2; exit 1; }
	truncate -s 512M "$real_dir/disk.img" || exit 1
	mkfs.ext4 -q -F "$real_dir/disk.img" || exit 1
	dev=$(losetup -f --show "$real_dir/disk.img") || exit 1
	mount -t ext4 "$dev" "$real_dir/ext4" || exit 1
}

real_workload() {
	local name=$1 monitor ext4 fail=0
	echo "kc-bench: real start $name" > /dev/kmsg
	real_monitor &
	monitor=$!
	stress-ng --timeout "${real_secs}s" --quiet --temp-path "$real_dir/ext4" \
		--hdd 1 --hdd-bytes 32M --dir 1 --rename 1 \
		> "$out/stress-ng-$name-ext4.log" 2>&1 &
	ext4=$!
	stress-ng --timeout "${real_secs}s" --metrics-brief --temp-path "$real_dir/tmpfs" \
		--pipe 1 --sockpair 1 --dir 1 --dentry 1 --rename 1 \
		--hdd 1 --hdd-bytes 8M \
		--fork 1 --futex 1 --mmap 1 --mmap-bytes 16M --sigq 1 \
		> "$out/stress-ng-$name.log" 2>&1 || fail=$?
	wait "$ext4" || fail=$?
	[ $fail = 0 ] ||
		echo "# real: a stressor failed (stress-ng exit $fail): the $name run ran short"
	kill "$monitor" 2> /dev/null
	wait "$monitor" 2> /dev/null
	echo "kc-bench: real end $name" > /dev/kmsg
	tail -12 "$out/stress-ng-$name.log"
}

# Follows the kernel log into OUTDIR/real.txt until real_log_stop.
real_log_pid=
real_log_start() {
	real_mount
	dmesg -w > "$out/real.txt" &
	real_log_pid=$!
	echo "$real_secs" > "$out/real-seconds"
	awk '$2 ~ /^[tTwW]$/ { print $3 }' /proc/kallsyms | sort -u > "$out/functions.txt"
}
real_log_stop() {
	sleep 1		# the last lines reach the reader
	kill $real_log_pid 2> /dev/null
	wait $real_log_pid 2> /dev/null
}

kcsan_on() { echo on > $kcsan_ctl; }
kcsan_off() { echo off > $kcsan_ctl; }

kcsan_mode() {
	local planted=$1 budget=$2 sc pid hit
	shift 2
	insmod "$planted" || exit 1
	for sc in "$@"; do
		# as detect-guest.sh waits for kcollider's: no poll beside it
		kmsg_watch_start "kc-bench: start $sc" "BUG: KCSAN: .*kc_${sc}_" ||
			exit 1
		{
			echo "kc-bench: start $sc" > /dev/kmsg
			echo "$sc $((budget * 1000))" > $run
			echo "$kmsg_end" > /dev/kmsg
		} &
		pid=$!
		kmsg_watch_result
		kill $pid 2> /dev/null
		wait $pid 2> /dev/null
		hit=1
		case $kmsg_first in none | "") hit=0 ;; esac
		echo "# kcsan: $sc reported=$hit after ${kmsg_first:-?} s"
		# KCSAN prints one pair of functions once in 3 s
		# (REPORT_ONCE_IN_MS): the next scenario has other functions,
		# but give it a clean start anyway.
		[ $hit = 0 ] || sleep 3.1
	done
	dmesg > "$out/dmesg.txt"
	rmmod kc_planted
	alternate kcsan_on kcsan_off
	kcsan_on
}

kcsan_real() {
	kcsan_on
	real_log_start
	real_workload kcsan
	real_log_stop
}

kc_sys=/sys/kernel/kcollider
kc_on() { echo 1 > $kc_sys/enabled; }
kc_off() { echo 0 > $kc_sys/enabled; }

kcollider_mode() {
	local module=$1 planted=$2 budget=$3
	shift 3
	KC_MODULE=$module KC_PLANTED=$planted \
		"$here/detect-guest.sh" "$out/detect.csv" 1 "$budget" "$budget" "$@"
	insmod "$module" || exit 1
	echo all > $kc_sys/targets || exit 1
	echo "# kcollider: targets=all, $(awk '$1 == "sites" { print $2 }' /sys/kernel/debug/kcollider/stats) sites," \
	     "sample_rate $(cat $kc_sys/sample_rate)"
	alternate kc_on kc_off
	rmmod kcollider
}

# kcollider's runs (BENCH_KCSAN_KC_RUNS, default "default hunt"): the
# default budget; the hunt's (the settings of hunt-guest.sh); and
# hunt-nopercpu, the hunt's without %gs-relative accesses. Each
# run's counters go to OUTDIR/real-stats.txt, "RUN NAME VALUE" a line.
kcollider_real() {
	local module=$1 name
	real_log_start
	: > "$out/real-stats.txt"
	for name in ${BENCH_KCSAN_KC_RUNS:-default hunt}; do
		insmod "$module" targets=all || exit 1
		case $name in
		default) ;;
		hunt | hunt-nopercpu)
			echo "${HUNT_RATE:-200}" > $kc_sys/sample_rate || exit 1
			echo "${HUNT_BUDGET:-100}" > $kc_sys/overhead_permille || exit 1
			[ $name = hunt ] || echo 0 > $kc_sys/sample_percpu || exit 1
			;;
		*) echo "bench-kcsan-guest: unknown run $name" >&2; exit 2 ;;
		esac
		# the image's marks, read on the host (bench-kcsan.sh): KCSAN
		# knows them from the compiler
		if [ -n "${BENCH_KCSAN_IMAGE_MARKS:-}" ]; then
			"$(dirname "$0")/../../user/kcollider" mark \
				--load "$BENCH_KCSAN_IMAGE_MARKS" || exit 1
		fi
		# and the loaded modules' (9pnet's READ_ONCE()s ...)
		if [ -n "${BENCH_KCSAN_MODULE_MARKS:-}" ]; then
			"$(dirname "$0")/../../user/kcollider" mark \
				-M "$BENCH_KCSAN_MODULE_MARKS" \
				${BENCH_KCSAN_SOURCE:+-S "$BENCH_KCSAN_SOURCE"} ||
				echo "bench-kcsan: the modules' marks failed: their reports say so" >&2
		fi
		echo "# real $name: sample_rate $(cat $kc_sys/sample_rate)," \
		     "overhead_permille $(cat $kc_sys/overhead_permille)," \
		     "sample_percpu $(cat $kc_sys/sample_percpu)"
		kc_on
		real_workload "$name"
		kc_off
		sed "s/^/$name /" /sys/kernel/debug/kcollider/stats >> "$out/real-stats.txt"
		awk -v n=$name '$1 ~ /^(sites|fired|samples|races|unknown_origin|skipped_percpu_denied)$/ {
			s = s " " $1 " " $2 } END { print "# real " n ":" s }' \
			/sys/kernel/debug/kcollider/stats
		rmmod kcollider || exit 1
	done
	real_log_stop
}

mode=$1 out=$2
shift 2
mkdir -p "$out"
: > "$out/workload.txt"
uname -r > "$out/kernel"
case $mode in
kcsan)
	part planted && kcsan_mode "$@"
	[ "$real_secs" = 0 ] || ! part real || kcsan_real
	;;
plain) alternate true true ;;
kcollider)
	part planted && kcollider_mode "$@"
	[ "$real_secs" = 0 ] || ! part real || kcollider_real "$1"
	;;
*) echo "bench-kcsan-guest: unknown mode $mode" >&2; exit 2 ;;
esac
cat "$out/workload.txt"
