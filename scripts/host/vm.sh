#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh KERNEL CMD...: make vm. Boot KERNEL (stock, patched, debug) with the
# usual initramfs and fresh test disks, run CMD in the guest's shell
# (busybox sh; Debian's tools by absolute path, the kselftests in
# /kselftest, the disks in $XATTR_TEST_DEV_<FS>), print its output and exit
# with its status. A kernel warning or BUG in the guest is reported, and
# turns a status of 0 into 1.
#   make vm CMD='/usr/bin/getfattr -d /proc/sys'
#   make vm KERNEL=stock CMD='cat /proc/sys/fs/xattr_user_special'
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: vm.sh stock|patched|debug CMD...}
shift
[ -n "$*" ] || die "no command: make vm CMD='...' (a shell command line)"
install_deps
build_all "$kernel" >&2
run=$(mktemp -d "$OUT/vm.XXXXXX")
trap 'rm -rf "$run"' EXIT
# the command travels in an initramfs of its own, appended to the usual one
printf '%s\n' "$*" >"$run/vm-cmd"
(cd "$run" && echo vm-cmd | cpio -o -H newc --quiet | gzip -1) >"$run/cmd.cpio.gz"
cat "$OUT/initramfs.cpio.gz" "$run/cmd.cpio.gz" >"$run/initramfs.cpio.gz"
rc=0
"$REPO/scripts/host/boot.sh" --initrd "$run/initramfs.cpio.gz" \
	--console "$OUT/console-$kernel-vm.log" "$kernel" vm || rc=$?
exit "$rc"
