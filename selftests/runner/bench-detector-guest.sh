#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench-detector.sh. usage: bench-detector-guest.sh TOP
set -u
top=$1
sys=/sys/kernel/kcollider
kc_stats=/sys/kernel/debug/kcollider/stats
dbg=/sys/kernel/debug
run=$dbg/kc_planted/run
# shellcheck source=selftests/runner/kmsg-watch.sh
. "$top/selftests/runner/kmsg-watch.sh"

# Hot pipe and VFS paths of vmlinux: a workload drives them hard.
hot_funcs="pipe_read pipe_write vfs_read vfs_write ksys_read ksys_write
	rw_verify_area copy_page_to_iter copy_page_from_iter __wake_up_common
	anon_pipe_buf_release touch_atime file_update_time __fsnotify_parent"

stat() { awk -v k="$1" '$1 == k { print $2 }' $kc_stats; }
# the overhead table: issue 10's range of rates, rounds of alternated blocks
rates=${BENCH_RATES:-10 20 100 1000}
rounds=${BENCH_ROUNDS:-5}
# the default rate's row is held against 1.05x: rounds at 10 s spread
# 0.90-1.12 around it (one unit's time 330-540 ms with nothing loaded),
# so more of them
default_rounds=${BENCH_DEFAULT_ROUNDS:-9}
# the budget rows beyond the default's: each budget's own pair of rows
budgets=${BENCH_BUDGETS-30}
block_s=10
now() { date +%s.%N; }
# Writer and reader pinned to two CPUs: left to the scheduler they share
# one vCPU in some runs and not in others, and under TCG the time doubles
# or triples between the two (1.7 s apart against 10 s together).
case $(nproc) in
1) pin_w="" pin_r="" ;;
2) pin_w="taskset -c 0" pin_r="taskset -c 1" ;;
*) pin_w="taskset -c 1" pin_r="taskset -c 2" ;;
esac
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

meminfo_kb() {
	awk '$1 == "Slab:" || $1 == "VmallocUsed:" { n += $2 } END { print n }' \
		/proc/meminfo
}

echo "## site table: targets=all (vmlinux and every loaded module)"
load
m0=$(meminfo_kb)
t=$(elapsed sh -c "echo all > $sys/targets")
m1=$(meminfo_kb)
echo "sites=$(stat sites) build_s=$t build_ms(kernel)=$(stat sites_build_ms)" \
     "table_bytes=$(stat sites_bytes) slab+vmalloc_delta_kb=$((m1 - m0))" \
     "functions_denied=$(stat funcs_denied)"
unload

echo "## hot loop (H1: one thread, private data): traps per sample"
load
echo "kc_planted:kc_h1_step" > $sys/targets
echo 200 > $sys/sample_rate
echo 1 > $sys/enabled
echo "h1 5000" > $run
echo 0 > $sys/enabled
echo "sites=$(stat sites) hits=$(stat hits) fired=$(stat fired)" \
     "traps_per_sample=$(echo "$(stat hits) / ($(stat fired) + 0.000001)" | bc -l |
	xargs printf '%.2f')"
unload

# One unit of the overhead workload: 50,000 blocks through the pipe.
unit() {
	$pin_w dd if=/dev/zero bs=64 count=50000 status=none |
		$pin_r cat > /dev/null
}
# Units run back to back for $1 seconds: prints ms per unit, seconds, units.
block() {
	local n=0 t0 t1 end
	t0=$(now)
	end=$(echo "$t0 + $1" | bc -l)
	while [ "$(echo "$(now) < $end" | bc -l)" = 1 ]; do
		unit
		n=$((n + 1))
	done
	t1=$(now)
	echo "$(echo "1000 * ($t1 - $t0) / $n" | bc -l) $(echo "$t1 - $t0" | bc -l) $n"
}

