#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The marks of a Debian kernel image, computed on the host: which of its
# accesses the source marks (READ_ONCE(), atomic_read(), data_race(), ...).
# "kcollider mark -V" reads them from the image's DWARF and the source;
# inside a TCG guest that takes far too long for the whole image, on the
# host it is done once per image. The guest then writes them with
# "kcollider mark --load FILE", which checks the build ID and moves them by
# the running kernel's KASLR offset.
#
# usage: image-marks.sh RELEASE [VMLINUX]
#        image-marks.sh --source
#   RELEASE  the kernel release (uname -r in the guest)
#   VMLINUX  the image with DWARF (default: linux-image-RELEASE-dbg's
#            /usr/lib/debug/boot/vmlinux-RELEASE)
# Prints the marks file's path (cached in KC_KERNEL_CACHE, default
# ~/.cache/kcollider, by the image's size and time); with --source, the
# source tree it reads (for "kcollider report -S"). Exits 1 with a message
# when there is no such image or no linux-source-6.1 to read it with.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${KC_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcollider}
tag=image-marks
deps_hint="apt-get install linux-source-6.1"
# shellcheck source=scripts/kernel-build.sh
. "$here/kernel-build.sh"

[ $# -ge 1 ] && [ $# -le 2 ] && [ -n "$1" ] ||
	{ sed -n '/^# usage:/,/^# when there is/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2> /dev/null | sort -V | tail -n1 || true)
[ -n "$tarball" ] || die "no /usr/src/linux-source-6.1.tar.xz ($deps_hint)"
mkdir -p "$cache"
exec 9> "$cache/image-marks.lock"
flock 9
if [ "$1" = --source ]; then
	kernel_source
	echo "$src"
	exit 0
fi
release=$1
vmlinux=${2:-/usr/lib/debug/boot/vmlinux-$release}
[ -r "$vmlinux" ] ||
	die "no $vmlinux (apt-get install linux-image-$release-dbg)"
[ -x "$top/user/kcollider" ] || die "no $top/user/kcollider (make user)"
# v2: with the exempt ranges of the source's KCSAN_SANITIZE rules;
# v3: seqlock.h's code marked; v4: a call left open read on to its end;
# v5: the bodies of the macros a file defines; v6: a condition's column;
# v7: the functions read, "analysed"; v8: local_t's operations marked
out=$cache/marks-v8-$release-$(stat -L -c '%s-%Y' "$vmlinux").marks
if [ ! -s "$out" ]; then
	kernel_source
	echo "$tag: reading $vmlinux (once per image)" >&2
	"$top/user/kcollider" mark -V "$vmlinux" -S "$src" -f all -n \
		> "$out.tmp" || die "kcollider mark -V $vmlinux failed"
	grep -q '^0x' "$out.tmp" ||
		die "no marked access found in $vmlinux (source $src)"
	mv "$out.tmp" "$out"
fi
echo "$out"
