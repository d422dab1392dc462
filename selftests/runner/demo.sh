#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: boot the test kernel with kcollider loaded and show what it
# finds. Environment as for check.sh (VM_IMAGE, KREL, VM_CPUS).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
results=${BUILD:-$top/build}/results/run
"$top/selftests/runner/run-vm.sh" -o "$results" -k "${VM_IMAGE:-}" \
	-r "${KREL:-}" -c "${VM_CPUS:-4}" -t "${VM_TIMEOUT:-600}" -- \
	"$top/selftests/runner/demo-guest.sh" "$top"