# The rounds' ratios scatter widely under TCG on a small host (the same
# module against itself at 20/s: 0.93-1.28 in five rounds): the interval
# says whether a goal is met or missed beyond that noise.
ci95() {
	echo "$@" | tr ' ' '\n' | grep . | awk '
	BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", t, " ") }
	{ x[++n] = $1; s += $1 }
	END {
		if (n < 2) { print "-"; exit }
		m = s / n
		for (i = 1; i <= n; i++) v += (x[i] - m) ^ 2
		h = (n - 1 <= 20 ? t[n - 1] : 2.0) * sqrt(v / (n - 1) / n)
		printf "%.2f-%.2f\n", m - h, m + h
	}'
}
echo "## sampling rate, overhead (workload: dd bs=64 x 50000 | cat, back to back)"
echo "## per rate $rounds rounds ($default_rounds at the default rate) of ${block_s} s off then ${block_s} s on"
echo "## slowdown: mean unit time on / off over all the rounds (rounds: the range of the rounds' own ratios)"
echo "## goal: slowdown - 1 <= 1.5 x budget + 0.02 (issue 10)"
echo "## ci95: 95% interval of the mean of the rounds' ratios (Student's t): a goal inside it is not told apart from the noise"
echo "## each rate with no overhead budget (overhead_permille=1000): what a rate costs"
load
echo 1000 > $sys/overhead_permille
default_rate=""
for f in $hot_funcs; do echo "$f" > $sys/targets 2> /dev/null; done
echo "targets: $(awk '{ print $1 }' $sys/targets | tr '\n' ' ')"
echo "sites: $(stat sites)"
unit
# why fired/s falls short of the rate: the budget the armer lost, by reason
lost() {
	awk '$1 ~ /^rate_lost_/ { sub(/^rate_lost_/, "", $1); print $1, $2 }' \
		$kc_stats
}
# (files, not <(...): the guest has no /dev/fd)
lost_why() {
	echo "$1" | sort > $TMPDIR/lost0
	echo "$2" | sort > $TMPDIR/lost1
	join $TMPDIR/lost0 $TMPDIR/lost1 |
		awk -v t="$3" '{ d = $3 - $2 } d > best { best = d; why = $1 }
			END { if (best > 0) printf "%s:%.1f/s", why, best / t;
			      else print "-" }'
}
# The machinery: CPU time of the detector's threads (they run only while
# enabled) per second on, and the armer's and keeper's writes to kernel text
# per sample (under TCG each write drops the page's translations).
threads_ns() {
	local n=0 p
	for p in $(pgrep '^kcollider_'); do
		n=$((n + $(awk '{ print $1 }' /proc/$p/schedstat)))
	done
	echo $n
}
writes() {
	echo $(( $(stat patches_direct) + $(stat patches_kprobes) +
		 $(stat probes_scrubbed) ))
}
printf "%-6s %8s %9s %9s %7s %11s %8s %8s %9s %9s %11s %7s %5s %8s %13s  %s\n" \
	rate fired/s samples/s window_ms budget traps/sample off_ms on_ms \
	slowdown rounds ci95 goal met cpu_ms/s writes/sample short_by
for rate in $rates; do
	echo $rate > $sys/sample_rate
	ratios="" ton=0 toff=0 non=0 noff=0 cpu=0
	f0=$(stat fired); s0=$(stat samples); h0=$(stat hits); w0=$(stat stall_us)
	x0=$(writes)
	l0=$(lost)
	# on and off alternated: the host's load drifts, the ratio must not
	n=$rounds
	[ "$rate" = "$default_rate" ] && n=$default_rounds
	for i in $(seq $n); do
		set -- $(block $block_s)
		off=$1
		toff=$(echo "$toff + $2" | bc -l)
		noff=$((noff + $3))
		echo 1 > $sys/enabled
		c0=$(threads_ns)
		set -- $(block $block_s)
		cpu=$((cpu + $(threads_ns) - c0))
		echo 0 > $sys/enabled
		ratios="$ratios $(echo "$1 / $off" | bc -l)"
		ton=$(echo "$ton + $2" | bc -l)
		non=$((non + $3))
	done
	fired=$(( $(stat fired) - f0 ))
	samples=$(( $(stat samples) - s0 ))
	hits=$(( $(stat hits) - h0 ))
	stall=$(( $(stat stall_us) - w0 ))
	win=$(echo "$stall / 1000 / ($samples + 0.000001)" | bc -l)
	budget=$(echo "$stall / 1000000 / $ton" | bc -l)
	off_ms=$(echo "1000 * $toff / $noff" | bc -l)
	on_ms=$(echo "1000 * $ton / $non" | bc -l)
	slowdown=$(echo "$on_ms / $off_ms" | bc -l)
	spread=$(echo $ratios | tr ' ' '\n' | grep . | sort -g |
		 sed -n '1p;$p' | xargs printf '%.2f-%.2f')
	ci=$(ci95 $ratios)
	[ "$rate" = "$default_rate" ] && default_slowdown=$slowdown &&
		default_ci=$ci
	goal=$(echo "1 + 1.5 * $budget + 0.02" | bc -l)
	met=no
	[ "$(echo "$slowdown <= $goal" | bc -l)" = 1 ] && met=yes
	printf "%-6s %8.1f %9.1f %9.3f %7.3f %11.1f %8.1f %8.1f %8.3fx %9s %11s %6.3fx %5s %8.1f %13.2f  %s\n" \
		$rate "$(echo "$fired / $ton" | bc -l)" \
		"$(echo "$samples / $ton" | bc -l)" "$win" "$budget" \
		"$(echo "$hits / ($fired + 0.000001)" | bc -l)" \
		"$off_ms" "$on_ms" "$slowdown" "$spread" "$ci" \
		"$goal" $met "$(echo "$cpu / 1000000 / $ton" | bc -l)" \
		"$(echo "($(writes) - $x0) / ($fired + 0.000001)" | bc -l)" \
		"$(lost_why "$l0" "$(lost)" "$ton")"
