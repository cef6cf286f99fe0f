#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# render-comparison.sh STOCK_LOG PATCHED_LOG: design/comparison.md, on
# standard output, from the CELL lines (tools/xattrd) and VCELL lines
# (tools/vhostfs, the real virtiofsd) of the two guests' consoles. Exits
# non-zero when a cell holds no measurement (ERROR) or is missing: the
# table is still printed, its verdict is not. The versions that measured it
# (the kernels', the kernel source's, virtiofsd's package) go on a line of
# their own, which no check reads.
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: render-comparison.sh console-stock.log console-patched.log"
for f in "$@"; do
	[ -f "$f" ] || die "no console log $f (did the guest run?)"
	grep -q '^CELL|' "$f" || die "$f holds no comparison (no CELL lines)"
done
srcver=$(cat "$XATTRNS_CACHE/linux-source.version" 2>/dev/null || echo unknown)
qemuver=$(dpkg-query -W -f '${Version}' qemu-system-common 2>/dev/null || echo unknown)
rc=0
awk -v srcver="$srcver" -v qemuver="$qemuver" -v stamp="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-f "$REPO/scripts/report/compare.awk" "$1" "$2" || rc=$?
# the same designs through the real virtiofsd (tools/vhostfs)
awk -v mode=render -f "$REPO/scripts/report/clients.awk" "$1" "$2" || rc=$?
exit $rc
