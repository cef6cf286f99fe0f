#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-harness.sh: the harness's own tests (make check-harness; the first
# step of make check). Feeds the KTAP parser (ktap.awk), the tally
# (tally.awk), the comparison's renderer (compare.awk) and its check against
# the expected verdicts (comparison-verdicts.sh, verdicts.awk), and the benchmark's
# (bench.awk) synthetic logs: a clean run must pass with the exact counts,
# and every way a run can break must fail, with a non-zero exit status and
# at least one failure counted. No kernel, no QEMU, a second or two.
# Prints KTAP and "harness: N passed, N failed, 0 skipped"; exits non-zero
# when any case fails.
. "$(dirname "$0")/lib.sh"

S=$REPO/scripts/report H=$REPO/scripts/host
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skipped=0
ktap_begin
result() { # result 0|1 DESCRIPTION [DETAIL...]
	if [ "$1" = 0 ]; then
		ktap_result OK "$2"
	else
		ktap_result FAIL "$2"
		shift 2
		for d in "$@"; do echo "# $d"; done
		sed 's/^/#   | /' "$tmp/out"
	fi
}
# the number of failures on the summary line of ktap.awk or tally.awk
failures_counted() {
	sed -n 's/^\([^ ]*: \)\{0,1\}[0-9]* passed, \([0-9]*\) failed, [0-9]* skipped$/\2/p' "$tmp/out" | tail -n 1
}
# passes DESCRIPTION SUMMARY CMD...: CMD exits 0 and its last line is SUMMARY
passes() {
	local desc=$1 want=$2 rc=0
	shift 2
	"$@" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		result 1 "$desc" "exit status $rc, want 0"
	elif [ "$(tail -n 1 "$tmp/out")" != "$want" ]; then
		result 1 "$desc" "last line: $(tail -n 1 "$tmp/out")" "want:      $want"
	else
		result 0 "$desc"
	fi
}
# fails DESCRIPTION CMD...: CMD exits non-zero, and when it prints a
# summary, the summary counts at least one failure
fails() {
	local desc=$1 rc=0 f
	shift
	"$@" >"$tmp/out" 2>&1 || rc=$?
	f=$(failures_counted)
	if [ "$rc" = 0 ]; then
		result 1 "$desc" "exit status 0, want non-zero"
	elif [ -n "$f" ] && [ "$f" = 0 ]; then
		result 1 "$desc" "exit status $rc, but the summary counts 0 failed"
	else
		result 0 "$desc"
	fi
}
guest() { awk -v name=guest -f "$S/ktap.awk" "$@"; }
host() { awk -v name=host -v guest=0 -f "$S/ktap.awk" "$@"; }

# ---- logs ----

