# SPDX-License-Identifier: GPL-2.0
#
# "make fuzz": each fuzz/*_fuzz.c target, with every CLI source from user/
# (main() renamed by fuzz/cli_main.c), built by clang with libFuzzer,
# ASan and UBSan into $(BUILD)/fuzz/, then run by runner/fuzz.sh for
# FUZZ_SECONDS each. The same sources, built by gcc into the host test
# fuzz_corpus_test (below), replay the committed corpus in "make check".
# Included after host/*.mk: it uses the tso fixtures of host/tso*.mk.
FUZZ_CC ?= clang
FUZZ_SRC := $(TOP)/selftests/fuzz
FUZZ_BUILD := $(BUILD)/fuzz
FUZZ_TARGETS := $(patsubst fuzz/%_fuzz.c,%,$(wildcard fuzz/*_fuzz.c))
FUZZ_BINS := $(patsubst %,$(FUZZ_BUILD)/%_fuzz,$(FUZZ_TARGETS))
FUZZ_USER_SRCS := $(filter-out $(TOP)/user/main.c,$(wildcard $(TOP)/user/*.c)) \
	$(TOP)/lib/x86_decode.c
FUZZ_COMMON_SRCS := $(FUZZ_SRC)/cli_main.c $(FUZZ_SRC)/fuzz_cli.c
FUZZ_PKGS := capstone libelf libdw libbpf
FUZZ_CPPFLAGS := -D_GNU_SOURCE -I$(TOP)/include -I$(TOP)/user -I$(FUZZ_SRC) \
	$(shell pkg-config --cflags $(FUZZ_PKGS)) \
	-DKC_FUZZ_TSO_BIN=\"$(TSO_FIXTURE)\" -DKC_FUZZ_TSO_MODS=\"$(TSO_MOD_DIR)\"
FUZZ_LDLIBS := $(shell pkg-config --libs $(FUZZ_PKGS))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_DEPS := $(FUZZ_COMMON_SRCS) $(FUZZ_SRC)/fuzz.h $(FUZZ_USER_SRCS) \
	$(wildcard $(TOP)/user/*.h) $(wildcard $(TOP)/include/kcollider/*.h) \
	$(TSO_FIXTURE) $(TSO_MODS)

.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)

$(FUZZ_BUILD)/%_fuzz: fuzz/%_fuzz.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer $(FUZZ_SAN) -DKC_FUZZ_LIBFUZZER \
		$(FUZZ_CPPFLAGS) -o $@ $< $(FUZZ_COMMON_SRCS) $(FUZZ_USER_SRCS) \
		$(FUZZ_LDLIBS)

# The corpus regression: the same targets built by gcc (no libFuzzer).
CFLAGS_fuzz_corpus_test := $(FUZZ_SAN) $(FUZZ_CPPFLAGS) \
	-DKC_FUZZ_CORPUS=\"$(TOP)/selftests/fuzz/corpus\"
OBJS_fuzz_corpus_test := $(patsubst %,$(FUZZ_SRC)/%_fuzz.c,$(FUZZ_TARGETS)) \
	$(FUZZ_COMMON_SRCS) $(FUZZ_USER_SRCS)
LDLIBS_fuzz_corpus_test := $(FUZZ_LDLIBS)
$(BUILD)/host/fuzz_corpus_test: $(OBJS_fuzz_corpus_test) $(FUZZ_DEPS)
