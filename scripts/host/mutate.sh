#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mutate.sh: make mutate. Each scripts/mutate/NN-*.diff breaks one rule of
# the series on purpose; its header names the kselftest programs to run
# (Tests:), the test names at least one of which must fail (Expect:, an awk
# regular expression) and the vCPUs the catching test needs (Cpus:). Each
# is applied to the patched commit in a worktree of its own
# ($XATTRNS_CACHE/linux-mutate), built (ccache: a few objects and the link),
# booted, and must fail a test of its family by an assertion (a timeout or
# a crash catches nothing), a test that the unmutated kernel passes with the
# same programs and vCPUs (booted once per such pair, first): a mutation
# that no named test catches, that does not apply or that does not build
# fails the run, and so does a baseline that fails or skips every test of a
# family. KTAP on
# standard output, a tally last; with every mutation run (MUTATIONS unset),
# design/mutations.md is rewritten from the results.
#   MUTATIONS=01,07 make mutate    only those
#   mutate.sh --no-write             (make check in CI) design/ untouched
. "$(dirname "$0")/lib.sh"

write=1
[ "${1:-}" != --no-write ] || write=0

install_deps
build_all patched
lock
start=$(now)
dir=$REPO/scripts/mutate
commit=$(git -C "$XATTRNS_KTREE" rev-parse HEAD)
# the baseline is the patched kernel: it must be the commit the mutations
# apply to
[ -z "$(tree_dirty "$XATTRNS_KTREE")" ] ||
	die "the patched tree has uncommitted edits: commit them (the mutations apply to its last commit)"
if [ "$(git -C "$MUTATE_TREE" rev-parse HEAD 2>/dev/null)" != "$commit" ]; then
	log "mutate worktree at the patched commit: $MUTATE_TREE"
	new_worktree "$MUTATE_TREE" "$commit"
