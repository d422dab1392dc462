# The kcollider binary itself, end to end (built by "make user").
CFLAGS_cli_test := -DKC_TOP=\"$(TOP)\" -DKC_TSO_FIXTURE_BIN=\"$(BUILD)/host/fixtures/tso_fixture\"
$(BUILD)/host/cli_test: $(BUILD)/host/fixtures/tso_fixture
