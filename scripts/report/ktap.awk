#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# ktap.awk: read a guest console log holding the KTAP output of
# run_kselftest.sh and print one summary line:
#     NAME: N passed, N failed, N skipped
# Leaf results count: the subtests a program reports, or the program's own
# result when it reports none, and each case of the KUnit suites that ran at
# boot (XATTRNS-KUNIT-BEGIN ... -END). Exit status 0 only when every result is ok
# or skipped, the plans are complete, the guest reached its end marker, no
# tool the guest ran reported a failure (XATTRNS-<TOOL>-END rc=N) and the
# kernel logged no warning, BUG, oops, lockdep or sanitizer report. Each
# such problem (an ERROR line) counts as one failure in the summary, so a
# run that broke never reads "0 failed".
#   awk -v name=patched -f ktap.awk console.log
# -v ktap=0: no KTAP expected (a guest run of the comparison only);
# -v guest=0: the output of a host program (no guest end marker);
# -v marker=COMPARE: the guest must have printed XATTRNS-COMPARE-END rc=0.
# -v skips=FILE: the pinned skips (scripts/report/skips.expected): a skip
# that no line for this tier (name) pins is a failure, and so is a line
# whose count this run did not meet, unless -v partial=1 (a run of only
# some tests: the counts cannot hold). A pin file that cannot be read is
# a failure. -v pintiers=T1,T2,...: a kernel between those tiers (a prefix
# of the series, make check-series): a skip must be pinned for one of
# them, and no count or total is held.
function problem(msg) { problems[++nproblems] = msg }
# glob (* and ?) to an anchored regular expression
function glob_re(g,   r, i, c) {
	r = "^"
	for (i = 1; i <= length(g); i++) {
		c = substr(g, i, 1)
		if (c == "*") r = r ".*"
		else if (c == "?") r = r "."
		else if (index("\\^$.[]|()+{}", c)) r = r "\\" c
		else r = r c
	}
	return r "$"
}
# the lines of the pin file for this tier:
#   TIERS COUNT TEST-GLOB REASON-GLOB (the reason: the rest of the line)
#   TIERS COUNT total                  (the tier's number of results)
function load_pins(   l, f, n, t, i, ok, r) {
	while ((r = (getline l < skips)) > 0) {
		if (l ~ /^[ \t]*(#|$)/)
			continue
		n = split(l, f, /[ \t]+/)
		if (n == 3 && f[3] == "total" && f[2] ~ /^[0-9]+$/) {
			split(f[1], t, ",")
			for (i in t)
				if (t[i] == name && pintiers == "") pin_total = f[2] + 0
			continue
		}
		if (n < 4 || f[2] !~ /^[0-9]+$/) {
			problem(sprintf("%s: malformed line: %s", skips, l))
			continue
		}
		split(f[1], t, ",")
		ok = 0
		for (i in t)
			if (pintiers == "" ? t[i] == name : index("," pintiers ",", "," t[i] ","))
				ok = 1
		if (!ok)
			continue
		npins++
		pin_count[npins] = f[2] + 0
		pin_test[npins] = f[3]
		sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+/, "", l)
		pin_reason[npins] = l
		pin_test_re[npins] = glob_re(f[3])
		pin_reason_re[npins] = glob_re(l)
	}
	if (r < 0)
		problem(sprintf("%s: cannot read the pinned skips", skips))
	close(skips)
}
# a skipped result: counted as skipped when pinned, as a failure otherwise
function skip_result(tname, line,   reason, i) {
	if (skips == "") {
		skipped++
		return
	}
	reason = line
	sub(/^.*#[ \t]*([Ss][Kk][Ii][Pp]|XFAIL)[ \t]*/, "", reason)
	sub(/[ \t]*#[ \t]*([Ss][Kk][Ii][Pp]|XFAIL)([ \t].*)?$/, "", tname)
	for (i = 1; i <= npins; i++)
		if (tname ~ pin_test_re[i] && reason ~ pin_reason_re[i]) {
			pin_seen[i]++
			skipped++
			return
		}
	failed++
	failures[++nfail] = "unexpected skip (not in " skips_short "): " tname " # SKIP " reason
}
function finish_program(   n) {
	if (!inprog)
		return
	if (subplan >= 0 && subseen != subplan)
		problem(sprintf("%s: planned %d subtests, saw %d", progname, subplan, subseen))
	inprog = 0
}
# the KTAP directive of a result line: SKIP and XFAIL (an expected failure:
# pinned like a skip), XPASS (a test expected to fail passed: a failure)
function directive(line) {
	if (line ~ /#[ \t]*[Ss][Kk][Ii][Pp]([ \t]|$)/) return "skip"
	if (line ~ /#[ \t]*XFAIL([ \t]|$)/) return "skip"
	if (line ~ /#[ \t]*XPASS([ \t]|$)/) return "xpass"
	return ""
}
BEGIN {
	if (name == "") name = "kselftest"
	if (ktap == "") ktap = 1
	if (guest == "") guest = 1
	top_plan = -1; subplan = -1
	if (pintiers != "")
		partial = 1
	if (skips != "") {
		skips_short = skips
		sub(/^.*\/scripts\//, "scripts/", skips_short)
		load_pins()
	}
}
{
	sub(/\r$/, "")
	line = $0
}
/XATTRNS-TIMEOUT/ { problem("guest timed out"); next }
# the guest's own status (its test runner's or tool's): a failure that the
# KTAP did not count (a tool that bailed out, say) must not read as a pass
/XATTRNS-END rc=/ {
	ended = 1
	end_rc = line
	sub(/^.*XATTRNS-END rc=/, "", end_rc)
	next
}
# a tool the guest ran (the comparison, the benchmark) and its status
/XATTRNS-[A-Z0-9]+-END rc=/ {
	tool = line
	sub(/^.*XATTRNS-/, "", tool); sub(/-END rc=.*$/, "", tool)
	rc = line
	sub(/^.*-END rc=/, "", rc)
	tool_ended[tool] = 1
	if (rc + 0 != 0 || rc !~ /^[0-9]+/)
		problem(sprintf("%s failed in the guest (%s)", tolower(tool), "rc=" rc))
	next
}
/XATTRNS-DMESG-BEGIN/ { indmesg = 1; next }
/XATTRNS-DMESG-END/ { indmesg = 0; next }
# Kernel trouble, on the console or in the dmesg dump: fail the run.
/(WARNING: |BUG: |BUG kmalloc|Oops|general protection fault|Kernel panic|kernel BUG at|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|KASAN: |UBSAN: |KFENCE: |kmemleak: .*new suspected|unreferenced object 0x|INFO: task .* blocked|Call Trace:|RIP: )/ {
	if (!(line in splat_seen)) {
		splat_seen[line] = 1
		splats[++nsplats] = line
	}
	next
}
indmesg { next }
# The KUnit tests built into the kernel (the patched kernels' name codec),
# which ran at boot: the guest prints their cases from the kernel log
# between these markers; each case is one result, kunit.SUITE.CASE.
/XATTRNS-KUNIT-BEGIN/ { inkunit = 1; next }
/XATTRNS-KUNIT-END/ { inkunit = 0; next }
inkunit && /^    # Subtest: / { ksuite = line; sub(/^    # Subtest: /, "", ksuite); next }
inkunit && /^    (not )?ok [0-9]+ / {
	d = directive(line)
	tname = line
	sub(/^    (not )?ok [0-9]+ /, "", tname)
	tname = "kunit." ksuite "." tname
	if ((line ~ /^    not ok/ && d != "skip") || d == "xpass") {
		failed++
		failures[++nfail] = tname
	} else if (d == "skip") {
		skip_result(tname, line)
	} else {
		passed++
	}
	next
}
inkunit { next }
# top level: the runner's own plan and one result per program
/^1\.\.[0-9]+/ && !toplevel_planned {
	toplevel_planned = 1
	top_plan = substr(line, 4) + 0
	next
}
/^(not )?ok [0-9]+ / {
	top_seen++
	notok = (line ~ /^not ok/)
	d = directive(line)
	progname = line
	sub(/^(not )?ok [0-9]+ /, "", progname)
	if (subplan == 0 && d != "skip")
		problem(sprintf("%s: planned no tests (1..0) and did not skip", progname))
	if (subseen == 0) {
		# a program without subtests counts as one result
		if (d == "skip") skip_result(progname, line)
		else if (notok || d == "xpass") { failed++; failures[++nfail] = progname }
		else passed++
	} else if (notok && d != "skip" && subfailed == 0) {
		# all subtests passed, yet the program failed (crash, leak...)
		failed++
		failures[++nfail] = progname " (program failed after its subtests)"
	}
	finish_program()
	subseen = 0; subfailed = 0; subplan = -1
	next
}
# nested: a program's own KTAP, prefixed with "# " by the runner
/^# 1\.\.[0-9]+/ { subplan = substr(line, 6) + 0; inprog = 1; next }
/^# (not )?ok [0-9]+ / {
	inprog = 1
	subseen++
	d = directive(line)
	tname = line
	sub(/^# (not )?ok [0-9]+ /, "", tname)
	if ((line ~ /^# not ok/ && d != "skip") || d == "xpass") {
		failed++
		subfailed++
		failures[++nfail] = tname
	} else if (d == "skip") {
		skip_result(tname, line)
	} else {
		passed++
	}
	next
}
END {
	if (ktap && top_plan < 0)
		problem("no KTAP plan: the tests did not start")
	else if (ktap && top_seen != top_plan)
		problem(sprintf("planned %d test programs, saw %d", top_plan, top_seen))
	if (guest && !ended)
		problem("the guest did not reach its end marker (crash or timeout)")
	if (marker != "" && !(marker in tool_ended))
		problem(sprintf("no XATTRNS-%s-END line: the %s did not finish", marker, tolower(marker)))
	if (!partial && pin_total != "" && passed + failed + skipped != pin_total)
		problem(sprintf("expected %d results (%s total), saw %d: a test appeared or went",
			pin_total, skips_short, passed + failed + skipped))
	for (i = 1; !partial && i <= npins; i++)
		if (pin_seen[i] + 0 != pin_count[i])
			problem(sprintf("pinned skip %s \"%s\": expected %d, saw %d (%s)",
				pin_test[i], pin_reason[i], pin_count[i], pin_seen[i], skips_short))
	for (i = 1; i <= nfail; i++)
		printf("%s: FAILED %s\n", name, failures[i])
	for (i = 1; i <= nsplats && i <= 20; i++)
		printf("%s: KERNEL: %s\n", name, splats[i])
	if (nsplats)
		problem(sprintf("%d kernel warning/BUG line(s) in the console log", nsplats))
	if (ended && end_rc !~ /^0$/ && !failed && !nproblems)
		problem(sprintf("the guest's run ended with rc=%s and no failure to show for it", end_rc))
	for (i = 1; i <= nproblems; i++)
		printf("%s: ERROR: %s\n", name, problems[i])
	# each problem is one failure: a run that broke never reads "0 failed"
	printf("%s: %d passed, %d failed, %d skipped\n", name, passed, failed + nproblems, skipped)
	exit (failed || nproblems) ? 1 : 0
}
