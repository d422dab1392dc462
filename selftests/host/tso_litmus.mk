# "tso --litmus" end to end: the tests it prints for a store-buffering
# cycle, decided again by the checker (litmus.c) and by "kcollider litmus".
CFLAGS_tso_litmus_test := -I$(TOP)/user -DKC_TOP=\"$(TOP)\" \
	-DKC_TSO_FIXTURE_BIN=\"$(BUILD)/host/fixtures/tso_fixture\"
OBJS_tso_litmus_test := $(TOP)/user/litmus.c $(TOP)/user/tso_checker.c \
	$(TOP)/user/readfile.c
$(BUILD)/host/tso_litmus_test: $(OBJS_tso_litmus_test) $(TOP)/user/litmus.h \
	$(BUILD)/host/fixtures/tso_fixture
