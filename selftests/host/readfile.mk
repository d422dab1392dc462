# The whole-file reader of user/, under ASan/UBSan.
CFLAGS_readfile_test := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I$(TOP)/user
OBJS_readfile_test := $(TOP)/user/readfile.c
$(BUILD)/host/readfile_test: $(TOP)/user/readfile.c $(TOP)/user/readfile.h
