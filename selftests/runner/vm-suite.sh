#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the test VM: every in-VM kselftest program, one after the
# other, each one's KTAP saved to $KC_RESULTS/<name>.ktap and its exit
# status to <name>.rc for check.sh to count on the host.
# usage: vm-suite.sh BUILD_DIR [TEST...]
build=$1
shift
[ -n "$KC_RESULTS" ] || { echo "vm-suite: run me inside the test VM" >&2; exit 2; }
if [ $# -eq 0 ]; then
	set -- $(cd "$build/vm" && ls)
fi
for t in "$@"; do
	echo "# vm: $t"
	# for splat-scan.sh (make check KERNEL=debug): who ran when
	echo "kc-suite: begin $t" > /dev/kmsg 2> /dev/null
	# tmpfs first: the 9p results share is not where forked test
	# children should interleave their writes
	# a test still running after KC_DUMP_AFTER seconds is stuck: every
	# task's stack goes to the console before the host's timeout ends it
	(
		sleep "${KC_DUMP_AFTER:-900}"
		echo "kc-suite: $t runs for ${KC_DUMP_AFTER:-900} s: tasks follow" > /dev/kmsg
		echo 1 > /proc/sys/kernel/sysrq
		echo w > /proc/sysrq-trigger
		echo t > /proc/sysrq-trigger
	) &
	dumper=$!
	"$build/vm/$t" > "$TMPDIR/$t.ktap" 2>&1
	echo $? > "$KC_RESULTS/$t.rc"
	kill "$dumper" 2> /dev/null
	cp "$TMPDIR/$t.ktap" "$KC_RESULTS/$t.ktap"
	cat "$KC_RESULTS/$t.ktap"
done
echo "kc-suite: begin (after the suite)" > /dev/kmsg 2> /dev/null
true
