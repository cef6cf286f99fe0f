#!/bin/bash
# build-kernel.sh stock|patched: configure (tinyconfig + scripts/kernel.config)
# and build one kernel in <tree>/_build, with ccache. Skips the build when its
# inputs (the tree's commit and edits, the fragment) did not change.
. "$(dirname "$0")/lib.sh"

name=${1:?usage: build-kernel.sh stock|patched}
tree=$(tree_of "$name")
[ -d "$tree" ] || die "no kernel tree at $tree (run scripts/prepare-tree.sh)"
lock
need_build_tools
bdir=$tree/_build
frag=$REPO/scripts/kernel.config
mkdir -p "$bdir"
kmake() { make -C "$tree" O=_build CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"; }

# The inputs: the source (commit plus uncommitted edits to tracked files)
# and the config fragment.
stamp=$( {
	git -C "$tree" rev-parse HEAD
	git -C "$tree" diff HEAD
	cat "$frag"
	echo "${XATTRNS_KMAKE_EXTRA:-}"
} | sha256sum | cut -d' ' -f1)
if [ -f "$bdir/arch/x86/boot/bzImage" ] && [ "$(cat "$bdir/.xattrns-stamp" 2>/dev/null)" = "$stamp" ]; then
	log "$name kernel is up to date"
	exit 0
fi

start=$(now)
fraghash=$(sha256sum "$frag" | cut -d' ' -f1)
if [ ! -f "$bdir/.config" ] || [ "$(cat "$bdir/.xattrns-config" 2>/dev/null)" != "$fraghash" ]; then
	log "$name: configuring (tinyconfig + scripts/kernel.config)"
	kmake -s tinyconfig >/dev/null
	(cd "$tree" && KCONFIG_CONFIG=_build/.config \
		scripts/kconfig/merge_config.sh -m -O _build _build/.config "$frag" >/dev/null)
	kmake -s olddefconfig >/dev/null
	# Every option of the fragment must have survived: a typo or an unmet
	# dependency silently drops it otherwise.
	bad=0
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		grep -qx "$line" "$bdir/.config" || { warn "$name: $line did not stick"; bad=1; }
	done <"$frag"
	[ "$bad" = 0 ] || die "kernel config: fix scripts/kernel.config (see warnings above)"
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
if ! kmake ${XATTRNS_KMAKE_EXTRA:-} bzImage >"$bdir/build.log" 2>&1; then
	kill $ticker 2>/dev/null || true
	grep -E 'error|Error' "$bdir/build.log" | head -n 30 >&2 || true
	tail -n 20 "$bdir/build.log" >&2
	die "$name kernel build failed (full log: $bdir/build.log)"
fi
kill $ticker 2>/dev/null || true
if grep -q 'warning:' "$bdir/build.log"; then
	warn "$name: compiler warnings (see $bdir/build.log):"
	grep 'warning:' "$bdir/build.log" | head -n 10 >&2
fi
echo "$stamp" >"$bdir/.xattrns-stamp"
phase_end "$name kernel build" "$start"
