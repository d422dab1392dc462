# SPDX-License-Identifier: GPL-2.0
# decoder_bench: the decoder source the module links, over vmlinux.
BENCH_OBJS_decoder_bench := $(TOP)/lib/x86_decode.c
BENCH_LDLIBS_decoder_bench := -lelf
