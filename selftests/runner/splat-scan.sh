#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check KERNEL=debug: find the splats in the guest's kernel log (lockdep,
# KASAN, KFENCE, sleeping in atomic, DEBUG_OBJECTS, list corruption, RCU,
# WARN, BUG, oops, stalls). kcollider's own race reports ("BUG: KCOLLIDER:",
# "BUG: KCSAN: data-race" in report_style=kcsan) are not splats, except one
# that names the detector itself as an access: a side whose first frame (the
# access) or second (its caller, as for copy_from_kernel_nofault()) is of
# [kcollider]. Deeper frames of [kcollider] are no sign: the kernel code the
# detector calls (a timer its thread sleeps on) races like any other.
# vm-suite.sh writes "kc-suite: begin PROGRAM" to /dev/kmsg before each test
# program, so each splat is attributed to the program that was running.
#
# usage: splat-scan.sh LOG
# Prints each splat (its header, then up to 50 lines of it, as "# " comment
# lines) and ends with one line: the number of splats.
log=$1
[ -r "$log" ] || { echo "# splat-scan: cannot read $log"; echo 1; exit 0; }

awk '
function header(s) {
	sub(/^\[ *[0-9.]+\] /, "", s)
	if (s ~ /^BUG: KCOLLIDER: data-race|^BUG: KCSAN: data-race/)
		return 0
	# at the start of the message: later lines of a report
	# ("... possible recursive locking ...") belong to it
	return s ~ /^(BUG:|WARNING:|Oops|general protection fault|kernel BUG at|Kernel panic|UBSAN:|ODEBUG:|list_add corruption|list_del corruption|DEBUG_LOCKS_WARN_ON|watchdog: BUG:|rcu: INFO:|INFO: task .* blocked|INFO: trying to register non-static key|KFENCE:|KASAN:)/
}
function flush() {
	if (!open_)
		return
	open_ = 0
	if (shown[key]++)
		return
	for (i = 1; i <= nl; i++)
		print "#   " body[i]
}
{ sub(/\r$/, "") }
/kc-suite: begin / {
	flush()
	prog = $0
	sub(/.*kc-suite: begin /, "", prog)
	next
}
# a race report: the stack of each side starts at its "ACCESS to ADDR ... by" line
/BUG: KCOLLIDER: data-race|BUG: KCSAN: data-race/ {
	flush()
	race = $0
	sub(/^\[ *[0-9.]+\] /, "", race)
	inner = 0
	next
}
race != "" && / (read|write|read-write) to 0x[0-9a-f]+ of [0-9]+ bytes by / {
	inner = 1
	next
}
race != "" && inner && !/^(\[ *[0-9.]+\] )? +[^ ]+\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
	inner = 0
	next
}
race != "" && inner && inner++ > 2 {
	inner = 0
	next
}
race != "" && inner && /\[kcollider\]/ {
	n++
	printf "# splat %d during %s: the detector reported its own access: %s\n", n, prog ? prog : "boot", race
	print "#   " $0
	race = ""
	next
}
race != "" && /^(\[ *[0-9.]+\] )?=+$/ {
	race = ""
	next
}
header($0) {
	# one splat may start with two such lines (ODEBUG: or
	# DEBUG_LOCKS_WARN_ON, then its WARNING:): close together, one splat
	if (open_ && nl - hl <= 3)
		{ body[++nl] = $0; hl = nl; next }
	flush()
	n++
	h = $0
	sub(/^\[ *[0-9.]+\] /, "", h)
	key = prog "|" h
	printf "# splat %d during %s: %s\n", n, prog ? prog : "boot", h
	open_ = 1
	nl = 0
	body[++nl] = $0
	hl = nl
	next
}
open_ {
	if (nl < 50)
		body[++nl] = $0
	if ($0 ~ /---\[ end trace|^\[ *[0-9.]+\] =+$/ && nl > 2)
		flush()
}
END {
	flush()
	print n + 0
}' "$log"
