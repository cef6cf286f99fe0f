# SPDX-License-Identifier: GPL-2.0
# xattrns: user.* on special files and trusted.* in user namespaces, as a
# kernel patch series with kselftests booted in QEMU. `make help` lists
# the targets; the scripts in scripts/ do the work.
SHELL := /bin/bash
S := scripts/host

.PHONY: help check check-harness check-debug fuzz-debug run accept-comparison clients archive containers e2e fstests bench profile vm mutate shell deps kernel initramfs export check-series clean distclean

help:
	@echo "The two commands (each installs what it needs, then builds what changed):"
	@echo "  make run            the four designs of the discussion, measured on both kernels"
	@echo "  make check          the tests (CI): both kernels, every kselftest, pinned skips"
	@echo "Other targets (design/harness.md says what each checks):"
	@echo "  make vm CMD='...'   boot a kernel (KERNEL=stock|patched|debug), run CMD, its status"
	@echo "  make shell          a busybox shell in the guest (KERNEL=stock for stock)"
	@echo "  make check-debug    the suite on the KASAN/lockdep/kmemleak kernel, 10000 fuzz steps"
	@echo "  make fuzz-debug     the same with 100000 fuzz steps per filesystem"
	@echo "  make check-harness  the harness's own tests (no kernel)"
	@echo "  make mutate         each scripts/mutate/*.diff must fail its tests (MUTATIONS=01,..)"
	@echo "  make check-series   each patch: checkpatch --strict, builds alone, no new warnings"
	@echo "                      (FROM=B/0020-...: from that patch on, the earlier ones unchecked)"
	@echo "  make clients        the comparison through the unmodified virtiofsd only"
	@echo "  make accept-comparison  take the last run's comparison as the expected one"
	@echo "  make archive        xattrs through tar, bsdtar, cp, rsync, squashfs; both kernels"
	@echo "  make containers     fuse-overlayfs, overlayfs in a user namespace; both kernels"
	@echo "  make e2e            a nested virtiofs guest relabels a tree through virtiofsd"
	@echo "  make fstests        fstests' attr and idmapped tests on ext4, xfs, btrfs"
	@echo "  make bench          the patches' cost in guest instructions (design/performance.md)"
	@echo "  make profile PROFILE='get 1'  one call's kernel instructions, function by function"
	@echo "  make deps | kernel | initramfs | export | clean | distclean"
	@echo "Variables: KERNEL, CMD (make vm), ACCEPT=1 (make run), MUTATIONS (make mutate),"
	@echo "  XATTRNS_CACHE (~/.cache/xattrns), XATTRNS_ACCEL=tcg|kvm, XATTRNS_TIMEOUT (s),"
	@echo "  JOBS, XATTRNS_CPUS (vCPUs), XATTRNS_TESTS=filesystems/xattr:PROGRAM,... (only those),"
	@echo "  XATTRNS_FUZZ_STEPS, XATTRNS_FUZZ_SEED (default fixed; random), XATTRNS_FUZZ_SECONDS,"
	@echo "  XATTRNS_CHECK_DEBUG=1, XATTRNS_CHECK_MUTATE=1: make check adds the debug kernel,"
	@echo "  the mutations (CI=true adds both)"

# CI (CI=true) and XATTRNS_CHECK_DEBUG=1 add the debug kernel to make check
CHECK_KERNELS := stock patched patched-off $(if $(filter true 1,$(CI) $(XATTRNS_CHECK_DEBUG)),debug debug-off)
# ... and the mutations of make mutate, each of which must fail its tests
CHECK_MUTATE := $(if $(filter true 1,$(CI) $(XATTRNS_CHECK_MUTATE)),--mutate)
check:
	@$(S)/check.sh --target check $(CHECK_MUTATE) $(CHECK_KERNELS)

check-harness:
	@$(S)/check-harness.sh

# the fuzzer's steps and time bound of each target: scripts/host/lib/guests.sh
# (fuzz_steps_default, fuzz_seconds_default)
check-debug:
	@$(S)/check.sh --target check-debug debug debug-off

fuzz-debug:
	@$(S)/check.sh --target fuzz-debug debug

run:
	@ACCEPT=$(ACCEPT) $(S)/run-comparison.sh

accept-comparison:
	@$(S)/comparison-verdicts.sh accept

clients:
	@$(S)/clients.sh

archive:
	@$(S)/archive.sh

containers:
	@$(S)/containers.sh

e2e:
	@$(S)/e2e.sh

fstests:
	@$(S)/fstests.sh

bench:
	@$(S)/bench.sh

# PROFILE: [--guest G] [--fs FS] OP DEPTH [NAMES] (scripts/host/profile.sh)
profile:
	@$(S)/profile.sh $(PROFILE)

deps:
	@$(S)/deps.sh

KERNEL ?= patched
# CMD reaches the recipe through the environment, quotes intact
vm:
	@$(S)/vm.sh $(KERNEL) "$$CMD"

shell:
	@$(S)/build.sh $(KERNEL) && $(S)/boot.sh $(KERNEL) shell

kernel:
	@$(S)/build.sh --kernels-only

initramfs:
	@$(S)/build.sh

export:
	@$(S)/export-patches.sh

check-series:
	@$(S)/check-series.sh $(if $(FROM),--from $(FROM))

mutate:
	@$(S)/mutate.sh

# every build directory of every tree the targets made (make check, debug,
# hostroot, FUSE, check-series, mutate), fstests' objects, the guests' output
clean:
	@. $(S)/lib.sh; \
	for t in "$$XATTRNS_KTREE" "$$STOCK_TREE" "$$XATTRNS_CACHE/linux-series" "$$MUTATE_TREE"; do \
		rm -rf "$$t"/_build "$$t"/_build-*; done; \
	if [ -f "$$XATTRNS_CACHE/fstests/Makefile" ]; then \
		make -s -C "$$XATTRNS_CACHE/fstests" clean >/dev/null 2>&1 || true; \
		rm -f "$$XATTRNS_CACHE/fstests/.xattrns-built"; fi; \
	rm -rf "$$OUT"; echo "removed the build output under $$XATTRNS_CACHE (the trees stay)"

distclean:
	@. $(S)/lib.sh; \
	if [ -d "$$XATTRNS_KTREE/.git" ] && [ -n "$$(git -C "$$XATTRNS_KTREE" status --porcelain --untracked-files=no)" ]; then \
		echo "ERROR: $$XATTRNS_KTREE has uncommitted edits; commit and make export first" >&2; exit 1; fi; \
	rm -rf "$$XATTRNS_CACHE"; echo "removed $$XATTRNS_CACHE"
