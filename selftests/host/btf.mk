# BTF of a fixture (gcc -g, then pahole), for the field-name test; bpftool
# is the test's independent oracle.
BTF_FIXTURE := $(BUILD)/host/fixtures/btf_fixture.btf
CFLAGS_btf_test := -DKC_TOP=\"$(TOP)\" -DKC_BTF_FIXTURE=\"$(BTF_FIXTURE)\"
$(BUILD)/host/btf_test: $(BTF_FIXTURE)

$(BTF_FIXTURE): fixtures/btf/btf_fixture.c
	@mkdir -p $(dir $@)
	$(CC) -g -O0 -c -o $(@:.btf=.o) $<
	pahole --btf_encode_detached=$@ $(@:.btf=.o)
