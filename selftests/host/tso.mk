# The TSO analysis from user/, on a fixture executable built here from C and
# assembly (one function per pattern, offsets fixed by the assembly).
FIXTURE_DIR := $(TOP)/selftests/fixtures/tso
TSO_FIXTURE := $(BUILD)/host/fixtures/tso_fixture
TSO_SRCS := $(addprefix $(TOP)/user/,tso.c tso_close.c tso_mem.c cfg.c code.c kallsyms.c \
	modules.c readfile.c report_parse.c symtab.c) $(TOP)/lib/x86_decode.c
CFLAGS_tso_test := -I$(TOP)/user $(shell pkg-config --cflags capstone libelf libdw) \
	-DKC_TSO_FIXTURES=\"$(FIXTURE_DIR)\" -DKC_TSO_FIXTURE_BIN=\"$(TSO_FIXTURE)\"
OBJS_tso_test := $(TSO_SRCS)
LDLIBS_tso_test := $(shell pkg-config --libs capstone libelf libdw)
$(BUILD)/host/tso_test: $(TSO_SRCS) $(TSO_FIXTURE) $(wildcard $(TOP)/user/*.h)

$(TSO_FIXTURE): $(FIXTURE_DIR)/tso_fixture.c $(FIXTURE_DIR)/tso_patterns.S \
		$(FIXTURE_DIR)/tso_patterns.h
	@mkdir -p $(dir $@)
	$(CC) -no-pie -g -O2 -o $@ $(filter-out %.h,$^)
