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

# KERNEL=debug: build (once, cached outside the clone, see
# scripts/debug-kernel.sh) and use a 6.1 kernel with KASAN, lockdep,
# PROVE_RCU, DEBUG_OBJECTS, KFENCE, DEBUG_LIST and DEBUG_ATOMIC_SLEEP;
# "make check" then also fails on any splat in the guest's kernel log.
KERNEL ?=
ifeq ($(KERNEL),debug)
  KDIR := $(shell scripts/debug-kernel.sh kdir)
  KERNEL_CMD := scripts/debug-kernel.sh build >/dev/null &&
  CHECK_ENV := KC_SPLAT_SCAN=1 VM_TIMEOUT=$${VM_TIMEOUT:-5400}
else ifneq ($(strip $(KERNEL)),)
  $(error KERNEL=$(KERNEL): only KERNEL=debug is known)
endif

# Where the build trees are looked up: "/" on a real machine; the host
# tests point it at a scratch directory to play a fresh machine.
SYSROOT ?=
# What "make deps", "make check" and "make run" run; the host tests
# replace them to check that the first command works on a fresh machine.
DEPS_CMD ?= scripts/deps.sh $(FLAVOUR) $(if $(KERNEL),$(KERNEL)-kernel)
CHECK_CMD ?= selftests/runner/check.sh
RUN_CMD ?= selftests/runner/demo.sh

# "*-amd64" also matches -rt-amd64 and -cloud-amd64: keep the plain flavour plain.
other_flavours = $(filter-out %-$(FLAVOUR)-amd64,%-rt-amd64 %-cloud-amd64)
flavour_headers = $(filter-out $(if $(filter amd64,$(FLAVOUR)),$(other_flavours)), \
	$(wildcard $(SYSROOT)/usr/src/linux-headers-*-$(FLAVOUR)))
newest_headers = $(lastword $(sort $(flavour_headers)))
# KDIR is exported, so a make that ran before "make deps" installed the
# headers hands an empty KDIR to its sub-makes: empty means "look it up".
ifeq ($(strip $(KDIR)),)
  KDIR :=
  ifeq ($(FLAVOUR),amd64)
    KDIR := $(firstword $(wildcard $(SYSROOT)/lib/modules/$(shell uname -r)/build))
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

export KDIR FLAVOUR VM_CPUS BUILD KERNEL

.PHONY: all kmod user selftests deps check run clean checkpatch sparse kdir-check bench soak \
	bench-detect after-deps-check after-deps-run after-deps-bench print-kdir print-krel \
	install uninstall dkms-src dkms-install deb hunt after-deps-hunt fuzz after-deps-fuzz \
	bench-kcsan after-deps-bench-kcsan hunt-soak after-deps-hunt-soak man

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
	@$(DEPS_CMD)

# "check", "run" and "bench" must work as the first command on a fresh
# machine: this make read the Makefile before "make deps" installed the
# kernel headers, so everything after deps runs in a new make, which looks
# the build tree up again.
check run bench hunt hunt-soak soak: deps
	@$(KERNEL_CMD) $(MAKE) --no-print-directory after-deps-$@

after-deps-check: selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" $(CHECK_ENV) $(CHECK_CMD)

after-deps-run: selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" $(RUN_CMD)

# The soak of issue 11: sampler_test with SOAK_CYCLES (default 1000)
# load/enable/disable/unload cycles instead of make check's 50.
SOAK_CYCLES ?= 1000
after-deps-soak: selftests
	@KC_TESTS=sampler_test KC_SOAK_CYCLES=$(SOAK_CYCLES) VM_TIMEOUT=36000 \
		VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" $(CHECK_CMD)

# The build tree and release this make found (for the host tests).
print-kdir:
	@echo "KDIR=$(KDIR)"

print-krel:
	@echo "KREL=$(KREL)"

# A real-kernel race hunt: targets=all, stress-ng on ext4/tmpfs/pipes/unix
# sockets for HUNT_SECS (default 300), races grouped with TSO verdicts.
after-deps-hunt: selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/hunt.sh

