# SPDX-License-Identifier: GPL-2.0
#
# The int3 handler's loads (lib/x86_emulate.c, the source kcollider.ko
# links) against this CPU running the same instructions.
OBJS_emulate_test := $(TOP)/lib/x86_emulate.c $(TOP)/lib/x86_decode.c
$(BUILD)/host/emulate_test: host/emulate_forms.h
