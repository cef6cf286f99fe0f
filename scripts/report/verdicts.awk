#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# verdicts.awk: the comparison's cells against design/comparison.expected.
# Each file's first Markdown table is read as design x row -> cell (its
# header names the designs, its first column the rows); lines starting
# with # are comments. A page's first table is xattrd's (compare.awk); the
# versions and dates around it are no cells and never compared.
#   awk -v mode=diff -f verdicts.awk EXPECTED PAGE
#       one line per cell that differs (or that one side lacks); exit 1 on any
#   awk -v mode=expected -f verdicts.awk PAGE
#       the expected file that holds PAGE's cells
#   awk -v mode=readme -f verdicts.awk EXPECTED
#       design/README.md's verdict table, from the expected cells
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# the fields of a table line, into f[1..n] ("\|" is a | inside a cell)
function fields(line, f,   n, i) {
	gsub(/\\\|/, "\001", line)
	sub(/^\|/, "", line); sub(/\|[ \t]*$/, "", line)
	n = split(line, f, "|")
	for (i = 1; i <= n; i++) { f[i] = trim(f[i]); gsub("\001", "\\|", f[i]) }
	return n
}
FNR == 1 { file++; state = 0 }
/^#/ { next }
# state: 0 before the table, 1 header read, 2 in the rows, 3 after it
state == 3 { next }
!/^\|/ { if (state) state = 3; next }
state == 0 {
	nd[file] = fields($0, f) - 1
	for (i = 2; i <= nd[file] + 1; i++) title[file, i - 1] = f[i]
	state = 1
	next
}
state == 1 { state = 2; next }	# the | --- | line
{
	n = fields($0, f)
	row = f[1]
	rows[file, ++nr[file]] = row
	for (i = 2; i <= n; i++) cell[file, title[file, i - 1], row] = f[i]
}
function has(fl, t, r) { return (fl, t, r) in cell }
# mode=diff: file 1 the expected cells, file 2 the measured ones
function diff(   d, r, t, row, n, e, m) {
	n = 0
	for (d = 1; d <= nd[1]; d++) {
		t = title[1, d]
		for (r = 1; r <= nr[1]; r++) {
			row = rows[1, r]
			e = cell[1, t, row]
			m = has(2, t, row) ? cell[2, t, row] : "(not measured)"
			if (e != m) {
				printf("  %s, \"%s\": expected %s, measured %s\n", t, row, e, m)
				n++
			}
		}
	}
	# what was measured that nothing expects: a new design or row
	for (d = 1; d <= nd[2]; d++) {
		t = title[2, d]
		for (r = 1; r <= nr[2]; r++) {
			row = rows[2, r]
			if (!has(1, t, row)) {
				printf("  %s, \"%s\": expected nothing, measured %s\n", t, row,
				       cell[2, t, row])
				n++
			}
		}
	}
	return n
}
function expected(   d, r, line, sep) {
	print "# design/comparison.expected: the verdicts of design/comparison.md, design x"
	print "# row -> cell, that make check holds every run to (scripts/report/verdicts.awk)."
	print "# Written by make accept-comparison (or make run ACCEPT=1) from a run's"
	print "# measurements; make run never changes it by itself, and rewrites"
	print "# comparison.md only while every cell is the one here. design/README.md's"
	print "# verdict table is generated from it. No versions here: comparison.md says"
	print "# which kernels, kernel source and virtiofsd measured them."
	print ""
	line = "| |"; sep = "| --- |"
	for (d = 1; d <= nd[1]; d++) { line = line " " title[1, d] " |"; sep = sep " --- |" }
	print line; print sep
	for (r = 1; r <= nr[1]; r++) {
		line = "| " rows[1, r] " |"
		for (d = 1; d <= nd[1]; d++) line = line " " cell[1, title[1, d], rows[1, r]] " |"
		print line
	}
}
# the words two or more captions share at the start and at the end, the rest
# joined with "or": "guest reads host x", "guest overwrites host x" ->
# "guest reads or overwrites host x"
function merge(list, n,   w, nw, i, j, pre, suf, k, mid, s) {
	for (i = 1; i <= n; i++) nw[i] = split(list[i], w, " ")
	pre = 0
	for (;;) {
		for (i = 1; i <= n; i++) { split(list[i], w, " "); k[i] = w[pre + 1] }
		for (i = 2; i <= n && k[i] == k[1] && pre + 1 < nw[i]; i++) ;
		if (i <= n || pre + 1 >= nw[1]) break
		pre++
	}
	suf = 0
	for (;;) {
		for (i = 1; i <= n; i++) { split(list[i], w, " "); k[i] = w[nw[i] - suf] }
		for (i = 2; i <= n && k[i] == k[1] && nw[i] - suf > pre + 1; i++) ;
		if (i <= n || nw[1] - suf <= pre + 1) break
		suf++
	}
	split(list[1], w, " ")
	s = ""
	for (j = 1; j <= pre; j++) s = s w[j] " "
	for (i = 1; i <= n; i++) {
		split(list[i], w, " ")
		mid = ""
		for (j = pre + 1; j <= nw[i] - suf; j++) mid = mid (mid == "" ? "" : " ") w[j]
		s = s (i == 1 ? "" : i == n ? " or " : ", ") mid
	}
	for (j = nw[1] - suf + 1; j <= nw[1]; j++) s = s " " w[j]
	return s
}
# an attack's verdict row: "(a) ...", "(d) guest reads ..." (not an errno row)
function is_attack(row) { return row ~ /^\([a-z]\) / && row !~ /errno/ }
function readme(   r, d, t, row, nl, letters, l, nc, caps, cap, line, sep, ok, nset, v) {
	# the attacks' columns, in the order of their rows
	nl = 0
	for (r = 1; r <= nr[1]; r++) {
		row = rows[1, r]
		if (!is_attack(row)) continue
		l = substr(row, 1, 3)
		if (!(l in nc)) letters[++nl] = l
		caps[l, ++nc[l]] = substr(row, 5)
	}
	nset = 0
	for (r = 1; r <= nr[1]; r++) if (rows[1, r] ~ /^set /) nset++
	line = "| | relabel of " nset " node types |"; sep = "| --- | --- |"
	for (l = 1; l <= nl; l++) {
		split("", cap)
		for (r = 1; r <= nc[letters[l]]; r++) cap[r] = caps[letters[l], r]
		line = line " " letters[l] " " merge(cap, nc[letters[l]]) " |"
		sep = sep " --- |"
	}
	print line " daemon privilege |"
	print sep " --- |"
	for (d = 1; d <= nd[1]; d++) {
		t = title[1, d]
		v = t; sub(/[,:].*/, "", v)
		ok = 0
		for (r = 1; r <= nr[1]; r++)
			if (rows[1, r] ~ /^set / && cell[1, t, rows[1, r]] == "ok") ok++
		line = "| " v " | " ok " of " nset " |"
		for (l = 1; l <= nl; l++) {
			v = "stopped"
			for (r = 1; r <= nr[1]; r++)
				if (index(rows[1, r], letters[l]) == 1 && is_attack(rows[1, r]) &&
				    cell[1, t, rows[1, r]] != "stopped")
					v = (v == "BREACH" || cell[1, t, rows[1, r]] == "BREACH") ? "BREACH" : "?"
			line = line " " v " |"
		}
		line = line " " (cell[1, t, "daemon"] ~ /CAP_SYS_ADMIN/ ? "CAP_SYS_ADMIN" : "none") " |"
		print line
	}
}
END {
	if (mode == "diff") {
		if (file != 2 || !nd[1] || !nd[2]) {
			print "verdicts.awk: mode=diff wants an expected file and a page, each with a table" > "/dev/stderr"
			exit 2
		}
		exit diff() ? 1 : 0
	}
	if (mode == "expected" || mode == "readme") {
		if (!nd[1]) {
			print "verdicts.awk: no table in " ARGV[1] > "/dev/stderr"
			exit 2
		}
		if (mode == "expected") expected(); else readme()
		exit 0
	}
	print "verdicts.awk: set -v mode=diff, expected or readme" > "/dev/stderr"
	exit 2
}
