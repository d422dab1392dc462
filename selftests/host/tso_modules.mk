# "tso --modules": module-like relocatable objects (gcc -c, named .ko) whose
# calls only resolve once their relocations are applied, analysed against
# the tso_fixture executable as the "vmlinux".
TSO_MOD_SRC := $(TOP)/selftests/fixtures/tso/modules
TSO_MOD_DIR := $(BUILD)/host/fixtures/modules
TSO_MODS := $(TSO_MOD_DIR)/fxmod.ko $(TSO_MOD_DIR)/fxmod2.ko
CFLAGS_tso_modules_test := $(CFLAGS_tso_test) -DKC_TSO_MOD_LOGS=\"$(TSO_MOD_SRC)\" \
	-DKC_TSO_MOD_DIR=\"$(TSO_MOD_DIR)\" -DKC_TOP=\"$(TOP)\"
OBJS_tso_modules_test := $(TSO_SRCS)
LDLIBS_tso_modules_test := $(LDLIBS_tso_test)
$(BUILD)/host/tso_modules_test: $(TSO_SRCS) $(TSO_FIXTURE) $(TSO_MODS) \
	$(wildcard $(TOP)/user/*.h)

$(TSO_MOD_DIR)/%.ko: $(TSO_MOD_SRC)/%.S
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<
