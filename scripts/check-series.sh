#!/bin/bash
# check-series.sh: the series, patch by patch, the way a reviewer checks it:
# checkpatch --strict on each patch, then each prefix of the series applied
# with git am to the pristine tree must build (bisectability), and the
# touched .c files must build with W=1 and sparse (C=1) without warnings
# that the pristine files do not have. Works in its own worktree
# ($XATTRNS_CACHE/linux-series) so the kernels of make check are not touched.
# Touched files that the test kernels' config does not build (f2fs) are
# compiled in a second build directory with the options of
# scripts/kernel-extra.config turned on.
. "$(dirname "$0")/lib.sh"

install_deps
lock
# the patched kernel's config, and the initramfs the series' guests start from
build_all patched
start=$(now)
wt=$XATTRNS_CACHE/linux-series
series=$(series_patches)
[ -n "$series" ] || { log "patches/series is empty: nothing to check"; exit 0; }
if [ ! -e "$wt/.git" ]; then
	git -C "$XATTRNS_KTREE" worktree prune
	git -C "$XATTRNS_KTREE" worktree add -q --detach "$wt" pristine
fi
cd "$wt"
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
extra=$REPO/scripts/kernel-extra.config
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

# series_guest SERIES: the kernel and the selftests of the tree as they are
# (series A's end, or B's), booted in QEMU: run_kselftest.sh with none of
# our init's environment and no test disk (the tests make loop images)
series_guest() {
	local s=$1 ks=$OUT/series-$1-kselftest root=$OUT/series-$1.d
	log "series $s: its selftests in a guest, as anybody runs them"
	make -C "$wt" O=_build -s headers >/dev/null
	rm -rf "$ks" "$root"
	if ! make -C "$wt/tools/testing/selftests" TARGETS=filesystems/xattr \
		KHDR_INCLUDES="-isystem $wt/_build/usr/include" LDFLAGS=-static \
		INSTALL_PATH="$ks" install >"$OUT/series-$s-kselftest.log" 2>&1; then
		tail -n 20 "$OUT/series-$s-kselftest.log" >&2
		warn "series $s: its selftests do not build"
		fail=1
		return
	fi
	cp -a "$OUT/initramfs.d" "$root"
	rm -rf "$root/kselftest"
	cp -a "$ks" "$root/kselftest"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$OUT/series-$s.cpio.gz"
	cp "$wt/_build/arch/x86/boot/bzImage" "$OUT/series-$s.bzImage"
	if ! XATTRNS_KIMAGE=$OUT/series-$s.bzImage XATTRNS_INITRD=$OUT/series-$s.cpio.gz \
		XATTRNS_LOG_SUFFIX=-series-$s "$REPO/scripts/boot.sh" patched standalone; then
		warn "series $s: its selftests fail in the guest (console: $OUT/console-patched-series-$s.log)"
		fail=1
	fi
}

fail=0
n=0
prev=""
for p in $series; do
	# series A ended with the patch before the first of B: test it alone
	case $prev:$p in A/*:B/*) series_guest A ;; esac
	prev=$p
	n=$((n + 1))
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
		# files this config builds, and the others (the extra config's)
		if [ -f "$XATTRNS_KTREE/_build/${f%.c}.o" ]; then
			objs="$objs ${f%.c}.o"
		else
			xobjs="$xobjs ${f%.c}.o"
		fi
	done
	before=$(w1 _build $objs; w1 _build-extra $xobjs)
	git am -q --keep-cr "$REPO/patches/$p" || die "$p does not apply"
	if ! kmake -s bzImage >"$OUT/series-build.log" 2>&1; then
		tail -n 20 "$OUT/series-build.log" >&2
		warn "the series does not build after $p"
		fail=1
		break
	fi
	for o in $xobjs; do
		if ! kmake_extra -s "$o" >"$OUT/series-build.log" 2>&1; then
			tail -n 20 "$OUT/series-build.log" >&2
			warn "$o does not build after $p (scripts/kernel-extra.config)"
			fail=1
		else
			log "    $o (not in the test kernels) compiles"
		fi
	done
	after=$(w1 _build $objs; w1 _build-extra $xobjs)
	new=$(comm -13 <(echo "$before") <(echo "$after"))
	if [ -n "$new" ]; then
		echo "$new" | sed 's/^/    /' >&2
		warn "new W=1/sparse warnings after $p"
		fail=1
	fi
done
[ "$fail" = 0 ] && series_guest B
phase_end "series check ($n patches)" "$start"
[ "$fail" = 0 ] || die "series check failed"
log "series check: $n patches, each checkpatch-clean, building, no new W=1/sparse warnings"
