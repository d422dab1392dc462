# make bench-kcsan's real-workload table, on logs written here, with the
# marking fixture's image for the marking column and the BTF fixture for
# the object's field.
CFLAGS_kcsan_table_test := -DKC_TOP=\"$(TOP)\" \
	-DKC_MARK_FX_DIR=\"$(BUILD)/host/fixtures/marking\" \
	-DKC_BTF_FIXTURE=\"$(BTF_FIXTURE)\"
$(BUILD)/host/kcsan_table_test: runner/kcsan-real-table.sh \
	$(BUILD)/host/fixtures/marking/fxvmlinux $(BTF_FIXTURE)