done
grep -E "^(armed_expired|arms|register_us_mean|enable_us_mean|retire_us_mean|spent_wait_us_mean|spent_life_us_mean|probes_repoked|probes_mismatched|patches_direct|patches_kprobes|hits_stale|retire_settles) " \
	$kc_stats | tr '\n' ' '
echo

echo "## arm latency (until all CPUs acknowledged; timeouts not recorded), microseconds"
sort -n $dbg/kcollider/arm_latency_ns > $TMPDIR/lat
n=$(wc -l < $TMPDIR/lat)
if [ "$n" -gt 0 ]; then
	pct() { sed -n "$(( ($1 * n + 99) / 100 ))p" $TMPDIR/lat; }
	echo "samples=$n min=$(( $(head -1 $TMPDIR/lat) / 1000 )) median=$(( $(pct 50) / 1000 ))" \
	     "p99=$(( $(pct 99) / 1000 )) max=$(( $(tail -1 $TMPDIR/lat) / 1000 ))"
fi
unload

# The budget at its default, where the rate is only a cap: what the
# workload pays, what the detector says it cost, and what it bought.
cost_parts="stall handler pool_work armer keeper profile"
cost_rows=""
budget_row() {
	local name=$1 goal=$2 ratios="" ton=0 toff=0 non=0 noff=0 i
	local f0 s0 v0 cost=0 slowdown ci met p row n
	local -A part=()
	f0=$(stat fired); s0=$(stat samples)
	v0=$(( $(stat visits) + $(stat visits_again) ))
	for i in $(seq $default_rounds); do
		set -- $(block $block_s)
		off=$1
		toff=$(echo "$toff + $2" | bc -l)
		noff=$((noff + $3))
		echo 1 > $sys/enabled
		set -- $(block $block_s)
		echo 0 > $sys/enabled
		# cost_ms starts again at every enable: one round's, summed
		cost=$((cost + $(stat cost_ms)))
		for p in $cost_parts; do
			part[$p]=$(( ${part[$p]:-0} + $(stat cost_${p}_ms) ))
		done
		ratios="$ratios $(echo "$1 / $off" | bc -l)"
		ton=$(echo "$ton + $2" | bc -l)
		non=$((non + $3))
	done
	slowdown=$(echo "(1000 * $ton / $non) / (1000 * $toff / $noff)" | bc -l)
	ci=$(ci95 $ratios)
	met=no
	[ "$(echo "$slowdown <= $goal" | bc -l)" = 1 ] && met=yes
	printf "%-5s %6s %6s %8.1f %9.1f %8.1f %13.1f %8.3fx %11s %6.3fx %5s\n" \
		"$name" "$(cat $sys/overhead_permille)" "$(cat $sys/sample_rate)" \
		"$(echo "($(stat fired) - $f0) / $ton" | bc -l)" \
		"$(echo "($(stat samples) - $s0) / $ton" | bc -l)" \
		"$(echo "($(stat visits) + $(stat visits_again) - $v0) / $ton" | bc -l)" \
		"$(echo "1000 * $cost / 1000 / $ton / $(nproc)" | bc -l)" \
		"$slowdown" "$ci" "$goal" $met
	row=$(printf "%-5s %6s" "$name" "$(cat $sys/overhead_permille)")
	n=$(( $(stat samples) - s0 ))
	for p in $cost_parts; do
		row="$row $(printf "%9.2f" "$(echo "${part[$p]} / ($n + 0.000001)" | bc -l)")"
	done
	cost_rows="$cost_rows$row"$'\n'
}
# What the rows' cost was spent on: the budget's parts, per sample.
cost_table() {
	echo "## the cost_permille of the rows above by part: ms of CPU time per sample"
	printf "%-5s %6s" targets budget
	printf " %9s" $cost_parts
	echo
	printf "%s" "$cost_rows"
}
echo "## overhead budget at the default settings (sample_rate a cap), then with the cap lifted at budget(s): ${budgets:-none}; $default_rounds rounds of ${block_s} s off then on"
echo "## cost_permille: the detector's own accounting, of the online CPUs' time while on; fired/s: the rate the budget bought"
printf "%-5s %6s %6s %8s %9s %8s %13s %9s %11s %7s %5s\n" targets budget cap \
	fired/s samples/s visits/s cost_permille slowdown ci95 goal met
