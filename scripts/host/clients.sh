#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# clients.sh: make clients. Build both kernels, boot each in QEMU with the
# comparison (tools/xattrd, then the same designs through Debian's
# unmodified virtiofsd, driven by tools/vhostfs), print the real daemon's
# table, its time per design, and fail where it and xattrd disagree.
# (make run writes the table into design/comparison.md.)
. "$(dirname "$0")/lib.sh"

total_start=$(now)
install_deps
build_all

t=$(now)
boot_both compare patched-off compare || die "a comparison run failed (consoles: $OUT/console-*.log)"
phase_end "guest runs" "$t"

logs=("$OUT/console-stock-compare.log" "$OUT/console-patched-compare.log")
echo
awk -v mode=render -f "$REPO/scripts/report/clients.awk" "${logs[@]}" | sed -n '/^| |/,/^$/p'
for k in stock patched; do
	# VTIME|design|ms: one virtiofsd, from the tree's creation to its exit
	times=$(sed -n 's/\r$//; s/^VTIME|\([^|]*\)|\([0-9]*\)$/\1 \2 ms,/p' "$OUT/console-$k-compare.log" |
		tr '\n' ' ')
	echo "virtiofsd on $k: ${times%,*}"
done
awk -v mode=check -f "$REPO/scripts/report/clients.awk" "${logs[@]}" ||
	die "the real virtiofsd and xattrd disagree (see above)"
source_version >&2
phase_end "make clients" "$total_start"
