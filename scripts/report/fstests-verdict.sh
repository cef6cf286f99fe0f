#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fstests-verdict.sh RESULTS FSTESTS EXPECTED RUNS FSLIST TESTS: the table
# and the verdict of make fstests, from the guests' results (RESULTS/RUN/
# console.log with ./check's summary lines "[fs] Ran: ...", "[fs] Not run:
# ...", "[fs] Failures: ...", and RESULTS/RUN/xout/FS/TEST.out.bad), the
# built fstests (FSTESTS: the golden outputs tests/TEST.out) and the list of
# accepted differences (EXPECTED, scripts/report/fstests.expected).
# RUNS (blank-separated, the first is the baseline), FSLIST and TESTS
# (comma-separated). Fails closed: every test of every run on every
# filesystem must have a result; the baseline must pass or fail exactly as
# EXPECTED documents; every other run must match it but for EXPECTED's
# differences; a test that did not run fails unless EXPECTED pins it as
# not run ("RUN TEST FS notrun"), a pin that ran fails as stale; and a run
# with no test passed fails. Prints a line per run,
#     RUN: N passed, N failed, N failed as documented, N not run
# and exits 0 only when nothing failed. (make check-harness feeds it
# synthetic results.)
set -eu
[ $# = 6 ] || { echo "usage: $0 RESULTS FSTESTS EXPECTED RUNS FSLIST TESTS" >&2; exit 2; }
res=$1 fst=$2 expected=$3 runs=$4 fslist=$5 tests=$6
# EXPECTED names the documented diffs relative to the repository
repo=$(cd "$(dirname "$0")/../.." && pwd)
[ -r "$expected" ] || { echo "FAIL: cannot read $expected" >&2; exit 1; }

# status RUN FS TEST: pass, fail or notrun, from ./check's summary lines
# (Ran:, Not run:, Failures:) in the console log; missing when none names it
status() {
	awk -v fs="[$2]" -v t="$3" '
		{ sub(/\r$/, "") }
		$1 != fs { next }
		$2 == "Ran:" { for (i = 3; i <= NF; i++) if ($i == t) ran = 1 }
		$2 == "Not" && $3 == "run:" { for (i = 4; i <= NF; i++) if ($i == t) notrun = 1 }
		$2 == "Failures:" { for (i = 3; i <= NF; i++) if ($i == t) failed = 1 }
		END { print (failed ? "fail" : notrun ? "notrun" : ran ? "pass" : "missing") }
	' "$res/$1/console.log" 2>/dev/null || echo missing
}
# diff_of RUN FS TEST: the test's output against its golden output
diff_of() {
	diff -u "$fst/tests/$3.out" "$res/$1/xout/$2/$3.out.bad" |
		sed -e '1,2d' || true
}
# notrun_reason RUN FS TEST: what ./check said when it skipped TEST
notrun_reason() {
	awk -v fs="[$2]" -v t="$3" '{ sub(/\r$/, "") }
		$1 == fs && $2 == t && /\[not run\]/ { sub(/.*\[not run\] */, ""); print; exit }' \
		"$res/$1/console.log"
}
# pinned RUN FS TEST: EXPECTED's fourth field for it (a diff file, or notrun)
pinned() {
	awk -v r="$1" -v fs="$2" -v t="$3" \
		'$1 == r && $2 == t && ($3 == fs || $3 == "*") { print $4 }' "$expected"
}

fail=0
printf '%-12s %-6s' test fs
for r in $runs; do printf ' %-10s' "$r"; done
echo
for fs in ${fslist//,/ }; do
	for t in ${tests//,/ }; do
		printf '%-12s %-6s' "$t" "$fs"
		for r in $runs; do
			printf ' %-10s' "$(status "$r" "$fs" "$t")"
		done
		echo
	done
done
baseline=${runs%% *}
declare -A npass nfail nskip ndoc
for fs in ${fslist//,/ }; do
	for t in ${tests//,/ }; do
		base=$(status "$baseline" "$fs" "$t")
		for r in $runs; do
			s=$(status "$r" "$fs" "$t")
			exp=$(pinned "$r" "$fs" "$t")
			case $s in
			pass) npass[$r]=$((${npass[$r]:-0} + 1)) ;;
			notrun) nskip[$r]=$((${nskip[$r]:-0} + 1)) ;;
			*) nfail[$r]=$((${nfail[$r]:-0} + 1)) ;;
			esac
			if [ "$s" = missing ]; then
				echo "FAIL: $r $fs $t: no result"
				fail=1
				continue
			fi
			# a test that did not run checked nothing: pinned, or a failure
			if [ "$exp" = notrun ] || [ "$s" = notrun ]; then
				if [ "$exp" != notrun ]; then
					echo "FAIL: $r $fs $t: not run ($(notrun_reason "$r" "$fs" "$t")); $expected pins no such skip"
					fail=1
				elif [ "$s" != notrun ]; then
					echo "FAIL: $r $fs $t: $s, but $expected pins it as not run (a stale pin)"
					fail=1
				else
					echo "ok: $r $fs $t: not run, as pinned ($(notrun_reason "$r" "$fs" "$t"))"
				fi
				continue
			fi
			# an expected difference: RUN TEST FS FILE (the diff it gives)
			if [ -n "$exp" ]; then
				if [ "$s" != fail ]; then
					echo "FAIL: $r $fs $t: $s, expected the documented failure ($exp)"
					fail=1
				elif ! diff -u "$(case $exp in /*) echo "$exp" ;; *) echo "$repo/$exp" ;; esac)" \
					<(diff_of "$r" "$fs" "$t") >"$res/$r-$fs-${t//\//-}.mismatch"; then
					echo "FAIL: $r $fs $t differs from $exp otherwise than documented:"
					sed 's/^/    /' "$res/$r-$fs-${t//\//-}.mismatch"
					fail=1
				else
					echo "ok: $r $fs $t: fails exactly as documented ($exp)"
					# counted as documented, not as failed
					nfail[$r]=$((${nfail[$r]:-0} - 1))
					ndoc[$r]=$((${ndoc[$r]:-0} + 1))
				fi
				continue
			fi
			if [ "$r" = "$baseline" ]; then
				# the baseline itself must pass: a failure there is the
				# harness's or the environment's, and hides what the
				# other runs would show (list it if it is stock's own)
				if [ "$s" = fail ]; then
					echo "FAIL: $r $fs $t fails on the baseline (not listed in $expected):"
					diff_of "$r" "$fs" "$t" | sed 's/^/    /'
					fail=1
				fi
			elif [ "$s" != "$base" ]; then
				echo "FAIL: $r $fs $t: $s, $baseline: $base"
				[ "$s" != fail ] || diff_of "$r" "$fs" "$t" | sed 's/^/    /'
				fail=1
			elif [ "$s" = fail ] &&
				! cmp -s <(diff_of "$r" "$fs" "$t") <(diff_of "$baseline" "$fs" "$t"); then
				echo "FAIL: $r $fs $t fails otherwise than on $baseline"
				fail=1
			fi
		done
	done
done
for r in $runs; do
	# failed: against the baseline and EXPECTED; the documented failures
	# that fail exactly as documented apart
	echo "$r: ${npass[$r]:-0} passed, ${nfail[$r]:-0} failed, ${ndoc[$r]:-0} failed as documented, ${nskip[$r]:-0} not run"
	if [ "${npass[$r]:-0}" = 0 ]; then
		echo "FAIL: $r: no test passed (a run that checked nothing is no pass)"
		fail=1
	fi
done
exit "$fail"
