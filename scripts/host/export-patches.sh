#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export-patches.sh: make export. Write the two series of the kernel tree's
# "patched" branch into patches/A and patches/B as git format-patch files,
# each with its cover letter, and patches/series (the order git am applies
# them, cover letters left out).
#
#   patched = pristine, series A's kernel commits (up to the tag series-a),
#             series B's kernel commits
#
# The selftests are not taken from the tree: each series ends with a
# selftest patch made here from this repository's selftests/ (the one
# source), A's with its files (selftest_files A), B's with the rest; a
# commit of the tree that only touches tools/testing/selftests, or whose
# subject starts "selftests/", is left out.
# Each cover letter's subject and text come from patches/{A,B}/cover.txt
# (first line the subject); format-patch adds the shortlog, the diffstat,
# the base-commit: line and, for B, series A's patch ids as its
# prerequisite-patch-id: lines. The subjects read [PATCH $SERIES_VERSION n/m].
# The tree stays as it is.
. "$(dirname "$0")/lib.sh"

lock
cd "$XATTRNS_KTREE" 2>/dev/null || die "no kernel tree at $XATTRNS_KTREE"
[ "$(git symbolic-ref --short -q HEAD)" = patched ] ||
	die "the kernel tree is not on its 'patched' branch"
[ -z "$(tree_dirty .)" ] ||
	die "the kernel tree has uncommitted edits: commit them first"
git rev-parse -q --verify series-a >/dev/null ||
	die "no tag series-a in the kernel tree: tag series A's last commit (git tag series-a COMMIT)"
git merge-base --is-ancestor series-a patched ||
	die "series-a is not on the patched branch"

# A scratch worktree: the kernel commits, then each series' selftest patch.
# The base: the pristine source as the commit every machine makes of it
# (pristine_commit), which the patches' base-commit: line names.
base=$(pristine_commit "$(git rev-parse 'pristine^{tree}')" "$(cat "$XATTRNS_CACHE/linux-source.version")") ||
	die "cannot make the base commit"
wt=$XATTRNS_CACHE/linux-export
new_worktree "$wt" "$base"
trap 'git -C "$XATTRNS_KTREE" worktree remove --force "$wt" 2>/dev/null || true' EXIT
kernel_commits() { # RANGE: the commits that touch more than the selftests
	local c
	for c in $(git rev-list --reverse "$1"); do
		# a tree made by prepare-tree.sh holds the selftest patches too,
		# which also add a TARGETS and a MAINTAINERS line
		case $(git log -1 --format=%s "$c") in selftests/*) continue ;; esac
		git diff-tree --no-commit-id --name-only -r "$c" |
			grep -qv '^tools/testing/selftests/' && echo "$c"
	done
	return 0
}
add_selftests() { # SERIES: commit its selftest patch in the scratch tree
	local f dst=tools/testing/selftests/filesystems/xattr
	mkdir -p "$wt/$dst"
	for f in $(selftest_files "$1"); do
		selftest_file "$1" "$f" >"$wt/$dst/$f"
	done
	if [ "$1" = A ] && ! grep -q '^TARGETS += filesystems/xattr$' "$wt/tools/testing/selftests/Makefile"; then
		sed -i 's|^TARGETS += filesystems/statmount$|&\nTARGETS += filesystems/xattr|' \
			"$wt/tools/testing/selftests/Makefile"
		grep -q '^TARGETS += filesystems/xattr$' "$wt/tools/testing/selftests/Makefile" ||
			die "could not add filesystems/xattr to the selftests' TARGETS"
	fi
	# the new directory belongs to the VFS entry, like the files it tests
	if [ "$1" = A ] && ! grep -q "^F:	$dst/\$" "$wt/MAINTAINERS"; then
		awk -v f="F:	$dst/" '
			/^FILESYSTEMS \(VFS and infrastructure\)$/ { vfs = 1 }
			vfs && /^$/ { print f; vfs = 0 }
			{ print }' "$wt/MAINTAINERS" >"$wt/MAINTAINERS.new" &&
			mv "$wt/MAINTAINERS.new" "$wt/MAINTAINERS"
		grep -q "^F:	$dst/\$" "$wt/MAINTAINERS" ||
			die "could not add $dst/ to MAINTAINERS"
		git -C "$wt" add MAINTAINERS
	fi
	git -C "$wt" add -A -f tools/testing/selftests
	git -C "$wt" commit -q -F "$REPO/patches/$1/selftests.msg"
}
cover() { # SERIES DIR: fill the cover letter's subject and text
	local c=$2/0000-cover-letter.patch txt=$REPO/patches/$1/cover.txt
	[ -f "$txt" ] || die "no $txt"
	awk -v subject="$(head -n 1 "$txt")" -v body="$txt" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			n = 0
			while ((getline line < body) > 0)
				if (n++)
					print line
			next
		}
		{ print }' "$c" >"$c.new"
	mv "$c.new" "$c"
	grep -q '^base-commit: ' "$c" || die "$c has no base-commit: line"
}

rm -f "$REPO"/patches/A/*.patch "$REPO"/patches/B/*.patch "$REPO"/patches/*.patch
for s in A B; do
	case $s in
	A) range="pristine..series-a" ;;
	B) range="series-a..patched" ;;
	esac
	start=$(git -C "$wt" rev-parse HEAD)
	for c in $(kernel_commits "$range"); do
		git -C "$wt" cherry-pick --allow-empty -x >/dev/null 2>&1 "$c" ||
			die "commit $c does not cherry-pick onto the export tree"
		# no "(cherry picked from ...)" line in the patches
		git -C "$wt" commit -q --amend -m "$(git log -1 --format=%B "$c")"
	done
	add_selftests "$s"
	mkdir -p "$REPO/patches/$s"
	git -C "$wt" format-patch -q --no-signature --zero-commit --cover-letter \
		--subject-prefix="PATCH $SERIES_VERSION" --base="$base" \
		-o "$REPO/patches/$s" "$start..HEAD" >/dev/null
	cover "$s" "$REPO/patches/$s"
done
{
	echo "# The two kernel series, in the order git am applies them (scripts/host/prepare-tree.sh):"
	echo "# A (user.* on special files), then B (trusted.* in user namespaces), which applies on A."
	for s in A B; do
		for p in "$REPO/patches/$s"/*.patch; do
			case $p in */0000-cover-letter.patch) ;; *) echo "$s/${p##*/}" ;; esac
		done
	done
} >"$REPO/patches/series"
cat "$XATTRNS_CACHE/linux-source.version" >"$REPO/patches/base-version"
# Record the export as applied, so the next run keeps the tree as it is.
# (The tree holds the kernel commits; its selftests are synced from the
# repository by mkinitramfs.sh.)
printf '%s\n%s\n' "$(series_hash)" "$(git rev-parse HEAD)" >.git/xattrns-applied
count() { echo $#; }
log "exported series A ($(count "$REPO"/patches/A/*.patch) files) and B ($(count "$REPO"/patches/B/*.patch) files) into patches/"
