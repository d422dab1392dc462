# "kcollider report -M": each access's marking read from DWARF and the
# source, on a module-like object built here (gcc -c -g, named .ko).
MARK_FX_SRC := $(TOP)/selftests/fixtures/marking
MARK_FX_DIR := $(BUILD)/host/fixtures/marking
CFLAGS_marking_test := -DKC_TOP=\"$(TOP)\" -DKC_MARK_FX_DIR=\"$(MARK_FX_DIR)\" \
	-DKC_MARK_FX_SRC=\"$(MARK_FX_SRC)\" -I$(TOP)/user
OBJS_marking_test := $(TOP)/user/marking.c $(TOP)/user/markers.c \
	$(TOP)/user/readfile.c $(TOP)/user/exempt.c $(TOP)/user/pointee.c \
	$(TOP)/lib/x86_decode.c
LDLIBS_marking_test := $(shell pkg-config --libs libdw libelf)
$(BUILD)/host/marking_test: $(MARK_FX_DIR)/fxmark.ko $(MARK_FX_DIR)/fxvmlinux \
	$(MARK_FX_DIR)/fxexempt-vmlinux $(MARK_FX_DIR)/fxseq-vmlinux \
	$(MARK_FX_DIR)/fxlocal-vmlinux \
	$(TOP)/user/marking.c $(TOP)/user/readfile.c $(TOP)/user/exempt.c \
	$(TOP)/user/pointee.c $(TOP)/user/markers.c $(TOP)/user/marking.h \
	$(TOP)/user/exempt.h $(TOP)/user/pointee.h $(TOP)/user/markers.h

# No CET prologue, no unwind tables: each access is its function's first
# instruction, the offsets the fixture's reports give.
$(MARK_FX_DIR)/fxmark.ko: $(MARK_FX_SRC)/fxmark.c
	@mkdir -p $(dir $@)
	$(CC) -c -O2 -g -fcf-protection=none -fno-asynchronous-unwind-tables \
		-o $@ $<

# The same code linked as a kernel image is (ET_EXEC, absolute addresses,
# a build ID, an _stext): "kcollider mark -V".
$(MARK_FX_DIR)/fxvmlinux: $(MARK_FX_SRC)/fxmark.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fcf-protection=none -fno-asynchronous-unwind-tables \
		-nostdlib -static -Wl,--build-id -Wl,-e,fx_read_once \
		-Wl,--defsym=_stext=fx_read_once -o $@ $<

# A kernel tree in miniature whose Makefiles build some of it without
# KCSAN, linked as an image from inside the tree: DWARF names its units
# by relative paths as Kbuild's do, but for one named by its absolute
# path, as an assembler unit of Debian's image is.
FX_EXEMPT := $(MARK_FX_SRC)/exempt
$(MARK_FX_DIR)/fxexempt-vmlinux: $(wildcard $(FX_EXEMPT)/*/*.c $(FX_EXEMPT)/*/Makefile)
	@mkdir -p $(dir $@)
	cd $(FX_EXEMPT) && $(CC) -O2 -g -fcf-protection=none \
		-fno-asynchronous-unwind-tables -nostdlib -static \
		-Wl,--build-id -Wl,-e,fx_kept_read \
		-Wl,--defsym=_stext=fx_kept_read -o $@ \
		sub/fxexempt.c sub/fxkept.c $(FX_EXEMPT)/all/fxall.c all/fxback.c

# A sequence count whose helpers live in a seqlock.h, as the kernel's do.
$(MARK_FX_DIR)/fxseq-vmlinux: $(MARK_FX_SRC)/fxseq.c \
	$(MARK_FX_SRC)/seqcount/include/linux/seqlock.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fcf-protection=none -fno-asynchronous-unwind-tables \
		-nostdlib -static -Wl,--build-id -Wl,-e,fx_seq_read \
		-Wl,--defsym=_stext=fx_seq_read -I$(MARK_FX_SRC)/seqcount/include \
		-o $@ $<

# local_t's operations, asm statements in an asm/local.h as x86's are.
$(MARK_FX_DIR)/fxlocal-vmlinux: $(MARK_FX_SRC)/fxlocal.c \
	$(MARK_FX_SRC)/local/arch/x86/include/asm/local.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fcf-protection=none -fno-asynchronous-unwind-tables \
		-nostdlib -static -Wl,--build-id -Wl,-e,fx_local_inc \
		-Wl,--defsym=_stext=fx_local_inc \
		-I$(MARK_FX_SRC)/local/arch/x86/include -o $@ $<
