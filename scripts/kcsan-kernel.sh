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

tag=kcsan-kernel
deps_hint="scripts/deps.sh amd64 kcsan-kernel"
# shellcheck source=scripts/kernel-build.sh
. "$here/kernel-build.sh"

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

out=$cache/$variant-$(kernel_key)

case ${1:-} in
kdir) echo "$out"; exit 0 ;;
build) kernel_build "$out" ;;
*) usage ;;
esac
