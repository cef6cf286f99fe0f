# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lib/env.sh: the environment every script shares: the cache and its
# paths, messages and timings, the Debian packages (the one list, and
# installing them), the cache's lock. Sourced by scripts/host/lib.sh.

# Everything big lives outside the repository, under one cache directory.
# (CI may run without HOME: fall back to the user's home from passwd.)
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME
XATTRNS_CACHE=${XATTRNS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xattrns}
# The kernel git tree (patched branch) and the stock worktree beside it.
XATTRNS_KTREE=${XATTRNS_KTREE:-$XATTRNS_CACHE/linux}
# shellcheck disable=SC2034
STOCK_TREE=$XATTRNS_CACHE/linux-stock
# Output of a run (initramfs, disk images, console logs).
# shellcheck disable=SC2034
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