# A guest console of a clean run: two programs, one subtest skipped, the
# comparison, the dmesg dump, the end marker.
clean_log() {
	cat <<'EOF'
[    0.000000] Linux version 6.12.0 (test)
XATTRNS-BEGIN 6.12.0
XATTRNS-GUEST cpus_online=0-1 nproc=2 clocksource=tsc available=tsc,refined-jiffies,jiffies
TAP version 13
1..2
# timeout set to 960
# selftests: filesystems/xattr: a_test
# TAP version 13
# 1..2
# # Starting 2 tests from 1 test cases.
# ok 1 a.tmpfs.one
# ok 2 a.ext4.two # SKIP no ext4 device
# # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0
ok 1 selftests: filesystems/xattr: a_test
# selftests: filesystems/xattr: b_test
# TAP version 13
# 1..1
# ok 1 b.one
ok 2 selftests: filesystems/xattr: b_test
XATTRNS-COMPARE-BEGIN
CELL|stock|set file|ok
XATTRNS-COMPARE-END rc=0
XATTRNS-DMESG-BEGIN
[    0.000000] Linux version 6.12.0 (test)
[    1.000000] clocksource: Switched to clocksource tsc
XATTRNS-DMESG-END
XATTRNS-END rc=0
EOF
}
clean_log >"$tmp/clean.log"
# the clean log with one line changed (sed expression) or added before the
# end marker
variant() { sed "$1" "$tmp/clean.log"; }
with_line() { sed "/^XATTRNS-DMESG-BEGIN/i\\
$1" "$tmp/clean.log"; }

# host unit tests (kselftest harness on the host)
host_log() {
	cat <<'EOF'
TAP version 13
1..3
# Starting 3 tests from 1 test cases.
#  RUN           global.parse ...
#            OK  global.parse
ok 1 global.parse
#  RUN           global.map ...
#            OK  global.map
ok 2 global.map
ok 3 global.skip # SKIP not here
# PASSED: 3 / 3 tests passed.
# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:1 error:0
EOF
}

# ---- ktap.awk ----

passes "a clean guest log passes with its exact counts" \
	"guest: 2 passed, 0 failed, 1 skipped" guest "$tmp/clean.log"
host_log >"$tmp/host.log"
passes "a clean host log passes with its exact counts" \
	"host: 2 passed, 0 failed, 1 skipped" host "$tmp/host.log"

host_log | sed 's/^ok 2 global.map$/not ok 2 global.map/' >"$tmp/host-fail.log"
fails "a failing host test fails the host tier" host "$tmp/host-fail.log"
cat >"$tmp/host-build.log" <<'EOF'
xattrmap_test.c:12:1: error: expected ';' before '}' token
make: *** [Makefile:19: ./xattrmap_test] Error 1
EOF
fails "a host build error (no KTAP at all) fails the host tier" host "$tmp/host-build.log"
host_log | sed '/^1\.\.3$/d' >"$tmp/host-noplan.log"
fails "a host log without its plan fails" host "$tmp/host-noplan.log"
host_log | sed '/^ok 3 /d' >"$tmp/host-short.log"
fails "a host log with fewer results than its plan fails" host "$tmp/host-short.log"

# the KUnit cases the guest copied from the kernel log count as results
kunit_log() { # CASE2-RESULT: "ok" or "not ok"
	variant "/^TAP version 13$/i\\
XATTRNS-KUNIT-BEGIN\\
    # Subtest: xattr_userns\\
    ok 1 xattr_chain_len_test\\
    $1 2 xattr_place_test\\
XATTRNS-KUNIT-END"
}
kunit_log "ok" >"$tmp/kunit.log"
passes "ktap.awk counts the KUnit cases of the kernel log as results" \
	"guest: 4 passed, 0 failed, 1 skipped" guest "$tmp/kunit.log"
kunit_log "not ok" >"$tmp/kunit-fail.log"
fails "a failing KUnit case fails the guest tier" guest "$tmp/kunit-fail.log"

variant '/^1\.\.2$/d' >"$tmp/noplan.log"
fails "a guest log without the top-level plan fails" guest "$tmp/noplan.log"
: >"$tmp/empty.log"
fails "an empty guest console fails" guest "$tmp/empty.log"
sed '/^# selftests: filesystems\/xattr: b_test$/,$d' "$tmp/clean.log" >"$tmp/died.log"
fails "a guest that dies after its first program (short plan, no end marker) fails" \
	guest "$tmp/died.log"
sed '/^# ok 2 a.ext4.two/,$d' "$tmp/clean.log" >"$tmp/died-sub.log"
fails "a guest that dies inside a program (short subtest plan) fails" guest "$tmp/died-sub.log"
variant '/^XATTRNS-END rc=0$/d' >"$tmp/noend.log"
fails "a guest log without the end marker fails" guest "$tmp/noend.log"
variant 's/^XATTRNS-END rc=0$/XATTRNS-END rc=1/' >"$tmp/endrc.log"
fails "a guest whose run ends rc=1 with every result ok (a tool that bailed out) fails" \
	guest "$tmp/endrc.log"
variant 's/^# ok 1 b.one$/# not ok 1 b.one/' >"$tmp/subfail.log"
fails "a failing subtest fails the guest" guest "$tmp/subfail.log"
variant 's/^ok 2 selftests: filesystems\/xattr: b_test$/not ok 2 selftests: filesystems\/xattr: b_test/' \
	>"$tmp/progfail.log"
fails "a program that fails after all its subtests passed (a crash, a leak) fails" \
	guest "$tmp/progfail.log"
variant 's/^ok 2 selftests: filesystems\/xattr: b_test$/not ok 2 selftests: filesystems\/xattr: b_test # TIMEOUT 960 seconds/' \
	>"$tmp/progtimeout.log"
fails "a program killed by the kselftest timeout fails" guest "$tmp/progtimeout.log"
with_line "XATTRNS-TIMEOUT after 600s" >"$tmp/timeout.log"
fails "the host's timeout marker (guest killed) fails" guest "$tmp/timeout.log"
variant 's/^XATTRNS-COMPARE-END rc=0$/XATTRNS-COMPARE-END rc=1/' >"$tmp/comparefail.log"
fails "a comparison that fails in the guest (rc=1) fails" guest "$tmp/comparefail.log"
variant '/^XATTRNS-COMPARE-END/d' >"$tmp/nocompare.log"
fails "a compare-mode log without XATTRNS-COMPARE-END fails" \
	awk -v name=guest -v ktap=0 -v marker=COMPARE -f "$S/ktap.awk" "$tmp/nocompare.log"
grep -v -e "^ok " -e "^not ok " -e "^1\\.\\." -e "^# " "$tmp/clean.log" >"$tmp/compare-mode.log"
passes "a compare-mode log with XATTRNS-COMPARE-END rc=0 passes" \
	"guest: 0 passed, 0 failed, 0 skipped" \
	awk -v name=guest -v ktap=0 -v marker=COMPARE -f "$S/ktap.awk" "$tmp/compare-mode.log"
i=0
for splat in \
	"WARNING: CPU: 0 PID: 123 at fs/xattr.c:321 vfs_setxattr+0x12/0x34" \
	"BUG: kernel NULL pointer dereference, address: 0000000000000008" \
	"BUG: KASAN: slab-out-of-bounds in simple_xattr_set+0x1/0x2" \
	"UBSAN: shift-out-of-bounds in fs/xattr.c:42:10" \
	"KFENCE: use-after-free read in xattr_list" \
	"Oops: general protection fault, probably for non-canonical address" \
	"kernel BUG at fs/xattr.c:99!" \
	"Kernel panic - not syncing: Fatal exception" \
	"WARNING: possible circular locking dependency detected" \
	"WARNING: suspicious RCU usage" \
	"kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)" \
	"unreferenced object 0xffff888003e1c000 (size 64):" \
	"INFO: task xattr_fuzz_test:77 blocked for more than 120 seconds." \
	"Call Trace:"; do
	i=$((i + 1))
	with_line "[   12.345678] $splat" >"$tmp/splat$i.log"
	fails "a kernel splat on the console fails a passing run: $splat" guest "$tmp/splat$i.log"
done
sed '/^XATTRNS-DMESG-END/i\
[   12.345678] BUG: sleeping function called from invalid context at mm/slab.c:1' \
	"$tmp/clean.log" >"$tmp/splat-dmesg.log"
fails "a kernel splat only in the dmesg dump fails a passing run" guest "$tmp/splat-dmesg.log"

# ---- pinned skips: a skip that no line pins fails, so does a stale pin ----
cat >"$tmp/pins" <<'EOF'
# tiers count test reason
guest,debug	1	a.*.two	no ext? device
other	3	x.*	anything
guest,other	3	total
EOF
pinned() { awk -v name=guest -v skips="$tmp/pins" -f "$S/ktap.awk" "$@"; }
passes "ktap.awk passes a skip that a pin of its tier covers, with its count" \
	"guest: 2 passed, 0 failed, 1 skipped" pinned "$tmp/clean.log"
variant 's/no ext4 device/kernel without ext4/' >"$tmp/pin-reason.log"
fails "ktap.awk fails a skip whose reason no pin matches" pinned "$tmp/pin-reason.log"
grep -q 'FAILED unexpected skip (not in .*): a.ext4.two # SKIP kernel without ext4' "$tmp/out"
result $? "ktap.awk names the unexpected skip and its reason"
variant 's/^# ok 1 a.tmpfs.one$/# ok 1 a.tmpfs.one # SKIP no ext4 device/' >"$tmp/pin-name.log"
fails "ktap.awk fails a skip whose test no pin matches" pinned "$tmp/pin-name.log"
variant 's/^# ok 2 a.ext4.two # SKIP.*$/# ok 2 a.ext4.two/' >"$tmp/pin-stale.log"
fails "ktap.awk fails a pin whose count the run did not meet" pinned "$tmp/pin-stale.log"
grep -q 'pinned skip a.\*.two "no ext? device": expected 1, saw 0' "$tmp/out"
result $? "ktap.awk names the stale pin"
passes "ktap.awk -v partial=1 does not hold the counts (a run of some tests)" \
	"guest: 3 passed, 0 failed, 0 skipped" pinned -v partial=1 "$tmp/pin-stale.log"
passes "ktap.awk -v pintiers takes the pins of any tier it names (a kernel between them)" \
	"series: 2 passed, 0 failed, 1 skipped" \
	awk -v name=series -v pintiers=other,debug -v skips="$tmp/pins" -f "$S/ktap.awk" "$tmp/clean.log"
fails "ktap.awk -v pintiers fails a skip that none of its tiers pins" \
	awk -v name=series -v pintiers=other -v skips="$tmp/pins" -f "$S/ktap.awk" "$tmp/clean.log"
printf 'guest 1 a.*.two\n' >"$tmp/pins-bad"
fails "ktap.awk fails on a malformed pin line" \
	awk -v name=guest -v skips="$tmp/pins-bad" -f "$S/ktap.awk" "$tmp/clean.log"
fails "ktap.awk fails when the pin file cannot be read" \
	awk -v name=guest -v skips="$tmp/no-such-pins" -f "$S/ktap.awk" "$tmp/clean.log"
grep -q 'cannot read the pinned skips' "$tmp/out"
result $? "ktap.awk says that it could not read the pin file"
variant 's/^ok 2 selftests: filesystems\/xattr: b_test$/ok 2 selftests: filesystems\/xattr: b_test # SKIP no b/' |
	sed '/^# ok 1 b.one$/d; s/^# 1..1$/# 1..0/' >"$tmp/pin-prog.log"
fails "ktap.awk fails an unpinned skip of a whole program" pinned "$tmp/pin-prog.log"
variant 's/^# ok 1 b.one$/# ok 1 b.one # XPASS expected to fail/' >"$tmp/xpass.log"
fails "ktap.awk fails a test that passed where it was expected to fail (XPASS)" guest "$tmp/xpass.log"
variant 's/^# ok 1 b.one$/# ok 1 b.one # XFAIL known bug/' >"$tmp/xfail.log"
fails "ktap.awk fails an XFAIL that no pin covers" pinned "$tmp/xfail.log"
variant 's/^# ok 1 b.one$/# ok 1 b.one # skipped nothing, a comment/' >"$tmp/skipword.log"
passes "ktap.awk reads SKIP only as a directive, not a word starting with it" \
	"guest: 2 passed, 0 failed, 1 skipped" pinned "$tmp/skipword.log"
variant '/^# ok 1 b.one$/d; s/^# 1..1$/# 1..0/' >"$tmp/emptyplan.log"
fails "ktap.awk fails a program that planned no tests and did not skip" guest "$tmp/emptyplan.log"

variant '/^# ok 1 b.one$/d; s/^# 1..1$/# 1..0/; s/^ok 2 selftests: filesystems\/xattr: b_test$/ok 2 selftests: filesystems\/xattr: b_test # SKIP gone/' >"$tmp/total.log"
printf 'guest 1 a.*.two no ext? device\nguest 1 selftests:*b_test gone\nguest 4 total\n' >"$tmp/pins-total"
fails "ktap.awk fails a tier whose number of results is not its pinned total" \
	awk -v name=guest -v skips="$tmp/pins-total" -f "$S/ktap.awk" "$tmp/total.log"
grep -q 'expected 4 results (.*), saw 3' "$tmp/out"
result $? "ktap.awk says how many results it expected"
# ---- make fstests' verdict (fstests-verdict.sh): fails closed ----
# fst_results RUN LINE...: a run's console with ./check's summary lines
fst_results() {
	local r=$1
	shift
	mkdir -p "$tmp/fst/res/$r/xout/ext4/generic"
	printf '%s\n' "$@" >"$tmp/fst/res/$r/console.log"
}
fst_verdict() { # EXPECTED: stock and patched-1, ext4, generic/001 and 002
	"$S/fstests-verdict.sh" "$tmp/fst/res" "$tmp/fst/src" "$1" "stock patched-1" ext4 \
		generic/001,generic/002
}
mkdir -p "$tmp/fst/src/tests/generic"
printf 'QA output created by 001\nSilence is golden\n' >"$tmp/fst/src/tests/generic/001.out"
printf '# no differences\n' >"$tmp/fst/none.expected"
fst_results stock "[ext4] Ran: generic/001 generic/002" "[ext4] Passed all 2 tests"
fst_results patched-1 "[ext4] Ran: generic/001 generic/002" "[ext4] Passed all 2 tests"
passes "fstests-verdict.sh passes two runs that pass alike" \
	"patched-1: 2 passed, 0 failed, 0 failed as documented, 0 not run" fst_verdict "$tmp/fst/none.expected"
fst_results patched-1 "[ext4] Ran: generic/001" "[ext4] Passed all 1 tests"
fails "fstests-verdict.sh fails a test with no result" fst_verdict "$tmp/fst/none.expected"
fst_results stock "[ext4] Ran: generic/001 generic/002" "[ext4] Not run: generic/001 generic/002"
fst_results patched-1 "[ext4] Ran: generic/001 generic/002" "[ext4] Not run: generic/001 generic/002"
fails "fstests-verdict.sh fails when every test was not run (nothing checked)" \
	fst_verdict "$tmp/fst/none.expected"
printf 'stock generic/002 ext4 notrun\npatched-1 generic/002 * notrun\n' >"$tmp/fst/notrun.expected"
fails "fstests-verdict.sh fails a run with no test passed, its skips pinned or not" \
	fst_verdict "$tmp/fst/notrun.expected"
grep -q 'FAIL: stock: no test passed' "$tmp/out"
result $? "fstests-verdict.sh says which run passed nothing"
fst_results stock "[ext4] Ran: generic/001 generic/002" "[ext4] Not run: generic/002"
fst_results patched-1 "[ext4] Ran: generic/001 generic/002" "[ext4] Not run: generic/002"
passes "fstests-verdict.sh passes a not-run test that a line pins" \
	"patched-1: 1 passed, 0 failed, 0 failed as documented, 1 not run" fst_verdict "$tmp/fst/notrun.expected"
fails "fstests-verdict.sh fails a not-run test that no line pins" fst_verdict "$tmp/fst/none.expected"
fst_results patched-1 "[ext4] Ran: generic/001 generic/002" "[ext4] Passed all 2 tests"
fails "fstests-verdict.sh fails a stale not-run pin (the test ran)" fst_verdict "$tmp/fst/notrun.expected"
fst_results stock "[ext4] Ran: generic/001 generic/002" "[ext4] Passed all 2 tests"
fst_results patched-1 "[ext4] Ran: generic/001 generic/002" "[ext4] Failures: generic/001"
printf 'QA output created by 001\nSilence is not golden\n' >"$tmp/fst/res/patched-1/xout/ext4/generic/001.out.bad"
fst_diff=$(diff -u "$tmp/fst/src/tests/generic/001.out" "$tmp/fst/res/patched-1/xout/ext4/generic/001.out.bad" | sed '1,2d' || true)
printf '%s\n' "$fst_diff" >"$tmp/fst/001.diff"
printf 'patched-1 generic/001 * %s\n' "$tmp/fst/001.diff" >"$tmp/fst/doc.expected"
passes "fstests-verdict.sh passes a failure that fails exactly as documented" \
	"patched-1: 1 passed, 0 failed, 1 failed as documented, 0 not run" fst_verdict "$tmp/fst/doc.expected"
fails "fstests-verdict.sh fails a failure nobody documented" fst_verdict "$tmp/fst/none.expected"
printf 'QA output created by 001\nSilence is broken\n' >"$tmp/fst/res/patched-1/xout/ext4/generic/001.out.bad"
fails "fstests-verdict.sh fails a documented failure whose output differs" fst_verdict "$tmp/fst/doc.expected"
fails "fstests-verdict.sh fails on an unreadable list of differences" fst_verdict "$tmp/fst/no-such.expected"

# ---- make check-series: an empty series is no pass ----
mkdir -p "$tmp/repo/patches"
cp -r "$REPO/scripts" "$tmp/repo/"
: >"$tmp/repo/patches/series"
fails "check-series.sh refuses an empty patches/series" \
	env XATTRNS_CACHE="$tmp/cache" bash "$tmp/repo/scripts/host/check-series.sh"
grep -q 'patches/series lists no patch' "$tmp/out"
result $? "check-series.sh says why it refused"

# shellcheck disable=SC2016 # (an awk program)
passes "scripts/report/skips.expected parses, each line pins a known tier" \
	"ok" awk '!/^[ \t]*(#|$)/ && !(NF == 3 && $3 == "total" && $2 ~ /^[0-9]+$/) { if (NF < 4 || $2 !~ /^[0-9]+$/ || $1 !~ /^(stock|patched|patched-off|debug|debug-off|static|host|harness|series)(,(stock|patched|patched-off|debug|debug-off|static|host|harness|series))*$/) { print "bad: " $0; bad = 1 } } END { print bad ? "bad" : "ok"; exit bad }' "$REPO/scripts/report/skips.expected"

# ---- tally.awk ----

tier() { # tier FILE SUMMARY RC: a result file as check.sh writes it
	local name
	name=$(basename "$1" .txt)
	{
		[ -z "$2" ] || echo "$2"
		[ -z "$3" ] || echo "XATTRNS-RC ${name#result-}=$3"
	} >"$1"
}
tally() { awk -f "$S/tally.awk" "$@"; }
tier "$tmp/result-host.txt" "host: 9 passed, 0 failed, 0 skipped" 0
tier "$tmp/result-stock.txt" "stock: 168 passed, 0 failed, 225 skipped" 0
tier "$tmp/result-comparison.txt" "comparison: 1 passed, 0 failed, 0 skipped" 0
passes "the tally of clean tiers passes and adds them up" \
	"178 passed, 0 failed, 225 skipped" \
	tally "$tmp/result-host.txt" "$tmp/result-stock.txt" "$tmp/result-comparison.txt"
tier "$tmp/result-bad.txt" "host: 0 passed, 0 failed, 0 skipped" 2
fails "a tier that exited non-zero but counted 0 failed fails the tally" \
	tally "$tmp/result-host.txt" "$tmp/result-bad.txt"
tier "$tmp/result-nosum.txt" "" 1
fails "a tier without a summary line (it died) fails the tally" \
	tally "$tmp/result-host.txt" "$tmp/result-nosum.txt"
tier "$tmp/result-norc.txt" "patched: 5 passed, 0 failed, 0 skipped" ""
fails "a tier without a recorded exit status fails the tally" \
	tally "$tmp/result-host.txt" "$tmp/result-norc.txt"
tier "$tmp/result-two.txt" "patched: 5 passed, 2 failed, 0 skipped" 1
passes "a tier with 2 failures counts exactly 2 (and the tally exits non-zero)" \
	"14 passed, 2 failed, 0 skipped" \
	sh -c "! awk -f '$S/tally.awk' '$tmp/result-host.txt' '$tmp/result-two.txt'"
fails "a tally of no result files fails" tally /dev/null
guest "$tmp/died.log" >"$tmp/result-died.txt" || true
echo "XATTRNS-RC died=1" >>"$tmp/result-died.txt"
fails "ktap.awk's summary of a dead guest, tallied, fails the total" \
	tally "$tmp/result-host.txt" "$tmp/result-died.txt"

# ---- compare.awk: a broken measurement is never "stopped" ----

compare_log() { # compare_log DESIGN...: CELL lines of a complete run
	local d
	echo "XATTRNS-BEGIN 6.12.0"
	for d in "$@"; do
		echo "DESIGN|$d|$d title"
		echo "CELL|$d|daemon|real root (CAP_SYS_ADMIN)"
		echo "CELL|$d|switch|-"
		echo "CELL|$d|set file|ok"
		echo "CELL|$d|set symlink|ok"
		echo "CELL|$d|host sees on file|\`trusted.x\`"
		echo "CELL|$d|(a) host user tags root's device node|stopped"
		echo "CELL|$d|(a) errno|EPERM"
		echo "CELL|$d|(b) host user changes the guest's label|BREACH"
		echo "CELL|$d|(b) errno|ok"
	done
	echo "XATTRNS-COMPARE-END rc=0"
}
compare_log 1.stock 3.schaufler >"$tmp/console-stock.log"
compare_log 2.goyal 4.szeredi >"$tmp/console-patched.log"
cmp_awk() { awk -v srcver=test -v stamp=now -f "$S/compare.awk" "$@"; }
rc=0
cmp_awk "$tmp/console-stock.log" "$tmp/console-patched.log" >"$tmp/out" 2>&1 || rc=$?
result $rc "compare.awk renders a complete comparison"
sed 's/^\(CELL|4.szeredi|(a) host user tags root.s device node|\)stopped$/\1ERROR: the attacker could not take its identity/' \
	"$tmp/console-patched.log" >"$tmp/console-patched-error.log"
fails "compare.awk fails on an ERROR cell" \
	cmp_awk "$tmp/console-stock.log" "$tmp/console-patched-error.log"
grep -v '^CELL|2.goyal|(b) ' "$tmp/console-patched.log" >"$tmp/console-patched-missing.log"
fails "compare.awk fails when a design lacks a cell the others measured" \
	cmp_awk "$tmp/console-stock.log" "$tmp/console-patched-missing.log"

# ---- comparison-verdicts.sh: verdicts against design/comparison.expected ----

# A design directory of its own (XATTRNS_DESIGN) and kernel source version
# (XATTRNS_CACHE): the run above, accepted, is what later runs must measure.
mkdir -p "$tmp/design" "$tmp/cache"
printf '# Design\n\n%s\n\n%s\n\nProse.\n' \
	'<!-- verdict table: generated from comparison.expected by make accept-comparison; make check compares -->' \
	'<!-- end of the verdict table -->' >"$tmp/design/README.md"
comparison() { XATTRNS_DESIGN=$tmp/design XATTRNS_CACHE=$tmp/cache "$H/comparison-verdicts.sh" "$@"; }
# page NAME KVER SRCVER [SED]: this run's comparison.md from the synthetic
# consoles (kernel release KVER, source version SRCVER, a cell changed by SED)
page() {
	local k
	echo "$3" >"$tmp/cache/linux-source.version"
	for k in stock patched; do
		sed -e "s/^XATTRNS-BEGIN .*/XATTRNS-BEGIN $2/" -e "${4:-}" "$tmp/console-$k.log" \
			>"$tmp/$1-console-$k.log"
	done
	XATTRNS_CACHE=$tmp/cache "$H/render-comparison.sh" "$tmp/$1-console-stock.log" \
		"$tmp/$1-console-patched.log" >"$tmp/$1.md"
}
# unchanged: the design files are as saved (snapshot) after the last accept
snapshot() { rm -rf "$tmp/saved"; cp -r "$tmp/design" "$tmp/saved"; }
unchanged() { diff -r "$tmp/saved" "$tmp/design" >>"$tmp/out" 2>&1; }
page run0 6.12.0 1.0-1
rc=0
ACCEPT=1 comparison update "$tmp/run0.md" >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && grep -qxF '| (b) host user changes the guest'"'"'s label | BREACH | BREACH | BREACH | BREACH |' \
	"$tmp/design/comparison.expected" &&
	grep -qxF '| 2.goyal title | 2 of 2 | stopped | BREACH | CAP_SYS_ADMIN |' "$tmp/design/README.md" &&
	cmp -s "$tmp/run0.md" "$tmp/design/comparison.md"; then
	result 0 "comparison-verdicts.sh: an accepted run writes the expected cells, the page and README's table"
else
	result 1 "comparison-verdicts.sh: an accepted run writes the expected cells, the page and README's table" "exit status $rc"
fi
snapshot
passes "comparison-verdicts.sh: the accepted run checks clean" \
	"comparison: design/README.md's verdict table is design/comparison.expected's" \
	comparison check "$tmp/run0.md"
if grep -q '6\.12\.0.*1\.0-1' "$tmp/run0.md" && ! grep -q '6\.12\.0\|1\.0-1' "$tmp/design/comparison.expected"; then
	result 0 "comparison-verdicts.sh: the page names the versions, the expected file does not"
else
	result 1 "comparison-verdicts.sh: the page names the versions, the expected file does not"
fi

page run1 6.12.99 2.0-1
passes "comparison-verdicts.sh: a new kernel and source version alone do not fail the check" \
	"comparison: design/README.md's verdict table is design/comparison.expected's" \
	comparison check "$tmp/run1.md"
rc=0
comparison update "$tmp/run1.md" >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && diff -r -x comparison.md "$tmp/saved" "$tmp/design" >>"$tmp/out" 2>&1 &&
	cmp -s "$tmp/run1.md" "$tmp/design/comparison.md"; then
	result 0 "comparison-verdicts.sh: make run takes a new version alone (the page, not the expected cells)"
else
	result 1 "comparison-verdicts.sh: make run takes a new version alone (the page, not the expected cells)" "exit status $rc"
fi
cp "$tmp/run0.md" "$tmp/design/comparison.md"

page run2 6.12.0 1.0-1 's/^\(CELL|2.goyal|(b) host user changes the guest.s label|\)BREACH$/\1stopped/'
fails "comparison-verdicts.sh: a changed verdict fails the check" comparison check "$tmp/run2.md"
rc=0
comparison update "$tmp/run2.md" >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" != 0 ] && unchanged &&
	grep -qF "2.goyal title, \"(b) host user changes the guest's label\": expected BREACH, measured stopped" "$tmp/out"; then
	result 0 "comparison-verdicts.sh: make run refuses a changed verdict, names the cell, writes nothing"
else
	result 1 "comparison-verdicts.sh: make run refuses a changed verdict, names the cell, writes nothing" "exit status $rc"
fi
rc=0
ACCEPT=1 comparison update "$tmp/run2.md" >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && grep -qxF '| 2.goyal title | 2 of 2 | stopped | stopped | CAP_SYS_ADMIN |' "$tmp/design/README.md" &&
	grep -qxF '| (b) host user changes the guest'"'"'s label | BREACH | stopped | BREACH | BREACH |' \
		"$tmp/design/comparison.expected" &&
	cmp -s "$tmp/run2.md" "$tmp/design/comparison.md"; then
	result 0 "comparison-verdicts.sh: ACCEPT=1 writes the changed verdict (expected cells, page, README's table)"
else
	result 1 "comparison-verdicts.sh: ACCEPT=1 writes the changed verdict (expected cells, page, README's table)" "exit status $rc"
fi
passes "comparison-verdicts.sh: the accepted change checks clean" \
	"comparison: design/README.md's verdict table is design/comparison.expected's" \
	comparison check "$tmp/run2.md"
fails "comparison-verdicts.sh: the old verdict now fails the check" comparison check "$tmp/run0.md"
sed -i 's/^| 2.goyal title | 2 of 2 | stopped | stopped | CAP_SYS_ADMIN |$/| 2.goyal title | 2 of 2 | stopped | BREACH | CAP_SYS_ADMIN |/' \
	"$tmp/design/README.md"
fails "comparison-verdicts.sh: a README verdict table edited by hand fails the check" \
	comparison check "$tmp/run2.md"

# ---- bench.awk: a figure taken on a jiffies clock is refused ----

bench_log() { # bench_log CLOCKSOURCE STEP_NS MEDIAN_NS
	echo "XATTRNS-BEGIN 6.12.0"
	echo "XATTRNS-GUEST cpus_online=0 nproc=1 clocksource=$1 available=$1"
	echo "BENCH-CLOCK|4000000|$2|400"
	echo "BENCH|tmpfs|user.* regular file|get|$3|$3|$3"
	echo "XATTRNS-BENCH-END rc=0"
}
bench() { # bench ICOUNT_STOCK ICOUNT_PATCHED WALL_STOCK WALL_PATCHED
	local i=0 f
	for f in stock-bench-icount patched-bench-icount stock-bench-wall patched-bench-wall; do
		i=$((i + 1))
		eval "bench_log \$$i" >"$tmp/console-$f.log"
	done
	awk -v stamp=now -v prosefile="$S/bench-prose.txt" -f "$S/bench.awk" "$tmp"/console-{stock,patched}-bench-{icount,wall}.log
}
passes "bench.awk uses runs on a TSC clock" "| (wall) tmpfs, user.* regular file, get | 7000 | 0% | 7100 | 0% |" \
	bench "tsc 72 4548" "tsc 72 4557" "tsc 50 7000" "tsc 50 7100"
rc=0
bench "tsc 72 4548" "tsc 72 4557" "refined-jiffies 4000000 10000" "tsc 50 7100" >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" = 2 ] && grep -q '^(wall) stock: REFUSED' "$tmp/out" &&
	grep -q '^| (wall) tmpfs, user.\* regular file, get | - | - | 7100 | 0% |$' "$tmp/out"; then
	result 0 "bench.awk refuses a wall-clock run on refined-jiffies (exit 2, figures not shown)"
else
	result 1 "bench.awk refuses a wall-clock run on refined-jiffies (exit 2, figures not shown)" "exit status $rc"
fi
fails "bench.awk refuses instruction counts taken on a jiffies clock" \
	bench "jiffies 4000000 4548" "tsc 72 4557" "tsc 50 7000" "tsc 50 7100"
rc=0
bench "tsc 72 4548" "tsc 72 4557" "tsc 50000 7000" "tsc 50 7100" >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && grep -q '^| (wall) tmpfs, user.\* regular file, get | 7000‡ |' "$tmp/out"; then
	result 0 "bench.awk marks a figure whose runs last fewer than 100 clock steps"
else
	result 1 "bench.awk marks a figure whose runs last fewer than 100 clock steps" "exit status $rc"
fi

# ---- bench.awk: the targets, the regression exit, the figures ----

# A run of every target's cases on tmpfs: figures as the guests print them
# (BENCH|fs|case|call|min|median|max|calls per run), the patched kernel's
# with the switches read back. The namespace's listing of 16 names costs
# 1.05 of stock's (met), of 128 names 1.30 (missed); its get at depth 8
# 1.135 of its get at depth 1 (missed).
bench_row() { # bench_row CASE CALL FIGURE
	echo "BENCH|tmpfs|$1|$2|$3|$3|$3|400"
}
bench_targets() { # bench_targets stock|patched [TREE FIGURE: a wall-clock run's]
	local k=$1 tree=${2:-} s2=", second pass" pass sfx n d
	echo "XATTRNS-BEGIN 6.12.0"
	echo "XATTRNS-GUEST cpus_online=0 nproc=1 clocksource=tsc available=tsc"
	echo "BENCH-CLOCK|4000000|72|400"
	[ "$k" = stock ] || { echo "BENCH-SWITCHES|0|0"; s2=", switches 1"; f=1; }
	for pass in 1 2; do
		sfx=; [ "$pass" = 1 ] || sfx=$s2
		if [ "$pass" = 2 ] && [ "$k" = patched ]; then echo "BENCH-SWITCHES|1|1"; fi
		bench_row "user.* regular file$sfx" get 5200
		bench_row "trusted.* initial namespace$sfx" get 5000
		bench_row "trusted.* initial namespace$sfx" set 6000
		for n in 16 128 1024; do
			bench_row "list $n names, root$sfx" list $((10000 * n / 16))
			bench_row "list $n names, root$sfx" "list probe" $((8000 * n / 16))
			bench_row "list $n names, depth 1 non-root$sfx" list $((6000 * n / 16))
			if [ "$k$pass" = patched2 ]; then
				bench_row "list $n names, depth 1$sfx" list $(((n == 16 ? 10500 : 13000) * n / 16))
				bench_row "list $n names, depth 1$sfx" "list probe" $((9600 * n / 16))
			else
				bench_row "list $n names, depth 1$sfx" list $((6000 * n / 16))
			fi
		done
	done
	bench_row "user.* depth 1$s2" get 5300
	if [ "$k" = patched ]; then
		for d in 1 3 8; do
			bench_row "trusted.* depth $d, switches 1" get $((5100 + 100 * d))
			bench_row "trusted.* depth $d, switches 1" set $((6100 + 100 * d))
			bench_row "trusted.* depth $d, stored name as root, switches 1" get 5050
		done
		bench_row "list 128 names of depth 2, depth 2, switches 1" list 90000
		[ -z "$tree" ] || echo "BENCH-TREE|tmpfs|tree walk, depth 1, switches 1|2|256|$tree"
		echo "BENCH-SWITCHES|0|0"
	else
		bench_row "list 128 names of depth 2, root, second pass" list 80000
		[ -z "$tree" ] || echo "BENCH-TREE|tmpfs|tree walk, depth 1, second pass|2|256|$tree"
	fi
	echo "XATTRNS-BENCH-END rc=0"
}
bench_targets stock >"$tmp/t-stock-icount.log"
bench_targets patched >"$tmp/t-patched-icount.log"
bench_targets stock "30000|31000|33000" >"$tmp/t-stock-wall.log"
bench_targets patched "31000|32000|35000" >"$tmp/t-patched-wall.log"
bench_t() { # bench_t COMMITTED [-v AWK-VAR=VALUE...] [REPEATED RUN...]: bench.awk on the target logs
	local committed=$1 opts=() reps=()
	shift
	while [ $# -gt 0 ]; do
		if [ "$1" = -v ]; then
			opts+=("$1" "$2")
			shift 2
		else
			reps+=("$1")
			shift
		fi
	done
	awk -v stamp=now -v prosefile="$S/bench-prose.txt" -v committed="$committed" "${opts[@]}" -f "$S/bench.awk" \
		"$tmp"/t-{stock,patched}-icount.log "$tmp"/t-{stock,patched}-wall.log "${reps[@]}"
}
# has DESCRIPTION RC PATTERN...: the last bench_t exited RC, its output has
# every line PATTERN (a grep -F -x line)
has() {
	local desc=$1 want=$2 rc=$3 p
	shift 3
	if [ "$rc" != "$want" ]; then
		result 1 "$desc" "exit status $rc, want $want"
		return
	fi
	for p in "$@"; do
		if ! grep -q -F -x -- "$p" "$tmp/out"; then
			result 1 "$desc" "no line: $p"
			return
		fi
	done
	result 0 "$desc"
}
: >"$tmp/none.md"
rc=0
bench_t "$tmp/none.md" >"$tmp/out" 2>&1 || rc=$?
has "bench.awk lists the namespaced targets with measured, goal and result" 0 "$rc" \
	"| 1 | tmpfs list 16 names from depth 1 / stock's raw listing | 1.050 | <= 1.10 | met | a namespace's view against stock's listing of the same stored names | - |" \
	"| 1 | tmpfs list 128 names from depth 1 / stock's raw listing | 1.300 | <= 1.10 | MISSED | a namespace's view against stock's listing of the same stored names | - |" \
	"| 1 | tmpfs list 16 names from depth 1: probe / its listing | 0.914 | <= 1.00 | met | the size probe costs no more than the listing | - |" \
	"| 1 | tmpfs list 16 names from depth 1: probe / stock's probe | 1.200 | <= 1.10 | MISSED | against stock's probe of the same stored names (root) | - |" \
	"| 1 | tmpfs list 1024 names by a non-root uid at depth 1 / stock's | 1.000 | <= 1.05 | met | a caller who sees no trusted.* name, on both kernels | - |" \
	"| 1 | tmpfs list 128 names as root / stock | 1.000 | <= 1.10 | met | the initial namespace's listing, names as stored | - |" \
	"| 1 | tmpfs trusted.* get depth 1 / initial namespace | 1.040 | <= 1.05 | met | a namespace's own trusted.*, switches 1 both | - |" \
	"| 1 | tmpfs trusted.* set depth 3 / initial namespace | 1.067 | <= 1.07 | met | a namespace's own trusted.*, switches 1 both | - |" \
	"| 1 | tmpfs trusted.* get depth 8 / depth 1 | 1.135 | <= 1.03 | MISSED | the chain is cached: a flat cost over the depth | - |" \
	"| 0 | tmpfs list 16 names, depth 1 non-root list, switches 0 / stock | 1.0000 | <= 1.005 | met | issue 13: stock at stock cost | - |"
has "bench.awk breaks a namespace's listing and get down into stages" 0 "$rc" \
	"| tmpfs | 16 | 230 | 10000 | 10000 | 8000 | 10500 | 9600 | - | - | +500 | 31.2 | -900 | - / - |" \
	"| tmpfs | 1 | get | 5000 | 5050 | 5200 | +50 | +150 | +100 | +50 | 1.040 |" \
	"| tmpfs | 2 | 5000 | - | - | 80000 | 90000 | 1.125 |"
has "bench.awk renders the tree walk (wall-clock, 2 threads)" 0 "$rc" \
	"| (wall) tmpfs, tree walk, depth 1, 2 | 30000 | 31000 | 33000 | 31000 | 32000 | 35000 | 1.032 |"
# the committed page records the 16-name target as met and the 128-name one
# as met with another goal: only the first can regress
{
	echo "| 1 | tmpfs list 16 names from depth 1 / stock's raw listing | 1.100 | <= 1.10 | met | x |"
	echo "| 1 | tmpfs list 128 names from depth 1 / stock's raw listing | 1.300 | <= 1.50 | met | x |"
	echo "| 1 | tmpfs list 16 names from depth 1: probe / stock's probe | 1.100 | <= 1.10 | met | x |"
} >"$tmp/committed.md"
rc=0
bench_t "$tmp/committed.md" >"$tmp/out" 2>&1 || rc=$?
has "bench.awk exits 3 when a target the committed page records as met misses the same goal" 3 "$rc" \
	"| 1 | tmpfs list 16 names from depth 1: probe / stock's probe | 1.200 | <= 1.10 | MISSED, REGRESSED | against stock's probe of the same stored names (root) | - |" \
	"| 1 | tmpfs list 128 names from depth 1 / stock's raw listing | 1.300 | <= 1.10 | MISSED | a namespace's view against stock's listing of the same stored names | - |" \
	"- tmpfs list 16 names from depth 1: probe / stock's probe (1.200, goal <= 1.10)"
sed 's/^| 1 | tmpfs list 16 names from depth 1: probe.*//' "$tmp/committed.md" >"$tmp/committed-ok.md"
rc=0
bench_t "$tmp/committed-ok.md" >"$tmp/out" 2>&1 || rc=$?
has "bench.awk passes when every target the committed page records as met still is" 0 "$rc" \
	"No target that the committed page records as met misses its goal now."
# the noise band: more boots of stock under icount give each figure's
# spread; a miss of a target the committed page records as met within
# twice its stock figure's spread is no regression, outside it is, and with
# fewer than three stock runs there is no band
rep_probe() { # rep_probe FIGURE: stock's run with its 16-name probe at FIGURE
	sed 's/^\(BENCH|tmpfs|list 16 names, root, second pass|list probe|\)8000|8000|8000|/\1'"$1|$1|$1"'|/' \
		"$tmp/t-stock-icount.log"
}
cp "$tmp/t-stock-icount.log" "$tmp/t-stock-icount-rep2.log"
rep_probe 8500 >"$tmp/t-stock-icount-rep3.log"
rc=0
bench_t "$tmp/committed.md" "$tmp/t-stock-icount-rep2.log" "$tmp/t-stock-icount-rep3.log" >"$tmp/out" 2>&1 || rc=$?
has "bench.awk: a miss within the noise band of three stock runs is no regression" 0 "$rc" \
	"| 1 | tmpfs list 16 names from depth 1: probe / stock's probe | 1.200 | <= 1.10 | MISSED, within noise | against stock's probe of the same stored names (root) | 12.50% |"
rep_probe 8100 >"$tmp/t-stock-icount-rep3.log"
rc=0
bench_t "$tmp/committed.md" "$tmp/t-stock-icount-rep2.log" "$tmp/t-stock-icount-rep3.log" >"$tmp/out" 2>&1 || rc=$?
has "bench.awk: a miss outside the noise band is a regression" 3 "$rc" \
	"| 1 | tmpfs list 16 names from depth 1: probe / stock's probe | 1.200 | <= 1.10 | MISSED, REGRESSED | against stock's probe of the same stored names (root) | 2.50% |"
rep_probe 8500 >"$tmp/t-stock-icount-rep3.log"
rc=0
bench_t "$tmp/committed.md" "$tmp/t-stock-icount-rep3.log" >"$tmp/out" 2>&1 || rc=$?
has "bench.awk: two stock runs give no band, every miss regresses" 3 "$rc" \
	"| 1 | tmpfs list 16 names from depth 1: probe / stock's probe | 1.200 | <= 1.10 | MISSED, REGRESSED | against stock's probe of the same stored names (root) | - |" \
	"Noise band: none (2 stock run(s), fewer than 3): every miss of a target the committed page records as met is a regression."
sed 's/MISSED, REGRESSED/MISSED, within noise/' "$tmp/committed.md" >"$tmp/committed-noise.md"
echo "| 1 | tmpfs list 16 names from depth 1: probe / stock's probe | 1.300 | <= 1.10 | MISSED, within noise | x | 12.50% |" >>"$tmp/committed-noise.md"
sed -i '/probe \/ stock.s probe | 1.100 | <= 1.10 | met/d' "$tmp/committed-noise.md"
rc=0
bench_t "$tmp/committed-noise.md" >"$tmp/out" 2>&1 || rc=$?
has "bench.awk: a row the committed page has within noise keeps its guard" 3 "$rc" \
	"- tmpfs list 16 names from depth 1: probe / stock's probe (1.200, goal <= 1.10)"
cp "$tmp/t-patched-icount.log" "$tmp/t-patched-icount-rep2.log"
fails "bench.awk refuses a repeated run that is not stock's" \
	bench_t "$tmp/none.md" "$tmp/t-stock-icount-rep2.log" "$tmp/t-patched-icount-rep2.log"
# the second pass measured with the trusted switch read back 0
sed '0,/^BENCH-SWITCHES|1|1$/s//BENCH-SWITCHES|1|0/' "$tmp/t-patched-icount.log" >"$tmp/t-badsw.log"
fails "bench.awk refuses a figure measured at another setting than its case says" \
	awk -v stamp=now -v prosefile="$S/bench-prose.txt" -f "$S/bench.awk" "$tmp/t-stock-icount.log" "$tmp/t-badsw.log" \
	"$tmp/t-stock-wall.log" "$tmp/t-patched-wall.log"
# the figures: gnuplot renders the script bench.awk writes, to well-formed SVG
mkdir -p "$tmp/plots"
rc=0
bench_t "$tmp/none.md" -v plot="$tmp/plots/p.gp" -v plotdir="$tmp/plots" >"$tmp/out" 2>&1 || rc=$?
if ! command -v gnuplot >/dev/null 2>&1; then
	skipped=$((skipped + 1))
	ktap_result SKIP "bench.awk's figures render as SVG" "gnuplot not installed (make deps: gnuplot-nox)"
elif [ "$rc" != 0 ] || ! gnuplot "$tmp/plots/p.gp" >>"$tmp/out" 2>&1; then
	result 1 "bench.awk's figures render as SVG" "bench.awk exit status $rc, or gnuplot failed"
else
	bad_svg=
	for f in performance-names:"tmpfs: namespace root's listing" performance-depth:"tmpfs: trusted.* get"; do
		svg=$tmp/plots/${f%%:*}.svg
		if ! python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
sys.exit(0 if r.tag.endswith("svg") and len(r) else 1)' "$svg" >>"$tmp/out" 2>&1 ||
			! grep -q -F "${f#*:}" "$svg"; then
			bad_svg="$bad_svg ${f%%:*}.svg"
		fi
	done
	result "$([ -z "$bad_svg" ] && echo 0 || echo 1)" \
		"bench.awk's figures render as SVG (well-formed, a line per series)" "not well-formed or empty:$bad_svg"
fi

# ---- bench.awk's prose (scripts/report/bench-prose.txt) ----
# the page's words come from the prose file: without it, unreadable, or
# with a block missing or naming an unknown value, bench.awk writes no page
bench_prose() { # bench_prose PROSEFILE
	awk -v stamp=now -v prosefile="$1" -f "$S/bench.awk" "$tmp"/console-{stock,patched}-bench-{icount,wall}.log
}
fails "bench.awk without its prose file writes no page" bench_prose ""
fails "bench.awk refuses an unreadable prose file" bench_prose "$tmp/none.txt"
sed '/^@@ scaling-1$/,/^$/d' "$S/bench-prose.txt" >"$tmp/prose-short.txt"
fails "bench.awk refuses a prose file that lacks a block" bench_prose "$tmp/prose-short.txt"
sed 's/{LIMIT0}/{LIMIT1}/' "$S/bench-prose.txt" >"$tmp/prose-bad.txt"
fails "bench.awk refuses a block that names an unknown value" bench_prose "$tmp/prose-bad.txt"
if bench_prose "$S/bench-prose.txt" >"$tmp/out" 2>&1 &&
	grep -q -F "within that of 1.005" "$tmp/out" && ! grep -q '{[A-Z_0-9]*}' "$tmp/out"; then
	result 0 "bench.awk fills the prose's values in"
else
	result 1 "bench.awk fills the prose's values in"
fi

# ---- the booter's command line (boot.sh) ----
# every argument of a boot is an option of boot.sh, checked before anything
# boots: a wrong one is refused with its usage, not passed on to QEMU
boot() { XATTRNS_CACHE=$tmp/bootcache "$H/boot.sh" "$@"; }
# refused_by CMD DESCRIPTION WORD ARGS...: CMD ARGS fails, naming WORD
refused_by() {
	local cmd=$1 desc=$2 word=$3 rc=0
	shift 3
	"$cmd" "$@" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" = 0 ] || ! grep -q -F -- "$word" "$tmp/out"; then
		result 1 "$desc" "exit status $rc; want non-zero and '$word' in the message"
	else
		result 0 "$desc"
	fi
}
refused() { refused_by boot "$@"; }
refused "boot.sh refuses an unknown option" "unknown option --skip" --skip x patched check
refused "boot.sh refuses an unknown guest" "no guest 'patched-on'" patched-on check
refused "boot.sh refuses --cpus that is no number" "--cpus 'two'" --cpus two patched check
refused "boot.sh refuses --timeout that is no number" "--timeout '1h'" --timeout 1h patched check
refused "boot.sh refuses an option without its value" "--tests needs a value" --tests
refused "boot.sh refuses a word after MODE that is not --" "unexpected 'extra'" patched check extra
refused "boot.sh: hostroot needs --init" "hostroot needs --init" patched hostroot
refused "boot.sh: --init is hostroot's only" "--init and --progress are hostroot's" --init /sbin/init patched check
: >"$tmp/img"
refused "boot.sh refuses an unreadable --skips file" "--skips: cannot read" --skips "$tmp/none" --kernel "$tmp/img" --initrd "$tmp/img" patched check
# a valid command line gets as far as the kernel image
refused "boot.sh accepts its options, then looks for the kernel" "no patched kernel at $tmp/nokernel" \
	--kernel "$tmp/nokernel" --initrd "$tmp/img" --tests a:b --cpus 2 --tag " t" --append x=1 \
	--timeout 60 --partial --console "$tmp/c.log" patched check -- -icount shift=0

# ---- make profile's command line (profile.sh) ----
prof() { XATTRNS_CACHE=$tmp/profcache "$H/profile.sh" "$@"; }
prof_refused() { refused_by prof "$@"; }
prof_refused "profile.sh refuses an unknown operation" "no operation 'read'" read 1
prof_refused "profile.sh refuses a depth past 8" "DEPTH is 0 to 8" get 9
prof_refused "profile.sh refuses an unknown guest" "no guest 'debug'" --guest debug get 1
prof_refused "profile.sh refuses NAMES that is no number" "NAMES is a number" list 1 lots

# ---- make check-series' --from (check-series.sh) ----
rc=0
XATTRNS_CACHE=$tmp/seriescache "$H/check-series.sh" --from B/9999-no-such.patch >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" != 0 ] && grep -q -F -- "--from B/9999-no-such.patch: patches/series lists no such patch" "$tmp/out"; then
	result 0 "check-series.sh refuses --from a patch the series does not list"
else
	result 1 "check-series.sh refuses --from a patch the series does not list" "exit status $rc"
fi

# ---- the number of cases, pinned (scripts/report/skips.expected) ----
# a case that went missing, or a new one nobody pinned, fails
pin=$(awk '$1 == "harness" && $3 == "total" { print $2 }' "$REPO/scripts/report/skips.expected")
echo "$KTAP_N cases before this one, pinned total ${pin:-none}" >"$tmp/out"
result "$([ "$((KTAP_N + 1))" = "${pin:-x}" ] && echo 0 || echo 1)" \
	"the harness ran its pinned number of cases (scripts/report/skips.expected: harness)"

rc=0
ktap_end || rc=1
echo "harness: $((KTAP_N - KTAP_FAILED - skipped)) passed, $KTAP_FAILED failed, $skipped skipped"
exit "$rc"
