#!/bin/bash
# render-comparison.sh STOCK_LOG PATCHED_LOG: design/comparison.md, on
# standard output, from the CELL lines of the two guests' consoles.
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: render-comparison.sh console-stock.log console-patched.log"
for f in "$@"; do
	grep -q '^CELL|' "$f" || die "$f holds no comparison (no CELL lines)"
done
srcver=$(cat "$XATTRNS_CACHE/linux-source.version" 2>/dev/null || echo unknown)
awk -v srcver="$srcver" -v stamp="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-f "$REPO/scripts/compare.awk" "$1" "$2"
