#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e.sh: make e2e. A real virtiofs guest relabels a shared tree (file,
# directory, symlink, character and block devices, FIFO, socket) through
# Debian's unmodified virtiofsd on the patched kernel, for design 2 (user.*
# mapping, Patch A) and design 4 (trusted.* mapping, Patch B), each with
# its switch 0 (the stock refusals) and 1; the names stored on the share's
# disk are checked afterwards. Nested QEMU: the outer TCG guest (root: this
# machine's / over 9p, scripts/guest/e2e-init.sh as init) runs virtiofsd and a
# second QEMU whose guest is the same kernel with the usual initramfs
# (initramfs/init, mode virtiofs). Not in make check: a few minutes.
# Environment: XATTRNS_E2E_SCENARIOS (default d2-sw0,d2-sw1,d4-sw0,d4-sw1).
. "$(dirname "$0")/lib.sh"

# (the switches only go from 0 to 1: the scenarios at 0 come first)
scenarios=${XATTRNS_E2E_SCENARIOS:-d2-sw0,d4-sw0,d2-sw1,d4-sw1}
total_start=$(now)
install_deps
build_all patched
# the kernel of both guests: patched with 9p and virtiofs
export XATTRNS_HOSTROOT=1
build_all --kernels-only patched
lock

dir=$OUT/e2e
rm -rf "$dir"
mkdir -p "$dir"
truncate -s 256M "$dir/share.img"
mkfs.ext4 -q -F "$dir/share.img"
log=$dir/console.log
t=$(now)
log "e2e: booting the patched kernel, nested guests for $scenarios (console: $log)"
# one vCPU: with two, a loaded host fails the APIC timer calibration
# ("APIC timer disabled due to verification failure") and the second CPU
# then has no timer (sleeps never end); with one the PIT stands in
"$REPO/scripts/host/boot.sh" --console "$log" --timeout "${XATTRNS_E2E_TIMEOUT:-3600}" --cpus 1 \
	--init "$REPO/scripts/guest/e2e-init.sh" \
	--append "xattrns.scenarios=$scenarios xattrns.kimage=$(kimage_of patched) xattrns.initrd=$OUT/initramfs.cpio.gz" \
	--progress 's/\r$//; s/^\(not ok .*\)$/  [e2e] \1  <-- FAILED/p; s/^\(ok .*\)$/  [e2e] \1/p; s/^# \([a-z0-9-]*: nested guest ran .*\)$/  [e2e] \1/p' \
	patched hostroot -- \
	-drive "file=$dir/share.img,if=none,id=d0,format=raw,cache=unsafe" \
	-device virtio-blk-pci,drive=d0,serial=share || true
rm -f "$dir/share.img"
phase_end "e2e guest" "$t"
source_version >&2
awk -v name=e2e -v marker=E2E -f "$REPO/scripts/report/ktap.awk" "$log" ||
	die "make e2e failed (console: $log)"
phase_end "make e2e" "$total_start"
