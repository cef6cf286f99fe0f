#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# comparison-verdicts.sh: the comparison's verdicts against the committed ones,
# design/comparison.expected (design x row -> cell; scripts/report/verdicts.awk
# reads it and the pages' tables, never their versions or dates).
#   comparison-verdicts.sh check PAGE    make check: PAGE (this run's comparison.md,
#       as render-comparison.sh wrote it) holds the expected cells, and so
#       do the committed design/comparison.md and design/README.md's
#       verdict table (generated from them)
#   comparison-verdicts.sh update PAGE   make run: when PAGE's cells are the expected
#       ones, PAGE becomes design/comparison.md (a new version or date is no
#       change of verdict); when any changed, print them and refuse, unless
#       ACCEPT=1: then write the page, the expected file and the README's table
#   comparison-verdicts.sh accept        make accept-comparison: the last run's
#       consoles ($OUT) rendered and checked again, then update, ACCEPT=1
# XATTRNS_DESIGN: the directory of those files (default design/; the
# harness's self-tests point it at a copy).
. "$(dirname "$0")/lib.sh"

DESIGN=${XATTRNS_DESIGN:-$REPO/design}
EXPECTED=$DESIGN/comparison.expected
PAGE=$DESIGN/comparison.md
README=$DESIGN/README.md
BEGIN_MARK='<!-- verdict table: generated from comparison.expected by make accept-comparison; make check compares -->'
END_MARK='<!-- end of the verdict table -->'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

verdicts() { awk -f "$REPO/scripts/report/verdicts.awk" "$@"; }
# changed PAGE: a line per cell of PAGE that is not the expected one
changed() {
	if [ ! -f "$EXPECTED" ]; then
		echo "  no $EXPECTED yet: every cell is new"
		return 1
	fi
	verdicts -v mode=diff "$EXPECTED" "$1"
}
# the verdict table in the README, between its marker lines (and a blank
# line either side, so that Markdown sees a table)
readme_table() {
	awk -v begin="$BEGIN_MARK" -v end="$END_MARK" '$0 == end { on = 0 } on && NF; $0 == begin { on = 1 }' "$README"
}

check() {
	local page=$1 rc=0
	if changed "$page" >"$tmp/run"; then
		echo "comparison: every cell this run measured is design/comparison.expected's"
	else
		cat "$tmp/run"
		echo "comparison: FAILED: a verdict changed (above: expected, measured); make run ACCEPT=1 or make accept-comparison if it is meant"
		rc=1
	fi
	if changed "$PAGE" >"$tmp/page"; then
		echo "comparison: design/comparison.md holds the expected cells"
	else
		cat "$tmp/page"
		echo "comparison: FAILED: design/comparison.md does not hold design/comparison.expected's cells (make run writes it)"
		rc=1
	fi
	verdicts -v mode=readme "$EXPECTED" >"$tmp/table" || :
	if readme_table | diff -u - "$tmp/table" >"$tmp/readme"; then
		echo "comparison: design/README.md's verdict table is design/comparison.expected's"
	else
		cat "$tmp/readme"
		echo "comparison: FAILED: design/README.md's verdict table is not design/comparison.expected's (make accept-comparison writes it)"
		rc=1
	fi
	return $rc
}

# write_all PAGE: PAGE's cells become the expected ones, everywhere
write_all() {
	verdicts -v mode=expected "$1" >"$tmp/expected"
	if ! grep -qxF "$BEGIN_MARK" "$README" || ! grep -qxF "$END_MARK" "$README"; then
		die "$README has no verdict table markers ($BEGIN_MARK ... $END_MARK)"
	fi
	cp "$tmp/expected" "$EXPECTED"
	cp "$1" "$PAGE"
	verdicts -v mode=readme "$EXPECTED" >"$tmp/table"
	awk -v begin="$BEGIN_MARK" -v end="$END_MARK" -v table="$tmp/table" '
		$0 == end { on = 0 }
		!on
		$0 == begin { on = 1; print ""; while ((getline l < table) > 0) print l; print "" }' "$README" >"$tmp/readme"
	cp "$tmp/readme" "$README"
}

update() {
	local page=$1 n
	if changed "$page" >"$tmp/changed"; then
		if [ -f "$PAGE" ] && diff -q -I '^Generated' "$PAGE" "$page" >/dev/null; then
			log "design/comparison.md: the expected verdicts, the same page; left as it is"
		else
			cp "$page" "$PAGE"
			log "wrote design/comparison.md: the expected verdicts, a new page (commit it)"
		fi
		return 0
	fi
	n="$(grep -c . "$tmp/changed" || true) changed cell(s)"
	[ -f "$EXPECTED" ] || n="the first expected cells"
	echo "changed cells (design/comparison.expected's value, this run's):"
	cat "$tmp/changed"
	[ "${ACCEPT:-}" = 1 ] ||
		die "$n (above): design/comparison.md and design/comparison.expected left as they are; if the change is meant: make accept-comparison (takes this run's) or make run ACCEPT=1"
	write_all "$page"
	log "accepted $n: wrote design/comparison.md, design/comparison.expected and design/README.md's verdict table (commit them)"
}

accept() {
	local logs=("$OUT/console-stock-compare.log" "$OUT/console-patched-compare.log")
	lock
	log "accepting the comparison of the last run (${logs[*]})"
	"$REPO/scripts/host/render-comparison.sh" "${logs[@]}" >"$OUT/comparison.md" ||
		die "the last run's comparison is not complete (above); nothing accepted"
	awk -v mode=check -f "$REPO/scripts/report/clients.awk" "${logs[@]}" ||
		die "the real virtiofsd and xattrd disagree in the last run (above); nothing accepted"
	ACCEPT=1 update "$OUT/comparison.md"
}

case ${1:-} in
check | update) [ $# = 2 ] || die "usage: comparison-verdicts.sh $1 PAGE"; "$1" "$2" ;;
accept) accept ;;
*) die "usage: comparison-verdicts.sh check PAGE | update PAGE | accept" ;;
esac
