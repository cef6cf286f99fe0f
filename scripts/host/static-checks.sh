#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# static-checks.sh: the fast static checks of make check, before any guest
# boots: checkpatch --strict on every patch of the series, the whole series
# applied with git apply to the pristine commit (in a scratch index, no
# checkout), and W=1 + sparse on the .c files the series touches, in the
# patched build, with no warning that the same file in the stock build
# does not have; shellcheck on the repository's shell scripts. (make
# check-series builds each patch on its own.)
# Prints KTAP on standard output (one result per check, the plan last),
# the details of a failure on standard error; exits non-zero on any failure.
. "$(dirname "$0")/lib.sh"

check_deps
lock
start=$(now)
series=$(series_patches)
ktap_begin
result() { ktap_result "$@"; }

for p in $series; do
	if checkpatch_patch "$XATTRNS_KTREE" "$REPO/patches/$p" >"$OUT/checkpatch.log" 2>&1; then
		result OK "checkpatch --strict $p"
	else
		sed 's/^/    /' "$OUT/checkpatch.log" >&2
		result FAIL "checkpatch --strict $p"
	fi
done

if [ -n "$series" ]; then
	idx=$(mktemp "$OUT/index.XXXXXX")
	trap 'rm -f "$idx"' EXIT
	GIT_INDEX_FILE=$idx git -C "$XATTRNS_KTREE" read-tree pristine
	applied=OK
	# selftests_match SERIES: the tests in the index are this repository's
	# (selftests/, the one source), as series SERIES has them
	selftests_match() {
		local f want have ok=OK
		for f in $(selftest_files "$1"); do
			want=$(selftest_file "$1" "$f" | git hash-object --stdin)
			have=$(GIT_INDEX_FILE=$idx git -C "$XATTRNS_KTREE" ls-files -s \
				"tools/testing/selftests/filesystems/xattr/$f" | cut -d' ' -f2)
			if [ "$want" != "$have" ]; then
				warn "patches/$1: its selftest patch does not hold selftests/filesystems/xattr/$f as it is (make export)"
				ok=FAIL
			fi
		done
		result $ok "series $1's selftest patch holds this repository's selftests"
	}
	prev=A
	for p in $series; do
		case $p in B/*) [ "$prev" = B ] || selftests_match A; prev=B ;; esac
		if ! GIT_INDEX_FILE=$idx git -C "$XATTRNS_KTREE" apply --cached "$REPO/patches/$p" 2>"$OUT/apply.log"; then
			sed 's/^/    /' "$OUT/apply.log" >&2
			warn "$p does not apply to the pristine tree after the patches before it"
			applied=FAIL
			break
		fi
	done
	result $applied "the series applies in order to the pristine tree"
	[ $applied = FAIL ] || selftests_match B
fi

# W=1 and sparse on every .c file the series touches: a result for each,
# a SKIP with the reason for those this config does not build (make
# check-series compiles them with scripts/config/kernel-extra.config). A file
# that does not build in the patched tree fails, whatever the stock tree
# does; otherwise no warning or error line (any case) may be new.
files=$(for p in $series; do cat "$REPO/patches/$p"; done |
	sed -n 's|^+++ b/\(.*\.c\)$|\1|p' | sort -u)
w1() { # tree object: its warning and error lines, locations dropped, and
	# "BUILD FAILED" last when make failed
	local out rc=0
	rm -f "$1/_build/$2"
	out=$(make -C "$1" O=_build CC="ccache gcc" -s W=1 C=1 "$2" 2>&1) || rc=$?
	{ printf '%s\n' "$out" | grep -iE 'warning|error' || true; } |
		sed -E 's/:[0-9]+:[0-9]+:/:/' | sort
	[ "$rc" = 0 ] || echo "BUILD FAILED (make $2: exit $rc)"
}
for f in $files; do
	o=${f%.c}.o
	# a file another one includes (a KUnit test) is built through it
	inc=$(c_includer "$XATTRNS_KTREE" "$f")
	[ -z "$inc" ] || o=${inc%.c}.o
	case $f in tools/testing/selftests/*)
		# the kselftests: built by mkinitramfs.sh (static), where any
		# warning fails the build; the program must be there
		prog=$OUT/kselftest/${f#tools/testing/selftests/}
		if [ -x "${prog%.c}" ] && ! grep -q 'warning:' "$OUT/kselftest-build.log"; then
			result OK "kselftest build: no warning in $f"
		else
			result FAIL "kselftest build: no warning in $f"
		fi
		continue
	esac
	if [ ! -f "$XATTRNS_KTREE/_build/$o" ]; then
		result SKIP "W=1 and sparse: no new warning in $f" \
			"not built by make check's config (make check-series compiles it)"
		continue
	fi
	patched=$(w1 "$XATTRNS_KTREE" "$o")
	if printf '%s\n' "$patched" | grep -q '^BUILD FAILED'; then
		printf '%s\n' "$patched" | sed 's/^/    /' >&2
		result FAIL "W=1 and sparse: no new warning in $f"
		continue
	fi
	new=$(comm -13 <(w1 "$STOCK_TREE" "$o" | sort) <(printf '%s\n' "$patched" | sed '/^$/d' | sort))
	if [ -z "$new" ]; then
		result OK "W=1 and sparse: no new warning in $f"
	else
		echo "$new" | sed 's/^/    /' >&2
		result FAIL "W=1 and sparse: no new warning in $f"
	fi
done
# The other files the series touches: a result each, which says how far
# they are checked (checkpatch above; headers through the .c files).
for f in $(for p in $series; do cat "$REPO/patches/$p"; done |
	sed -n 's|^+++ b/\(.*\)$|\1|p' | grep -v '\.c$' | sort -u); do
	case $f in
	tools/testing/selftests/*)
		# the kselftest build goes through them (Makefiles, config,
		# the shared header): its programs must be there, unwarned
		if [ -n "$(ls "$OUT"/kselftest/filesystems/xattr/*_test 2>/dev/null)" ] &&
			! grep -q 'warning:' "$OUT/kselftest-build.log"; then
			result OK "kselftest build through $f"
		else
			result FAIL "kselftest build through $f"
		fi
		;;
	*.h) result SKIP "W=1 and sparse: $f" "a header: compiled through the .c files above" ;;
	*) result SKIP "build: $f" "not compiled (documentation, Makefile or MAINTAINERS): checkpatch only" ;;
	esac
done

# ShellCheck on every shell script of the repository, down to its notes
# (SC2317, unreachable code, mistakes the functions called by name)
for f in $(cd "$REPO" && git ls-files --cached --others --exclude-standard \
	'scripts/*.sh' initramfs/init .ci/run); do
	if (cd "$REPO" && shellcheck -x -P SCRIPTDIR -S info -e SC2317 "$f") >"$OUT/shellcheck.log" 2>&1; then
		result OK "shellcheck $f"
	else
		sed 's/^/    /' "$OUT/shellcheck.log" >&2
		result FAIL "shellcheck $f"
	fi
done
ok=0
ktap_end || ok=1
phase_end "static checks" "$start"
[ "$ok" = 0 ] || die "static checks failed"
log "static checks: $(echo "$series" | wc -w) patches checkpatch-clean, applying in order, no new W=1/sparse warnings in the files this config builds"
