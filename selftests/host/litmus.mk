# The litmus parser/printer and the operational x86-TSO checker, from user/.
LITMUS_SRCS := $(TOP)/user/litmus.c $(TOP)/user/tso_checker.c $(TOP)/user/readfile.c
CFLAGS_litmus_test := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I$(TOP)/user -DKC_FIXTURES=\"$(TOP)/selftests/fixtures\"
OBJS_litmus_test := $(LITMUS_SRCS)
$(BUILD)/host/litmus_test: $(LITMUS_SRCS) $(TOP)/user/litmus.h
