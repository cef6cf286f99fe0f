#!/bin/bash
# compare.sh: the main job (make run). Build both kernels, boot each in
# QEMU with the comparison of the designs (tools/xattrd), print the table
# and write design/comparison.md. A comparison with a cell that holds no
# measurement (ERROR) or that a guest did not finish is printed but never
# written, and the run fails.
. "$(dirname "$0")/lib.sh"

total_start=$(now)
install_deps
build_all

t=$(now)
rc=0
boot_both compare || rc=1
phase_end "guest runs" "$t"

render_rc=0
"$REPO/scripts/render-comparison.sh" "$OUT/console-stock.log" "$OUT/console-patched.log" \
	>"$OUT/comparison.md" || render_rc=$?
# the real virtiofsd (tools/vhostfs) is the referee of xattrd
clients_rc=0
awk -v mode=check -f "$REPO/scripts/clients.awk" \
	"$OUT/console-stock.log" "$OUT/console-patched.log" || clients_rc=1
echo
sed -n '/^| |/,/^$/p' "$OUT/comparison.md"
[ "$rc" = 0 ] || die "a comparison run failed (consoles: $OUT/console-*.log); design/comparison.md left as it is"
[ "$render_rc" = 0 ] ||
	die "the comparison holds cells that are no measurement (see above); design/comparison.md left as it is"
if [ -f "$REPO/design/comparison.md" ] &&
	diff -q -I '^Generated' "$REPO/design/comparison.md" "$OUT/comparison.md" >/dev/null; then
	log "design/comparison.md: unchanged (same measurements), left as it is"
else
	cp "$OUT/comparison.md" "$REPO/design/comparison.md"
	log "wrote design/comparison.md: the measurements changed (commit it)"
fi
[ "$clients_rc" = 0 ] ||
	die "the real virtiofsd and xattrd disagree (above; design/comparison.md marks the cells)"
phase_end "make run" "$total_start"
