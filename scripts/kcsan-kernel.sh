#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The two kernels of "make bench-kcsan": 6.1 from Debian's linux-source-6.1,
# tinyconfig plus scripts/kcsan-kernel.config, once with CONFIG_KCSAN=y
# (6.1's KCSAN defaults: the detector to compare kcollider with) and once
# without (the same kernel minus the instrumentation: the overhead ratio's
# denominator). Both build virtio-9p in, so selftests/runner/run-vm.sh boots
# them with the host's root like any other test kernel. Built once, outside
# the clone, in a directory named after the hash of the config, the variant,
# the source tarball and the tools: a rerun finds it and returns at once.
#
# usage: kcsan-kernel.sh kdir  [kcsan|plain]  print the build tree's path
#        kcsan-kernel.sh build [kcsan|plain]  build it unless already built;
#                                             print the path
#
# Environment: KC_KERNEL_CACHE (default ~/.cache/kcollider), KC_KERNEL_JOBS
# (default: the number of CPUs; the build runs under nice -n 10).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/kcsan-kernel.config
cache=${KC_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcollider}
jobs=${KC_KERNEL_JOBS:-$(nproc)}
variant=${2:-kcsan}

die() { echo "kcsan-kernel: $*" >&2; exit 1; }
usage() { sed -n '/^# usage:/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# What each variant adds to the fragment (same syntax as the fragment). The
# release names differ too, so the two never share build/vm-<release>.
case $variant in
kcsan) extra=(KCSAN 'LOCALVERSION="-kckcsan"' -LOCALVERSION_AUTO) ;;
plain) extra=(-KCSAN 'LOCALVERSION="-kcplain"' -LOCALVERSION_AUTO) ;;
*) usage ;;
esac

tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2> /dev/null | sort -V | tail -n1 || true)
if [ -z "$tarball" ]; then
	# (the Makefile may ask for the path before "make deps" installed it)
	[ "${1:-}" = kdir ] && exit 0
	die "no /usr/src/linux-source-6.1.tar.xz (scripts/deps.sh amd64 kcsan-kernel)"
fi

# The fragment followed by the variant's lines: what configure() applies
# and checks.
options() {
	cat "$fragment"
	printf '%s\n' "${extra[@]}"
}

key() {
	{
		options
		stat -L -c '%n %s %Y' "$tarball"
		${CC:-gcc} --version | head -n1
		pahole --version 2> /dev/null || echo "no pahole"
	} | sha256sum | cut -c1-12
}
out=$cache/$variant-$(key)

case ${1:-} in
kdir) echo "$out"; exit 0 ;;
build) ;;
*) usage ;;
esac

[ -e "$out/.kc-built" ] && { echo "$out"; exit 0; }

mkdir -p "$cache"
exec 9> "$out.lock"
flock 9
[ -e "$out/.kc-built" ] && { echo "$out"; exit 0; }

for tool in flex bison bc pahole; do
	command -v "$tool" > /dev/null || die "$tool not found (scripts/deps.sh amd64 kcsan-kernel)"
done

configure() {
	if ! kmake tinyconfig; then
		tail -n 30 "$log" >&2; die "tinyconfig failed"
	fi
	args=()
	while read -r line; do
		line=${line%%#*}
		line=$(echo $line)
		[ -n "$line" ] || continue
		case $line in
		-*) args+=(--disable "${line#-}") ;;
		*=\"*) v=${line#*=}; v=${v#\"}; args+=(--set-str "${line%%=*}" "${v%\"}") ;;
		*=*) args+=(--set-val "${line%%=*}" "${line#*=}") ;;
		*) args+=(--enable "$line") ;;
		esac
	done < <(options)
	"$src/scripts/config" --file "$out/.config" "${args[@]}"
	kmake olddefconfig || { tail -n 30 "$log" >&2; die "olddefconfig failed"; }

	# Every option asked for must have survived olddefconfig (a missing
	# dependency silently drops one, and a "KCSAN" kernel without KCSAN
	# would make the comparison meaningless).
	bad=0
	while read -r line; do
		line=${line%%#*}
		line=$(echo $line)
		[ -n "$line" ] || continue
		case $line in
		-*) grep -qx "CONFIG_${line#-}=[ym]" "$out/.config" && { echo "kcsan-kernel: CONFIG_${line#-} still set" >&2; bad=1; } ;;
		*=*) grep -qx "CONFIG_$line" "$out/.config" || { echo "kcsan-kernel: CONFIG_$line not taken" >&2; bad=1; } ;;
		*) grep -qx "CONFIG_$line=y" "$out/.config" || { echo "kcsan-kernel: CONFIG_$line not taken" >&2; bad=1; } ;;
		esac
	done < <(options)
	[ $bad = 0 ] || die "the config lost options (see above; $out/.config)"
}

# The source, extracted once per tarball (shared with debug-kernel.sh).
src=$cache/src-$(stat -L -c '%s-%Y' "$tarball")
if [ ! -e "$src/.kc-extracted" ]; then
	echo "kcsan-kernel: extracting $tarball" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.kc-extracted"
	mv "$src.tmp" "$src"
fi

mkdir -p "$out"
log=$out/build.log
start=$(date +%s)
echo "kcsan-kernel: building $variant in $out (log: $log)" >&2

kmake() { nice -n 10 make -C "$src" O="$out" "$@" >> "$log" 2>&1; }

# An interrupted build resumes where it stopped (same config: same hash).
if [ ! -e "$out/.kc-configured" ]; then
	rm -f "$out/.config" "$log"
	configure
	touch "$out/.kc-configured"
fi

if ! kmake -j"$jobs" bzImage modules_prepare; then
	grep -m5 -B2 -A10 'error\|Error' "$log" >&2 || tail -n 40 "$log" >&2
	die "the kernel build failed (log: $log)"
fi
# No "make modules" ran: the symbol versions out-of-tree modules link
# against are in vmlinux.symvers only (kcsan-kernel.md).
cp "$out/vmlinux.symvers" "$out/Module.symvers"
echo "kcsan-kernel: built $(cat "$out/include/config/kernel.release") in $(($(date +%s) - start)) s" >&2
touch "$out/.kc-built"
echo "$out"
