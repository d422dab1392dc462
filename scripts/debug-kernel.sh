#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug test kernel of "make check KERNEL=debug": a 6.1 kernel from
# Debian's linux-source-6.1 with KASAN, lockdep, PROVE_RCU, DEBUG_OBJECTS,
# KFENCE, DEBUG_LIST, DEBUG_ATOMIC_SLEEP and what the test VM and the module
# need (scripts/debug-kernel.config). Built once, outside the clone, in a
# directory named after the hash of the config, the source tarball and the
# tools: a rerun finds it and returns at once.
#
# usage: debug-kernel.sh kdir    print the build tree's path (built or not)
#        debug-kernel.sh build   build it unless already built; print the path
#
# Environment: KC_KERNEL_CACHE (default ~/.cache/kcollider), KC_KERNEL_JOBS
# (default: the number of CPUs; the build runs under nice -n 10).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/debug-kernel.config
cache=${KC_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcollider}
jobs=${KC_KERNEL_JOBS:-$(nproc)}

die() { echo "debug-kernel: $*" >&2; exit 1; }

tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2> /dev/null | sort -V | tail -n1 || true)
if [ -z "$tarball" ]; then
	# (the Makefile asks for the path before "make deps" installed it)
	[ "${1:-}" = kdir ] && exit 0
	die "no /usr/src/linux-source-6.1.tar.xz (make deps KERNEL=debug)"
fi

key() {
	{
		cat "$fragment"
		stat -L -c '%n %s %Y' "$tarball"
		${CC:-gcc} --version | head -n1
		pahole --version 2> /dev/null || echo "no pahole"
	} | sha256sum | cut -c1-12
}
out=$cache/debug-$(key)

case ${1:-} in
kdir) echo "$out"; exit 0 ;;
build) ;;
*) sed -n '/^# usage:/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

[ -e "$out/.kc-built" ] && { echo "$out"; exit 0; }

mkdir -p "$cache"
exec 9> "$out.lock"
flock 9
[ -e "$out/.kc-built" ] && { echo "$out"; exit 0; }

for tool in flex bison bc pahole; do
	command -v "$tool" > /dev/null || die "$tool not found (make deps KERNEL=debug)"
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
	done < "$fragment"
	"$src/scripts/config" --file "$out/.config" "${args[@]}"
	kmake olddefconfig || { tail -n 30 "$log" >&2; die "olddefconfig failed"; }

	# Every option asked for must have survived olddefconfig (a missing
	# dependency silently drops one).
	bad=0
	while read -r line; do
		line=${line%%#*}
		line=$(echo $line)
		[ -n "$line" ] || continue
		case $line in
		-*) grep -qx "CONFIG_${line#-}=[ym]" "$out/.config" && { echo "debug-kernel: CONFIG_${line#-} still set" >&2; bad=1; } ;;
		*=*) grep -qx "CONFIG_$line" "$out/.config" || { echo "debug-kernel: CONFIG_$line not taken" >&2; bad=1; } ;;
		*) grep -qx "CONFIG_$line=y" "$out/.config" || { echo "debug-kernel: CONFIG_$line not taken" >&2; bad=1; } ;;
		esac
	done < "$fragment"
	[ $bad = 0 ] || die "the config lost options (see above; $out/.config)"
}

# The source, extracted once per tarball.
src=$cache/src-$(stat -L -c '%s-%Y' "$tarball")
if [ ! -e "$src/.kc-extracted" ]; then
	echo "debug-kernel: extracting $tarball" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.kc-extracted"
	mv "$src.tmp" "$src"
fi

mkdir -p "$out"
log=$out/build.log
start=$(date +%s)
echo "debug-kernel: building in $out (log: $log)" >&2

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
# against are in vmlinux.symvers only.
cp "$out/vmlinux.symvers" "$out/Module.symvers"
echo "debug-kernel: built $(cat "$out/include/config/kernel.release") in $(($(date +%s) - start)) s" >&2
touch "$out/.kc-built"
echo "$out"