# HUNT_SOAK (default 10) hunts, a fresh VM each; any failed hunt or splat
# in the guest's log fails it (KERNEL=debug: on the debug kernel).
after-deps-hunt-soak: selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/hunt-soak.sh

# Coverage-guided fuzzing of the CLI's parsers (report, tso, litmus):
# libFuzzer + ASan + UBSan (clang, installed by "deps.sh FLAVOUR fuzz"),
# FUZZ_SECONDS (default 60) per target; new inputs in build/fuzz/corpus/,
# crashers in build/fuzz/crashes/. See Documentation/testing.rst.
fuzz:
	@$(DEPS_CMD) fuzz
	@$(MAKE) --no-print-directory after-deps-fuzz

after-deps-fuzz:
	@$(MAKE) --no-print-directory -C selftests fuzz-build
	@selftests/runner/fuzz.sh

checkpatch:
	@scripts/checkpatch.sh

# Benchmarks (not tests): every selftests/bench/*_bench.c is built into
# build/bench/ (per-benchmark BENCH_OBJS_<name>/BENCH_LDLIBS_<name> come from
# selftests/bench/*.mk), then selftests/runner/bench.sh runs them all.
TOP := $(CURDIR)
BENCH_BINS := $(patsubst selftests/bench/%.c,$(BUILD)/bench/%,\
	$(wildcard selftests/bench/*_bench.c))
-include selftests/bench/*.mk

# The VM benchmarks load the module and the planted modules, as the tests do.
after-deps-bench: selftests $(BENCH_BINS)
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/bench.sh

# The detection-rate benchmark alone (make bench runs it too): one VM boot.
bench-detect: selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/bench-detect.sh

# KCSAN and kcollider side by side on the planted module (see
# Documentation/benchmarks.rst): builds (once, cached outside the clone, see
# scripts/kcsan-kernel.sh) a KCSAN 6.1 kernel and the same kernel without
# KCSAN, then three VM boots; one table in build/bench/kcsan-table.txt.
# A first command on a fresh machine like check: deps (with what building
# the kernels needs) first, then a new make that finds the headers.
bench-kcsan:
	@$(DEPS_CMD) kcsan-kernel
	@$(MAKE) --no-print-directory after-deps-bench-kcsan

after-deps-bench-kcsan: selftests
	@VM_IMAGE="$(VM_IMAGE)" KREL="$(KREL)" selftests/runner/bench-kcsan.sh

$(BUILD)/bench/%: selftests/bench/%.c $(wildcard lib/*.[ch] include/kcollider/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -I$(CURDIR)/include \
		-DKC_TOP='"$(CURDIR)"' -o $@ $< $(BENCH_OBJS_$*) $(BENCH_LDLIBS_$*)

sparse: kdir-check
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

# Installing. PREFIX for the tool, its man pages and bash completion;
# the module goes under /lib/modules/<release>/updates; DESTDIR is prepended
# to every path (staged installs, packages); depmod runs only without it.
PREFIX ?= /usr/local
VERSION := $(shell sed -n 's/^\#define KCOLLIDER_VERSION "\(.*\)"/\1/p' \
	include/kcollider/version.h)
MODDIR = /lib/modules/$(KREL)/updates
DKMS ?= dkms
DKMS_SRC = $(DESTDIR)/usr/src/kcollider-$(VERSION)

install: all man
	@[ -n "$(KREL)" ] || { echo "kcollider: no kernel release in $(KDIR)" >&2; exit 1; }
	install -D -m 0755 user/kcollider $(DESTDIR)$(PREFIX)/sbin/kcollider
	install -D -m 0644 kmod/kcollider.ko $(DESTDIR)$(MODDIR)/kcollider.ko
	install -d $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/man/man4
	install -m 0644 $(MAN8) $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 0644 $(MAN4) $(DESTDIR)$(PREFIX)/share/man/man4/
	install -D -m 0644 scripts/kcollider.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/kcollider
	install -D -m 0644 LICENSE $(DESTDIR)$(PREFIX)/share/doc/kcollider/LICENSE
	$(if $(DESTDIR),,depmod -a $(KREL))

# The man pages: their reStructuredText sources are Documentation/man/*.rst
# (as bpftool's), each naming its section in ":Manual section:"; rst2man
# (python3-docutils) turns them into $(BUILD)/man/<page>.<section>, the
# footer saying the version of version.h (|version|, appended to the
# source). Not part of "all": the module and the tool build without
# docutils. --halt=warning: a docutils warning or error fails the page,
# and no page is left behind.
RST2MAN ?= rst2man
MAN_RST := $(wildcard Documentation/man/*.rst)
man_section = $(shell sed -n 's/^:Manual section: *\([0-9]\) *$$/\1/p' $(1))
MAN_PAGES = $(foreach f,$(MAN_RST),$(BUILD)/man/$(basename $(notdir $(f))).$(call man_section,$(f)))
MAN8 = $(filter %.8,$(MAN_PAGES))
MAN4 = $(filter %.4,$(MAN_PAGES))

man: $(MAN_PAGES)

define rst2man_page
	@mkdir -p $(dir $@)
	@command -v $(RST2MAN) > /dev/null || { echo "kcollider: $(RST2MAN) not found:" \
		"apt-get install python3-docutils (make deps)" >&2; exit 1; }
	@echo "  RST2MAN $(patsubst $(CURDIR)/%,%,$@)"
	@{ cat $<; printf '\n.. |version| replace:: %s\n' '$(VERSION)'; } | \
		$(RST2MAN) --halt=warning > $@.tmp || \
		{ rm -f $@ $@.tmp; echo "kcollider: rst2man failed on $< (its messages say <stdin>)" >&2; exit 1; }
	@mv $@.tmp $@
endef

$(BUILD)/man/%.8: Documentation/man/%.rst include/kcollider/version.h
	$(rst2man_page)

$(BUILD)/man/%.4: Documentation/man/%.rst include/kcollider/version.h
	$(rst2man_page)

# A source without a ":Manual section: N" line makes a page name ending in ".".
$(BUILD)/man/%.:
	@echo "kcollider: Documentation/man/$*.rst has no ':Manual section: N' line" >&2; exit 1

# DKMS: the module's sources (not the tests) under /usr/src, then dkms
# builds and installs it for every kernel whose headers are installed, and
# again for each kernel installed later (AUTOINSTALL).
dkms-src:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/kmod $(DKMS_SRC)/lib $(DKMS_SRC)/include/kcollider
	install -m 0644 Kbuild LICENSE $(DKMS_SRC)/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf
	install -m 0644 kmod/Kbuild kmod/*.[chS] $(DKMS_SRC)/kmod/
	install -m 0644 lib/*.[ch] $(DKMS_SRC)/lib/
	install -m 0644 include/kcollider/*.h $(DKMS_SRC)/include/kcollider/

# Debian packages: build/deb/kcollider-dkms_*.deb and kcollider_*.deb.
deb: deps
	@scripts/deb.sh

dkms-install: dkms-src
	@command -v $(DKMS) >/dev/null || { echo "kcollider: $(DKMS) not found: apt-get install dkms" >&2; exit 1; }
	-$(DKMS) remove kcollider/$(VERSION) --all
	$(DKMS) add kcollider/$(VERSION)
	for k in $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/*/build))); do \
		$(DKMS) install kcollider/$(VERSION) -k $$k || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/kcollider $(DESTDIR)$(MODDIR)/kcollider.ko
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man8/,$(notdir $(MAN8)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man4/,$(notdir $(MAN4)))
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kcollider
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/kcollider

# Kbuild's clean deletes by name (*.ko.* among them) under M: one module's
# directory at a time, or it takes Documentation/man/kcollider.ko.rst.
clean:
	-[ -e "$(KDIR)/Makefile" ] && for d in kmod selftests/planted; do \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/$$d clean || exit 1; done
	rm -f modules.order Module.symvers .modules.order.cmd .Module.symvers.cmd \
		lib/*.o lib/.*.o.cmd
	$(MAKE) -C user clean
	rm -rf $(BUILD)
