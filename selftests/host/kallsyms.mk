# The /proc/kallsyms reader of user/, on saved copies written by the test.
CFLAGS_kallsyms_test := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I$(TOP)/user
OBJS_kallsyms_test := $(TOP)/user/kallsyms.c
$(BUILD)/host/kallsyms_test: $(TOP)/user/kallsyms.c $(TOP)/user/kallsyms.h
