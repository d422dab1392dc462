# make bench-kcsan's real-workload table, on logs written here, with the
# marking fixture's image for the marking column.
CFLAGS_kcsan_table_test := -DKC_TOP=\"$(TOP)\" \
	-DKC_MARK_FX_DIR=\"$(BUILD)/host/fixtures/marking\"
$(BUILD)/host/kcsan_table_test: runner/kcsan-real-table.sh \
	$(BUILD)/host/fixtures/marking/fxvmlinux
