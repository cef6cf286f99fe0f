#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh [--target TARGET] [--mutate] [KERNEL...]: the whole test job (make check,
# check-debug, fuzz-debug). Checks the harness itself, prepares the trees,
# builds the kernels (each only when its inputs changed) and the initramfs,
# runs the static checks and the host unit tests, boots each kernel in QEMU
# (in parallel) to run the kselftests, then boots the comparison (stock and
# patched-off, in parallel) and checks it against design/comparison.expected.
# Each tier ends with a line "NAME: N passed, N failed, N skipped" and an
# exit status; the last line is the total, and the exit status is non-zero
# when any tier failed (scripts/report/tally.awk).
. "$(dirname "$0")/lib.sh"

target=check
mutate=0
while [ $# -gt 0 ]; do
	case $1 in
	--target)
		target=${2:?--target needs a make target}
		shift 2
		;;
	--mutate)	# the mutations tier (CI; XATTRNS_CHECK_MUTATE=1 make check)
		mutate=1
		shift
		;;
	-*) die "usage: check.sh [--target TARGET] [--mutate] [KERNEL...] (unknown option $1)" ;;
	*) break ;;
	esac
done
# guests (lib/guests.sh: guest_kernel, guest_switches): the patched kernel with its
# switches on, and with them off until its last kselftest takes the step
kernels=${*:-stock patched patched-off}
export XATTRNS_FUZZ_SECONDS=${XATTRNS_FUZZ_SECONDS:-$(fuzz_seconds_default "$target")}
export XATTRNS_FUZZ_STEPS=${XATTRNS_FUZZ_STEPS:-$(fuzz_steps_default "$target")}
# Every skip a tier may report (scripts/report/ktap.awk fails any other).
# A run of only some kselftests, some mutations or another vCPU count
# cannot meet the pinned counts: it says so (boot.sh --partial), and CI
# refuses it.
skips=$REPO/scripts/report/skips.expected
partial=""
[ -z "${XATTRNS_TESTS:-}" ] || partial="$partial XATTRNS_TESTS=$XATTRNS_TESTS"
[ -z "${XATTRNS_CPUS:-}" ] || partial="$partial XATTRNS_CPUS=$XATTRNS_CPUS"
[ -z "${MUTATIONS:-}" ] || partial="$partial MUTATIONS=$MUTATIONS"
pin=(--skips "$skips")
if [ -n "$partial" ]; then
	case ${CI:-} in true | 1) die "CI runs the whole suite: unset$partial" ;; esac
	pin+=(--partial)
fi
total_start=$(now)
# the lock first: another run in the same cache must not lose its results
lock
mkdir -p "$OUT"
rm -f "$OUT"/result-*.txt
tiers=""

# tier NAME CMD...: run one tier in a subshell (a die() in it ends the
# tier, not make check), its standard output (ending with its summary
# line) into $OUT/result-NAME.txt, its exit status appended.
tier() {
	local name=$1 rc=0
	shift
	case " $tiers " in *" $name "*) ;; *) tiers="$tiers $name" ;; esac
	("$@") >"$OUT/result-$name.txt" || rc=$?
	echo "XATTRNS-RC $name=$rc" >>"$OUT/result-$name.txt"
	return "$rc"
}
# summary NAME RC: the summary line of a tier that is one check
summary() {
	if [ "$2" = 0 ]; then
		echo "$1: 1 passed, 0 failed, 0 skipped"
	else
		echo "$1: 0 passed, 1 failed, 0 skipped"
	fi
	return "$2"
}
# finish: print every tier's result (its summary and what failed) and the
# total; exit with the total's status
finish() {
	local k files=""
	for k in $tiers; do
		files="$files $OUT/result-$k.txt"
		grep -v -e '^XATTRNS-RC ' -e '^ok [0-9]' -e '^TAP version' -e '^1\.\.[0-9]' \
			"$OUT/result-$k.txt" || true
	done
	phase_end "make $target" "$total_start"
	source_version
	[ -z "$partial" ] || echo "PARTIAL run ($partial ): the pinned skip counts were not held" >&2
	# shellcheck disable=SC2086
	if awk -f "$REPO/scripts/report/tally.awk" $files >"$OUT/tally.txt"; then
		cat "$OUT/tally.txt"
		exit 0
	fi
	echo "FAILED: see the lines above and $OUT/console-*.log" >&2
	cat "$OUT/tally.txt"
	exit 1
}

# 1. The harness's own parser and tally, on synthetic logs: if they are
# wrong, nothing after them can be trusted. After the packages it checks
# (gnuplot) are installed; its number of cases is pinned like a tier's
# (check-harness.sh reads the pin).
install_deps
t=$(now)
if ! tier harness "$REPO/scripts/host/check-harness.sh"; then
	grep '^not ok' "$OUT/result-harness.txt" >&2 || true
	echo "check-harness failed: the parser or the tally is broken; stopping" >&2
	finish
