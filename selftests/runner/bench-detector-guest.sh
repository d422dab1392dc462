#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench-detector.sh. usage: bench-detector-guest.sh TOP
set -u
top=$1
sys=/sys/kernel/kcollider
dbg=/sys/kernel/debug
run=$dbg/kc_planted/run

# Hot pipe and VFS paths of vmlinux: a workload drives them hard.
hot_funcs="pipe_read pipe_write vfs_read vfs_write ksys_read ksys_write
	rw_verify_area copy_page_to_iter copy_page_from_iter __wake_up_common
	anon_pipe_buf_release touch_atime file_update_time __fsnotify_parent"

stat() { awk -v k="$1" '$1 == k { print $2 }' $sys/stats; }
now() { date +%s.%N; }
workload() {
	dd if=/dev/zero bs=64 count=100000 status=none | cat > /dev/null
}
elapsed() {
	local t0 t1
	t0=$(now)
	"$@"
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}
load() {
	insmod "$top/kmod/kcollider.ko" "$@" || exit 1
}
unload() {
	rmmod kcollider || exit 1
}

insmod "$top/selftests/planted/kc_planted.ko" || exit 1

echo "## sampling rate, overhead (workload: dd bs=64 x 100000 | cat)"
load
for f in $hot_funcs; do echo "$f" > $sys/targets 2> /dev/null; done
echo "targets: $(awk '{ print $1 }' $sys/targets | tr '\n' ' ')"
echo "sites: $(stat sites)"
workload
# median of three runs: the VM's vCPUs share the host with everything else
median3() {
	local a b c
	a=$(elapsed workload); b=$(elapsed workload); c=$(elapsed workload)
	printf '%s\n%s\n%s\n' "$a" "$b" "$c" | sort -g | sed -n 2p
}
printf "%-8s %9s %10s %7s %10s %10s %9s\n" rate fired/s samples/s full% \
	off_s on_s slowdown
for rate in 50 200 1000; do
	echo $rate > $sys/sample_rate
	off=$(median3)
	f0=$(stat fired); s0=$(stat samples)
	full0=$(stat watch_full); part0=$(stat watch_partial)
	echo 1 > $sys/enabled
	t0=$(now)
	on=$(median3)
	t=$(echo "$(now) - $t0" | bc -l)
	echo 0 > $sys/enabled
	fired=$(( $(stat fired) - f0 ))
	samples=$(( $(stat samples) - s0 ))
	full=$(( $(stat watch_full) - full0 ))
	part=$(( $(stat watch_partial) - part0 ))
	printf "%-8s %9.1f %10.1f %7.1f %10.3f %10.3f %8.2fx\n" $rate \
		"$(echo "$fired / $t" | bc -l)" "$(echo "$samples / $t" | bc -l)" \
		"$(echo "100 * $full / ($full + $part + 0.000001)" | bc -l)" \
		"$off" "$on" "$(echo "$on / $off" | bc -l)"
done

echo "## arm latency (all CPUs acknowledged, or the timeout), microseconds"
sort -n $dbg/kcollider/arm_latency_ns > $TMPDIR/lat
n=$(wc -l < $TMPDIR/lat)
if [ "$n" -gt 0 ]; then
	pct() { sed -n "$(( ($1 * n + 99) / 100 ))p" $TMPDIR/lat; }
	echo "samples=$n min=$(( $(head -1 $TMPDIR/lat) / 1000 )) median=$(( $(pct 50) / 1000 ))" \
	     "p99=$(( $(pct 99) / 1000 )) max=$(( $(tail -1 $TMPDIR/lat) / 1000 ))"
fi
unload

echo "## R1 (count++ / count-- in two threads): time to first two-sided report, 10 trials"
times=""
for trial in $(seq 1 10); do
	load
	echo "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec" > $sys/targets
	rm -f $TMPDIR/r1.stop
	( while [ ! -e $TMPDIR/r1.stop ]; do echo "r1 500" > $run; done ) &
	bg=$!
	t0=$(now)
	echo 1 > $sys/enabled
	found=""
	while [ -z "$found" ]; do
		t=$(echo "$(now) - $t0" | bc -l)
		if grep -q "data-race in kc_r1_dec / kc_r1_inc" $dbg/kcollider/reports; then
			found=$t
		elif [ "$(echo "$t > 20" | bc)" = 1 ]; then
			found=miss
		else
			sleep 0.05
		fi
	done
	touch $TMPDIR/r1.stop
	wait $bg
	echo 0 > $sys/enabled
	unload
	echo "trial $trial: $found"
	times="$times $found"
done
echo "$times" | tr ' ' '\n' | grep -v '^$' | grep -v miss | sort -n > $TMPDIR/r1
hits=$(wc -l < $TMPDIR/r1)
echo "R1 detected in $hits/10 trials within 20 s; median first report" \
     "$(sed -n "$(( (hits + 1) / 2 ))p" $TMPDIR/r1) s"
rmmod kc_planted
