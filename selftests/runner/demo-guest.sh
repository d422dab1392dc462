#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo's guest side: load kcollider and the planted-race module, let
# kcollider sample the planted functions while a few scenarios run, then
# show what it found: the counters, the race list, one full report, and
# the TSO triage of each race.
# usage: demo-guest.sh TOP
set -u
top=$1
cli=$top/user/kcollider
sys=/sys/kernel/kcollider

step() { printf '\n== %s\n' "$*"; }

step "insmod kcollider.ko, kc_planted.ko"
insmod "$top/kmod/kcollider.ko" || exit 1
insmod "$top/selftests/planted/kc_planted.ko" || exit 1
echo "module:kc_planted" > $sys/targets || exit 1
cat $sys/targets
# a demo wants its races in seconds, not the default's low overhead
echo 200 > $sys/sample_rate || exit 1
echo 1000 > $sys/overhead_permille || exit 1
echo 1 > $sys/enabled || exit 1

for s in r1 r5 r8 r9 n1; do
	step "scenario $s, 4 s"
	echo "$s 4000" > /sys/kernel/debug/kc_planted/run || exit 1
done
echo 0 > $sys/enabled

step "kcollider status"
"$cli" status || exit 1

step "kcollider report group (from debugfs)"
"$cli" report group -D || exit 1

step "the first full report"
awk '/^====/ { n++ } n >= 1 && n <= 2 { print } n == 2 { exit }' \
	/sys/kernel/debug/kcollider/reports

step "kcollider tso (live: /proc/kallsyms + /proc/kcore)"
"$cli" tso -D 2> /dev/null || "$cli" tso /sys/kernel/debug/kcollider/reports

step "rmmod"
rmmod kc_planted || exit 1
rmmod kcollider || exit 1
! dmesg | grep -E 'WARNING:|Oops|BUG: (unable|kernel)'
