#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo's guest side: load kcollider, enable it, show its state, unload.
# usage: demo-guest.sh TOP
set -u
top=$1
cli=$top/user/kcollider

echo "== insmod kcollider.ko"
insmod "$top/kmod/kcollider.ko" || exit 1
echo 1 > /sys/kernel/kcollider/enabled || exit 1
echo "== kcollider status"
"$cli" status || exit 1
echo "== rmmod kcollider"
rmmod kcollider || exit 1
dmesg | grep kcollider
