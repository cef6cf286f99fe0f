#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-comparison.sh: the main job (make run). Build both kernels, boot each in
# QEMU with the comparison of the designs (tools/xattrd, then the same
# designs through the real virtiofsd, tools/vhostfs), print the table and
# write design/comparison.md while its cells are design/comparison.expected's
# (scripts/host/comparison-verdicts.sh update). A changed cell is printed and refused
# unless ACCEPT=1 (make run ACCEPT=1); then the page, the expected file and
# design/README.md's verdict table are written. A comparison with a cell
# that holds no measurement (ERROR), that a guest did not finish, or on
# which the real virtiofsd and xattrd disagree is printed but never
# written, and the run fails.
. "$(dirname "$0")/lib.sh"

total_start=$(now)
install_deps
build_all

t=$(now)
rc=0
boot_both compare patched-off compare || rc=1
phase_end "guest runs" "$t"

logs=("$OUT/console-stock-compare.log" "$OUT/console-patched-compare.log")
render_rc=0
"$REPO/scripts/host/render-comparison.sh" "${logs[@]}" >"$OUT/comparison.md" || render_rc=$?
# the real virtiofsd (tools/vhostfs) is the referee of xattrd
clients_rc=0
awk -v mode=check -f "$REPO/scripts/report/clients.awk" "${logs[@]}" || clients_rc=1
echo
sed -n '/^| |/,/^$/p' "$OUT/comparison.md"
[ "$rc" = 0 ] || die "a comparison run failed (consoles: $OUT/console-*.log); design/ left as it is"
[ "$render_rc" = 0 ] ||
	die "the comparison holds cells that are no measurement (see above); design/ left as it is"
[ "$clients_rc" = 0 ] ||
	die "the real virtiofsd and xattrd disagree (above; $OUT/comparison.md marks the cells); design/ left as it is"
"$REPO/scripts/host/comparison-verdicts.sh" update "$OUT/comparison.md"
source_version >&2
phase_end "make run" "$total_start"
