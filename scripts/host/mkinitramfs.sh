#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mkinitramfs.sh: build the kselftests (statically, from the patched tree)
# and pack the guest: busybox, initramfs/init and its library
# (scripts/guest/lib.sh), the tools of
# initramfs/tools.list with their libraries, and the kselftest install.
# One initramfs serves both kernels: everything in it is userspace.
. "$(dirname "$0")/lib.sh"

tree=$XATTRNS_KTREE
[ -d "$tree/_build" ] || die "build the patched kernel first (scripts/host/build-kernel.sh patched)"
check_deps
ldd /bin/busybox >/dev/null 2>&1 && die "/bin/busybox is dynamic: install busybox-static"

lock
start=$(now)
mkdir -p "$OUT"
# The selftests live in this repository; the kernel's kselftest build and
# install machinery (lib.mk, run_kselftest.sh) comes from the tree.
# Compared by content, and a copied file gets the time of the copy: a
# source older than the binary built from another version of it (a clone,
# a checkout, a restored file) must still rebuild it.
rsync -rlpc --delete --exclude '*_test' "$REPO/selftests/filesystems/xattr/" \
	"$tree/tools/testing/selftests/filesystems/xattr/"
make -C "$tree" O=_build -s headers >/dev/null
ksdir=$OUT/kselftest
rm -rf "$ksdir"
log "building kselftests (filesystems/xattr, static)"
if ! make -C "$tree/tools/testing/selftests" TARGETS=filesystems/xattr \
	KHDR_INCLUDES="-isystem $tree/_build/usr/include" LDFLAGS=-static \
	INSTALL_PATH="$ksdir" install >"$OUT/kselftest-build.log" 2>&1; then
	grep -E 'error|warning' "$OUT/kselftest-build.log" | head -n 30 >&2 || true
	die "kselftest build failed (log: $OUT/kselftest-build.log)"
fi
if grep -q 'warning:' "$OUT/kselftest-build.log"; then
	grep 'warning:' "$OUT/kselftest-build.log" | head -n 10 >&2 || true
	die "kselftests build with warnings (log: $OUT/kselftest-build.log)"
fi

root=$OUT/initramfs.d
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,mnt,root}
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
install -m 0755 "$REPO/initramfs/init" "$root/init"
install -D -m 0644 "$REPO/scripts/guest/lib.sh" "$root/lib/xattrns-guest.sh"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
echo 'export PS1="xattrns:\w# " PATH=/usr/sbin:/usr/bin:/sbin:/bin' >"$root/etc/profile"

# Dynamic tools, each with the libraries ldd names (and the loader). The
# mode is kept: newuidmap and newgidmap are setuid root (cpio records the
# files as root's).
copy_with_libs() {
	local bin=$1 lib
	mkdir -p "$root$(dirname "$bin")"
	cp -L --preserve=mode "$bin" "$root$bin"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
while read -r bin; do
	case $bin in '' | '#'*) continue ;; esac
	# a program, or a library that a program loads itself (*.so*)
	case $bin in
	*.so*) [ -f "$bin" ] ;;
	*) [ -x "$bin" ] ;;
	esac || die "initramfs/tools.list: $bin is not installed (add its package to XATTRNS_DEPS in scripts/host/lib/env.sh)"
	copy_with_libs "$bin"
done <"$REPO/initramfs/tools.list"

cp -a "$ksdir" "$root/kselftest"
log "building tools/xattrd (static)"
make -s -C "$REPO/tools/xattrd" OUT="$OUT" "$OUT/xattrd" >>"$OUT/kselftest-build.log" 2>&1 ||
	die "tools/xattrd does not build (log: $OUT/kselftest-build.log)"
install -m 0755 "$OUT/xattrd" "$root/usr/bin/xattrd"
log "building tools/vhostfs (static)"
make -s -C "$REPO/tools/vhostfs" OUT="$OUT" "$OUT/vhostfs" >>"$OUT/kselftest-build.log" 2>&1 ||
	die "tools/vhostfs does not build (log: $OUT/kselftest-build.log)"
install -m 0755 "$OUT/vhostfs" "$root/usr/bin/vhostfs"
make -s -C "$REPO/tools/xattr-bench" OUT="$OUT" "$OUT/xattr_bench" >>"$OUT/kselftest-build.log" 2>&1 ||
	die "tools/xattr-bench does not build (log: $OUT/kselftest-build.log)"
install -m 0755 "$OUT/xattr_bench" "$root/usr/bin/xattr_bench"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$OUT/initramfs.cpio.gz.new"
mv "$OUT/initramfs.cpio.gz.new" "$OUT/initramfs.cpio.gz"
log "initramfs: $OUT/initramfs.cpio.gz ($(du -h "$OUT/initramfs.cpio.gz" | cut -f1))"
phase_end "initramfs" "$start"
