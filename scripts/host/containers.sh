#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# containers.sh: make containers. What rootless containers get from the two
# series (tools/xattr-containers): fuse-overlayfs with xattr_permissions=2
# keeping owners and modes of every node type (Patch A), kernel overlayfs
# mounted in a user namespace (Patch B), a layer round trip through GNU tar;
# on the stock and the patched kernel, with the switches 0 and 1. The
# guests boot the usual initramfs with a second one appended that holds the
# tools of initramfs/containers-tools.list; each prints KTAP, tallied per
# kernel. The results and the reasons: design/containers.md.
. "$(dirname "$0")/lib.sh"

total_start=$(now)
install_deps
build_all

lock
# kernel_fuse KERNEL: the kernel's test config with
# scripts/config/kernel-containers.config on top, built in _build-fuse
kernel_fuse() {
	local tree b want
	tree=$(tree_of "$1")
	b=$tree/_build-fuse
	want=$(cat "$(bdir_of "$1")/.config" "$REPO/scripts/config/kernel-containers.config" | sha256sum)
	if [ "$(cat "$b/.xattrns-config" 2>/dev/null)" != "$want" ]; then
		mkdir -p "$b"
		cp "$(bdir_of "$1")/.config" "$b/.config"
		(cd "$tree" && KCONFIG_CONFIG=_build-fuse/.config scripts/kconfig/merge_config.sh -m \
			-O _build-fuse _build-fuse/.config "$REPO/scripts/config/kernel-containers.config" >/dev/null)
		make -C "$tree" O=_build-fuse -s olddefconfig >/dev/null
		echo "$want" >"$b/.xattrns-config"
	fi
	log "building the $1 kernel with FUSE ($b)"
	make -C "$tree" O=_build-fuse CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" -s bzImage \
		>"$OUT/build-$1-fuse.log" 2>&1 ||
		{ tail -n 20 "$OUT/build-$1-fuse.log" >&2; die "the $1 kernel with FUSE does not build"; }
	grep -q '^CONFIG_FUSE_FS=y' "$b/.config" || die "$b/.config has no CONFIG_FUSE_FS=y"
}
t=$(now)
kernel_fuse stock
kernel_fuse patched
phase_end "kernels with FUSE" "$t"

t=$(now)
extra_initramfs containers
phase_end "containers initramfs" "$t"

rc=0
extra_guests containers _build-fuse || rc=1
# patched-off: the patched kernel booted at 0, then set to 1 (extra_guests)
for k in stock patched patched-off; do
	# what each run saw, the failures, then the tally
	sed -n 's/\r$//; /^# \(stock\|switch\|overlayfs\|layer\) /p; /^not ok /p' \
		"$OUT/console-$k-containers.log"
	cat "$OUT/result-containers-$k.txt"
done
source_version >&2
phase_end "make containers" "$total_start"
[ "$rc" = 0 ] || die "container runs failed (consoles: $OUT/console-*-containers.log)"
