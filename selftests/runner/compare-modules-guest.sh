#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of compare-modules.sh: usage: compare-modules-guest.sh A.ko B.ko
# For each rate, three rounds of: the workload with no module, then with
# A, again with none, then with B, each module loaded afresh on the same
# 14 pipe/VFS functions and timed after COMPARE_WARMUP seconds (2) of
# sampling the same workload. COMPARE_SET_A and COMPARE_SET_B: sysfs
# settings (NAME=VALUE ...) written after each load of A or B, so that one
# module can be compared with itself under two settings. COMPARE_STATS:
# further stats keys whose change over each timed run is appended to its
# line, as KEY VALUE pairs.
set -u
a=$1 b=$2
sys=/sys/kernel/kcollider
kc_stats=/sys/kernel/debug/kcollider/stats
hot_funcs="pipe_read pipe_write vfs_read vfs_write ksys_read ksys_write
	rw_verify_area copy_page_to_iter copy_page_from_iter __wake_up_common
	anon_pipe_buf_release touch_atime file_update_time __fsnotify_parent"

stat() { awk -v k="$1" '$1 == k { print $2 }' $kc_stats; }
counters() { echo "$(stat fired) $(stat samples) $(stat hits) $(stat stall_us)"; }
extra_stats() {
	local k
	for k in ${COMPARE_STATS:-}; do
		echo "$k $(stat "$k")"
	done
}
# "KEY VALUE ..." before, then after: "KEY change ..."
extra_changes() {
	awk -v before="$1" -v after="$2" 'BEGIN {
		n = split(before, b, " "); split(after, a, " ")
		for (i = 1; i < n; i += 2)
			printf " %s %d", b[i], a[i + 1] - b[i + 1]
	}'
}
# Writer and reader pinned to two CPUs: left to the scheduler they share
# one vCPU in some runs and not in others, and under TCG the time doubles
# or triples between the two (1.7 s apart against 10 s together).
case $(nproc) in
1) pin_w="" pin_r="" ;;
2) pin_w="taskset -c 0" pin_r="taskset -c 1" ;;
*) pin_w="taskset -c 1" pin_r="taskset -c 2" ;;
esac
workload() {
	$pin_w dd if=/dev/zero bs=64 count=${COMPARE_DD_COUNT:-300000} status=none |
		$pin_r cat > /dev/null
}
elapsed() {
	local t0
	t0=$(date +%s.%N)
	"$@"
	echo "$(date +%s.%N) - $t0" | bc
}

apply_settings() {
	local var=COMPARE_SET_${1^^} kv
	for kv in ${!var:-}; do
		echo "${kv#*=}" > "$sys/${kv%%=*}" ||
			{ echo "compare-modules: cannot set $kv" >&2; return 1; }
	done
}

workload
for rate in ${COMPARE_RATES:-5 20 100 1000}; do
	for round in $(seq "${COMPARE_ROUNDS:-3}"); do
		for m in a b; do
			# each run has the off run just before it as its base
			off=$(elapsed workload)
			insmod "${!m}" || exit 1
			echo "$rate" > $sys/sample_rate
			# the rate itself, where the module has a budget
			echo 1000 > $sys/overhead_permille 2> /dev/null
			apply_settings "$m" || exit 1
			for f in $hot_funcs; do
				echo "$f" > $sys/targets 2> /dev/null
			done
			echo 1 > $sys/enabled
			# The steady state: not the first registrations, and
			# with the workload running, or the breakpoints armed
			# on its code meanwhile all fire in its first moment
			# (up to max_probes at once: fired/s far above the rate).
			warmup_until=$(($(date +%s) + ${COMPARE_WARMUP:-2}))
			while [ "$(date +%s)" -lt $warmup_until ]; do
				workload
			done
			before=$(counters)
			extra_before=$(extra_stats)
			on=$(elapsed workload)
			echo 0 > $sys/enabled
			extra=$(extra_changes "$extra_before" "$(extra_stats)")
			set -- $before $(counters)
			echo "rate $rate round $round module $m off $off on $on" \
			     "fired $(($5 - $1)) samples $(($6 - $2))" \
			     "hits $(($7 - $3)) stall_us $(($8 - $4))$extra"
			rmmod kcollider || exit 1
		done
	done
done
