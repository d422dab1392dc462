# BTF of a fixture (gcc -g, then pahole), for the field-name test; bpftool
# is the test's independent oracle.
BTF_FIXTURE := $(BUILD)/host/fixtures/btf_fixture.btf
CFLAGS_btf_test := -DKC_TOP=\"$(TOP)\" -DKC_BTF_FIXTURE=\"$(BTF_FIXTURE)\"
$(BUILD)/host/btf_test: $(BTF_FIXTURE)

$(BTF_FIXTURE): fixtures/btf/btf_fixture.c
	@mkdir -p $(dir $@)
	$(CC) -g -O0 -c -o $(@:.btf=.o) $<
	pahole --btf_encode_detached=$@ $(@:.btf=.o)

# Accesses through typed pointers, linked as a kernel image is (as the
# marking fixtures are) for -V, and its BTF for -B: the type from DWARF.
PT_FIXTURE := $(BUILD)/host/fixtures/btf_pointee
CFLAGS_btf_test += -DKC_PT_FIXTURE=\"$(PT_FIXTURE)\"
$(BUILD)/host/btf_test: $(PT_FIXTURE).btf

$(PT_FIXTURE).btf: fixtures/btf/pointee.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fcf-protection=none -fno-asynchronous-unwind-tables \
		-nostdlib -static -Wl,--build-id -Wl,-e,kc_pt_read_flags \
		-Wl,--defsym=_stext=kc_pt_read_flags -o $(PT_FIXTURE) $<
	pahole --btf_encode_detached=$@ $(PT_FIXTURE)
