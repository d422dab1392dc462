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

tag=debug-kernel
deps_hint="make deps KERNEL=debug"
# shellcheck source=scripts/kernel-build.sh
. "$here/kernel-build.sh"

tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2> /dev/null | sort -V | tail -n1 || true)
if [ -z "$tarball" ]; then
	# (the Makefile asks for the path before "make deps" installed it)
	[ "${1:-}" = kdir ] && exit 0
	die "no /usr/src/linux-source-6.1.tar.xz (make deps KERNEL=debug)"
fi

options() { cat "$fragment"; }

out=$cache/debug-$(kernel_key)

case ${1:-} in
kdir) echo "$out"; exit 0 ;;
build) kernel_build "$out" ;;
*) sed -n '/^# usage:/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
