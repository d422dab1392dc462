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

# Files that must do what checkpatch warns of, each with the types it may
# warn of there: the userspace definition of __printf() itself; the planted
# module's threads that hand each other the CPU; the marking fixtures,
# which spell READ_ONCE(), WRITE_ONCE() and data_race() as the kernel's
# headers do (and typedef local_t as x86's does), for the line table
# they leave.
declare -A allowed=(
	[user/common.h]=PREFER_DEFINED_ATTRIBUTE_MACRO
	[selftests/planted/kc_planted.c]=YIELD
	[selftests/fixtures/marking/fxmark.c]=VOLATILE,SINGLE_STATEMENT_DO_WHILE_MACRO,DATA_RACE
	[selftests/fixtures/marking/exempt/sub/fxexempt.c]=VOLATILE
	[selftests/fixtures/marking/exempt/sub/fxkept.c]=VOLATILE
	[selftests/fixtures/marking/exempt/all/fxback.c]=VOLATILE
	[selftests/fixtures/marking/seqcount/include/linux/seqlock.h]=VOLATILE,NEW_TYPEDEFS,SPACING
	[selftests/fixtures/marking/local/arch/x86/include/asm/local.h]=NEW_TYPEDEFS
)
ignore=FILE_PATH_CHANGES,SPDX_LICENSE_TAG
files=$(git ls-files 'kmod/*.[ch]' 'include/*.h' 'lib/*.[ch]' 'user/*.[ch]' \
	'selftests/*.[ch]' | grep -vxF "$(printf '%s\n' "${!allowed[@]}")")
status=0
"$dir/scripts/checkpatch.pl" --no-tree --terse --show-types \
	--ignore "$ignore" -f $files || status=1
for f in "${!allowed[@]}"; do
	"$dir/scripts/checkpatch.pl" --no-tree --terse --show-types \
		--ignore "$ignore,${allowed[$f]}" -f "$f" || status=1
done
exit $status
