#!/bin/bash
# export-patches.sh: write the commits of the kernel tree's "patched" branch
# (on top of the pristine source) into patches/ as git format-patch files,
# and patches/series in order. The tree stays as it is.
. "$(dirname "$0")/lib.sh"

lock
cd "$XATTRNS_KTREE" 2>/dev/null || die "no kernel tree at $XATTRNS_KTREE"
[ "$(git symbolic-ref --short -q HEAD)" = patched ] ||
	die "the kernel tree is not on its 'patched' branch"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "the kernel tree has uncommitted edits: commit them first"
base=$(git rev-list --max-parents=0 HEAD)
n=$(git rev-list --count "$base..HEAD")
rm -f "$REPO"/patches/*.patch
git format-patch -q --no-signature --zero-commit -N -o "$REPO/patches" "$base..HEAD" >/dev/null
{
	echo "# The kernel series, in the order git am applies it (scripts/prepare-tree.sh)."
	(cd "$REPO/patches" && ls -1 -- *.patch 2>/dev/null || true)
} >"$REPO/patches/series"
cat "$XATTRNS_CACHE/linux-source.version" >"$REPO/patches/base-version"
# Record the export as applied, so the next run keeps the tree as it is.
want=$(grep -v '^[[:space:]]*\(#\|$\)' "$REPO/patches/series" | while read -r p; do
	echo "$p"
	cat "$REPO/patches/$p"
done | sha256sum | cut -d' ' -f1)
printf '%s\n%s\n' "$want" "$(git rev-parse HEAD)" >.git/xattrns-applied
log "exported $n patch(es) into patches/"
