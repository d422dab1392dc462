#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM for bench-detect.sh: the detection-rate benchmark
# over the planted-race scenarios, default detector settings.
#  - R scenarios: TRIALS trials each; a trial loads kcollider fresh,
#    targets the scenario's functions, runs the scenario and stops it at
#    the first report or after BUDGET seconds. The seconds to the first
#    report are the kernel log's: from a marker written just before the
#    scenario starts to the report's first line, as bench-kcsan.sh times
#    KCSAN's. The trial waits on /dev/kmsg for that line, idle: a poll
#    that forks grep and sleep takes under TCG the host core the
#    detector's threads and the scenario's need, and the figure grows
#    with it.
#  - N scenarios: one run of NSECS seconds each; every report counts.
#  - B, M and F scenarios (bench-kcsan.sh asks for them) run as R trials:
#    a report is a detection, whatever the catalogue expects of it.
# One CSV line per trial to OUT:
#   scenario,kind,trial,detected,seconds,reports,samples,title,class
# class: the first report's "kcollider: class:" value, else the first
# "kcollider: benign: filter=" name as "benign:NAME", else empty.
# usage: detect-guest.sh OUT TRIALS BUDGET NSECS [SCENARIO...]
set -u

out=$1 trials=$2 budget=$3 nsecs=$4
shift 4
[ -n "${KC_RESULTS:-}" ] || { echo "detect-guest: run me inside the test VM" >&2; exit 2; }
sysfs=/sys/kernel/kcollider
kc_cli=${KC_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/user/kcollider
reports=/sys/kernel/debug/kcollider/reports
# shellcheck source=selftests/runner/kmsg-watch.sh
. "$(dirname "$0")/kmsg-watch.sh"
run=/sys/kernel/debug/kc_planted/run

declare -A funcs=(
	[r1]="kc_r1_inc kc_r1_dec"
	[r2]="kc_r2_write kc_r2_read"
	[r3]="kc_r3_write_a kc_r3_write_b"
	[r4]="kc_r4_write_a kc_r4_write_b"
	[r5]="kc_r5_task_write kc_r5_timer_access"
	[r6]="kc_r6_task_write kc_r6_softirq_access"
	[r7]="kc_r7_inc_field kc_r7_read_field"
	[r8]="kc_r8_read kc_r8_write_alias"
	[r9]="kc_r9_write_x kc_r9_read_y kc_r9_write_y kc_r9_read_x"
	[r10]="kc_r10_write_data kc_r10_write_flag kc_r10_read_flag kc_r10_read_data"
	[r11]="kc_r11_write64 kc_r11_read_hi16"
	[r12]="kc_r12_clear_a kc_r12_set_b"
	[n1]="kc_n1_inc_locked"
	[n2]="kc_n2_inc_locked"
	[n3]="kc_n3_locked_ops"
	[n4]="kc_n4_read"
	[n5]="kc_n5_inc_mine_ptr kc_n5_inc_mine_gs"
	[n6]="kc_n6_touch"
	[n7]="kc_n7_use_a kc_n7_use_b"
	# the rest of the catalogue, targeted as filters_test/scenarios_test do
	[r13]="kc_r13_sb0 kc_r13_sb1"
	[r14]="kc_r14_sb0 kc_r14_sb1"
	[r15]="kc_r15_read kc_r15_write"
	[r16]="kc_r16_get kc_r16_get_two"
	[r17]="kc_r17_task_inc kc_r17_softirq_add"
	[r18]="kc_r18_write_len kc_r18_read_len"
	[r19]="kc_r19_write_seq kc_r19_read_seq"
	[b1]="kc_b1_stat_inc"
	[b2]="kc_b2_flip_bit0 kc_b2_test_bit5"
	[b3]="kc_b3_read_jiffies"
	[b4]="kc_b4_stat_rx kc_b4_stat_tx"
	[b5]="kc_b5_test_bit5"
	[n8]="kc_n8_set kc_n8_poll"
	[n9]="kc_n9_peek"
	[b6]="kc_b6_set_first kc_b6_is_locked"
	[b7]="kc_b7_flip_bit0 kc_b7_test_bit14"
	[n10]="kc_n10_set_stop kc_n10_should_stop"
	[n11]="kc_n11_publish kc_n11_observe"
	[n12]="kc_n12_note kc_n12_peek_racy"
	[r20]="kc_r20_set_stop kc_r20_should_stop_plain"
	[r21]="kc_r21_publish kc_r21_observe_plain"
	[r22]="kc_r22_note kc_r22_peek"
	[r23]="kc_r23_read_seq"
	[n13]="kc_n13_add kc_n13_read"
	[n14]="kc_n14_read_counter"
	[r24]="kc_n13_add kc_r24_read_plain"
	[r25]="kc_r25_sb0 kc_r25_sb1"
	# the racer's store lands before its trap: the reader is sampled
	[r26]="kc_r8_read"
	# the LOCK'd sides are never sampled: the plain side is the target
	[m1]="kc_m1_plain_read"
	[m2]="kc_m2_plain_store"
	[f1]="kc_f1_inc_writes kc_f1_read_writes"
	# per-CPU data read by other CPUs
	[r27]="kc_r27_add kc_r27_sum"
	[n15]="kc_n15_add kc_n15_sum"
	[r28]="kc_r28_push kc_r28_drain"
	[r29]="kc_r29_add kc_r29_sum"
	[r30]="kc_r27_add kc_r30_sum kc_r30_copy"
	[r31]="kc_r31_add kc_r31_sum"
	[r32]="kc_r32_read kc_r32_write"
	[n22]="kc_n22_peek kc_r30_copy"
	[n16]="kc_n16_inc kc_n16_peek"
	[n17]="kc_n17_peek"
	[n18]="kc_n18_own_bits"
	[n19]="kc_n19_own_switch"
	[n20]="kc_n20_inc"
	[n21]="kc_n21_peek kc_n20_inc"
)
[ $# -gt 0 ] || set -- r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 r12 n1 n2 n3 n4 n5 n6 n7

markers=0
stat_of() { sed -n "s/^$1 //p" /sys/kernel/debug/kcollider/stats; }
nreports() { grep -c '^BUG: KCOLLIDER: ' "$reports"; }
class_of() {
	local c
	c=$(grep -m1 -o 'kcollider: class: [^ ]*' "$reports" | sed 's/.*: //')
	[ -n "$c" ] || c=$(grep -m1 -o 'kcollider: benign: filter=[^ ]*' "$reports" |
		sed 's/.*filter=/benign:/')
	echo "${c//,/;}"
}

# Fresh detector, targeting the scenario's functions, enabled.
start_detector() {
	local sc=$1 spec="" f
	# shellcheck disable=SC2086 # DETECT_PARAMS: one word a parameter
	insmod "$KC_MODULE" ${DETECT_PARAMS:-} || return 1
	# what the source marks, as a user following the README would
	if ! "$kc_cli" mark -M "$(dirname "$KC_PLANTED")" kc_planted > /dev/null; then
		rmmod kcollider
		return 1
	fi
	for f in ${funcs[$sc]}; do spec="$spec${spec:+,}kc_planted:$f"; done
	[ "${DETECT_TARGET:-funcs}" = module ] && spec=module:kc_planted
	if ! echo "$spec" > "$sysfs/targets"; then
		rmmod kcollider
		return 1
	fi
	echo 1 > "$sysfs/enabled"
}

stop_detector() {
	echo 0 > "$sysfs/enabled"
	rmmod kcollider
}

r_trial() {
	local sc=$1 trial=$2 pid t=0 detected=0 title="" mark first
	start_detector "$sc" || return 1
	markers=$((markers + 1))
	mark="kc-detect: start $sc trial $trial ($$.$markers)"
	if ! kmsg_watch_start "$mark" '^BUG: KCOLLIDER: '; then
		stop_detector
		return 1
	fi
	{
		echo "$mark" > /dev/kmsg
		echo "$sc $((budget * 1000))" > "$run"
		echo "$kmsg_end" > /dev/kmsg
	} &
	pid=$!
	kmsg_watch_result
	first=$kmsg_first
	kill "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	case $first in
	none) ;;
	"") grep -q '^BUG: KCOLLIDER: ' "$reports" &&
		echo "detect-guest: $sc trial $trial: the log lost its marker" >&2 ;;
	*) detected=1 t=$first ;;
	esac
	title=$(grep -m1 '^BUG: KCOLLIDER: ' "$reports" | sed 's/^BUG: KCOLLIDER: //; s/,/;/g')
	echo "$sc,R,$trial,$detected,$t,$(nreports),$(stat_of samples),$title,$(class_of)" >> "$out"
	# where each trial's rate went, for reading a slow one
	cp /sys/kernel/debug/kcollider/stats "$(dirname "$out")/stats-$sc-$trial" 2> /dev/null
	cp /sys/kernel/debug/kcollider/visited "$(dirname "$out")/visited-$sc-$trial" 2> /dev/null
	stop_detector
}

n_run() {
	local sc=$1 title
	start_detector "$sc" || return 1
	echo "$sc $((nsecs * 1000))" > "$run"
	echo 0 > "$sysfs/enabled"
	sleep 0.2
	title=$(grep -m1 '^BUG: KCOLLIDER: ' "$reports" | sed 's/^BUG: KCOLLIDER: //; s/,/;/g')
	echo "$sc,N,1,0,$nsecs,$(nreports),$(stat_of samples),$title,$(class_of)" >> "$out"
	stop_detector
}

: > "$out"
uname -r > "$(dirname "$out")/kernel"
insmod "$KC_PLANTED" || exit 1
# the visited logs' addresses, named
grep '\[kc_planted\]' /proc/kallsyms > "$(dirname "$out")/kallsyms-planted" || true
for sc in "$@"; do
	echo "# detect: $sc"
	case $sc in
	# N9 is racy: a reader may meet its object recycled and initialised
	r* | b* | m* | f* | n9)
		for ((i = 1; i <= trials; i++)); do r_trial "$sc" "$i"; done ;;
	n*) n_run "$sc" ;;
	esac
	tail -n +1 "$out" | grep "^$sc," | tail -n 1
done
rmmod kc_planted
