# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the scripts in this directory. Source it; do not run it.

set -eu
# A pipeline fails when any command in it fails, not only the last: several
# feed decisions (build-kernel.sh's stamp, the series hash).
set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/report/ktap.sh
. "$REPO/scripts/report/ktap.sh"
# Everything big lives outside the repository, under one cache directory.
# (CI may run without HOME: fall back to the user's home from passwd.)
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME
XATTRNS_CACHE=${XATTRNS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xattrns}
# The kernel git tree (patched branch) and the stock worktree beside it.
XATTRNS_KTREE=${XATTRNS_KTREE:-$XATTRNS_CACHE/linux}
STOCK_TREE=$XATTRNS_CACHE/linux-stock
# Output of a run (initramfs, disk images, console logs).
OUT=${XATTRNS_OUT:-$XATTRNS_CACHE/out}
export CCACHE_DIR=${CCACHE_DIR:-$XATTRNS_CACHE/ccache}
# Both trees build in a "_build" directory directly under their source, so
# kbuild uses the relative srctree ".." and ccache hits across the two trees.
export CCACHE_BASEDIR=$XATTRNS_CACHE
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
JOBS=${JOBS:-$(nproc)}
# (the source package: prepare-tree.sh)
# shellcheck disable=SC2034
SRC_TARBALL=${XATTRNS_SRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# shellcheck disable=SC2034
SRC_PKG=linux-source-6.12

log() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# now: seconds since the epoch (to the millisecond), for phase timings.
# They are the host's wall clock: CLOCK_REALTIME through date(1).
now() { date +%s.%N | cut -c1-14; }
# seconds_since START: elapsed seconds, one decimal
seconds_since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf("%.1f", e - s) }'; }
phase_end() { # phase_end NAME START
	printf '==> %s took %ss\n' "$1" "$(seconds_since "$2")" >&2
}

# The Debian packages the scripts use, the one list: COMMAND-or-PATH:PACKAGE.
# Top-level scripts (make check, run, bench, check-series, kernel,
# initramfs, shell; scripts/host/deps.sh) install what is missing once, before
# anything runs in parallel; the others only check (check_deps).
XATTRNS_DEPS="
make:make gcc:gcc /usr/include/stdio.h:libc6-dev flex:flex bison:bison bc:bc
git:git ccache:ccache cpio:cpio xz:xz-utils gzip:gzip perl:perl rsync:rsync
flock:util-linux /usr/include/libelf.h:libelf-dev
/usr/include/openssl/ssl.h:libssl-dev
/usr/share/doc/linux-source-6.12:linux-source-6.12
sparse:sparse /usr/lib/python3/dist-packages/ply:python3-ply
/usr/lib/python3/dist-packages/git:python3-git
qemu-system-x86_64:qemu-system-x86 mkfs.ext4:e2fsprogs mkfs.xfs:xfsprogs
mkfs.btrfs:btrfs-progs mkfs.jfs:jfsutils mkfs.f2fs:f2fs-tools timeout:coreutils
mkfs.gfs2:gfs2-utils mkfs.ocfs2:ocfs2-tools mkfs.erofs:erofs-utils
/bin/busybox:busybox-static /usr/bin/setfattr:attr /usr/bin/getfattr:attr
/usr/bin/unshare:util-linux /usr/bin/nsenter:util-linux /usr/bin/strace:strace
/usr/lib/qemu/virtiofsd:qemu-system-common
/usr/bin/newuidmap:uidmap /usr/bin/newgidmap:uidmap
/usr/bin/tar:tar /usr/bin/bsdtar:libarchive-tools /usr/bin/mksquashfs:squashfs-tools gnuplot:gnuplot-nox
/usr/bin/fuse-overlayfs:fuse-overlayfs shellcheck:shellcheck
"
# How long apt-get waits for another package manager's dpkg lock.
APT_LOCK_TIMEOUT=${APT_LOCK_TIMEOUT:-600}

