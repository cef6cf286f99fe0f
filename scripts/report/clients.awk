#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# clients.awk: the real virtiofsd (tools/vhostfs, VCELL lines) against
# tools/xattrd (CELL lines), cell by cell, from guest console logs. The
# file name says the kernel (console-stock.log, console-patched.log, ...).
#   awk -v mode=check -f clients.awk console-*.log
#       one line per kernel; a line per disagreement; exit 1 on any, on a
#       kernel with no cells of either tool, on a cell one tool lacks, or on
#       a cell that holds no measurement (ERROR) in either
#   awk -v mode=render -f clients.awk console-stock.log console-patched.log
#       the section of design/comparison.md: the real daemon's table, a
#       disagreeing cell in bold with xattrd's value beside it
# Nothing here knows what a cell should be: xattrd is the fast model, the
# real daemon the referee.
function esc(s) { gsub(/\|/, "\\|", s); return s }
function kernel_of(f) {
	sub(/.*\//, "", f); sub(/^console-/, "", f); sub(/\.log$/, "", f); sub(/-compare$/, "", f)
	return f
}
FNR == 1 { k = kernel_of(FILENAME); kernels[++nk] = k }
{ sub(/\r$/, "") }
/^V?DESIGN\|/ {
	split($0, f, "|")
	if (!(f[2] in title)) { order[++nd] = f[2]; title[f[2]] = f[3] }
	dkernel[f[2]] = k
	next
}
/^V?CELL\|/ {
	n = split($0, f, "|")
	val = f[4]
	for (i = 5; i <= n; i++) val = val "|" f[i]
	tool = (f[1] == "VCELL") ? "v" : "x"
	if (!(f[3] in seenrow)) { seenrow[f[3]] = 1; rows[++nr] = f[3] }
	key = k SUBSEP f[2] SUBSEP f[3]
	if ((tool, key) in cell)
		dup[k] = dup[k] " " f[2] "/" f[3]
	cell[tool, key] = val
	ncells[tool, k]++
	cells_of[k, ++nkc[k]] = f[2] SUBSEP f[3]
	next
}
function check(   i, j, kk, bad, total, key, d, r, x, v, seen, nbad, msg) {
	nbad = 0
	for (i = 1; i <= nk; i++) {
		kk = kernels[i]
		if (!ncells["x", kk] || !ncells["v", kk]) {
			printf("clients: %s: FAILED: no cells from %s\n", kk,
			       !ncells["x", kk] ? "xattrd" : "vhostfs (the real virtiofsd)")
			nbad++
			continue
		}
		if (dup[kk] != "") {
			printf("clients: %s: FAILED: cells measured twice:%s\n", kk, dup[kk])
			nbad++
		}
		bad = 0; total = 0
		delete seen
		for (j = 1; j <= nkc[kk]; j++) {
			key = cells_of[kk, j]
			if (key in seen) continue
			seen[key] = 1
			split(key, f, SUBSEP); d = f[1]; r = f[2]
			x = (("x", kk SUBSEP key) in cell) ? cell["x", kk SUBSEP key] : "(missing)"
			v = (("v", kk SUBSEP key) in cell) ? cell["v", kk SUBSEP key] : "(missing)"
			total++
			if (x ~ /^ERROR/ || v ~ /^ERROR/) {
				printf("clients: %s: NO MEASUREMENT: %s, %s: xattrd %s, virtiofsd %s\n",
				       kk, d, r, x, v)
				bad++
			} else if (x != v) {
				printf("clients: %s: DISAGREE: %s, %s: xattrd %s, virtiofsd %s\n",
				       kk, d, r, x, v)
				bad++
			}
		}
		if (bad) {
			printf("clients: %s: FAILED: the real virtiofsd and xattrd disagree (or did not measure) on %d of %d cells\n",
			       kk, bad, total)
			nbad++
		} else {
			printf("clients: %s: the real virtiofsd agrees with xattrd on all %d cells\n",
			       kk, total)
		}
	}
	return nbad
}
function render(   i, j, t, d, r, line, sep, key, x, v, ndis) {
	# columns in the order of the design numbers, as compare.awk has them
	for (i = 2; i <= nd; i++)
		for (j = i; j > 1 && title[order[j - 1]] > title[order[j]]; j--) {
			t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
		}
	print "## The same designs through the real virtiofsd"
	print ""
	print "The same guests, right after `xattrd compare`, ran `vhostfs compare /mnt/share/clients`"
	print "(tools/vhostfs): a vhost-user-fs frontend of ours, with no VM, drives Debian 12's"
	print "unmodified virtiofsd (QEMU 7.2, `/usr/lib/qemu/virtiofsd --fd=N -o source=DIR"
	print "-o sandbox=namespace -o xattrmap=RULES --rlimit-nofile=0`, plus `-o modcaps=+sys_admin`"
	print "for the trusted.* mappings; one daemon per design) through FUSE requests (LOOKUP,"
	print "SETXATTR, GETXATTR, LISTXATTR, REMOVEXATTR): the designs, the tree and the attacks"
	print "are xattrd's own (tools/compare), only the guest's calls go another way. The"
	print "unprivileged daemon is uid 1000 in a user namespace of its own (mapped like xattrd's);"
	print "the attacks run as above, the labels before and after read through the daemon, (c)"
	print "from a namespace nested in the daemon's real one, (e) from one that uid 1000 makes"
	print "itself, beside the daemon's. Each cell is what the real daemon"
	print "gave; where it differs from xattrd's, it is in bold with xattrd's value beside it."
	print "`make run`, `make check` and `make clients` fail on any disagreement."
	print ""
	line = "| |"; sep = "| --- |"
	for (d = 1; d <= nd; d++) { line = line " " title[order[d]] " |"; sep = sep " --- |" }
	print line; print sep
	line = "| kernel |"
	for (d = 1; d <= nd; d++) line = line " " dkernel[order[d]] " |"
	print line
	ndis = 0
	for (r = 1; r <= nr; r++) {
		line = "| " esc(rows[r]) " |"
		for (d = 1; d <= nd; d++) {
			key = dkernel[order[d]] SUBSEP order[d] SUBSEP rows[r]
			x = (("x", key) in cell) ? cell["x", key] : "(not measured)"
			v = (("v", key) in cell) ? cell["v", key] : "(not measured)"
			if (x == v)
				line = line " " esc(v) " |"
			else {
				line = line " **" esc(v) "** (xattrd: " esc(x) ") |"
				ndis++
			}
		}
		print line
	}
	print ""
	if (ndis)
		printf("**%d cell(s) disagree**: the real daemon does not behave as xattrd models it there.\n", ndis)
	else
		print "Every cell agrees with xattrd's table above."
}
END {
	if (mode == "check")
		exit check() ? 1 : 0
	if (mode == "render") {
		render()
		exit 0
	}
	print "clients.awk: set -v mode=check or -v mode=render" > "/dev/stderr"
	exit 2
}
