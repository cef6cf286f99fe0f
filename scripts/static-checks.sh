#!/bin/bash
# static-checks.sh: the fast static checks of make check, before any guest
# boots: checkpatch --strict on every patch of the series, the whole series
# applied with git apply to the pristine commit (in a scratch index, no
# checkout), and W=1 + sparse on the .c files the series touches, in the
# patched build, with no warning that the same file in the stock build
# does not have. (make check-series builds each patch on its own.)
. "$(dirname "$0")/lib.sh"

need sparse:sparse /usr/lib/python3/dist-packages/ply:python3-ply \
	/usr/lib/python3/dist-packages/git:python3-git
lock
start=$(now)
series=$(grep -v '^[[:space:]]*\(#\|$\)' "$REPO/patches/series" || true)
[ -n "$series" ] || { log "static checks: no patches"; exit 0; }
fail=0

for p in $series; do
	if ! "$XATTRNS_KTREE/scripts/checkpatch.pl" --strict -q "$REPO/patches/$p" \
		>"$OUT/checkpatch.log" 2>&1; then
		sed 's/^/    /' "$OUT/checkpatch.log" >&2
		warn "checkpatch --strict: $p"
		fail=1
	fi
done

idx=$(mktemp "$OUT/index.XXXXXX")
trap 'rm -f "$idx"' EXIT
GIT_INDEX_FILE=$idx git -C "$XATTRNS_KTREE" read-tree pristine
for p in $series; do
	if ! GIT_INDEX_FILE=$idx git -C "$XATTRNS_KTREE" apply --cached "$REPO/patches/$p" 2>"$OUT/apply.log"; then
		sed 's/^/    /' "$OUT/apply.log" >&2
		warn "$p does not apply to the pristine tree after the patches before it"
		fail=1
		break
	fi
done

# W=1 and sparse on the touched files that this config builds
files=$(cat $(for p in $series; do echo "$REPO/patches/$p"; done) |
	sed -n 's|^+++ b/\(.*\.c\)$|\1|p' | sort -u)
w1() { # tree object
	rm -f "$1/_build/$2"
	make -C "$1" O=_build CC="ccache gcc" -s W=1 C=1 "$2" 2>&1 |
		grep -E 'warning|error' | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort || true
}
for f in $files; do
	o=${f%.c}.o
	[ -f "$XATTRNS_KTREE/_build/$o" ] || continue
	new=$(comm -13 <(w1 "$STOCK_TREE" "$o") <(w1 "$XATTRNS_KTREE" "$o"))
	if [ -n "$new" ]; then
		echo "$new" | sed 's/^/    /' >&2
		warn "new W=1/sparse warnings in $f"
		fail=1
	fi
done
phase_end "static checks" "$start"
[ "$fail" = 0 ] || die "static checks failed"
log "static checks: $(echo $series | wc -w) patches checkpatch-clean, applying in order, no new W=1/sparse warnings"
