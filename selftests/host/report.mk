# The report parser, built from user/ into the test, under ASan/UBSan: the
# garbled corpus must not crash it nor make it touch memory it must not.
REPORT_SRCS := $(TOP)/user/report_parse.c
CFLAGS_report_test := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -I$(TOP)/user \
	-DKC_FIXTURES=\"$(TOP)/selftests/fixtures\"
OBJS_report_test := $(REPORT_SRCS)
$(BUILD)/host/report_test: $(REPORT_SRCS) $(TOP)/user/report_parse.h
