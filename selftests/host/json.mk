# The JSON writer of user/, under ASan/UBSan (it walks untrusted bytes).
CFLAGS_json_test := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I$(TOP)/user
OBJS_json_test := $(TOP)/user/json.c
$(BUILD)/host/json_test: $(TOP)/user/json.c $(TOP)/user/json.h
