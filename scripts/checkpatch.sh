#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl (from Debian's linux-source-6.1, extracted
# into build/) over every C source and header of the tree.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/checkpatch
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2> /dev/null | sort -V | tail -n1)
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	[ -n "$tarball" ] || { echo "checkpatch: install linux-source-6.1 (make deps)" >&2; exit 1; }
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
cd "$top"
files=$(git ls-files 'kmod/*.[ch]' 'include/*.h' 'lib/*.[ch]' 'user/*.[ch]' \
	'selftests/*.[ch]')
"$dir/scripts/checkpatch.pl" --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f $files
