# SPDX-License-Identifier: GPL-2.0
#
# The decoder's host tests compile lib/x86_decode.c itself, the very source
# kcollider.ko links, so the code the tests check is the code the kernel
# runs. The oracle also needs capstone and libelf, and scripts/extract-vmlinux
# from linux-source-6.1 (extracted into build/, never committed).

DECODER_SRCS := $(TOP)/lib/x86_decode.c
DECODER_DEPS := $(DECODER_SRCS) $(wildcard $(TOP)/lib/x86_*.h) \
		$(TOP)/include/kcollider/x86_decode.h

OBJS_decoder_test := $(DECODER_SRCS)
OBJS_decoder_oracle_test := $(DECODER_SRCS)
CFLAGS_decoder_oracle_test := -DKC_TOP='"$(TOP)"'
LDLIBS_decoder_oracle_test := -lcapstone -lelf

$(BUILD)/host/decoder_test: $(DECODER_DEPS)
$(BUILD)/host/decoder_oracle_test: $(DECODER_DEPS) $(BUILD)/oracle/extract-vmlinux

$(BUILD)/oracle/extract-vmlinux:
	@if [ -z "$(KSFT_TARBALL)" ]; then \
		echo "selftests: linux-source-6.1 is not installed (make deps)" >&2; exit 1; fi
	@mkdir -p $(dir $@)
	tar -xJf $(KSFT_TARBALL) -C $(dir $@) --strip-components=2 \
		--wildcards '*/scripts/extract-vmlinux'
	@touch $@
