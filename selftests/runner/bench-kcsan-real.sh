#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The real-workload half of make bench-kcsan: the distinct racing function
# pairs KCSAN and kcollider reported on the same stress-ng mix
# (bench-kcsan-guest.sh, BENCH_KCSAN_REAL), found by both, by KCSAN only,
# by kcollider only. A pair counts in the comparison only when both kernels
# have its functions (the KCSAN kernel is a small config: most of Debian's
# functions are not in it); the others are listed apart. kcollider's pairs
# carry their class, marking and object. A benchmark: nothing here fails
# on a number.
#
# usage: bench-kcsan-real.sh KCSAN_RESULTS KCOLLIDER_RESULTS OUT_PREFIX
#   reads RESULTS/real.txt and RESULTS/functions.txt of each boot; writes
#   OUT_PREFIX.txt (the table) and OUT_PREFIX.csv, and prints the table.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cli=${KC_CLI:-$top/user/kcollider}
kres=$1 cres=$2 prefix=$3
die() { echo "bench-kcsan-real: $*" >&2; exit 1; }
command -v jq > /dev/null || die "jq not found (scripts/deps.sh amd64 kcsan-kernel)"
[ -x "$cli" ] || die "$cli not built (make)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A compiler's clone suffixes (.isra.0, .constprop.0, .part.0, .cold) differ
# between two builds of one function.
norm() { sed -E 's/\.(isra|constprop|part|cold|llvm)(\.[0-9]+)*//g'; }

# segment RESULTS NAME: the kernel log of one run.
segment() {
	awk -v s="kc-bench: real start $2" -v e="kc-bench: real end $2" '
		index($0, s) { on = 1; next }
		index($0, e) { on = 0 }
		on' "$1/real.txt" 2> /dev/null
}

# pairs RESULTS NAME: one line per report, "PAIR<tab>CLASS<tab>MARKING<tab>
# OBJECT", PAIR the two functions sorted, or one and "?" for a report
# with one side; the CLI's parser reads KCSAN's reports and kcollider's.
pairs() {
	segment "$1" "$2" | "$cli" report list -j - 2> /dev/null | jq -r '
		select(.status == "ok") |
		(.title | split(" / ") | map(sub("\\+0x.*"; "")) |
		 if length == 1 then . + ["?"] else . end | sort | join(" / ")) as $pair |
		[$pair,
		 (.kcollider.class.value // "-"),
		 ([.marking[]?.kind] | unique | join("+") | if . == "" then "-" else . end),
		 (.kcollider.object.value // "-")] | @tsv' | norm
}

functions() { norm < "$1/functions.txt" 2> /dev/null | sort -u; }
[ -s "$kres/real.txt" ] || die "no $kres/real.txt (the KCSAN boot's real workload)"
[ -s "$cres/real.txt" ] || die "no $cres/real.txt (the kcollider boot's real workload)"
functions "$kres" > "$tmp/kf"
functions "$cres" > "$tmp/cf"
comm -12 "$tmp/kf" "$tmp/cf" > "$tmp/both"

pairs "$kres" kcsan > "$tmp/kcsan"
pairs "$cres" default > "$tmp/default"
pairs "$cres" hunt > "$tmp/hunt"

# One row per distinct pair: who reported it, how often, kcollider's facts
# (the hunt's report first: it has more), and whether both kernels have
# its functions.
awk -F'\t' -v both="$tmp/both" '
	BEGIN { while ((getline fn < both) > 0) have[fn] = 1; have["?"] = 1 }
	FNR == 1 { src = FILENAME; sub(/.*\//, "", src) }
	{
		p = $1; n[p, src]++; seen[p] = 1
		if (src != "kcsan" && !(p in facts)) facts[p] = $2 "\t" $3 "\t" $4
		if (src == "hunt") facts[p] = $2 "\t" $3 "\t" $4
	}
	END {
		for (p in seen) {
			split(p, f, " / ")
			cmp = (f[1] in have) && (f[2] in have)
			printf "%s\t%d\t%d\t%d\t%d\t%s\n", p, cmp, n[p, "kcsan"],
				n[p, "default"], n[p, "hunt"],
				p in facts ? facts[p] : "-\t-\t-"
		}
	}' "$tmp/kcsan" "$tmp/default" "$tmp/hunt" | sort > "$tmp/rows"

{
	echo "pair,comparable,kcsan_reports,kc_default_reports,kc_hunt_reports,class,marking,object"
	tr '\t' ',' < "$tmp/rows"
} > "$prefix.csv"

count() { awk -F'\t' "$1" "$tmp/rows"; }
{
	echo "Real workload: stress-ng (pipe sockpair dir dentry rename fork futex mmap sigq, tmpfs)," \
	     "$(cat "$kres/real-seconds" 2> /dev/null || echo ?) s under KCSAN," \
	     "$(cat "$cres/real-seconds" 2> /dev/null || echo ?) s per kcollider run"
	echo "KCSAN: $(cat "$kres/kernel" 2> /dev/null || echo ?) (6.1 defaults);" \
	     "kcollider: $(cat "$cres/kernel" 2> /dev/null || echo ?), targets=all," \
	     "default budget, then the hunt's"
	echo "functions in both kernels: $(wc -l < "$tmp/both")" \
	     "(KCSAN kernel $(wc -l < "$tmp/kf"), Debian's $(wc -l < "$tmp/cf"))"
	echo
	printf "%-64s %5s %5s %5s  %-14s %-12s %s\n" "pair (functions in both kernels)" \
		KCSAN kc-df kc-hn class marking object
	count '$2 == 1' | while IFS=$'\t' read -r p _ k d h c m o; do
		printf "%-64s %5s %5s %5s  %-14s %-12s %s\n" "$p" "$k" "$d" "$h" "$c" "$m" "$o"
	done
	echo
	echo "pairs with a function only one kernel has (not comparable):"
	count '$2 == 0' | while IFS=$'\t' read -r p _ k d h c m o; do
		printf "  %-62s %5s %5s %5s  %-14s %-12s %s\n" "$p" "$k" "$d" "$h" "$c" "$m" "$o"
	done
	echo
	echo "distinct comparable pairs:" \
	     "both $(count '$2 == 1 && $3 > 0 && $4 + $5 > 0' | wc -l)," \
	     "KCSAN only $(count '$2 == 1 && $3 > 0 && $4 + $5 == 0' | wc -l)," \
	     "kcollider only $(count '$2 == 1 && $3 == 0 && $4 + $5 > 0' | wc -l)"
	echo "distinct pairs in all: KCSAN $(count '$3 > 0' | wc -l)," \
	     "kcollider default budget $(count '$4 > 0' | wc -l)" \
	     "(harmful $(count '$4 > 0 && $6 == "harmful"' | wc -l))," \
	     "hunt budget $(count '$5 > 0' | wc -l)" \
	     "(harmful $(count '$5 > 0 && $6 == "harmful"' | wc -l))"
	echo "KCSAN pairs among functions both kernels have, reported by kcollider's hunt:" \
	     "$(count '$2 == 1 && $3 > 0 && $5 > 0' | wc -l) of $(count '$2 == 1 && $3 > 0' | wc -l)"
} | tee "$prefix.txt"
