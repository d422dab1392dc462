# The in-VM tests' report helpers (vm/vm_reports.h, on the CLI's parser),
# checked on the host on logs in the layout the module writes.
CFLAGS_vm_reports_test := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I$(TOP)/user
OBJS_vm_reports_test := $(TOP)/user/report_parse.c
$(BUILD)/host/vm_reports_test: $(TOP)/user/report_parse.c $(TOP)/user/report_parse.h \
	vm/vm_reports.h vm/vm_util.h