fi
header() { sed -n "s/^$1: *//p;/^diff --git/q" "$2" | head -n 1; }
# boot KIMAGE TESTS CPUS TAG: run those kselftest programs on KIMAGE, the
# console in $OUT/console-patched-TAG.log (no pinned skips: a part of the
# suite), the summary in $OUT/TAG.txt
boot() {
	"$REPO/scripts/host/boot.sh" --kernel "$1" --tests "$2" --cpus "$3" --tag " $4" \
		--console "$OUT/console-patched-$4.log" patched check >"$OUT/$4.txt" 2>/dev/null || true
}
# results LOG: "NAME ok|skip|fail|crash" per kselftest of the console log;
# crash: the harness ended it by timeout or signal, not by an assertion
results() {
	sed 's/\r$//' "$1" | awk '
		/^# #  RUN / { name = $4 }
		/: Test terminated by timeout|: Test terminated unexpectedly|by signal/ { crashed[name] = 1 }
		/^# (not )?ok [0-9]+ / {
			n = $0
			sub(/^# (not )?ok [0-9]+ /, "", n)
			skip = (n ~ /#[ \t]*SKIP/)
			sub(/[ \t]*#.*$/, "", n)
			if (skip) print n, "skip"
			else if ($2 == "ok") print n, "ok"
			else print n, (n in crashed) ? "crash" : "fail"
		}'
}
files=()
for f in "$dir"/[0-9][0-9]-*.diff; do
	id=${f##*/}
	id=${id%%-*}
	[ -z "${MUTATIONS:-}" ] || case ",$MUTATIONS," in *",$id,"*) ;; *) continue ;; esac
	files+=("$f")
done
[ ${#files[@]} -gt 0 ] || die "no mutation in $dir matches MUTATIONS=${MUTATIONS:-}"

rows=$OUT/mutate-rows.md
: >"$rows"
ktap_begin

# The baselines: the unmutated kernel, once per programs and vCPUs
declare -A base=()
for f in "${files[@]}"; do
	key="$(header Tests "$f")|$(header Cpus "$f")"
	[ -z "${base[$key]:-}" ] || continue
	tag=mutate-base-${#base[@]}
	log "baseline: the unmutated kernel, $(header Tests "$f"), $(header Cpus "$f") vCPU(s)"
	boot "$(kimage_of patched)" "$(header Tests "$f")" "$(header Cpus "$f")" "$tag"
	results "$OUT/console-patched-$tag.log" >"$OUT/$tag.results"
	base[$key]=$OUT/$tag.results
done
for f in "${files[@]}"; do
	name=${f##*/}
	name=${name%.diff}
	rule=$(header Rule "$f") mutation=$(header Mutation "$f")
	tests=$(header Tests "$f") expect=$(header Expect "$f") cpus=$(header Cpus "$f")
	if [ -z "$rule" ] || [ -z "$tests" ] || [ -z "$expect" ]; then
		die "$f: needs Rule:, Tests: and Expect: header lines"
	fi
	touched=$(sed -n 's|^+++ b/||p' "$f" | tr '\n' ' ')
	log "mutation $name: $rule"
	git -C "$MUTATE_TREE" reset -q --hard "$commit"
	git -C "$MUTATE_TREE" clean -fdq -e _build
	verdict='' detail=''
	if ! git -C "$MUTATE_TREE" apply "$f" 2>"$OUT/mutate-apply.log"; then
		verdict=FAIL detail="does not apply to the patched commit"
		sed 's/^/    /' "$OUT/mutate-apply.log" >&2
	elif ! "$REPO/scripts/host/build-kernel.sh" mutate >&2; then
		verdict=FAIL detail="does not build"
	else
		boot "$(kimage_of mutate)" "$tests" "${cpus:-1}" "mutate-$name"
		log=$OUT/console-patched-mutate-$name.log
		total=$(sed -n 's/^patched: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$OUT/mutate-$name.txt")
		# the tests of the family (Expect:) that the baseline passes ...
		passing=$(awk -v re="$expect" '$1 ~ re && $2 == "ok" { print $1 }' "${base[$tests|$cpus]}" | sort)
		broken=$(awk -v re="$expect" '$1 ~ re && $2 != "ok" && $2 != "skip" { print $1 }' "${base[$tests|$cpus]}")
		# ... and that fail by an assertion here
		caught=$(results "$log" | awk '$2 == "fail" { print $1 }' | sort | comm -12 - <(echo "$passing"))
		if [ -z "$passing" ] || [ -n "$broken" ]; then
			verdict=FAIL
			detail="baseline: the unmutated kernel $([ -n "$broken" ] && echo "fails $(echo "$broken" | head -n 1)" || echo "passes no test of /$expect/") (its results: ${base[$tests|$cpus]})"
		elif [ -n "$caught" ]; then
			verdict=OK
			detail="caught: $(echo "$caught" | wc -l) of its $(echo "$passing" | wc -l) tests failed ($(echo "$caught" | head -n 1), ...), ${total:-?} failures in all"
		else
			verdict=FAIL
			detail="not caught: no failure matches /$expect/ (${total:-?} failures in all; console: $log)"
		fi
	fi
	ktap_result "$verdict" "$name: $detail"
	# shellcheck disable=SC2016 # (markdown backquotes)
	printf '| %s | %s | %s | `%s` | %s | %s |\n' "${name%%-*}" "$rule" "$mutation" \
		"${touched% }" "$(echo "$tests" | sed 's|filesystems/xattr:||g')" \
		"$([ "$verdict" = OK ] && echo "**caught**: ${detail#caught: }" || echo "**$detail**")" >>"$rows"
done
git -C "$MUTATE_TREE" reset -q --hard "$commit"

if [ -z "${MUTATIONS:-}" ] && [ "$write" = 1 ]; then
	{
		cat <<EOF
# Do the tests fail when the kernel is wrong?

Generated by \`make mutate\` (scripts/host/mutate.sh) on $(date -u +%Y-%m-%d), on the
patched commit of this repository's series (kernel tree HEAD ${commit:0:12}): each
mutation in \`scripts/mutate/\` breaks one rule of the series, is applied alone,
built and booted, and must make at least one test of its family fail (the
test names its \`Expect:\` line matches), running only the programs of its
\`Tests:\` line. A row that is not **caught** fails the run.

| # | the rule | the mutation | files | programs | result |
| --- | --- | --- | --- | --- | --- |
EOF
		cat "$rows"
		cat <<'EOF'

What this does not prove: each mutation is one edit we thought of, and a test
that skips proves nothing (a mutation whose catching test needs two vCPUs says
so with a `Cpus: 2` line, which gives the guest two). The unmutated kernel passes the same
programs in every `make check`. CI runs the mutations too (`CI=true make check`,
or `XATTRNS_CHECK_MUTATE=1 make check`: a `mutate:` tier, this page left as it
is); by hand, run `make mutate` after changing a rule of the series, or
`MUTATIONS=NN,... make mutate` for the rules a change touches.
EOF
	} >"$REPO/design/mutations.md"
	log "wrote design/mutations.md"
fi
rc=0
ktap_end || rc=1
source_version >&2
phase_end "make mutate" "$start"
echo "mutate: $((KTAP_N - KTAP_FAILED)) passed, $KTAP_FAILED failed, 0 skipped"
exit "$rc"
