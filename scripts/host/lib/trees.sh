# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lib/trees.sh: the kernel trees, their builds, the series in patches/ and
# the rules each patch is held to (checkpatch). Sourced by
# scripts/host/lib.sh after lib/env.sh.

# The kernel trees and their build directories. make mutate builds the
# patched commit with one mutation applied in a worktree of its own.
MUTATE_TREE=$XATTRNS_CACHE/linux-mutate
# The debug kernel is the patched tree built with scripts/config/kernel-debug.config
# on top (KASAN, UBSAN, lockdep, ...) in its own build directory.
tree_of() {
	case $1 in
	stock) echo "$STOCK_TREE" ;;
	patched | debug) echo "$XATTRNS_KTREE" ;;
	mutate) echo "$MUTATE_TREE" ;;
	*) die "unknown kernel '$1' (expected stock, patched or debug)" ;;
	esac
}
# XATTRNS_HOSTROOT=1 (make fstests, make e2e): stock and patched with
# scripts/config/kernel-hostroot.config on top, in _build-hostroot.
bdir_of() {
	case $1:${XATTRNS_HOSTROOT:-} in
	debug:*) echo "$(tree_of "$1")/_build-debug" ;;
	*:1) echo "$(tree_of "$1")/_build-hostroot" ;;
	*) echo "$(tree_of "$1")/_build" ;;
	esac
}
# The config fragments of a kernel, merged in this order on tinyconfig.
frags_of() {
	echo "$REPO/scripts/config/kernel.config"
	[ "$1" = stock ] || echo "$REPO/scripts/config/kernel-patched.config"
	[ "$1" != debug ] || echo "$REPO/scripts/config/kernel-debug.config"
	[ "$1" = debug ] || [ "${XATTRNS_HOSTROOT:-}" != 1 ] ||
		echo "$REPO/scripts/config/kernel-hostroot.config"
}
# The kernels in the order they are built (stock first: the patched tree's
# build reuses its ccache entries). The debug kernel needs the patched one:
# the initramfs is built against the patched tree's headers.
kernels_to_build() { # kernels_to_build KERNEL...
	local k out=""
	for k in stock patched debug; do
		case " $* " in
		*" $k "*) out="$out $k" ;;
		*) [ "$k" = patched ] && case " $* " in *" debug "*) out="$out $k" ;; esac ;;
		esac
	done
	echo "${out# }"
}

# build_all [--kernels-only] [KERNEL...]: prepare the trees, build the
# kernels (default: stock and patched) and the initramfs, each step only
# when its inputs changed, under the lock. Returns non-zero at the first
# step that fails (also where set -e does not apply, as in "build_all || ...").
build_all() {
	local k initramfs=1
	if [ "${1:-}" = --kernels-only ]; then
		initramfs=0
		shift
	fi
	lock
	"$REPO/scripts/host/prepare-tree.sh" || return
	# the initramfs is built against the patched tree's headers
	[ "$initramfs" = 0 ] || set -- "${@:-stock}" patched
	for k in $(kernels_to_build "${@:-stock patched}"); do
		"$REPO/scripts/host/build-kernel.sh" "$k" || return
	done
	[ "$initramfs" = 0 ] || "$REPO/scripts/host/mkinitramfs.sh" || return
	measure_host_tsc
}

# measure_host_tsc: the host's TSC rate (tools/tsc-khz) into $OUT/tsc-khz,
# which boot.sh gives TCG guests as tsc_early_khz (design/clocks.md); the
# file is left empty when the host's TSC is no clock.
measure_host_tsc() {
	mkdir -p "$OUT"
	make -s -C "$REPO/tools/tsc-khz" OUT="$OUT" "$OUT/tsc_khz" ||
		die "tools/tsc-khz does not build"
	"$OUT/tsc_khz" >"$OUT/tsc-khz" || : >"$OUT/tsc-khz"
}

# The series: the patch files patches/series names, in order (blank lines
# and lines starting with # skipped).
SERIES=$REPO/patches/series
series_patches() {
	[ -f "$SERIES" ] || return 0
	awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$SERIES"
}
# The selftests of each series, from selftests/filesystems/xattr (the one
# source): series A's test user.* on special files, series B's the rest; A's
# Makefile and .gitignore name A's programs only (export-patches.sh,
# static-checks.sh).
SELFTESTS=$REPO/selftests/filesystems/xattr
selftest_files() { # SERIES
	case $1 in
	A) echo ".gitignore Makefile config settings xattr_util.h user_special_test.c" ;;
	B) echo ".gitignore Makefile config trusted_userns_test.c trusted_boundary_test.c trusted_listfilter_test.c xattr_fuzz_test.c xattr_switch_test.c" ;;
	*) die "no series $1" ;;
	esac
}
selftest_file() { # SERIES FILE: the file as the series has it
	case $1:$2 in
	A:Makefile | A:.gitignore)
		grep -v -E 'trusted_userns_test|trusted_boundary_test|trusted_listfilter_test|xattr_fuzz_test|xattr_switch_test|sets the switches' "$SELFTESTS/$2" ;;
	# the filesystems only trusted_listfilter_test (B) mounts
	A:config)
		grep -v -E 'GFS2|OCFS2|EROFS|SQUASHFS' "$SELFTESTS/$2" ;;
	*) cat "$SELFTESTS/$2" ;;
	esac
}

