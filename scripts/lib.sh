# shellcheck shell=bash
# Shared helpers for the scripts in this directory. Source it; do not run it.

set -eu

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
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
SRC_TARBALL=${XATTRNS_SRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
SRC_PKG=linux-source-6.12

log() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# now: seconds since the epoch, for phase timings
now() { date +%s; }
phase_end() { # phase_end NAME START
	printf '==> %s took %ss\n' "$1" "$(($(now) - $2))" >&2
}

# need CMD:PACKAGE ...: install the Debian packages that provide missing
# commands (as root), or print the exact apt-get line (as anyone else).
need() {
	local missing="" item cmd pkg
	for item in "$@"; do
		cmd=${item%%:*}
		pkg=${item#*:}
		case $cmd in
		/*) [ -e "$cmd" ] && continue ;;
		*) command -v "$cmd" >/dev/null 2>&1 && continue ;;
		esac
		case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		die "missing packages; run: sudo apt-get install -y$missing"
	fi
	log "installing:$missing"
	# An old or empty package list makes apt-get install fail: update once.
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null 2>&1; then
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $missing >/dev/null ||
			die "apt-get install$missing failed"
	fi
}

# Tools every kernel build needs.
need_build_tools() {
	need make:make gcc:gcc flex:flex bison:bison bc:bc git:git \
		ccache:ccache cpio:cpio xz:xz-utils perl:perl rsync:rsync \
		/usr/include/libelf.h:libelf-dev \
		/usr/include/openssl/ssl.h:libssl-dev \
		/usr/share/doc/linux-source-6.12:linux-source-6.12 \
		flock:util-linux
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

# The kernel trees and their build directories.
# The debug kernel is the patched tree built with scripts/kernel-debug.config
# on top (KASAN, UBSAN, lockdep, ...) in its own build directory.
tree_of() {
	case $1 in
	stock) echo "$STOCK_TREE" ;;
	patched | debug) echo "$XATTRNS_KTREE" ;;
	*) die "unknown kernel '$1' (expected stock, patched or debug)" ;;
	esac
}
bdir_of() {
	case $1 in
	debug) echo "$(tree_of "$1")/_build-debug" ;;
	*) echo "$(tree_of "$1")/_build" ;;
	esac
}
# The config fragments of a kernel, merged in this order on tinyconfig.
frags_of() {
	echo "$REPO/scripts/kernel.config"
	[ "$1" != debug ] || echo "$REPO/scripts/kernel-debug.config"
}
# Prepare the trees, build both kernels and the initramfs (each step only
# when its inputs changed), under the lock.
build_all() {
	lock
	"$REPO/scripts/prepare-tree.sh"
	"$REPO/scripts/build-kernel.sh" stock
	"$REPO/scripts/build-kernel.sh" patched
	"$REPO/scripts/mkinitramfs.sh"
}

# boot_both MODE: boot the stock and the patched kernel in MODE at once
# (scripts/boot.sh, with the caller's environment); fails if either does.
boot_both() {
	local k p pids="" rc=0

	for k in stock patched; do
		"$REPO/scripts/boot.sh" "$k" "$1" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
	return $rc
}

kimage_of() { echo "$(bdir_of "$1")/arch/x86/boot/bzImage"; }
