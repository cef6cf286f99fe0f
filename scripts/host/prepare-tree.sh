#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel trees from Debian's linux-source-6.12 package:
#   $XATTRNS_KTREE  git repository; commit 1 = pristine source (tag
#                   "pristine"), branch "patched" = pristine + patches/series
#   linux-stock     a worktree of the same repository at the pristine tag
# Both live outside the repository, under $XATTRNS_CACHE.
#
# The patched branch is rebuilt from patches/ whenever patches/ changed since
# it was last applied or exported; commits made in the tree itself (the way
# to work on the kernel, see README) are kept until patches/ changes under them.
. "$(dirname "$0")/lib.sh"

lock
check_deps
mkdir -p "$XATTRNS_CACHE"

pkgver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null) ||
	die "$SRC_PKG is not installed (apt-get install $SRC_PKG)"
[ -f "$SRC_TARBALL" ] || die "no kernel source at $SRC_TARBALL (reinstall $SRC_PKG)"
verfile=$XATTRNS_CACHE/linux-source.version
basefile=$REPO/patches/base-version

if [ ! -d "$XATTRNS_KTREE/.git" ]; then
	start=$(now)
	log "extracting $SRC_TARBALL ($SRC_PKG $pkgver) into $XATTRNS_KTREE"
	tmp=$XATTRNS_CACHE/extract.$$
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -C "$tmp" -xf "$SRC_TARBALL"
	src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -f "$src/Makefile" ] || die "unexpected tarball layout in $SRC_TARBALL"
	# Debian's packaging lines ignore every top-level path; drop them so
	# the tree behaves like an upstream checkout.
	# They are the last six lines: a blank line, a comment block, /* and !/debian/.
	if [ "$(tail -n 2 "$src/.gitignore" | head -n 1)" = '/*' ]; then
		head -n -6 "$src/.gitignore" >"$src/.gitignore.new"
		mv "$src/.gitignore.new" "$src/.gitignore"
	fi
	grep -q '^/\*$' "$src/.gitignore" && die "could not drop Debian's '/*' line from .gitignore"
	rm -rf "$XATTRNS_KTREE" "$STOCK_TREE"
	mv "$src" "$XATTRNS_KTREE"
	rmdir "$tmp"
	cd "$XATTRNS_KTREE" || die "cannot enter $XATTRNS_KTREE"
	git init -q -b pristine
	# Commits made here use your git identity; a machine without one gets
	# a local placeholder so that the pristine commit and git am work.
	git config user.name >/dev/null || git config user.name xattrns
	git config user.email >/dev/null || git config user.email xattrns@localhost
	git config gc.auto 0
	log "committing the pristine source (about a minute)"
	git add -A
	git update-ref refs/heads/pristine "$(pristine_commit "$(git write-tree)" "$pkgver")"
	tag=pristine-$(printf '%s' "$pkgver" | tr '~:' '__')
	git tag "$tag"
	printf '_build/\n_build-debug/\n/tools/testing/selftests/filesystems/xattr/\n' >>.git/info/exclude
	echo "$pkgver" >"$verfile"
	phase_end "tree preparation" "$start"
fi

cd "$XATTRNS_KTREE" || die "cannot enter $XATTRNS_KTREE"
treever=$(cat "$verfile" 2>/dev/null || echo unknown)
if [ "$treever" != "$pkgver" ]; then
	warn "$SRC_PKG is now $pkgver but $XATTRNS_KTREE was made from $treever;"
	warn "the trees keep $treever. To move: rm -rf $XATTRNS_KTREE $STOCK_TREE (after exporting your work)"
fi
if [ -f "$basefile" ] && [ "$(cat "$basefile")" != "$treever" ]; then
	warn "patches/ were made against $(cat "$basefile"), the tree is $treever"
fi

if [ ! -e "$STOCK_TREE/.git" ]; then
	new_worktree "$STOCK_TREE" pristine
fi

# What was applied: series_hash (lib/trees.sh) and the commit it gave.
state=$XATTRNS_KTREE/.git/xattrns-applied
want=$(series_hash)
have_hash=$(sed -n 1p "$state" 2>/dev/null || true)
have_head=$(sed -n 2p "$state" 2>/dev/null || true)
head=$(git rev-parse HEAD)
branch=$(git symbolic-ref --short -q HEAD || echo detached)

if [ "$want" = "$have_hash" ] && [ "$branch" = patched ]; then
	if [ "$head" != "$have_head" ]; then
		n=$(git rev-list --count "$have_head..HEAD" 2>/dev/null || echo some)
		log "kernel tree has $n commit(s) not in patches/ (export them with: make export)"
	fi
	exit 0
fi

if [ "$branch" = patched ] && [ -n "$have_head" ] && [ "$head" != "$have_head" ] &&
	[ -z "${XATTRNS_RESET:-}" ]; then
	die "patches/ changed, and the kernel tree has commits made since the series was last applied.
       Export them first (make export), or discard them: XATTRNS_RESET=1 make ..."
fi
if [ -n "$(tree_dirty .)" ]; then
	[ -n "${XATTRNS_RESET:-}" ] ||
		die "patches/ changed, and $XATTRNS_KTREE has uncommitted edits; commit and export them, or XATTRNS_RESET=1"
	git reset -q --hard
fi
# Apply the series in a scratch worktree, then move the tree to the result:
# only the files that differ are rewritten, so a change of the selftest
# patches alone rebuilds no kernel object.
scratch=$XATTRNS_CACHE/linux-apply
new_worktree "$scratch" pristine
count=0
series_a=""
for p in $(series_patches); do
	[ -f "$REPO/patches/$p" ] || die "patches/series names $p, which does not exist"
	# series A ends where series B begins (make export needs the tag)
	case $p in B/*) [ -n "$series_a" ] || series_a=$(git -C "$scratch" rev-parse HEAD) ;; esac
	if ! git -C "$scratch" am -q --keep-cr "$REPO/patches/$p" >"$XATTRNS_CACHE/am.log" 2>&1; then
		sed 's/^/    /' "$XATTRNS_CACHE/am.log" >&2
		git -C "$scratch" am --abort >/dev/null 2>&1 || true
		rm -f "$state"
		die "patch patches/$p does not apply to $treever"
	fi
	count=$((count + 1))
done
new=$(git -C "$scratch" rev-parse HEAD)
git worktree remove --force "$scratch"
git am --abort >/dev/null 2>&1 || true
# the selftests there are mkinitramfs.sh's copy of the repository's
git checkout -q -- tools/testing/selftests/filesystems/xattr 2>/dev/null || true
git checkout -q -B patched "$new"
git tag -f series-a "${series_a:-$new}" >/dev/null
printf '%s\n%s\n' "$want" "$(git rev-parse HEAD)" >"$state"
log "patched tree: $count patch(es) from patches/series applied on $treever"
