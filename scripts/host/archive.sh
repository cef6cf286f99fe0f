#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# archive.sh: make archive. Round trips of user.* and trusted.* xattrs on
# every file type through Debian's tar, bsdtar, cp -a, rsync -aX and
# mksquashfs/unsquashfs (tools/xattr-archive), on the stock and the patched
# kernel, with the switches 0 and 1. The guests boot the usual initramfs
# with a second one appended that holds the tools of
# initramfs/archive-tools.list; each prints KTAP, tallied per kernel.
. "$(dirname "$0")/lib.sh"

total_start=$(now)
install_deps
build_all

lock
t=$(now)
extra_initramfs archive
phase_end "archive initramfs" "$t"

rc=0
extra_guests archive || rc=1
for k in stock patched patched-off; do
	# the failing round trips, then the tally
	sed -n 's/\r$//; /^not ok /p' "$OUT/console-$k-archive.log"
	cat "$OUT/result-archive-$k.txt"
done
source_version >&2
phase_end "make archive" "$total_start"
[ "$rc" = 0 ] || die "archive round trips failed (consoles: $OUT/console-*-archive.log)"
