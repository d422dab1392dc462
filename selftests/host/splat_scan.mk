# The guest-log scanner of make check KERNEL=debug and make hunt-soak.
CFLAGS_splat_scan_test := -DKC_TOP=\"$(TOP)\"
$(BUILD)/host/splat_scan_test: runner/splat-scan.sh
