#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-kernel.sh stock|patched|debug: configure (tinyconfig +
# scripts/config/kernel.config, + scripts/config/kernel-debug.config for debug) and build
# one kernel in <tree>/_build (debug: <tree>/_build-debug), with ccache.
# Skips the build when its inputs (the tree's commit and edits, the
# fragments) did not change.
. "$(dirname "$0")/lib.sh"

name=${1:?usage: build-kernel.sh stock|patched|debug}
tree=$(tree_of "$name")
[ -d "$tree" ] || die "no kernel tree at $tree (run scripts/host/prepare-tree.sh)"
lock
check_deps
bdir=$(bdir_of "$name")
# the config fragments, one path per line (no blanks in them: lib.sh)
mapfile -t frags < <(frags_of "$name")
mkdir -p "$bdir"
kmake() { make -C "$tree" O="${bdir##*/}" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"; }

# The inputs: the source (the committed files, the selftests left out, plus
# uncommitted edits to tracked files) and the config fragment. (pipefail: a
# failing git fails the stamp, rather than hashing whatever it printed.)
stamp=$( {
	git -C "$tree" ls-tree -r HEAD | grep -v '	tools/testing/selftests/filesystems/xattr/'
	# shellcheck disable=SC2086
	git -C "$tree" diff HEAD -- $KTREE_PATHS
	cat "${frags[@]}"
} | sha256sum | cut -d' ' -f1) || die "cannot read the state of $tree (git or a config fragment failed)"
if [ -f "$bdir/arch/x86/boot/bzImage" ] && [ "$(cat "$bdir/.xattrns-stamp" 2>/dev/null)" = "$stamp" ]; then
	log "$name kernel is up to date"
	exit 0
fi

start=$(now)
fraghash=$(cat "${frags[@]}" | sha256sum | cut -d' ' -f1) || die "cannot read ${frags[*]}"
if [ ! -f "$bdir/.config" ] || [ "$(cat "$bdir/.xattrns-config" 2>/dev/null)" != "$fraghash" ]; then
	log "$name: configuring (tinyconfig +$(for f in "${frags[@]}"; do printf ' %s' "${f#"$REPO"/}"; done))"
	kmake -s tinyconfig >/dev/null
	(cd "$tree" && KCONFIG_CONFIG="${bdir##*/}/.config" \
		scripts/kconfig/merge_config.sh -m -O "${bdir##*/}" "${bdir##*/}/.config" "${frags[@]}" >/dev/null)
	kmake -s olddefconfig >/dev/null
	# Every option of the fragment must have survived: a typo or an unmet
	# dependency silently drops it otherwise.
	bad=0
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		grep -qx "$line" "$bdir/.config" || { warn "$name: $line did not stick"; bad=1; }
	done < <(cat "${frags[@]}")
	[ "$bad" = 0 ] || die "kernel config: fix$(for f in "${frags[@]}"; do printf ' %s' "${f#"$REPO"/}"; done) (see warnings above)"
	echo "$fraghash" >"$bdir/.xattrns-config"
fi

log "$name: building kernel (log: $bdir/build.log)"
# A progress line every 30 seconds while kbuild runs.
(
	while sleep 30; do
		printf '    %s: %s objects built so far\n' "$name" \
			"$(grep -c '^  CC ' "$bdir/build.log" 2>/dev/null || echo 0)" >&2
	done
) &
ticker=$!
trap 'kill $ticker 2>/dev/null || true' EXIT
if ! kmake bzImage >"$bdir/build.log" 2>&1; then
	kill $ticker 2>/dev/null || true
	grep -E 'error|Error' "$bdir/build.log" | head -n 30 >&2 || true
	tail -n 20 "$bdir/build.log" >&2
	die "$name kernel build failed (full log: $bdir/build.log)"
fi
kill $ticker 2>/dev/null || true
if grep -q 'warning:' "$bdir/build.log"; then
	warn "$name: compiler warnings (see $bdir/build.log):"
	grep 'warning:' "$bdir/build.log" | head -n 10 >&2 || true	# (head may close the pipe early)
fi
echo "$stamp" >"$bdir/.xattrns-stamp"
phase_end "$name kernel build" "$start"
