# SPDX-License-Identifier: GPL-2.0
#
# kcollider: "make" builds the module and the tools, "make check" runs every
# test (host and in the QEMU test VM), "make run" boots the VM with the
# detector loaded. See README.md.

# Which Debian kernel flavour the module is built for and the VM boots:
# amd64 (default), cloud-amd64 or rt-amd64. KDIR overrides it with any
# kernel build tree, including a self-built one (its arch/x86/boot/bzImage
# is then what the VM boots).
FLAVOUR ?= amd64

# "*-amd64" also matches -rt-amd64 and -cloud-amd64: keep the plain flavour plain.
other_flavours = $(filter-out %-$(FLAVOUR)-amd64,%-rt-amd64 %-cloud-amd64)
flavour_headers = $(filter-out $(if $(filter amd64,$(FLAVOUR)),$(other_flavours)), \
	$(wildcard /usr/src/linux-headers-*-$(FLAVOUR)))
newest_headers = $(lastword $(sort $(flavour_headers)))
ifeq ($(origin KDIR),undefined)
  ifeq ($(FLAVOUR),amd64)
    KDIR := $(firstword $(wildcard /lib/modules/$(shell uname -r)/build))
  endif
  ifeq ($(KDIR),)
    KDIR := $(newest_headers)
  endif
endif

# Debian's headers carry the upstream version in kernel.release; the
# release the image and modules use is UTS_RELEASE.
KREL = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
VM_IMAGE ?= $(firstword $(wildcard $(KDIR)/arch/x86/boot/bzImage) /boot/vmlinuz-$(KREL))
VM_CPUS ?= 4
BUILD := $(CURDIR)/build

export KDIR FLAVOUR VM_CPUS BUILD

.PHONY: all kmod user selftests deps check run clean checkpatch sparse kdir-check bench \
	bench-detect hunt

all: kmod user

kdir-check:
	@if [ -z "$(KDIR)" ] || [ ! -e "$(KDIR)/Makefile" ]; then \
		echo "kcollider: no kernel build tree for flavour '$(FLAVOUR)';" \
		     "run 'make deps' or pass KDIR=/path/to/build" >&2; exit 1; fi

kmod: kdir-check
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

user:
	$(MAKE) -C user

selftests: all
	$(MAKE) -C selftests

deps:
	@scripts/deps.sh $(FLAVOUR)

check: deps
	@$(MAKE) --no-print-directory selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/check.sh

run: deps
	@$(MAKE) --no-print-directory selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/demo.sh

# A real-kernel race hunt: targets=all, stress-ng on ext4/tmpfs/pipes/unix
# sockets for HUNT_SECS (default 300), races grouped with TSO verdicts.
hunt: deps
	@$(MAKE) --no-print-directory selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/hunt.sh

checkpatch:
	@scripts/checkpatch.sh

# Benchmarks (not tests): every selftests/bench/*_bench.c is built into
# build/bench/ (per-benchmark BENCH_OBJS_<name>/BENCH_LDLIBS_<name> come from
# selftests/bench/*.mk), then selftests/runner/bench.sh runs them all.
TOP := $(CURDIR)
BENCH_BINS := $(patsubst selftests/bench/%.c,$(BUILD)/bench/%,\
	$(wildcard selftests/bench/*_bench.c))
-include selftests/bench/*.mk

# (Benchmarks need the tools and the host test programs, not the module.)
bench: user $(BENCH_BINS)
	@$(MAKE) --no-print-directory -C selftests
	@selftests/runner/bench.sh

# The detection-rate benchmark alone (make bench runs it too): one VM boot.
bench-detect: selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/bench-detect.sh

$(BUILD)/bench/%: selftests/bench/%.c $(wildcard lib/*.[ch] include/kcollider/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -I$(CURDIR)/include \
		-DKC_TOP='"$(CURDIR)"' -o $@ $< $(BENCH_OBJS_$*) $(BENCH_LDLIBS_$*)

sparse: kdir-check
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

clean:
	-[ -e "$(KDIR)/Makefile" ] && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C user clean
	rm -rf $(BUILD)
