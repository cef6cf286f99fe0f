#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# tally.awk: the total of make check, from the result file of each tier
# (harness, build, static, host, each kernel, comparison):
#     awk -f tally.awk result-host.txt result-stock.txt ...
# A result file holds the tier's output; its summary is the last line of the
# form "NAME: N passed, N failed, N skipped", and scripts/host/check.sh appends
# the tier's exit status as "XATTRNS-RC NAME=N". The exit status is the
# source of truth: a tier that exited non-zero but counted no failure, or
# that printed no summary, counts as one failure. Prints the total,
#     N passed, N failed, N skipped
# and exits 0 only when nothing failed.
function flush(   f) {
	if (file == "")
		return
	if (!have_summary) {
		printf("%s: ERROR: no tally line (the tier did not finish)\n", tier)
		failed++
	} else {
		passed += p; skipped += s; failed += f0
		if (rc != 0 && f0 == 0) {
			printf("%s: ERROR: exited with status %s but counted no failure: one failure\n", tier, rc)
			failed++
		}
	}
	if (!have_rc) {
		printf("%s: ERROR: no exit status recorded\n", tier)
		if (have_summary && f0 == 0) failed++
	}
}
FNR == 1 {
	flush()
	file = FILENAME
	tier = FILENAME
	sub(/^.*result-/, "", tier); sub(/\.txt$/, "", tier)
	have_summary = 0; have_rc = 0; rc = 0; p = 0; f0 = 0; s = 0
}
{ sub(/\r$/, "") }
/^[^ ]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {
	split($0, w, " ")
	p = w[2] + 0; f0 = w[4] + 0; s = w[6] + 0
	have_summary = 1
	next
}
/^XATTRNS-RC [^ ]+=-?[0-9]+$/ {
	rc = $2
	sub(/^.*=/, "", rc)
	rc += 0
	have_rc = 1
	next
}
END {
	flush()
	if (file == "") {
		print "tally: ERROR: no result files"
		failed++
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	exit failed ? 1 : 0
}