fi
phase_end "harness self-test" "$t"

# 2. Build: trees, kernels, initramfs.
t=$(now)
build_step() {
	local rc=0
	# (kernel names: one word each)
	# shellcheck disable=SC2046
	build_all $(for k in $kernels; do guest_kernel "$k"; done) >&2 || rc=$?
	summary build "$rc"
}
if ! tier build build_step; then
	echo "build: FAILED (see the errors above); no guest boots" >&2
	finish
fi
phase_end "build" "$t"

# 3. Static checks of the series (checkpatch, git apply, W=1 and sparse).
t=$(now)
static_step() {
	local rc=0
	"$REPO/scripts/host/static-checks.sh" >"$OUT/static.tap" || rc=$?
	cat "$OUT/static.tap"
	awk -v name=static -v guest=0 -v skips="$skips" -f "$REPO/scripts/report/ktap.awk" "$OUT/static.tap" || rc=1
	return "$rc"
}
tier static static_step || true

# 4. Host-side unit tests (the xattrmap rule engine), before any guest boots;
# a build error leaves no KTAP plan, which ktap.awk counts as a failure.
host_step() {
	local rc=0
	make -s -C "$REPO/tools/xattrd" OUT="$OUT" \
		HARNESS="$XATTRNS_KTREE/tools/testing/selftests" test >"$OUT/host-tests.log" 2>&1 || rc=$?
	awk -v name=host -v guest=0 -v skips="$skips" -f "$REPO/scripts/report/ktap.awk" "$OUT/host-tests.log" || rc=1
	return "$rc"
}
tier host host_step || true
phase_end "static checks and host tests" "$t"

# 5. The guests, in parallel; their progress on this terminal as it happens.
t=$(now)
pids=""
for k in $kernels; do
	tiers="$tiers $k"	# (tier runs in the background: name it here)
	tier "$k" "$REPO/scripts/host/boot.sh" "${pin[@]}" "$k" check 2>"$OUT/progress-$k.txt" &
	pids="$pids $!"
done
# (one word per file; XATTRNS_CACHE must not hold blanks)
# shellcheck disable=SC2046
tail -q -n +1 -F $(for k in $kernels; do echo "$OUT/progress-$k.txt"; done) 2>/dev/null &
tailpid=$!
for p in $pids; do
	wait "$p" || true
done
sleep 1
kill "$tailpid" 2>/dev/null || true
wait "$tailpid" 2>/dev/null || true
phase_end "guest runs" "$t"

# 6. The comparison the guests ran must hold the cells of
# design/comparison.expected, as must the committed design/comparison.md and
# design/README.md's verdict table (scripts/host/comparison-verdicts.sh; versions and
# dates are no cells), and no ERROR cell (render-comparison.sh fails on one).
compare_step() {
	local rc=0
	# its own boots: patched-off, whose designs turn on their switches in
	# their order (boot_both)
	boot_both compare patched-off compare >"$OUT/progress-compare.txt" 2>&1 ||
		{ echo "comparison: ERROR: a comparison boot failed (consoles: $OUT/console-*-compare.log)"; rc=1; }
	if ! "$REPO/scripts/host/render-comparison.sh" "$OUT/console-stock-compare.log" \
		"$OUT/console-patched-compare.log" >"$OUT/comparison.md"; then
		echo "comparison: ERROR: the comparison did not measure every cell (see above)"
		rc=1
	elif ! "$REPO/scripts/host/comparison-verdicts.sh" check "$OUT/comparison.md"; then
		rc=1
	fi
	summary comparison "$rc"
}
t=$(now)
case " $kernels " in *" stock "*)
	case " $kernels " in *" patched "*) tier comparison compare_step || true ;; esac ;;
esac
phase_end "comparison runs" "$t"

# 7. In every guest, the real virtiofsd (tools/vhostfs) must agree with
# xattrd cell by cell: xattrd is the fast model, the daemon the referee.
clients_step() {
	local rc=0 k
	for k in stock patched; do
		awk -v mode=check -f "$REPO/scripts/report/clients.awk" "$OUT/console-$k-compare.log" || rc=1
	done
	summary clients "$rc"
}
case " $kernels " in *" stock "*)
	case " $kernels " in *" patched "*) tier clients clients_step || true ;; esac ;;
esac

# 8. --mutate (CI=true, XATTRNS_CHECK_MUTATE=1 make check): each mutation of make mutate
# must fail the tests it names (scripts/host/mutate.sh; design/mutations.md
# is left as it is)
if [ "$mutate" = 1 ]; then
	t=$(now)
	tier mutate "$REPO/scripts/host/mutate.sh" --no-write || true
	phase_end "mutations" "$t"
fi

finish
