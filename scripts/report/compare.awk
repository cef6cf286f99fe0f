#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# compare.awk: turn the CELL lines that tools/xattrd printed in the guests
# (stock and patched console logs) into design/comparison.md.
#   awk -v srcver=VERSION -v qemuver=VERSION -v stamp=DATE -f compare.awk \
#       console-stock.log console-patched.log
# Designs and rows keep the order in which they first appear. The versions
# and the date go on lines of their own ("Measured with:", "Generated"),
# never into the table: scripts/report/verdicts.awk checks the table's cells
# against design/comparison.expected.
function esc(s) { gsub(/\|/, "\\|", s); return s }
{ sub(/\r$/, "") }
/^XATTRNS-BEGIN / { kver[FILENAME] = $2 }
FNR == 1 { if (FILENAME ~ /stock/) stockf = FILENAME; else patchedf = FILENAME }
/^DESIGN\|/ {
	split($0, f, "|")
	if (!(f[2] in title)) { order[++nd] = f[2]; title[f[2]] = f[3] }
	kernel[f[2]] = (FILENAME ~ /stock/) ? "stock" : "patched"
	next
}
/^CELL\|/ {
	n = split($0, f, "|")
	val = f[4]
	for (i = 5; i <= n; i++) val = val "|" f[i]
	if (!(f[3] in seenrow)) { seenrow[f[3]] = 1; rows[++nr] = f[3] }
	cell[f[2], f[3]] = val
	next
}
function count(d, prefix, want,   i, c) {
	c = 0
	for (i = 1; i <= nr; i++)
		if (index(rows[i], prefix) == 1 && cell[d, rows[i]] == want) c++
	return c
}
function total(prefix,   i, c) {
	c = 0
	for (i = 1; i <= nr; i++) if (index(rows[i], prefix) == 1) c++
	return c
}
# "a, b and c"
function join(list, n,   i, s) {
	s = ""
	for (i = 1; i <= n; i++)
		s = s (i == 1 ? "" : i == n ? " and " : ", ") list[i]
	return s
}
# an attack's verdict row: "(a) ...", "(d) guest reads ..." (not an errno row)
function is_attack(row) { return row ~ /^\([a-z]\) / && row !~ /errno/ }
# the errno row that goes with the k-th verdict row of the same letter
function errno_of(id, row,   letter, i, k, j) {
	letter = substr(row, 1, 3)
	k = 0
	for (i = 1; i <= nr; i++) {
		if (index(rows[i], letter) != 1 || !is_attack(rows[i])) continue
		k++
		if (rows[i] == row) break
	}
	j = 0
	for (i = 1; i <= nr; i++)
		if (index(rows[i], letter) == 1 && rows[i] ~ /errno/ && ++j == k)
			return cell[id, rows[i]]
	return "?"
}
# The prose for one design, from its cells only.
function verdict(id,   r, nfail, fails, errs, e, nb, breached, ns, stopped, what, sw) {
	printf("**%s** (%s kernel; daemon: %s", title[id], kernel[id], cell[id, "daemon"])
	sw = cell[id, "switch"]
	if (sw != "" && sw != "-") printf("; switch fs.%s=1", sw)
	printf("). ")
	# the relabel
	nfail = 0
	split("", errs)
	for (r = 1; r <= nr; r++) {
		if (index(rows[r], "set ") != 1) continue
		if (cell[id, rows[r]] == "ok") continue
		e = cell[id, rows[r]]
		fails[++nfail] = substr(rows[r], 5) " (" e ")"
	}
	printf("The guest labelled %d of %d node types", count(id, "set ", "ok"), total("set "))
	if (nfail) printf("; setting the label failed on %s", join(fails, nfail))
	printf(". ")
	if (cell[id, "host sees on file"] != "")
		printf("The host's root lists the file's label as %s. ", cell[id, "host sees on file"])
	# the attacks
	nb = ns = nl = 0
	for (r = 1; r <= nr; r++) {
		if (!is_attack(rows[r])) continue
		what = rows[r] " (the call returned " errno_of(id, rows[r]) ")"
		if (cell[id, rows[r]] == "BREACH") {
			breached[++nb] = what
		} else {
			stopped[++ns] = substr(rows[r], 1, 3)
			# stopped, yet the attacker's call succeeded: it wrote elsewhere
			if (errno_of(id, rows[r]) == "ok") landed[++nl] = substr(rows[r], 1, 3)
		}
	}
	if (nb == 0)
		printf("Every attack was stopped.")
	else
		printf("%d of %d attacks succeeded: %s.", nb, nb + ns, join(breached, nb))
	if (nl)
		printf(" %s: the attacker's call succeeded but did not change what it aimed at.",
		       join(landed, nl))
	printf("\n\n")
	good[id] = (nfail == 0 && nb == 0)
	relabelled[id] = (nfail == 0)
}
# "(a), (b) and (d)": the attacks of which id stopped every row, and
# (into missed, their number into nmissed) the rows it did not stop
function stops(id,   r, l, letter, nl, letters, allstop, ns, stopped) {
	nl = 0
	nmissed = 0
	split("", missed)
	for (r = 1; r <= nr; r++) {
		if (!is_attack(rows[r])) continue
		letter = substr(rows[r], 1, 3)
		if (!(letter in allstop)) { letters[++nl] = letter; allstop[letter] = 1 }
		if (cell[id, rows[r]] == "BREACH") {
			allstop[letter] = 0
			missed[++nmissed] = rows[r]
		}
	}
	ns = 0
	for (l = 1; l <= nl; l++)
		if (allstop[letters[l]]) stopped[++ns] = letters[l]
	return join(stopped, ns)
}
END {
	# columns in the order of the design numbers ("1. ...", "2. ...")
	for (i = 2; i <= nd; i++)
		for (j = i; j > 1 && title[order[j - 1]] > title[order[j]]; j--) {
			t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
		}
	if (nd != 4) {
		printf("compare.awk: expected 4 designs, found %d\n", nd) > "/dev/stderr"
		exit 1
	}
	# a measurement that broke: an ERROR cell, or a cell one design lacks
	bad = 0
	for (r = 1; r <= nr; r++)
		for (d = 1; d <= nd; d++) {
			# (test with "in" first: reading a missing element creates it)
			if (!((order[d], rows[r]) in cell)) {
				printf("compare.awk: %s: no cell for \"%s\" (the run did not finish)\n",
				       title[order[d]], rows[r]) > "/dev/stderr"
				bad++
				continue
			}
			v = cell[order[d], rows[r]]
			if (v ~ /^ERROR/) {
				printf("compare.awk: %s: \"%s\": %s\n", title[order[d]], rows[r], v) > "/dev/stderr"
				bad++
			}
		}
	print "# The designs, measured"
	print ""
	print "Generated by `make run` (tools/xattrd in QEMU guests); do not edit. " \
	      "Generated: " stamp
	print ""
	print "Measured with: kernel " kver[stockf] " (stock) and " kver[patchedf] " (patched), from Debian's " \
	      "linux-source-6.12 " srcver "; virtiofsd of Debian's qemu-system-common " qemuver "."
	print "`make check` holds every run to the cells of [comparison.expected](comparison.expected);"
	print "`make run` rewrites this page only while they hold (to take a change: `make run"
	print "ACCEPT=1` or `make accept-comparison`)."
	print ""
	print "Each column is one design from the 2021 discussion, measured on the kernel it"
	print "needs, with the syscalls an unprivileged (or privileged) virtiofsd issues: regular"
	print "files and directories through a /proc/self/fd reopen of an O_PATH descriptor,"
	print "symlinks and special files through `fchdir(\"/proc/self/fd\")` and the descriptor's"
	print "number as the path. The guest relabels every node of a shared tree on ext4"
	print "(sets `security.selinux`), reads each label back, lists, and removes one; then"
	print "the attacks (a) to (e) run against the same tree."
	print ""
	print "Commands: `make run` boots both kernels with `xattrns.mode=compare`; in each guest"
	print "`xattrd compare /mnt/share/compare` runs the designs that kernel carries on a fresh"
	print "ext4 disk. To try a mapping by hand (`make shell`):"
	print "`xattrd -U ':map:security.selinux:trusted.virtiofs.:' set security.selinux LABEL FILE...`"
	print "(`-U`: as uid 0 of a new user namespace), and `get`, `list`, `remove` alike."
	print ""
	line = "| |"; sep = "| --- |"
	for (d = 1; d <= nd; d++) { line = line " " title[order[d]] " |"; sep = sep " --- |" }
	print line; print sep
	line = "| kernel |"
	for (d = 1; d <= nd; d++) line = line " " kernel[order[d]] " |"
	print line
	for (r = 1; r <= nr; r++) {
		line = "| " esc(rows[r]) " |"
		for (d = 1; d <= nd; d++) {
			if ((order[d], rows[r]) in cell) v = cell[order[d], rows[r]]
			else v = "ERROR: not measured"
			line = line " " esc(v) " |"
		}
		print line
	}
	print ""
	print "Rows: `set`/`get`/`list` are the guest's relabel through the daemon (ok: the"
	print "label was stored, read back exactly, and listed under its guest name). Attacks:"
	print "(a) host uid 2000 attaches an xattr (under the host name the design uses) to a"
	print "root-owned character device 1:3, mode 0666, that it can write; (b) host uid 2000,"
	print "who can write the shared file (mode 0666), sets the guest's label under its host"
	print "name; (c) the root of a user namespace nested in the daemon's, mapping 0 to 0"
	print "(the same root kuid), sets the label under the daemon's own name; (d) the guest"
	print "asks, through the mapping, to read and to overwrite `trusted.host.secret`, an"
	print "entry the host's root put on the file; (e) a process of host uid 1000 (the"
	print "unprivileged daemon's uid) outside the daemon sets the label under the daemon's"
	print "own name: as uid 1000 itself for the user.* mappings, for the trusted.* mappings"
	print "as the root of a user namespace it makes itself, 0 mapped to 1000, as `unshare -r`"
	print "does (design 3's daemon is real root: uid 1000 is one more host user there)."
	print "BREACH means the attack changed or read what it must not; stopped means it did"
	print "not, as measured after it; ERROR means the measurement itself broke (the"
	print "attacker could not take its identity, the daemon could not read the label back):"
	print "no verdict. The errno row is what the attacker's call returned."
	print ""
	print "## What the numbers mean"
	print ""
	print "Written from the cells above by scripts/report/compare.awk."
	print ""
	if (bad) {
		print "No verdict: " bad " cell(s) hold no measurement (ERROR above)."
		exit 1
	}
	for (d = 1; d <= nd; d++)
		verdict(order[d])
	ng = 0
	for (d = 1; d <= nd; d++)
		if (good[order[d]] && cell[order[d], "daemon"] !~ /CAP_SYS_ADMIN|real root/)
			best[++ng] = title[order[d]]
	if (ng) {
		printf("Finishing the relabel, stopping every attack and needing no privilege on the host: %s.\n\n", join(best, ng))
		exit 0
	}
	print "No design finishes the relabel, stops every attack and needs no privilege on the host."
	# what those that finish the relabel without privilege stop, and what not
	nu = 0
	for (d = 1; d <= nd; d++) {
		id = order[d]
		if (!relabelled[id] || cell[id, "daemon"] ~ /CAP_SYS_ADMIN|real root/) continue
		st = stops(id)
		what = "**" title[id] "** " (st == "" ? "stops none of the attacks" : "stops " st)
		if (nmissed) what = what (st == "" ? ": " : " but not ") join(missed, nmissed)
		unpriv[++nu] = what
	}
	if (nu == 0)
		print "No design finishes the relabel with no privilege on the host."
	else {
		printf("Of those that finish the relabel with no privilege on the host, ")
		for (u = 1; u <= nu; u++)
			printf("%s%s", u == 1 ? "" : "; ", unpriv[u])
		printf(".\n")
	}
	print ""
}
