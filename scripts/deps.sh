#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages kcollider needs, only those missing.
# usage: deps.sh [FLAVOUR [fuzz|debug-kernel|kcsan-kernel]]   (amd64,
#   cloud-amd64, rt-amd64; fuzz: also clang and libFuzzer, for make fuzz
#   only; debug-kernel: also what building the debug test kernel needs;
#   kcsan-kernel: what building make bench-kcsan's two kernels needs)
set -euo pipefail

flavour=${1:-amd64}
extra=()
case ${2:-} in
debug-kernel)
	extra=(flex bison bc libssl-dev libelf-dev dwarves linux-source-6.1) ;;
kcsan-kernel)
	extra=(flex bison bc libssl-dev libelf-dev dwarves linux-source-6.1) ;;
fuzz)
	# make fuzz: clang, and its libFuzzer/sanitizer runtimes (only a
	# recommendation of clang's, which --no-install-recommends skips)
	extra=(clang libclang-rt-14-dev) ;;
esac

pkgs=(
	# the test kernel and the tree the module is built against
	"linux-image-$flavour" "linux-headers-$flavour"
	# the test VM; systemd-modules-load, which the farm start-up test runs
	# there (a container's root may have no systemd)
	qemu-system-x86 busybox-static cpio kmod xz-utils gzip file systemd
	# kselftest.h / kselftest_harness.h and checkpatch.pl
	linux-source-6.1
	# building
	gcc make libc6-dev
	# the CLI and the decoder oracle
	libcapstone-dev libelf-dev libdw-dev pkg-config
	# BTF field names in the CLI; the BTF test's fixture (pahole) and oracle
	libbpf-dev dwarves bpftool
	# the benchmark scripts: arithmetic, pgrep; jq: bench-kcsan's
	# real-workload table reads the CLI's JSON (and its host test)
	bc procps jq
	# make hunt: its workload, and ext4 on a loop device
	stress-ng e2fsprogs
	# rendering the man pages (host test)
	groff-base
	# rst2man: the man pages' sources are Documentation/man/*.rst (make man,
	# make install, make deb and the host tests that read the pages)
	python3-docutils
	# static checking of kmod/
	sparse
	# make deb, and the test VM installing its packages (DKMS builds there);
	# dpkg-buildpackage refuses to build without build-essential
	debhelper dh-dkms dpkg-dev fakeroot lintian dkms build-essential
	${extra[@]+"${extra[@]}"}
)

missing=()
for p in "${pkgs[@]}"; do
	case $p in \#*) continue ;; esac
	status=$(dpkg-query -W -f='${Status}' "$p" 2> /dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages and not root: apt-get install ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q --no-install-recommends "${missing[@]}"; then
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
