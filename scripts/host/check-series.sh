#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: the series, patch by patch, the way a reviewer checks it:
# checkpatch --strict on each patch, then each prefix of the series applied
# with git am to the pristine tree must build (bisectability), the touched
# .c files must build with W=1 and sparse (C=1) without warnings that the
# pristine files do not have, and the kernel of each prefix must pass the
# series' selftests in QEMU (bisectability in behaviour: a test of what a
# later patch adds SKIPs with its reason). Works in its own worktree
# ($XATTRNS_CACHE/linux-series) so the kernels of make check are not touched.
# Touched files that the test kernels' config does not build (f2fs) are
# compiled in a second build directory with the options of
# scripts/config/kernel-extra.config turned on.
# --from PATCH (make check-series FROM=B/0020-...): the patches before PATCH
# are applied unchecked, for a series whose earlier patches did not change
# since a whole run; the log says which were not checked.
. "$(dirname "$0")/lib.sh"

from=""
case ${1:-} in
--from)
	from=${2:?--from needs a patch of patches/series}
	shift 2
	;;
esac
[ $# = 0 ] || die "usage: check-series.sh [--from PATCH]"
# an empty series checks nothing, which must not read as a pass
series=$(series_patches)
[ -n "$series" ] || die "patches/series lists no patch: nothing to check (make export writes it)"
if [ -n "$from" ]; then
	echo "$series" | grep -qxF -- "$from" || die "--from $from: patches/series lists no such patch"
fi
install_deps
lock
# the patched kernel's config, and the initramfs the series' guests start from
build_all patched
start=$(now)
wt=$XATTRNS_CACHE/linux-series
if [ ! -e "$wt/.git" ]; then
	new_worktree "$wt" pristine
fi
cd "$wt" || die "cannot enter $wt"
git am --abort >/dev/null 2>&1 || true
git checkout -q --detach pristine
git reset -q --hard
kmake() { make -C "$wt" O=_build CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"; }
kmake_extra() { make -C "$wt" O=_build-extra CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"; }
if [ ! -f _build/.config ] || ! cmp -s _build/.config "$XATTRNS_KTREE/_build/.config"; then
	mkdir -p _build
	cp "$XATTRNS_KTREE/_build/.config" _build/.config
	kmake -s olddefconfig >/dev/null
fi
extra=$REPO/scripts/config/kernel-extra.config
if [ ! -f _build-extra/.config ] ||
	[ "$(cat _build-extra/.xattrns-config 2>/dev/null)" != "$(cat "$XATTRNS_KTREE/_build/.config" "$extra" | sha256sum)" ]; then
	mkdir -p _build-extra
	cp "$XATTRNS_KTREE/_build/.config" _build-extra/.config
	KCONFIG_CONFIG=_build-extra/.config scripts/kconfig/merge_config.sh -m \
		-O _build-extra _build-extra/.config "$extra" >/dev/null
	kmake_extra -s olddefconfig >/dev/null
	cat "$XATTRNS_KTREE/_build/.config" "$extra" | sha256sum >_build-extra/.xattrns-config
fi

# warnings of W=1 and sparse for the given objects (in build directory $1),
# locations stripped
w1() {
	local o b=$1
	shift
	for o in "$@"; do
		rm -f "$b/$o"
		make -C "$wt" O="$b" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" \
			-s W=1 C=1 "$o" 2>&1 | grep -E 'warning|error' |
			sed -E 's/:[0-9]+:[0-9]+:/:/' || true
	done | sort
}

# series_guest N PATCH: the kernel as it is after patch N, booted in QEMU
# with the series' selftests (built once from selftests/, with the rest of
# the initramfs, by build_all): run_kselftest.sh with none of our init's
# environment and no test disk (the tests make loop images), as anybody
# runs them in a kernel tree. Before the patch that adds a behaviour, its
# tests SKIP with the reason (no such sysctl) and every test of the
# behaviour that was already there must pass: the series bisects in
# behaviour, not only in build. Each skip must be pinned in
# scripts/report/skips.expected: for the stock or the patched kernel, or
# for the prefixes alone (tier "series").
series_guest() {
	local n=$1 p=$2 img=$OUT/series.bzImage
	cp "$wt/_build/arch/x86/boot/bzImage" "$img"
	if ! "$REPO/scripts/host/boot.sh" --kernel "$img" --tag " $n" \
		--console "$OUT/console-patched-series.log" patched standalone >"$OUT/series-guest.log" 2>&1; then
		grep -E 'not ok|FAIL|WARNING|BUG' "$OUT/series-guest.log" | head -n 20 | sed 's/^/    /' >&2
		warn "[$n] $p: the selftests fail on this patch's kernel (console: $OUT/console-patched-series.log)"
		fail=1
		cp "$OUT/console-patched-series.log" "$OUT/console-patched-series-$n.log" 2>/dev/null || true
		return
	fi
	# every skip must be one that make check pins for the stock or the
	# patched kernel (a prefix lies between them), or one that only a
	# prefix gives (tier "series"); the counts vary with the prefix and
	# are not held
	if ! awk -v name="series $n" -v pintiers=stock,patched,patched-off,series \
		-v skips="$REPO/scripts/report/skips.expected" -f "$REPO/scripts/report/ktap.awk" \
		"$OUT/console-patched-series.log" >"$OUT/series-pins.txt" 2>&1; then
		grep -E 'FAILED|ERROR' "$OUT/series-pins.txt" | head -n 20 | sed 's/^/    /' >&2
		warn "[$n] $p: a skip that scripts/report/skips.expected pins for neither kernel (console: $OUT/console-patched-series-$n.log)"
		fail=1
		cp "$OUT/console-patched-series.log" "$OUT/console-patched-series-$n.log" 2>/dev/null || true
		return
	fi
	log "    selftests: $(tally_of "$OUT/series-guest.log"), every skip pinned"
}

# the last "N passed, N failed, N skipped" line of a guest's run
tally_of() {
	grep -oE '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$1" | tail -n 1
}

fail=0
n=0
skipped=0
for p in $series; do
	n=$((n + 1))
	if [ -n "$from" ]; then
		if [ "$p" != "$from" ]; then
			git am -q --keep-cr "$REPO/patches/$p" || die "$p does not apply"
			skipped=$((skipped + 1))
			continue
		fi
		from=""
		log "[1-$((n - 1))] applied unchecked (--from)"
	fi
	log "[$n] $p"
	if ! checkpatch_patch "$wt" "$REPO/patches/$p" >"$OUT/checkpatch.log" 2>&1; then
		sed 's/^/    /' "$OUT/checkpatch.log" >&2
		warn "checkpatch --strict: $p"
		fail=1
	fi
	# (a patch may touch no .c file: grep finds nothing, which is fine)
	files=$({ grep -E '^\+\+\+ b/.*\.c$' "$REPO/patches/$p" || true; } | sed 's|^+++ b/||')
	objs="" xobjs=""
	for f in $files; do
		# the selftests are no kernel objects: series_guest builds and runs them
		case $f in tools/*) continue ;; esac
		# a file another one includes is built through that one
		inc=$(c_includer "$XATTRNS_KTREE" "$f")
		[ -z "$inc" ] || f=$inc
		# files this config builds, and the others (the extra config's)
		if [ -f "$XATTRNS_KTREE/_build/${f%.c}.o" ]; then
			case " $objs " in *" ${f%.c}.o "*) ;; *) objs="$objs ${f%.c}.o" ;; esac
		else
			case " $xobjs " in *" ${f%.c}.o "*) ;; *) xobjs="$xobjs ${f%.c}.o" ;; esac
		fi
	done
	# (lists of object paths: one word each)
	# shellcheck disable=SC2086
	before=$(w1 _build $objs; w1 _build-extra $xobjs)
	git am -q --keep-cr "$REPO/patches/$p" || die "$p does not apply"
	if ! kmake -s bzImage >"$OUT/series-build.log" 2>&1; then
		tail -n 20 "$OUT/series-build.log" >&2
		warn "the series does not build after $p"
		fail=1
		break
	fi
	# every file the patch adds has a maintainer (checkpatch's
	# FILE_PATH_CHANGES only asks whether MAINTAINERS was touched)
	while read -r f; do
		if [ -z "$(cd "$wt" && scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats -f "$f" 2>/dev/null | grep -v '^linux-kernel@')" ]; then
			warn "$p adds $f, which no MAINTAINERS entry covers"
			fail=1
		fi
	done < <(awk '/^diff --git / { f = $4; sub(/^b\//, "", f) } /^new file mode/ { print f }' "$REPO/patches/$p")
	for o in $xobjs; do
		if ! kmake_extra -s "$o" >"$OUT/series-build.log" 2>&1; then
			tail -n 20 "$OUT/series-build.log" >&2
			warn "$o does not build after $p (scripts/config/kernel-extra.config)"
			fail=1
		else
			log "    $o (not in the test kernels) compiles"
		fi
	done
	# shellcheck disable=SC2086
	after=$(w1 _build $objs; w1 _build-extra $xobjs)
	new=$(comm -13 <(echo "$before") <(echo "$after"))
	if [ -n "$new" ]; then
		echo "$new" | sed 's/^/    /' >&2
		warn "new W=1/sparse warnings after $p"
		fail=1
	fi
	series_guest "$n" "$p"
done
source_version >&2
phase_end "series check ($n patches)" "$start"
[ "$fail" = 0 ] || die "series check failed"
[ "$skipped" = 0 ] || log "series check: the first $skipped patches applied unchecked (--from)"
log "series check: $((n - skipped)) of $n patches, each checkpatch-clean, building, no new W=1/sparse warnings, its kernel passing the selftests"
