# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the guest scripts that time a first report: the kernel log
# watched as it comes, from /dev/kmsg, by one awk that waits idle. A poll
# that forks grep, sleep or bc every few tens of milliseconds takes under
# QEMU's TCG the host core that the scenario's threads and the detector's
# need, and the time it measures grows with it.
#
#   kmsg_watch_start MARK REGEX  starts the watcher; then write "$MARK" to
#                                /dev/kmsg just before the code under test
#                                starts, and "$kmsg_end" once it is over;
#                                1 if there is no log to watch
#   kmsg_watch_result            waits for the first line matching REGEX
#                                after the mark: $kmsg_first is the
#                                seconds from the mark to it by the log's
#                                timestamps, "none" if the end came first,
#                                or empty if the log was lost meanwhile

# The log from /dev/kmsg: "ready" at the line $1, then the first line
# matching $3 after the line $2, as seconds from it, or "none" at the
# line $4. dd reads: /dev/kmsg gives a record only to a read with room for
# all of it, and awk's reads into a part-filled buffer fail (EINVAL);
# mawk waits for a full buffer unless interactive.
kmsg_watch() {
	local kmsg reader
	exec {kmsg}< <(exec dd if=/dev/kmsg bs=65536 status=none)
	reader=$!
	awk -W interactive -v r="$1" -v m="$2" -v re="$3" -v e="$4" '
	{
		semi = index($0, ";")
		if (!semi || substr($0, 1, 1) == " ")
			next
		split(substr($0, 1, semi - 1), h, ",")
		msg = substr($0, semi + 1)
	}
	msg == r { print "ready" }
	!on && msg == m { t0 = h[3]; on = 1; next }
	on && msg ~ re { printf "%.3f\n", (h[3] - t0) / 1e6; exit }
	on && msg == e { print "none"; exit }' <&$kmsg
	kill "$reader" 2> /dev/null
	exec {kmsg}<&-
}

kmsg_watch_start() {
	local ready="$1 (watched)" line
	kmsg_end="$1 (over)"
	kmsg_first=""
	# its processes start now, not with the code under test
	coproc kmsg_watcher { kmsg_watch "$ready" "$1" "$2" "$kmsg_end"; }
	# bash drops a coproc's variables and its pipe once it ends: copies
	# shellcheck disable=SC2154 # set by coproc
	kmsg_pid=$kmsg_watcher_PID
	exec {kmsg_fd}<&"${kmsg_watcher[0]}"
	echo "$ready" > /dev/kmsg
	read -r line <&"$kmsg_fd"
	[ "$line" = ready ] && return 0
	echo "kmsg-watch: no kernel log to watch" >&2
	exec {kmsg_fd}<&-
	wait "$kmsg_pid" 2> /dev/null
	return 1
}

# shellcheck disable=SC2034 # kmsg_first: the caller's
kmsg_watch_result() {
	read -r kmsg_first <&"$kmsg_fd"
	wait "$kmsg_pid" 2> /dev/null
	exec {kmsg_fd}<&-
}
