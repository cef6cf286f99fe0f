#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# bench.awk: design/performance.md from the BENCH lines of four guest runs:
#   console-{stock,patched}-bench-{icount,wall}.log (written by scripts/host/bench.sh)
# Both kernels measure every case of stock in two passes: the patched kernel
# with both switches (fs.xattr_user_special, fs.xattr_trusted_userns) 0 under
# stock's case names, then with both 1 under names ending in ", switches 1",
# followed by the cases stock lacks; stock's second pass, its names ending in
# ", second pass", is the baseline of the switch-1 figures. BENCH-SWITCHES|u|t
# lines say what the switches were read back as, and every figure must have
# been measured at the setting its name says.
# A figure is only as good as the clock that measured it: each run records
# its clocksource (XATTRNS-GUEST) and its clock's smallest step
# (BENCH-CLOCK). A run on a jiffies clocksource is refused (its figures are
# multiples of the tick); a figure whose runs last less than MIN_STEPS
# steps of the clock is marked.
# The noise band: console-stock-bench-icount-repN.log, more boots of the
# stock kernel under icount, give each figure's spread from boot to boot;
# a summary row's band is twice its stock figure's (a ratio of two figures
# that each move so much), and a regression is a miss outside it. With
# fewer than MIN_RUNS stock runs in all there is no band: any miss of a
# target the committed page records as met is a regression.
# Its prose is in scripts/report/bench-prose.txt (-v prosefile=FILE): blocks
# "@@ KEY" that prose(KEY) prints, with {NAME} replaced by the value
# PV[NAME] (the date, the kernels, the limits).
# Variables: prosefile (that file), stamp (the date line), committed (the page as committed: a
# target it records as met that now misses the same goal is a regression),
# plot (where to write the gnuplot script of the scaling figures) and
# plotdir (where that script writes its SVG files).
# Exits 1 when the instruction counts (the primary figure) cannot be
# trusted, or a figure was measured at another setting of the switches than
# its name says; 3 on a regression; 2 when a wall-clock run was refused.
# Other missed targets are reported, not failed.
function kern(f) { return f ~ /patched/ ? "patched" : "stock" }
function kind(f) { return f ~ /icount/ ? "icount" : "wall" }
# a repeated stock run, for the noise band only
function rep(f) { return f ~ /-rep[0-9]+\.log$/ }
function r2(x) { return sprintf("%.3f", x) }
function r4(x) { return sprintf("%.4f", x) }
BEGIN {
	MIN_STEPS = 100; MIN_RUNS = 3; LIMIT0 = 1.005; SUF = ", switches 1"; SUF2 = ", second pass"
	nsz = split("16 64 128 256 1024 4096", SZ, " ")
	nfsorder = split("tmpfs ext4 xfs btrfs", FSORDER, " ")
	load_prose()
	if (committed != "") {
		# the summary rows of the committed page: | group | target | measured | <= goal | result | from |
		while ((getline line < committed) > 0) {
			if (line !~ /^\| [01] \| /) continue
			n = split(line, col, " \\| ")
			# (a miss within the noise band keeps the row's guard)
			if (n >= 6 && (col[5] == "met" || col[5] == "MISSED, within noise")) {
				wasmet[col[2]] = 1; wasgoal[col[2]] = col[4]
			}
		}
		close(committed)
	}
}
{ sub(/\r$/, "") }
# the repeated stock runs: their figures' spread, nothing else
rep(FILENAME) && FNR == 1 {
	if (kern(FILENAME) != "stock" || kind(FILENAME) != "icount")
		bad[++nbad] = FILENAME ": a repeated run must be stock's, under icount"
	nreps++
}
rep(FILENAME) && /^BENCH-SWITCHES\|/ {
	split($0, f, "|")
	if (f[2] "|" f[3] != "0|0") bad[++nbad] = FILENAME ": a stock run with switches"
}
rep(FILENAME) && /^BENCH\|/ {
	split($0, f, "|")
	key = f[2] SUBSEP f[3] SUBSEP f[4]
	if (!((key) in nlo) || f[5] + 0 < nlo[key]) nlo[key] = f[5] + 0
	if (!((key) in nhi) || f[5] + 0 > nhi[key]) nhi[key] = f[5] + 0
	nruns[key]++
}
rep(FILENAME) { next }
/^XATTRNS-BEGIN / { kver[kern(FILENAME)] = $2 }
/^XATTRNS-GUEST / {
	for (i = 2; i <= NF; i++)
		if ($i ~ /^clocksource=/) csrc[kern(FILENAME), kind(FILENAME)] = substr($i, 13)
		else if ($i ~ /^nproc=/) cpus[kern(FILENAME), kind(FILENAME)] = substr($i, 7)
}
/^BENCH-CLOCK\|/ {
	split($0, f, "|")
	k = kern(FILENAME); m = kind(FILENAME)
	cres[k, m] = f[2]; cstep[k, m] = f[3]; citer[k, m] = f[4]
}
/^BENCH-SWITCHES\|/ {
	split($0, f, "|")
	k = kern(FILENAME); m = kind(FILENAME)
	swstate[k, m] = f[2] "|" f[3]
	if (k == "stock") bad[++nbad] = "the stock " m " run has fs.xattr_* switches (BENCH-SWITCHES)"
}
# BENCH|fs|case|op|min|median|max[|calls per run]
/^BENCH\|/ {
	split($0, f, "|")
	k = kern(FILENAME); m = kind(FILENAME)
	key = f[2] SUBSEP f[3] SUBSEP f[4]
	if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
	fsseen[f[2]] = 1
	# the figure: instruction counts, the fewest of the runs (noise only
	# adds instructions); wall-clock, the median
	med[k, m, key] = m == "icount" ? f[5] : f[6]; lo[k, m, key] = f[5]; hi[k, m, key] = f[7]
	iters[k, m, key] = f[8] != "" ? f[8] : citer[k, m]
	if (m == "icount" && f[5] != f[7]) nondet[k, key] = 1
	checksw(k, m, f[2] ", " f[3] ", " f[4], f[3])
}
# BENCH-TREE|fs|case|threads|files|min|median|max (wall-clock ns per file)
/^BENCH-TREE\|/ {
	split($0, f, "|")
	k = kern(FILENAME); m = kind(FILENAME)
	key = f[2] SUBSEP base(f[3]) SUBSEP f[4]
	if (!(key in tseen)) { tseen[key] = 1; tkeys[++ntk] = key }
	tmed[k, m, key] = f[7]; tlo[k, m, key] = f[6]; thi[k, m, key] = f[8]; tfiles = f[5]
	checksw(k, m, f[2] ", " f[3] ", " f[4] " threads", f[3])
}
function checksw(k, m, what, c,   sw) {
	sw = on(c)
	if ((k == "stock" && sw) || (k == "patched" && second(c)))
		bad[++nbad] = "the " k " " m " run measured \"" c "\""
	# a log without BENCH-SWITCHES lines (the harness's) says nothing to check
	if ((k, m) in swstate && swstate[k, m] != (sw ? "1|1" : "0|0"))
		bad[++nbad] = k " " m ": " what " was measured with the switches at " \
			swstate[k, m] " (user_special|trusted_userns)"
}
# a case measured with both switches 1 ends in ", switches 1"; stock's second
# pass, its baseline, in ", second pass"
function ends(c, x) { return length(c) > length(x) && substr(c, length(c) - length(x) + 1) == x }
function on(c) { return ends(c, SUF) }
function second(c) { return ends(c, SUF2) }
function base(c) {
	if (on(c)) return substr(c, 1, length(c) - length(SUF))
	if (second(c)) return substr(c, 1, length(c) - length(SUF2))
	return c
}
function ic(k, fs, c, op) { return icount_ok ? med[k, "icount", fs SUBSEP c SUBSEP op] : "" }
# the switch-1 figure of a case (patched) and its stock baseline (second pass)
function p1(fs, c, op) { return ic("patched", fs, c SUF, op) }
function s2(fs, c, op) { return ic("stock", fs, c SUF2, op) }
# an instruction count with its marks, or "-"
function fig(k, fs, c, op,   key, v) {
	key = fs SUBSEP c SUBSEP op
	v = ic(k, fs, c, op)
	if (v == "") return "-"
	return v coarse(k, "icount", key) (nondet[k, key] ? "*" : "")
}
function num(v) { return v == "" ? "-" : v }
function ratio(a, b) { return (a != "" && b != "" && b > 0) ? a / b : "" }
function rat(a, b,   r) { r = ratio(a, b); return r == "" ? "-" : r2(r) }
function diff(a, b) { return (a == "" || b == "") ? "-" : sprintf("%+d", a - b) }
# why a run's figures cannot be used at all ("" when they can)
function refused(k, m) {
	if (csrc[k, m] == "") return "no clocksource recorded"
	if (csrc[k, m] ~ /jiffies/)
		return "clocksource " csrc[k, m] " (every reading a multiple of the tick)"
	if (cstep[k, m] == "") return "no clock step recorded"
	return ""
}
# a figure whose run is short against the clock's step: "‡", else ""
function coarse(k, m, key) {
	return (med[k, m, key] * iters[k, m, key] < MIN_STEPS * cstep[k, m]) ? "‡" : ""
}
# band(KEY): the noise band of a ratio over stock's figure KEY (fs SUBSEP
# case SUBSEP call): twice its spread over every stock icount run, or ""
# when fewer than MIN_RUNS runs measured it
function band(key,   m, l, h) {
	m = med["stock", "icount", key]
	if (m == "" || nruns[key] + 1 < MIN_RUNS) return ""
	l = nlo[key] < m + 0 ? nlo[key] : m + 0
	h = nhi[key] > m + 0 ? nhi[key] : m + 0
	return l > 0 ? 2 * (h - l) / l : ""
}
# a summary row against a goal; group 0 or 1 (the switches), for the counts;
# bkey: the stock figure whose spread gives the row's noise band. A target
# the committed page records as met, with the same goal, that misses it now
# by more than the band is a regression; a miss is a miss either way.
function target(group, what, value, limit, detail, bkey,   ok, shown, res, b) {
	ok = (value != "" && value + 0 <= limit + 0)
	shown = value == "" ? "n/a" : (group == 0 ? r4(value) : r2(value))
	res = ok ? "met" : "MISSED"
	b = band(bkey)
	if (!ok && value != "" && (what in wasmet) && wasgoal[what] == "<= " limit) {
		if (b != "" && value + 0 <= limit * (1 + b)) {
			res = "MISSED, within noise"
			nnoise++
		} else {
			res = "MISSED, REGRESSED"
			regressed[++nreg] = what " (" shown ", goal <= " limit ")"
		}
	}
	printf("| %s | %s | %s | <= %s | %s | %s | %s |\n", group, what, shown, limit, res, detail,
	       b == "" ? "-" : sprintf("%.2f%%", 100 * b))
	ntarget[group]++
	if (!ok) { missed[group]++; missedrows[group] = missedrows[group] (missed[group] > 1 ? "; " : "") what }
}
# the filesystems measured, in a fixed order, then any other
function fslist(   i, n, s) {
	n = 0
	for (i = 1; i <= nfsorder; i++) if (FSORDER[i] in fsseen) FSL[++n] = FSORDER[i]
	for (s in fsseen) { for (i = 1; i <= nfsorder; i++) if (FSORDER[i] == s) break; if (i > nfsorder) FSL[++n] = s }
	return n
}
function L(n) { return "list " n " names, root" }
function D(n) { return "list " n " names, depth 1" }
function U(n) { return "list " n " names, depth 1 non-root" }
function DL(d) { return "list 128 names of depth " d }
# the list case of a kind (L root, D namespace root, U uid 1 of the namespace)
function cname(kd, n) { return kd == "L" ? L(n) : kd == "D" ? D(n) : U(n) }
# load_prose: the blocks of the prose file into PROSE[KEY] ("%%" lines are
# the file's comments; a block's trailing blank lines are dropped)
function load_prose(   r, l, key) {
	if (prosefile == "")
		setup_error("no -v prosefile=FILE (scripts/report/bench-prose.txt)")
	key = ""
	while ((r = (getline l < prosefile)) > 0) {
		if (l ~ /^%%/) continue
		if (l ~ /^@@ /) { key = substr(l, 4); PROSE[key] = ""; continue }
		if (key == "") continue
		PROSE[key] = PROSE[key] l "\n"
	}
	if (r < 0) setup_error("cannot read " prosefile)
	close(prosefile)
	for (key in PROSE) sub(/\n+$/, "", PROSE[key])
}
function setup_error(msg) {
	print "bench.awk: " msg > "/dev/stderr"
	setup_failed = 1
	exit 1
}
# prose KEY: print the block KEY, its {NAME}s replaced by PV[NAME]
function prose(key,   t, k, v) {
	if (!(key in PROSE)) setup_error(prosefile ": no block @@ " key)
	t = PROSE[key]
	for (k in PV) {
		v = PV[k]
		gsub(/&/, "\\\\&", v)
		gsub("\\{" k "\\}", v, t)
	}
	if (t ~ /\{[A-Z_0-9]+\}/) setup_error(prosefile ": @@ " key " names an unknown {NAME}")
	print t
}
END {
	if (setup_failed) exit 1
	PV["STAMP"] = stamp; PV["LIMIT0"] = LIMIT0; PV["MIN_STEPS"] = MIN_STEPS
	PV["KVER_STOCK"] = kver["stock"]; PV["KVER_PATCHED"] = kver["patched"]
	PV["TREE_FILES"] = tfiles == "" ? "256" : tfiles
	icount_ok = refused("stock", "icount") == "" && refused("patched", "icount") == ""
	wall_ok["stock"] = refused("stock", "wall") == ""
	wall_ok["patched"] = refused("patched", "wall") == ""
	nfs = fslist()
	prose("page-1")
	print ""
	if (nbad) {
		print "## ERRORS"
		print ""
		for (i = 1; i <= nbad; i++) print "- " bad[i]
		print ""
	}
	prose("page-2")
	print ""
	print "| run | clocksource | vCPUs | clock_getres | smallest step | calls per run | figures |"
	print "| --- | --- | --- | --- | --- | --- | --- |"
	for (mi = 1; mi <= 2; mi++)
		for (ki = 1; ki <= 2; ki++) {
			m = mi == 1 ? "icount" : "wall"; k = ki == 1 ? "stock" : "patched"
			why = refused(k, m)
			printf("| %s | %s | %s | %s ns | %s ns | %s | %s |\n",
			       (m == "wall" ? "(wall) wall-clock, " : "instruction count, ") k,
			       csrc[k, m] == "" ? "?" : csrc[k, m], cpus[k, m] == "" ? "?" : cpus[k, m],
			       cres[k, m] == "" ? "?" : cres[k, m],
			       cstep[k, m] == "" ? "?" : cstep[k, m], citer[k, m] == "" ? "?" : citer[k, m],
			       why == "" ? "used" : "REFUSED: " why)
		}
	print ""
	if (!icount_ok) {
		print "REFUSED: the instruction-count runs did not run on a trustworthy clock (see Clocks)."
		print ""
	}
	summary()
	breakdown()
	scaling()
	tables()
	walltables()
	if (!icount_ok || nbad) exit 1
	if (nreg) exit 3
	if (!wall_ok["stock"] || !wall_ok["patched"]) exit 2
}
function summary(   i, p, s, z, fi, fs, n, t, o, op, init, d1, d3, d8, a, b, cc, m1, m2, g, sk, pk) {
	prose("summary-1")
	print ""
	print "| switches | target | measured | goal | result | from | noise band |"
	print "| --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= nk; i++) {
		split(keys[i], p, SUBSEP)
		if (on(p[2]) || second(p[2])) continue
		s = ic("stock", p[1], p[2], p[3]); z = ic("patched", p[1], p[2], p[3])
		if (s == "" || z == "") continue
		target(0, p[1] " " p[2] " " p[3] ", switches 0 / stock", ratio(z, s), LIMIT0, "issue 13: stock at stock cost", keys[i])
	}
	for (fi = 1; fi <= nfs; fi++) {
		fs = FSL[fi]
		for (n = 16; n <= 1024; n *= 8) {
			s = s2(fs, L(n), "list")
			if (s == "") continue
			t = p1(fs, D(n), "list")
			sk = fs SUBSEP L(n) SUF2 SUBSEP "list"; pk = fs SUBSEP L(n) SUF2 SUBSEP "list probe"
			if (t != "") target(1, fs " list " n " names from depth 1 / stock's raw listing", ratio(t, s), "1.10", "a namespace's view against stock's listing of the same stored names", sk)
			o = p1(fs, D(n), "list probe")
			if (o != "" && t != "") target(1, fs " list " n " names from depth 1: probe / its listing", ratio(o, t), "1.00", "the size probe costs no more than the listing", pk)
			if (o != "") target(1, fs " list " n " names from depth 1: probe / stock's probe", ratio(o, s2(fs, L(n), "list probe")), "1.10", "against stock's probe of the same stored names (root)", pk)
			t = p1(fs, U(n), "list")
			if (t != "") target(1, fs " list " n " names by a non-root uid at depth 1 / stock's", ratio(t, s2(fs, U(n), "list")), "1.05", "a caller who sees no trusted.* name, on both kernels", fs SUBSEP U(n) SUF2 SUBSEP "list")
			t = p1(fs, L(n), "list")
			if (t != "") target(1, fs " list " n " names as root / stock", ratio(t, s), "1.10", "the initial namespace's listing, names as stored", sk)
		}
		for (o = 1; o <= 2; o++) {
			op = o == 1 ? "get" : "set"
			init = p1(fs, "trusted.* initial namespace", op)
			d1 = p1(fs, "trusted.* depth 1", op)
			d3 = p1(fs, "trusted.* depth 3", op)
			sk = fs SUBSEP "trusted.* initial namespace" SUF2 SUBSEP op
			if (d1 != "" && init != "") target(1, fs " trusted.* " op " depth 1 / initial namespace", ratio(d1, init), "1.05", "a namespace's own trusted.*, switches 1 both", sk)
			if (d3 != "" && init != "") target(1, fs " trusted.* " op " depth 3 / initial namespace", ratio(d3, init), "1.07", "a namespace's own trusted.*, switches 1 both", sk)
			d8 = p1(fs, "trusted.* depth 8", op)
			if (op == "get" && d8 != "" && d1 != "") target(1, fs " trusted.* get depth 8 / depth 1", ratio(d8, d1), "1.03", "the chain is cached: a flat cost over the depth", sk)
		}
		for (n = 16; n <= 1024; n *= 8) {
			g = p1(fs, L(n), "list probe"); t = p1(fs, L(n), "list")
			if (g != "" && t != "")
				target(1, fs " " n " names as root: probe / list", ratio(g, t), "1.00", "issue 13: the size probe costs no more than the listing", fs SUBSEP L(n) SUF2 SUBSEP "list probe")
		}
		a = p1(fs, L(16), "list"); b = p1(fs, L(128), "list"); cc = p1(fs, L(1024), "list")
		if (a != "" && b != "" && cc != "") {
			m1 = (b - a) / 112; m2 = (cc - b) / 896
			target(1, fs " list: cost per name 128->1024 / 16->128 (root)", m2 / m1, "1.20", "issue 6: linear, " int(m1) " then " int(m2) " instructions per name", fs SUBSEP L(1024) SUF2 SUBSEP "list")
		}
	}
	print ""
	for (g = 0; g <= 1; g++)
		printf("Switches %d: %d of %d target(s) met%s.\n", g, ntarget[g] - missed[g], ntarget[g],
		       missed[g] ? "; missed: " missedrows[g] : "")
	print ""
	if (nreps + 1 >= MIN_RUNS)
		printf("Noise band: %d boots of the stock kernel under icount; a row's band is twice its stock figure's spread over them (last column); %d miss(es) of a target the committed page records as met fall within it and are no regression.\n", nreps + 1, nnoise)
	else
		printf("Noise band: none (%d stock run(s), fewer than %d): every miss of a target the committed page records as met is a regression.\n", nreps + 1, MIN_RUNS)
	print ""
	if (nreg) {
		print "REGRESSED: " nreg " target(s) the committed page records as met miss the same goal now:"
		print ""
		for (i = 1; i <= nreg; i++) print "- " regressed[i]
		print ""
	} else if (committed != "") {
		print "No target that the committed page records as met misses its goal now."
		print ""
	}
}
# Where the cost of a namespace's listing and get goes: the same stored names
# through the paths a user-space caller can choose, in the same boot.
function breakdown(   fi, fs, i, n, S, R, P, N, Q, W, RW, k, d, op, init, st, ns, own, ru, paths, npaths, lbl, j) {
	prose("breakdown-1")
	print ""
	print "| fs | names | stored bytes | stock: root's listing | root's listing (1) | root's probe (1) | namespace's listing | namespace's probe | namespace's listing, 64 KiB buffer | root's listing, 64 KiB buffer (1) | the view: namespace's - root's listing | the view's per name | probe - listing (namespace) | 64 KiB - exact: namespace / root |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (fi = 1; fi <= nfs; fi++) {
		fs = FSL[fi]
		for (i = 1; i <= nsz; i++) {
			n = SZ[i]
			S = s2(fs, L(n), "list"); R = p1(fs, L(n), "list"); P = p1(fs, L(n), "list probe")
			N = p1(fs, D(n), "list"); Q = p1(fs, D(n), "list probe"); W = p1(fs, D(n), "list, 64 KiB buffer")
			RW = p1(fs, L(n), "list, 64 KiB buffer")
			if (S == "" && R == "" && N == "") continue
			printf("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |\n", fs, n, n * 14.375,
			       num(S), num(R), num(P), num(N), num(Q), num(W), num(RW), diff(N, R),
			       (N == "" || R == "") ? "-" : sprintf("%.1f", (N - R) / n), diff(Q, N), diff(W, N), diff(RW, R))
		}
	}
	print ""
	prose("breakdown-2")
	print ""
	print "| fs | path | fixed (instructions per call) | per name, 16 to 256 | per name, 1024 to 4096 |"
	print "| --- | --- | --- | --- | --- |"
	npaths = split("L|list|" SUF2 "|stock: root's listing;L|list probe|" SUF2 "|stock: root's probe;L|list|" SUF "|root's listing (1);L|list probe|" SUF "|root's probe (1);D|list|" SUF "|namespace's listing;D|list probe|" SUF "|namespace's probe;U|list|" SUF "|uid 1 of the namespace's listing (1);U|list|" SUF2 "|stock: uid 1 of the namespace's listing", paths, ";")
	for (fi = 1; fi <= nfs; fi++) {
		fs = FSL[fi]
		for (j = 1; j <= npaths; j++) {
			split(paths[j], lbl, "|")
			if (rates(fs, lbl[1], lbl[2], lbl[3]))
				printf("| %s | %s | %.0f | %.1f | %s |\n", fs, lbl[4], RFIX, RLO, RHI == "" ? "-" : sprintf("%.1f", RHI))
		}
		stage(fs, "the copy (root's listing - root's probe)", "L", "list probe", "L", "list")
		stage(fs, "the view (namespace's listing - root's)", "L", "list", "D", "list")
		stage(fs, "the namespace's probe - its listing", "D", "list", "D", "list probe")
	}
	print ""
	prose("breakdown-3")
	print ""
	print "| fs | depth | call | initial namespace's trusted.bench | root, the stored name | namespace | the longer name: stored - initial | the translation: namespace - stored | of it, a namespace's own (stock, user.*) | the patches' share | namespace / initial |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (fi = 1; fi <= nfs; fi++) {
		fs = FSL[fi]
		for (d = 1; d <= 8; d++)
			for (k = 1; k <= 2; k++) {
				op = k == 1 ? "get" : "set"
				init = p1(fs, "trusted.* initial namespace", op)
				st = p1(fs, "trusted.* depth " d ", stored name as root", op)
				ns = p1(fs, "trusted.* depth " d, op)
				if (ns == "") continue
				own = s2(fs, "user.* depth " d, op); ru = s2(fs, "user.* regular file", op)
				own = (own == "" || ru == "") ? "" : own - ru
				printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", fs, d, op, num(init), num(st), num(ns),
				       diff(st, init), diff(ns, st), own == "" ? "-" : sprintf("%+d", own),
				       (own == "" || ns == "" || st == "") ? "-" : sprintf("%+d", ns - st - own), rat(ns, init))
			}
	}
	print ""
	prose("breakdown-4")
	print ""
}
# a row of the rates table: path b less path a (both switches 1)
function stage(fs, what, ka, opa, kb, opb,   f, lo, hi) {
	if (!rates(fs, ka, opa, SUF)) return
	f = RFIX; lo = RLO; hi = RHI
	if (!rates(fs, kb, opb, SUF)) return
	printf("| %s | stage: %s | %+.0f | %+.1f | %s |\n", fs, what, RFIX - f, RLO - lo,
	       (RHI == "" || hi == "") ? "-" : sprintf("%+.1f", RHI - hi))
}
# the cost per name of a path from 16 to 256 names (RLO) and from 1024 to
# 4096 (RHI, "" unless both were measured), and its fixed cost (RFIX); 0
# when 16 or 256 names were not measured
function rates(fs, kd, op, sfx,   k, a, b, c, d) {
	k = sfx == SUF2 ? "stock" : "patched"
	a = ic(k, fs, cname(kd, 16) sfx, op); b = ic(k, fs, cname(kd, 256) sfx, op)
	c = ic(k, fs, cname(kd, 1024) sfx, op); d = ic(k, fs, cname(kd, 4096) sfx, op)
	if (a == "" || b == "") return 0
	RLO = (b - a) / 240; RFIX = a - 16 * RLO
	RHI = (c == "" || d == "") ? "" : (d - c) / 3072
	return 1
}
# Scaling: the ratios against stock over the list's length and the depth,
# the tables and the SVG figures (gnuplot script at plot, when given).
function scaling(   fi, fs, i, n, S, R, N, Q, SP, d, g, sg, l, sl, any, x) {
	prose("scaling-1")
	print ""
	printf("Lists held (of 16, 64, 128, 256, 1024, 4096 names):")
	for (fi = 1; fi <= nfs; fi++) printf("%s %s: %s", fi > 1 ? ";" : "", FSL[fi], held(FSL[fi]))
	print "."
	print ""
	print "![ratio against stock over the number of names](performance-names.svg)"
	print "![ratio against stock over the depth](performance-depth.svg)"
	print ""
	print "| fs | names | stock: root's listing | root's listing (1) | root / stock | namespace's listing | namespace / stock | stock: root's probe | namespace's probe | probe / stock's probe |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (fi = 1; fi <= nfs; fi++) {
		fs = FSL[fi]
		for (i = 1; i <= nsz; i++) {
			n = SZ[i]
			S = s2(fs, L(n), "list"); R = p1(fs, L(n), "list"); N = p1(fs, D(n), "list")
			SP = s2(fs, L(n), "list probe"); Q = p1(fs, D(n), "list probe")
			if (S == "") continue
			printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", fs, n, S, num(R), rat(R, S),
			       num(N), rat(N, S), num(SP), num(Q), rat(Q, SP))
			if (R != "") names_pts[fs, "root"] = names_pts[fs, "root"] n " " r2(R / S) "\n"
			if (N != "") names_pts[fs, "ns"] = names_pts[fs, "ns"] n " " r2(N / S) "\n"
			if (Q != "" && SP != "") names_pts[fs, "probe"] = names_pts[fs, "probe"] n " " r2(Q / SP) "\n"
		}
	}
	print ""
	print "| fs | depth | stock: initial namespace's get | namespace's get | get / stock | stock: root's listing of 128 | namespace's listing of 128 | list / stock |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for (fi = 1; fi <= nfs; fi++) {
		fs = FSL[fi]
		sg = s2(fs, "trusted.* initial namespace", "get")
		for (d = 1; d <= 8; d++) {
			g = p1(fs, "trusted.* depth " d, "get")
			sl = s2(fs, DL(d) ", root", "list")
			l = ic("patched", fs, DL(d) ", depth " d SUF, "list")
			if (g == "" && l == "") continue
			printf("| %s | %d | %s | %s | %s | %s | %s | %s |\n", fs, d, num(sg), num(g), rat(g, sg), num(sl), num(l), rat(l, sl))
			if (g != "" && sg != "") depth_pts[fs, "get"] = depth_pts[fs, "get"] d " " r2(g / sg) "\n"
			if (l != "" && sl != "") depth_pts[fs, "list"] = depth_pts[fs, "list"] d " " r2(l / sl) "\n"
		}
	}
	print ""
	if (plot == "") return
	printf("") > plot
	plotfig("performance-names", "patched (switches 1) / stock, over the names on a file", "names on the file", "set logscale x 2\nset xtics (16, 64, 256, 1024, 4096)\n", names_pts, "ns|namespace root's listing|1|root|root's listing|2|probe|namespace root's probe|3", "1.10")
	plotfig("performance-depth", "patched (switches 1) / stock, over the namespace's depth", "depth of the namespace", "set xrange [0.5:8.5]\nset xtics 1\n", depth_pts, "get|trusted.* get|1|list|listing of 128 names|2", "1.05")
	close(plot)
}
# the list sizes a filesystem held (measured on either kernel)
function held(fs,   i, out) {
	out = ""
	for (i = 1; i <= nsz; i++)
		if (ic("stock", fs, L(SZ[i]), "list") != "" || ic("patched", fs, L(SZ[i]), "list") != "")
			out = out (out == "" ? "" : ", ") SZ[i]
	return out == "" ? "none" : out
}
# One SVG: a line per filesystem and series ("id|title|dash|..."), the goal dashed.
function plotfig(name, title, xlabel, extra, pts, series, goal,   s, ns, j, fi, fs, cmd, blk, col) {
	ns = split(series, s, "|")
	print "set terminal svg size 760,460 dynamic font \"sans,12\" background \"white\"" > plot
	print "set output \"" plotdir "/" name ".svg\"" > plot
	print "set title \"" title "\"" > plot
	print "set xlabel \"" xlabel "\"\nset ylabel \"guest instructions, ratio\"\nset grid\nset key outside right top" > plot
	printf("%s", extra) > plot
	cmd = ""
	split("#1f77b4 #d62728 #2ca02c #9467bd", col, " ")
	for (fi = 1; fi <= nfs; fi++) {
		fs = FSL[fi]
		for (j = 1; j <= ns; j += 3) {
			if (!((fs, s[j]) in pts)) continue
			blk = "$" name "_" fs "_" s[j]
			gsub(/[^A-Za-z0-9_$]/, "_", blk)
			printf("%s << EOD\n%sEOD\n", blk, pts[fs, s[j]]) > plot
			cmd = cmd (cmd == "" ? "" : ", ") blk " using 1:2 with linespoints dashtype " s[j + 2] \
				" linecolor rgb \"" col[(fi - 1) % 4 + 1] "\" title \"" fs ": " s[j + 1] "\""
		}
	}
	if (cmd == "") cmd = "NaN notitle"
	print "plot " cmd ", 1 with lines linecolor rgb \"#888888\" notitle, " goal \
		" with lines dashtype 3 linecolor rgb \"#000000\" title \"goal " goal "\"" > plot
}
function tables(   i, p, s, z, o, cs, pk, pv, rr, pp) {
	prose("tables-1")
	print ""
	print "| fs | case | call | stock | patched, switches 0 | switches 0 - stock | switches 0 / stock | within " LIMIT0 " | stock, second pass | patched, switches 1 | switches 1 / stock |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= nk; i++) {
		split(keys[i], p, SUBSEP)
		if (on(p[2]) || second(p[2])) continue
		s = ic("stock", p[1], p[2], p[3])
		z = ratio(ic("patched", p[1], p[2], p[3]), s)
		o = ratio(p1(p[1], p[2], p[3]), s2(p[1], p[2], p[3]))
		printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], p[3],
		       fig("stock", p[1], p[2], p[3]), fig("patched", p[1], p[2], p[3]),
		       z == "" ? "-" : sprintf("%+d", ic("patched", p[1], p[2], p[3]) - s),
		       z == "" ? "-" : r4(z), z == "" ? "-" : (z <= LIMIT0 ? "yes" : "NO"),
		       fig("stock", p[1], p[2] SUF2, p[3]), fig("patched", p[1], p[2] SUF, p[3]),
		       o == "" ? "-" : r2(o))
	}
	print ""
	prose("tables-2")
	print ""
	print "| fs | case | call | patched, switches 1 | compared with | its figure | ratio |"
	print "| --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= nk; i++) {
		split(keys[i], p, SUBSEP)
		if (!on(p[2])) continue
		cs = base(p[2])
		if ((p[1] SUBSEP cs SUBSEP p[3]) in seen) continue	# a case of both passes: above
		pk = peer(p[1], cs, p[3])
		split(pk, pp, "|")
		pv = pp[1] == "" ? "" : ic(pp[2], p[1], pp[1], p[3])
		rr = ratio(p1(p[1], cs, p[3]), pv)
		printf("| %s | %s | %s | %s | %s | %s | %s |\n", p[1], cs, p[3], fig("patched", p[1], p[2], p[3]),
		       pp[1] == "" ? "-" : pp[1] " (" pp[2] ")",
		       pp[1] == "" ? "-" : fig(pp[2], p[1], pp[1], p[3]), rr == "" ? "-" : r2(rr))
	}
	print ""
}
# what a case of the second pass only is compared with: "case|kernel"
function peer(fs, c, op) {
	if ((fs SUBSEP c SUF2 SUBSEP op) in seen) return c SUF2 "|stock"
	if (c ~ /^user\.\* device node/) return "user.* regular file" SUF "|patched"
	if (c ~ /^trusted\.\* depth [0-9]+$/) return "trusted.* initial namespace" SUF "|patched"
	if (c ~ /^list 128 names of depth [0-9]+, depth [0-9]+$/) {
		sub(/, depth [0-9]+$/, ", root" SUF2, c)
		return c "|stock"
	}
	return ""
}
function walltables(   i, p, k, s, q, skey, t, st, pt) {
	prose("walltables-1")
	print ""
	for (k = 1; k <= 2; k++) {
		t = k == 1 ? "stock" : "patched"
		if (!wall_ok[t])
			print "(wall) " t ": REFUSED, not shown: " refused(t, "wall") "."
	}
	prose("walltables-2")
	print ""
	print "| (wall) fs, walk, threads | stock min | stock median | stock max | patched min | patched median | patched max | patched / stock (medians) |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= ntk; i++) {
		split(tkeys[i], p, SUBSEP)
		st = wall_ok["stock"] ? tmed["stock", "wall", tkeys[i]] : ""
		pt = wall_ok["patched"] ? tmed["patched", "wall", tkeys[i]] : ""
		printf("| (wall) %s, %s, %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], p[3],
		       st == "" ? "-" : tlo["stock", "wall", tkeys[i]], num(st),
		       st == "" ? "-" : thi["stock", "wall", tkeys[i]],
		       pt == "" ? "-" : tlo["patched", "wall", tkeys[i]], num(pt),
		       pt == "" ? "-" : thi["patched", "wall", tkeys[i]], rat(pt, st))
	}
	print ""
	prose("walltables-3")
	print ""
	print "| (wall) fs, case, call | stock median | stock spread | patched median | patched spread |"
	print "| --- | --- | --- | --- | --- |"
	for (i = 1; i <= nk; i++) {
		split(keys[i], p, SUBSEP)
		if (second(p[2])) continue
		skey = p[1] SUBSEP (on(p[2]) ? base(p[2]) SUF2 : p[2]) SUBSEP p[3]
		s = wall_ok["stock"] ? med["stock", "wall", skey] : ""
		q = wall_ok["patched"] ? med["patched", "wall", keys[i]] : ""
		if (s == "" && q == "") continue
		printf("| (wall) %s, %s, %s | %s | %s | %s | %s |\n", p[1], p[2], p[3],
		       s == "" ? "-" : s coarse("stock", "wall", skey), s == "" ? "-" : spread("stock", skey),
		       q == "" ? "-" : q coarse("patched", "wall", keys[i]), q == "" ? "-" : spread("patched", keys[i]))
	}
}
function spread(k, key,   m) {
	m = med[k, "wall", key]
	if (m == 0) return "-"
	return sprintf("%d%%", 100 * (hi[k, "wall", key] - lo[k, "wall", key]) / m)
}
