#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The real-workload half of make bench-kcsan: the distinct racing function
# pairs KCSAN and kcollider reported on the same stress-ng mix
# (bench-kcsan-guest.sh, BENCH_KCSAN_REAL), found by both, by KCSAN only,
# by kcollider only. A pair counts in the comparison only when both kernels
# have its functions (the KCSAN kernel is a small config: most of Debian's
# functions are not in it); the others are listed apart. An access is
# named by a caller both kernels have where the compilers inlined
# differently (named()). kcollider's pairs carry their class, marking and
# object. A benchmark: nothing here fails on a number.
#
# usage: kcsan-real-table.sh KCSAN_RESULTS KCOLLIDER_RESULTS OUT_PREFIX [MARKING...]
#   reads RESULTS/real.txt and RESULTS/functions.txt of each boot; writes
#   OUT_PREFIX.txt (the table) and OUT_PREFIX.csv, and prints the table.
#   MARKING: "kcollider report" options (-V VMLINUX -S SOURCE -M DIR) that
#   give kcollider's accesses their marking, each side's kind joined by
#   "/", sampled first; without them the marking column says "-". With
#   -B BTF too, a slab object is its struct and field ("?" after a type
#   guessed from the functions' arguments); else the object's kind.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cli=${KC_CLI:-$top/user/kcollider}
kres=$1 cres=$2 prefix=$3
shift 3
marking=("$@")
die() { echo "kcsan-real-table: $*" >&2; exit 1; }
command -v jq > /dev/null || die "jq not found (make deps)"
[ -x "$cli" ] || die "$cli not built (make)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A compiler's clone suffixes (.isra.0, .constprop.0, .part.0, .cold) differ
# between two builds of one function.
norm() { sed -E 's/\.(isra|constprop|part|cold|llvm)(\.[0-9]+)*//g'; }

# How far up an access's stack its name is looked for (named()): its own
# function and two callers, as deep as inlining differs between two builds
# of one source, short of the generic callers (kthread(), the syscall
# entry) that would make unrelated accesses one.
callers=3

# segment RESULTS NAME: the kernel log of one run.
segment() {
	awk -v s="kc-bench: real start $2" -v e="kc-bench: real end $2" '
		index($0, s) { on = 1; next }
		index($0, e) { on = 0 }
		on' "$1/real.txt" 2> /dev/null
}

