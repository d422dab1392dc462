# The module's NOKPROBE_SYMBOL() marks, closed under calls (objdump, nm).
CFLAGS_nokprobe_test := -DKC_TOP=\"$(TOP)\"
$(BUILD)/host/nokprobe_test: $(TOP)/kmod/kcollider.ko
