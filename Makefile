# xattrns: user.* on special files and trusted.* in user namespaces, as a
# kernel patch series with kselftests booted in QEMU. `make help` lists
# the targets; the scripts in scripts/ do the work.
SHELL := /bin/bash
S := scripts

.PHONY: help check check-harness check-debug fuzz-debug run accept-comparison clients archive containers e2e fstests bench shell deps kernel initramfs export check-series clean distclean

help:
	@echo "make check      build both kernels (stock, patched), boot each in QEMU and run"
	@echo "                the kselftests; last line: N passed, N failed, N skipped"
	@echo "make check-harness  the harness's own tests: the KTAP parser and the tally"
	@echo "                on synthetic logs (no kernel, no QEMU; make check runs it first)"
	@echo "make check-debug  the same suite on the patched kernel built with KASAN,"
	@echo "                UBSAN, lockdep, KFENCE, kmemleak (scripts/kernel-debug.config),"
	@echo "                the fuzzer for 10000 steps per filesystem"
	@echo "make fuzz-debug the same with the fuzzer for 100000 steps per filesystem"
	@echo "make run        the main job: the designs of the 2021 discussion, measured on"
	@echo "                both kernels by tools/xattrd; prints the table and writes"
	@echo "                design/comparison.md while its cells are those of"
	@echo "                design/comparison.expected; a changed cell is refused unless"
	@echo "                ACCEPT=1 (make run ACCEPT=1)"
	@echo "make accept-comparison  take the last run's comparison as the expected one:"
	@echo "                writes design/comparison.md, comparison.expected and the"
	@echo "                verdict table of design/README.md"
	@echo "make clients    the same designs through the unmodified virtiofsd (Debian's,"
	@echo "                driven by tools/vhostfs) on both kernels; fails where it and"
	@echo "                tools/xattrd disagree (make run and make check check it too)"
	@echo "make archive    user.* and trusted.* xattrs on every file type through tar,"
	@echo "                bsdtar, cp -a, rsync -aX and squashfs, switches 0 and 1, on"
	@echo "                both kernels (tools/xattr-archive)"
	@echo "make containers rootless containers: fuse-overlayfs keeping owners of every"
	@echo "                node type, overlayfs in a user namespace, a layer through"
	@echo "                tar; both kernels, switches 0 and 1 (tools/xattr-containers)"
	@echo "make e2e        a real virtiofs guest (nested QEMU) relabels a tree of every"
	@echo "                file type through the unprivileged virtiofsd on the patched"
	@echo "                kernel, designs 2 and 4, switches 0 and 1; checks the disk"
	@echo "make fstests    fstests' attr and idmapped tests (scripts/fstests.list) on"
	@echo "                ext4, xfs, btrfs: stock, patched with switches 0 (= stock)"
	@echo "                and 1 (only scripts/fstests.expected differs); needs"
	@echo "                XATTRNS_FSTESTS_SRC, a clone of xfstests-dev"
	@echo "make bench      the cost of the patches on the xattr paths, in guest"
	@echo "                instructions (QEMU icount) and wall-clock; writes"
	@echo "                design/performance.md"
	@echo "make shell      boot the patched kernel to a busybox shell (KERNEL=stock for stock)"
	@echo "make deps       install the Debian packages every target needs (as root)"
	@echo "make kernel     prepare the trees and build both kernels"
	@echo "make initramfs  build the kselftests and the guest initramfs"
	@echo "make export     write the kernel tree's commits into patches/"
	@echo "make check-series  each patch: checkpatch --strict, builds (bisect), no new"
	@echo "                W=1/sparse warnings in the files it touches"
	@echo "make clean      remove build output (keeps the trees and ccache)"
	@echo "make distclean  remove the whole cache directory (trees included)"
	@echo "Variables: XATTRNS_CACHE (default ~/.cache/xattrns), XATTRNS_ACCEL=tcg|kvm,"
	@echo "           XATTRNS_TIMEOUT (guest seconds), JOBS (build jobs),"
	@echo "           XATTRNS_CPUS (vCPUs per guest), XATTRNS_TESTS (only these kselftests)"
	@echo "           XATTRNS_FUZZ_STEPS, XATTRNS_FUZZ_SEED: the fuzzer's steps per"
	@echo "           filesystem (check 1000, check-debug 10000, fuzz-debug 100000:"
	@echo "           scripts/lib.sh) and seed (default: the test's fixed seed; random:"
	@echo "           from the clock); XATTRNS_FUZZ_SECONDS: its time bound per"
	@echo "           filesystem (check 30, check-debug 180, fuzz-debug 1800; the"
	@echo "           debug kernel gets 10 times it)"

# CI (CI=true) and XATTRNS_CHECK_DEBUG=1 add the debug kernel to make check
CHECK_KERNELS := stock patched $(if $(filter true 1,$(CI) $(XATTRNS_CHECK_DEBUG)),debug)
check:
	@$(S)/check.sh --target check $(CHECK_KERNELS)

check-harness:
	@$(S)/check-harness.sh

# the fuzzer's steps and time bound of each target: scripts/lib.sh
# (fuzz_steps_default, fuzz_seconds_default)
check-debug:
	@$(S)/check.sh --target check-debug debug

fuzz-debug:
	@$(S)/check.sh --target fuzz-debug debug

run:
	@ACCEPT=$(ACCEPT) $(S)/compare.sh

accept-comparison:
	@$(S)/comparison.sh accept

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

deps:
	@$(S)/deps.sh

KERNEL ?= patched
shell:
	@$(S)/build.sh $(KERNEL) && $(S)/boot.sh $(KERNEL) shell

kernel:
	@$(S)/build.sh --kernels-only

initramfs:
	@$(S)/build.sh

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