load
for f in $hot_funcs; do echo "$f" > $sys/targets 2> /dev/null; done
budget_row hot 1.05
visit_us=$(stat visit_us_mean) again_us=$(stat visit_again_us_mean)
echo all > $sys/targets
budget_row all 1.08
unload
# Whether the default budget is the largest the goals allow: the same rows
# at larger budgets, the cap lifted so that the budget alone governs.
for b in $budgets; do
	load overhead_permille="$b" sample_rate=1000
	for f in $hot_funcs; do echo "$f" > $sys/targets 2> /dev/null; done
	budget_row hot 1.05
	echo all > $sys/targets
	budget_row all 1.08
	unload
done
cost_table
echo "## arming: a site never armed before (a visit) against re-arming a registered probe (visits=0), hot targets"
load visits=0
for f in $hot_funcs; do echo "$f" > $sys/targets 2> /dev/null; done
echo 200 > $sys/sample_rate
echo 1 > $sys/enabled
block 5 > /dev/null
echo 0 > $sys/enabled
enable_us=$(stat enable_us_mean)
echo "visit_us_mean=$visit_us visit_again_us_mean=$again_us" \
     "enable_us_mean(registered)=$enable_us register_us_mean=$(stat register_us_mean)" \
     "ratio_new_to_registered=$(echo "$visit_us / ($enable_us + 0.000001)" | bc -l | xargs printf '%.2f')"
unload

echo "## R1 (count++ / count-- in two threads): time to first two-sided report, 10 trials"
echo "## from enabling to the report, by the kernel log's timestamps, waited for on /dev/kmsg"
times=""
for trial in $(seq 1 10); do
	load
	echo "kc_planted:kc_r1_inc,kc_planted:kc_r1_dec" > $sys/targets
	rm -f $TMPDIR/r1.stop
	mark="kc-bench: R1 trial $trial enabled ($$)"
	kmsg_watch_start "$mark" "^BUG: KCOLLIDER: data-race in kc_r1_dec / kc_r1_inc" ||
		exit 1
	( while [ ! -e $TMPDIR/r1.stop ]; do echo "r1 500" > $run; done ) &
	bg=$!
	( sleep 20; echo "$kmsg_end" > /dev/kmsg ) &
	timer=$!
	echo "$mark" > /dev/kmsg
	echo 1 > $sys/enabled
	kmsg_watch_result
	kill $timer 2> /dev/null
	wait $timer 2> /dev/null
	touch $TMPDIR/r1.stop
	wait $bg
	found=$kmsg_first
	case $found in
	none) found=miss ;;
	"") echo "R1 trial $trial: the kernel log was lost" >&2; found=miss ;;
	esac
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
