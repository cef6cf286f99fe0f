# xattrns: user.* on special files and trusted.* in user namespaces, as a
# kernel patch series with kselftests booted in QEMU. `make help` lists
# the targets; the scripts in scripts/ do the work.
SHELL := /bin/bash
S := scripts

.PHONY: help check check-debug fuzz-debug run bench shell kernel initramfs export check-series clean distclean

help:
	@echo "make check      build both kernels (stock, patched), boot each in QEMU and run"
	@echo "                the kselftests; last line: N passed, N failed, N skipped"
	@echo "make check-debug  the same suite on the patched kernel built with KASAN,"
	@echo "                UBSAN, lockdep, KFENCE, kmemleak (scripts/kernel-debug.config),"
	@echo "                the fuzzer for FUZZ_SECONDS (default 60) per filesystem"
	@echo "make run        the main job: the designs of the 2021 discussion, measured on"
	@echo "                both kernels by tools/xattrd; prints the table and writes"
	@echo "                design/comparison.md"
	@echo "make bench      the cost of the patches on the xattr paths, in guest"
	@echo "                instructions (QEMU icount) and wall-clock; writes"
	@echo "                design/performance.md"
	@echo "make shell      boot the patched kernel to a busybox shell (KERNEL=stock for stock)"
	@echo "make kernel     prepare the trees and build both kernels"
	@echo "make initramfs  build the kselftests and the guest initramfs"
	@echo "make export     write the kernel tree's commits into patches/"
	@echo "make check-series  each patch: checkpatch --strict, builds (bisect), no new"
	@echo "                W=1/sparse warnings in the files it touches"
	@echo "make clean      remove build output (keeps the trees and ccache)"
	@echo "make distclean  remove the whole cache directory (trees included)"
	@echo "Variables: XATTRNS_CACHE (default ~/.cache/xattrns), XATTRNS_ACCEL=tcg|kvm,"
	@echo "           XATTRNS_TIMEOUT (guest seconds), JOBS (build jobs)"
	@echo "           XATTRNS_FUZZ_SECONDS, XATTRNS_FUZZ_SEED: the fuzzer's budget per"
	@echo "           filesystem (make check: 3) and seed (default: from the clock)"

# CI (CI=true) and XATTRNS_CHECK_DEBUG=1 add the debug kernel to make check
CHECK_KERNELS := stock patched $(if $(filter true 1,$(CI) $(XATTRNS_CHECK_DEBUG)),debug)
check:
	@$(S)/check.sh $(CHECK_KERNELS)

FUZZ_SECONDS ?= 60
check-debug:
	@XATTRNS_FUZZ_SECONDS=$${XATTRNS_FUZZ_SECONDS:-$(FUZZ_SECONDS)} $(S)/check.sh debug

run:
	@$(S)/compare.sh

bench:
	@$(S)/bench.sh

KERNEL ?= patched
shell: initramfs
	@$(S)/boot.sh $(KERNEL) shell

kernel:
	@$(S)/prepare-tree.sh
	@$(S)/build-kernel.sh stock
	@$(S)/build-kernel.sh patched

initramfs: kernel
	@$(S)/mkinitramfs.sh

export:
	@$(S)/export-patches.sh

check-series:
	@$(S)/check-series.sh

clean:
	@. $(S)/lib.sh; rm -rf "$$OUT" "$$XATTRNS_KTREE/_build" "$$STOCK_TREE/_build"; \
		echo "removed build output under $$XATTRNS_CACHE"

distclean:
	@. $(S)/lib.sh; \
	if [ -d "$$XATTRNS_KTREE/.git" ] && [ -n "$$(git -C "$$XATTRNS_KTREE" status --porcelain --untracked-files=no)" ]; then \
		echo "ERROR: $$XATTRNS_KTREE has uncommitted edits; commit and make export first" >&2; exit 1; fi; \
	rm -rf "$$XATTRNS_CACHE"; echo "removed $$XATTRNS_CACHE"