# deps_missing: the packages of XATTRNS_DEPS whose command or file is absent.
deps_missing() {
	local missing="" item cmd pkg
	for item in $XATTRNS_DEPS; do
		cmd=${item%%:*}
		pkg=${item#*:}
		case $cmd in
		/*) [ -e "$cmd" ] && continue ;;
		*) command -v "$cmd" >/dev/null 2>&1 && continue ;;
		esac
		case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
	done
	echo "${missing# }"
}

# check_deps: die, naming the packages, when any is missing. For the
# scripts that may run in parallel (boot.sh): they never install.
check_deps() {
	local missing
	missing=$(deps_missing)
	[ -z "$missing" ] ||
		die "missing packages: $missing. Install them with: make deps (as root), or: sudo apt-get install -y $missing"
}

# install_deps: install the missing packages (as root, waiting up to
# APT_LOCK_TIMEOUT seconds for the dpkg lock), or print the exact
# apt-get line (as anyone else). Call once, before anything runs in parallel.
install_deps() {
	local missing apt
	missing=$(deps_missing)
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		die "missing packages; run: sudo apt-get install -y $missing"
	fi
	log "installing: $missing (waits up to ${APT_LOCK_TIMEOUT}s for the dpkg lock)"
	apt="apt-get -o DPkg::Lock::Timeout=$APT_LOCK_TIMEOUT -y -qq"
	# An old or empty package list makes apt-get install fail: update once.
	# shellcheck disable=SC2086
	if ! DEBIAN_FRONTEND=noninteractive $apt install --no-install-recommends \
		$missing >/dev/null 2>&1; then
		$apt update >/dev/null || die "apt-get update failed"
		DEBIAN_FRONTEND=noninteractive $apt install --no-install-recommends \
			$missing >/dev/null || die "apt-get install $missing failed"
	fi
	missing=$(deps_missing)
	[ -z "$missing" ] || die "still missing after apt-get install: $missing"
}

# lock: serialise writers of the cache (two runs at once must not share a
# half-built tree). Held until the calling script exits.
# A script run by a lock holder inherits the lock (XATTRNS_LOCKED).
lock() {
	[ -n "${XATTRNS_LOCKED:-}" ] && return 0
	mkdir -p "$XATTRNS_CACHE"
	exec 9>"$XATTRNS_CACHE/.lock"
	if ! flock -n 9; then
		log "another run holds $XATTRNS_CACHE/.lock; waiting"
		flock 9
	fi
	export XATTRNS_LOCKED=1
}

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

# vCPUs per guest (XATTRNS_CPUS overrides it). The debug kernel (make
# check-debug, fuzz-debug; CI's make check) gets two, one host thread
# each, so that the concurrency tests (xattr_fuzz_test's concurrent and
# the fuzzer's parallel callers) race on two CPUs in a kernel that
# checks locking; so do the guests whose switches start at 0
# (patched-off, debug-off), whose last test sets them while callers on
# another CPU run. The others keep one: two cost make check about half
# again (design/measurements.md), and the benchmark needs one, since
# QEMU's icount (its primary measure) runs a single TCG thread.
guest_cpus() { # guest_cpus GUEST MODE
	case $1:$2 in
	*:bench) echo 1 ;;
	debug*:* | *-off:check) echo 2 ;;
	*) echo 1 ;;
	esac
}

# The fuzzer's work, per make target: XATTRNS_FUZZ_STEPS steps per
# filesystem (its concurrency test: as many operations per worker, at most
# 5000), from the seed XATTRNS_FUZZ_SEED (default: the test's own fixed
# seed, so that every run is the same gate; "random" for a new one). In a
# TCG guest 1000 steps take about 3 s per filesystem (some 380 a second);
# the debug kernel (KASAN, lockdep) takes 8 to 9 times as long (xfs: 3.4 s,
# debug 30.5 s; fuzz_seconds_of).
fuzz_steps_default() { # fuzz_steps_default TARGET
	case $1 in
	check) echo 1000 ;;
	check-debug) echo 10000 ;;
	fuzz-debug) echo 100000 ;;
	*) die "no fuzz steps for target '$1'" ;;
	esac
}
# XATTRNS_FUZZ_SECONDS: only an upper bound on the time the fuzzer, and then
# its concurrency test, take per filesystem on a production kernel; a run
# that reaches it before its steps are done fails and says so. Several
# times what the steps take.
fuzz_seconds_default() { # fuzz_seconds_default TARGET
	case $1 in
	check) echo 30 ;;
	check-debug) echo 180 ;;
	fuzz-debug) echo 1800 ;;
	*) die "no fuzz time bound for target '$1'" ;;
	esac
}
# fuzz_seconds_of KERNEL SECONDS: the bound a KERNEL gets; the debug kernel
# is some 9 times slower at the fuzzer's syscalls, so it gets 10 times the
# bound (the steps, not the time, are the gate).
fuzz_seconds_of() {
	if [ "$1" = debug ]; then
		echo $((10 * $2))
	else
		echo "$2"
	fi
}
# The timeouts, derived from that bound (the fuzzer may take it twice per
# filesystem: fuzz, then concurrent, on six filesystems):
# test_timeout: seconds run_kselftest.sh gives each test program in the guest
# (--override-timeout: the programs themselves fit kselftest's default 45 s
# on KVM or bare metal, not under TCG);
test_timeout() { # test_timeout FUZZ_SECONDS
	echo $((900 + 20 * $1))
}
# guest_timeout: seconds before the host kills a guest (XATTRNS_TIMEOUT
# overrides it); the debug kernel is several times slower at everything.
guest_timeout() { # guest_timeout KERNEL FUZZ_SECONDS
	local base=600
	[ "$1" != debug ] || base=2400
	echo "${XATTRNS_TIMEOUT:-$((base + 12 * $2))}"
}

# boot_both MODE GUEST SUFFIX [OPTION...] [-- QEMU-ARG...]: boot the stock
# kernel and the guest GUEST of the patched one in MODE at once
# (scripts/host/boot.sh, with those options), their consoles named after
# the kernels ($OUT/console-stock-SUFFIX.log, console-patched-SUFFIX.log);
# fails if either does. The comparison (make run, make clients, make check)
# boots patched-off: its designs turn their switches on one after the other.
boot_both() {
	local mode=$1 guest=$2 suffix=$3 k p pids="" rc=0 opts=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	for k in stock "$guest"; do
		"$REPO/scripts/host/boot.sh" "${opts[@]}" \
			--console "$OUT/console-$(guest_kernel "$k")-$suffix.log" "$k" "$mode" "$@" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
	return $rc
}

# extra_initramfs NAME: the usual initramfs with a second one appended that
# holds the tools of initramfs/NAME-tools.list (each binary with the
# libraries ldd names) and tools/xattr-NAME's xattr_NAME, for make archive
# and make containers; writes $OUT/initramfs-NAME.cpio.gz. The kernel
# unpacks concatenated archives one after the other.
extra_initramfs() {
	local name=$1 root=$OUT/initramfs-$1.d bin pkg f
	rm -rf "$root"
	mkdir -p "$root/usr/bin"
	while IFS=: read -r bin pkg; do
		case $bin in '' | '#'*) continue ;; esac
		[ -x "$bin" ] || die "initramfs/$name-tools.list: $bin ($pkg) is not installed (add it to XATTRNS_DEPS in scripts/host/lib.sh)"
		for f in "$bin" $(ldd "$bin" | grep -o '/[^ ]*'); do
			[ -e "$root$f" ] && continue
			mkdir -p "$root$(dirname "$f")"
			cp -L "$f" "$root$f"
		done
	done <"$REPO/initramfs/$name-tools.list"
	make -s -C "$REPO/tools/xattr-$name" OUT="$root/usr/bin" "$root/usr/bin/xattr_$name" ||
		die "tools/xattr-$name does not build"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$OUT/$name-extra.cpio.gz"
	cat "$OUT/initramfs.cpio.gz" "$OUT/$name-extra.cpio.gz" >"$OUT/initramfs-$name.cpio.gz"
	log "$name initramfs: $OUT/initramfs-$name.cpio.gz ($(du -h "$OUT/initramfs-$name.cpio.gz" | cut -f1))"
}

# extra_guests NAME [BUILD]: boot the kernels in mode NAME with
# extra_initramfs NAME's initramfs (their kernels from the trees' BUILD
# directory when given), each guest's tally into $OUT/result-NAME-GUEST.txt;
# non-zero when any failed. make archive and make containers. The switches
# go from 0 to 1 once per boot, so the patched kernel boots twice on one
# ext4 disk: "patched" (switches 1) and then "patched-off" (switches 0),
# while "stock" runs beside them.
extra_guests() {
	local name=$1 build=${2:-} p pids="" rc=0 t disk=$OUT/$1-ext4.img
	t=$(now)
	rm -f "$disk"
	truncate -s 256M "$disk"
	mkfs.ext4 -q -F "$disk"
	boot_extra() { # GUEST [DISK]
		local opts=(--initrd "$OUT/initramfs-$name.cpio.gz" --console "$OUT/console-$1-$name.log")
		[ -z "$build" ] ||
			opts+=(--kernel "$(tree_of "$(guest_kernel "$1")")/$build/arch/x86/boot/bzImage")
		[ -z "${2:-}" ] || opts+=(--ext4 "$2")
		"$REPO/scripts/host/boot.sh" "${opts[@]}" "$1" "$name" >"$OUT/result-$name-$1.txt"
	}
	boot_extra stock &
	pids="$pids $!"
	(
		boot_extra patched "$disk" || exit 1
		boot_extra patched-off "$disk"
	) &
	pids="$pids $!"
	for p in $pids; do
		wait "$p" || rc=1
	done
	rm -f "$disk"
	phase_end "guest runs" "$t"
	return "$rc"
}

kimage_of() { echo "$(bdir_of "$1")/arch/x86/boot/bzImage"; }
# A guest is a kernel and the setting of its switches, which a boot sets once
# (they go from 0 to 1 and never back): "patched" and "debug" boot with both
# at 1, "patched-off" and "debug-off" with both at 0 (their last kselftest,
# xattr_switch_test, takes them to 1 under load), "stock" has none.
guest_kernel() { echo "${1%-off}"; }
guest_switches() {
	case $1 in
	stock | *-off) ;;
	*) echo "sysctl.fs.xattr_user_special=1 sysctl.fs.xattr_trusted_userns=1" ;;
	esac
	# the comparison runs in a boot of its own (boot_both compare), where
	# its designs turn the switches on in their order: not after the tests
	echo "xattrns.compare=0"
}