# The kernel tree's own edits, selftests left out: mkinitramfs.sh copies
# this repository's selftests/ over the tree's (the one source), which is
# no edit of the kernel (build-kernel.sh's stamp, prepare-tree.sh, make
# export).
KTREE_PATHS=". :(exclude)tools/testing/selftests/filesystems/xattr"
# The version of the series in the patches' subjects ([PATCH v4 n/m]):
# export-patches.sh
export SERIES_VERSION=v4
# pristine_commit TREE VERSION: the commit of Debian's source tree object
# TREE (linux-source-6.12 VERSION), with a fixed author, committer and
# date, so that its id is the same on every machine: the patches'
# base-commit: line names it, and prepare-tree.sh makes it the pristine
# branch.
pristine_commit() {
	GIT_AUTHOR_NAME=xattrns GIT_AUTHOR_EMAIL=xattrns@localhost \
	GIT_COMMITTER_NAME=xattrns GIT_COMMITTER_EMAIL=xattrns@localhost \
	GIT_AUTHOR_DATE='2021-09-02T15:22:28Z' GIT_COMMITTER_DATE='2021-09-02T15:22:28Z' \
		git -C "$XATTRNS_KTREE" commit-tree "$1" -m "linux-source-6.12 $2 (pristine)" \
		-m "Debian's $SRC_TARBALL with its top-level packaging ignore lines dropped from .gitignore."
}
new_worktree() { # new_worktree DIR REF: a detached worktree of the kernel tree
	# git leaves a worktree "locked" when an add is interrupted; clear it
	git -C "$XATTRNS_KTREE" worktree remove --force --force "$1" >/dev/null 2>&1 ||
		rm -rf "$1"
	git -C "$XATTRNS_KTREE" worktree prune
	git -C "$XATTRNS_KTREE" worktree add -q -f -f --detach "$1" "$2"
}
tree_dirty() { # TREE: print the tree's uncommitted edits
	# shellcheck disable=SC2086
	git -C "$1" status --porcelain --untracked-files=no -- $KTREE_PATHS
}

# checkpatch.pl's options: --strict, but the packaged tree holds no git
# history, so a Fixes: tag's commit cannot be looked up in it; the patches
# carry no Signed-off-by (the submitter adds theirs: the cover letters say
# so); and FILE_PATH_CHANGES asks of every new file whether MAINTAINERS
# needs it, which check-series.sh answers with get_maintainer.pl instead.
CHECKPATCH_OPTS="--strict --no-signoff --ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES"

# checkpatch_patch TREE PATCH: checkpatch.pl --strict on one patch (give
# an absolute path: run here on a relative one, checkpatch.pl misreads the
# patch's blank context lines as added trailing whitespace),
# with Debian's python first (spdxcheck.py wants ply). A patch that only
# adds selftests (and their MAINTAINERS line) is held to the same rules but for the kselftest_harness
# idioms every harness test uses: macros that generate TEST_F()s and
# FIXTURE_VARIANT_ADD()s (COMPLEX_MACRO, MULTISTATEMENT_MACRO_USE_DO_WHILE,
# MACRO_ARG_REUSE of token-pasted names) and SKIP()/ASSERT wrappers that
# return from the test (MACRO_WITH_FLOW_CONTROL), and value-printing
# wrappers of an ASSERT with its TH_LOG block, one statement only inside a
# do-while (SINGLE_STATEMENT_DO_WHILE_MACRO); and A's selftest patch
# lists the new directory in MAINTAINERS, so B's, adding files to it,
# does not need to (FILE_PATH_CHANGES).
CHECKPATCH_SELFTEST_IGNORE="COMPLEX_MACRO,MULTISTATEMENT_MACRO_USE_DO_WHILE,SINGLE_STATEMENT_DO_WHILE_MACRO,MACRO_ARG_REUSE,MACRO_WITH_FLOW_CONTROL"
# c_includer TREE FILE: the .c file of FILE's directory in TREE that
# includes FILE (a KUnit test such as fs/xattr_userns_test.c is built
# through the file it tests, not on its own), or nothing
c_includer() {
	local d b
	d=$(dirname "$2")
	b=$(basename "$2")
	{ grep -l -F "#include \"$b\"" "$1/$d"/*.c 2>/dev/null || true; } |
		head -n 1 | sed "s|^$1/||"
}
checkpatch_patch() { # TREE PATCH
	local opts="$CHECKPATCH_OPTS"
	if ! grep '^+++ b/' "$2" | grep -qv -e '^+++ b/tools/testing/selftests/' -e '^+++ b/MAINTAINERS$'; then
		opts="$opts --ignore $CHECKPATCH_SELFTEST_IGNORE"
	fi
	# shellcheck disable=SC2086
	PATH=/usr/bin:/bin:$PATH "$1/scripts/checkpatch.pl" $opts -q "$2"
}

# series_hash: a hash of what patches/series names, in order, and of each
# patch's content: the "applied" state of the kernel tree
# (prepare-tree.sh compares it, export-patches.sh records it).
series_hash() {
	local p
	for p in $(series_patches); do
		if [ -f "$REPO/patches/$p" ]; then
			echo "$p"
			cat "$REPO/patches/$p"
		else
			echo "missing:$p"
		fi
	done | sha256sum | cut -d' ' -f1
}
# source_version: the line each target prints with its tally, naming the
# Debian kernel source its kernels were built from (prepare-tree.sh
# records the package's version)
source_version() {
	echo "kernel source: Debian $SRC_PKG $(cat "$XATTRNS_CACHE/linux-source.version" 2>/dev/null || echo "(not prepared)")"
}
kimage_of() { echo "$(bdir_of "$1")/arch/x86/boot/bzImage"; }
