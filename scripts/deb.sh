#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian packages kcollider-dkms (the module's sources, built
# by DKMS on the machine they are installed on) and kcollider (the CLI),
# built with dpkg-buildpackage from a copy of the checkout's tracked files
# (the checkout itself stays as it is), then checked with lintian.
# Output: build/deb/*.deb, build/deb/lintian.txt.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
version=$(sed -n 's/^#define KCOLLIDER_VERSION "\(.*\)"/\1/p' \
	"$top/include/kcollider/version.h")
changelog=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
if [ "$changelog" != "$version" ]; then
	echo "deb: debian/changelog says $changelog, version.h $version" >&2
	exit 1
fi
src=$out/kcollider-$version
rm -rf "$out"
mkdir -p "$src"
cd "$top"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$src"
else
	tar --exclude=./build --exclude='*.o' --exclude='*.ko' -cf - . |
		tar -xf - -C "$src"
fi
cd "$src"
dpkg-buildpackage -us -uc -b > "$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed (all of it in $out/build.log)" >&2
	exit 1
}
cd "$out"
command -v lintian > /dev/null || { echo "deb: lintian not found (make deps)" >&2; exit 1; }
{
	echo "# $(lintian --version)"
	lintian --allow-root --tag-display-limit 0 --info ./*.changes 2>&1 || true
} > lintian.txt
ls -1 "$out"/*.deb
echo "lintian: $(grep -c '^[EW]: ' lintian.txt || true) errors and warnings (build/deb/lintian.txt)"
grep -v '^#' lintian.txt || true
