#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test VM's initramfs: busybox-static, the guest init, and the
# modules the given kernel needs to mount the host's root over virtio-9p.
#
# usage: mkinitramfs.sh KERNEL_RELEASE MODULES_ROOT OUTPUT
#   MODULES_ROOT is the directory holding lib/modules/KERNEL_RELEASE ("/" for
#   Debian's packaged kernels).
set -euo pipefail

rel=$1
modroot=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "mkinitramfs: $*" >&2; exit 1; }

busybox=$(command -v busybox || true)
[ -x /bin/busybox ] && busybox=/bin/busybox
[ -n "$busybox" ] || die "busybox not found (apt-get install busybox-static)"
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	die "$busybox is not static (apt-get install busybox-static)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,dev,proc,sys,host,mods,tmp}
cp "$busybox" "$work/bin/busybox"
cp "$here/guest-init" "$work/init"
chmod 755 "$work/init"

# The modules 9p (or, without it, virtiofs) needs, in load order. A
# self-built kernel with 9p built in has none of them, which is fine: the
# list is then empty.
: > "$work/mods/order"
for m in virtio_pci 9pnet_virtio 9p virtiofs; do
	deps=$(modprobe -d "$modroot" -S "$rel" --show-depends "$m" 2>/dev/null |
		awk '$1 == "insmod" { print $2 }') || true
	for ko in $deps; do
		name=$(basename "$ko")
		grep -qx "$name" "$work/mods/order" && continue
		case "$ko" in
		*.ko.xz) xz -dc "$ko" > "$work/mods/${name%.xz}"; name=${name%.xz} ;;
		*.ko.zst) zstd -qdc "$ko" > "$work/mods/${name%.zst}"; name=${name%.zst} ;;
		*) cp "$ko" "$work/mods/$name" ;;
		esac
		echo "$name" >> "$work/mods/order"
	done
done

(cd "$work" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
