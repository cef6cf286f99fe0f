#!/bin/bash
# compare.sh: the main job (make run). Build both kernels, boot each in
# QEMU with the comparison of the designs (tools/xattrd), print the table
# and write design/comparison.md.
. "$(dirname "$0")/lib.sh"

total_start=$(now)
lock
"$REPO/scripts/prepare-tree.sh"
"$REPO/scripts/build-kernel.sh" stock
"$REPO/scripts/build-kernel.sh" patched
"$REPO/scripts/mkinitramfs.sh"

t=$(now)
pids=""
for k in stock patched; do
	"$REPO/scripts/boot.sh" "$k" compare 2>&1 &
	pids="$pids $!"
done
rc=0
for p in $pids; do
	wait "$p" || rc=1
done
phase_end "guest runs" "$t"
[ "$rc" = 0 ] || die "a comparison run failed (consoles: $OUT/console-*.log)"

"$REPO/scripts/render-comparison.sh" "$OUT/console-stock.log" "$OUT/console-patched.log" \
	>"$OUT/comparison.md"
cp "$OUT/comparison.md" "$REPO/design/comparison.md"
echo
sed -n '/^| |/,/^$/p' "$OUT/comparison.md"
log "wrote design/comparison.md"
phase_end "make run" "$total_start"