# pairs RESULTS NAME [MARKING...]: one line per report, "SIDE<tab>SIDE<tab>
# CLASS<tab>MARKING<tab>OBJECT", a SIDE the functions of an access's stack
# from its own up, "a,b,c" ($callers of them at most), or "?" for the
# missing side of a report with one; the CLI's parser reads KCSAN's reports
# and kcollider's. The marking options name one kernel's DWARF: kcollider's.
pairs() {
	local res=$1 run=$2
	shift 2
	segment "$res" "$run" | "$cli" report list -j "$@" - 2> /dev/null |
	jq -r --argjson n "$callers" '
		def fn: sub("\\+0x.*"; "");
		def side: ([.symbol // empty] + (.stack // []) | map(fn)) as $f |
			[range(0; $f | length) as $i |
			 select($i == 0 or $f[$i] != $f[$i - 1]) | $f[$i]] |
			.[0:$n] | join(",");
		select(.status == "ok") |
		([(.accesses // [])[] | side | select(. != "")]) as $sides |
		(if ($sides | length) > 0 then $sides
		 else .title | split(" / ") | map(fn) end |
		 if length == 1 then . + ["?"] else .[0:2] end) as $pair |
		$pair + [(.kcollider.class.value // "-"),
		 ([(.marking // [])[] | select(.role == "sampled") | .kind] +
		  [(.marking // [])[] | select(.role != "sampled") | .kind] |
		  join("/") | if . == "" then "-" else . end),
		 (if .object.type then
			(.object.type | sub("^(struct|union) "; "")) +
			(if (.object.field // "") != "" then "." + .object.field
			 else "" end) +
			(if .object.by == "arguments" then "?" else "" end)
		  else .kcollider.object.value // "-" end)] | @tsv' | norm
}

# named TOOL < pairs > rows: "PAIR<tab>CALLERS<tab>CLASS<tab>MARKING<tab>
# OBJECT", PAIR the two sides' own functions, sorted; CALLERS the same with
# each side named by the first function of its stack that both kernels
# have: the two compilers inline differently, and an access in a function
# one kernel inlined into its caller is reported in that caller there.
# KCSAN's sides are named so at once (a function its small kernel has
# and Debian's lacks was inlined there: Debian builds a larger
# configuration; each such renaming goes to $tmp/renamed as "TOOL<tab>
# FROM<tab>TO"); kcollider's only where that names a pair KCSAN reported
# (a function only Debian's kernel has is most often not built in the
# other at all, and its caller is no counterpart).
named() {
	awk -F'\t' -v OFS='\t' -v both="$tmp/both" -v tool="$1" \
	    -v renamed="$tmp/renamed" '
		BEGIN { while ((getline fn < both) > 0) have[fn] = 1 }
		function caller(side,  f, n, i) {
			n = split(side, f, ",")
			for (i = 1; i <= n; i++)
				if (f[i] in have)
					return f[i]
			return f[1]
		}
		function own(side,  f) {
			split(side, f, ",")
			return f[1]
		}
		function pair(a, b,  t) {
			if (b == "?" || (a != "?" && b < a)) {
				t = a; a = b; b = t
			}
			return a " / " b
		}
		function rename(side) {
			if (caller(side) != own(side))
				print tool, own(side), caller(side) >> renamed
			return caller(side)
		}
		tool == "KCSAN" { print pair(rename($1), rename($2)), "-", $3, $4, $5; next }
		{ print pair(own($1), own($2)), pair(caller($1), caller($2)), $3, $4, $5 }'
}

functions() { norm < "$1/functions.txt" 2> /dev/null | sort -u; }
[ -s "$kres/real.txt" ] || die "no $kres/real.txt (the KCSAN boot's real workload)"
[ -s "$cres/real.txt" ] || die "no $cres/real.txt (the kcollider boot's real workload)"
functions "$kres" > "$tmp/kf"
functions "$cres" > "$tmp/cf"
comm -12 "$tmp/kf" "$tmp/cf" > "$tmp/both"

# kcollider's runs, in the order they ran (bench-kcsan-guest.sh names them)
runs=$(sed -n 's/.*kc-bench: real start \([a-z-]*\)$/\1/p' "$cres/real.txt" | tr '\n' ' ')
[ -n "$runs" ] || die "no kcollider run in $cres/real.txt"
touch "$tmp/renamed"
pairs "$kres" kcsan | named KCSAN > "$tmp/kcsan"
for r in $runs; do
	pairs "$cres" "$r" "${marking[@]}" | named "kcollider $r" > "$tmp/run-$r"
done

# One row per distinct pair: whether both kernels have its functions, how
# often each run reported it, and kcollider's facts (from its last run's
# report that has them: the hunt's have more).
awk -F'\t' -v both="$tmp/both" -v runs="kcsan $runs" -v renamed="$tmp/renamed" '
	BEGIN { while ((getline fn < both) > 0) have[fn] = 1; have["?"] = 1 }
	FNR == 1 { src = FILENAME; sub(/.*\//, "", src); sub(/^run-/, "", src) }
	src == "kcsan" { kcsan[$1] = 1 }
	{
		p = $1
		if (src != "kcsan" && !(p in kcsan) && ($2 in kcsan)) {
			print "kcollider " src "\t" p "\t" $2 >> renamed
			p = $2
		}
		n[p, src]++; seen[p] = 1
		if (src != "kcsan") facts[p] = $3 "\t" $4 "\t" $5
	}
	END {
		nr = split(runs, r, " ")
		# a report with one side unknown counts for each pair naming
		# its known function, where there is such a pair
		for (p in seen) {
			if (split(p, f, " / ") != 2 || f[1] != "?")
				continue
			merged = 0
			for (q in seen) {
				if (q == p || split(q, g, " / ") != 2 ||
				    g[1] == "?" || (g[1] != f[2] && g[2] != f[2]))
					continue
				for (i = 1; i <= nr; i++)
					n[q, r[i]] += n[p, r[i]]
				merged = 1
			}
			if (merged)
				delete seen[p]
		}
		for (p in seen) {
			split(p, f, " / ")
			printf "%s\t%d", p, (f[1] in have) && (f[2] in have)
			for (i = 1; i <= nr; i++)
				printf "\t%d", n[p, r[i]]
			printf "\t%s\n", p in facts ? facts[p] : "-\t-\t-"
		}
	}' "$tmp/kcsan" $(for r in $runs; do echo "$tmp/run-$r"; done) | sort > "$tmp/rows"

# Columns of a row: 1 pair, 2 comparable, 3 KCSAN's count, 4.. each run's,
# then class, marking, object.
nruns=$(echo $runs | wc -w)
{
	printf "pair,comparable,kcsan"
	for r in $runs; do printf ",kc_%s" "$r"; done
	echo ",class,marking,object"
	tr '\t' ',' < "$tmp/rows"
} > "$prefix.csv"

count() { awk -F'\t' -v k="$nruns" "$1" "$tmp/rows" | wc -l; }
# the kcollider side of a row: any of its runs reported it
any_kc='function kc(  i, s) { for (i = 4; i < 4 + k; i++) s += $i; return s }'
column() { awk -v r="$1" -v runs="$runs" 'BEGIN { n = split(runs, a, " "); for (i = 1; i <= n; i++) if (a[i] == r) print i + 3 }'; }
row() {
	local IFS=$'\t' f
	read -r -a f <<< "$1"
	printf "%-62s %5s" "${f[0]}" "${f[2]}"
	for ((i = 3; i < 3 + nruns; i++)); do printf " %11s" "${f[$i]}"; done
	printf "  %-12s %-12s %s\n" "${f[$((3 + nruns))]}" "${f[$((4 + nruns))]}" "${f[$((5 + nruns))]}"
}
stat_of() { awk -v r="$1" -v k="$2" '$1 == r && $2 == k { print $3 }' "$cres/real-stats.txt" 2> /dev/null; }
{
	echo "Real workload: stress-ng (pipe sockpair dir dentry rename hdd fork futex mmap sigq on tmpfs; hdd dir rename on ext4 on loop) and a statfs monitor," \
	     "$(cat "$kres/real-seconds" 2> /dev/null || echo ?) s under KCSAN," \
	     "$(cat "$cres/real-seconds" 2> /dev/null || echo ?) s per kcollider run"
	echo "KCSAN: $(cat "$kres/kernel" 2> /dev/null || echo ?) (6.1 defaults);" \
	     "kcollider: $(cat "$cres/kernel" 2> /dev/null || echo ?), targets=all, runs: $runs"
	for r in $runs; do
		echo "  kcollider $r: $(stat_of "$r" samples) samples, $(stat_of "$r" fired) fired," \
		     "$(stat_of "$r" races) races, $(stat_of "$r" unknown_origin) unknown origin," \
		     "$(stat_of "$r" skipped_percpu_denied) per-CPU refusals"
	done
	echo "functions in both kernels: $(wc -l < "$tmp/both")" \
	     "(KCSAN kernel $(wc -l < "$tmp/kf"), Debian's $(wc -l < "$tmp/cf"))"
	echo "a report with one side unknown (\"?\") counts for each pair naming its other function"
	echo
	printf "%-62s %5s" "pair (functions in both kernels)" KCSAN
	for r in $runs; do printf " %11s" "$r"; done
	printf "  %-12s %-12s %s\n" class marking object
	awk -F'\t' '$2 == 1' "$tmp/rows" | while IFS= read -r l; do row "$l"; done
	echo
	echo "pairs with a function only one kernel has (not comparable):"
	awk -F'\t' '$2 == 0' "$tmp/rows" | while IFS= read -r l; do row "$l"; done
	if [ -s "$tmp/renamed" ]; then
		echo
		echo "accesses named by a caller both kernels have (their own function is not in the other kernel, e.g. inlined there):"
		sort -u "$tmp/renamed" | awk -F'\t' '{ printf "  %s: %s -> %s\n", $1, $2, $3 }'
	fi
	echo
	echo "distinct comparable pairs:" \
	     "both $(count "$any_kc"' $2 == 1 && $3 > 0 && kc() > 0')," \
	     "KCSAN only $(count "$any_kc"' $2 == 1 && $3 > 0 && kc() == 0')," \
	     "kcollider only $(count "$any_kc"' $2 == 1 && $3 == 0 && kc() > 0')"
	printf "distinct pairs in all: KCSAN %s" "$(count '$3 > 0')"
	for r in $runs; do
		c=$(column "$r")
		printf ", kcollider %s %s (harmful %s)" "$r" "$(count "\$$c > 0")" \
			"$(count "\$$c > 0 && \$(4 + k) == \"harmful\"")"
	done
	echo
	for r in $runs; do
		c=$(column "$r")
		echo "KCSAN pairs among functions both kernels have, reported by kcollider $r:" \
		     "$(count "\$2 == 1 && \$3 > 0 && \$$c > 0") of $(count '$2 == 1 && $3 > 0')"
	done
} | tee "$prefix.txt"
