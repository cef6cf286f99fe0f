# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lib/guests.sh: what a guest is (a kernel and its switches), what it gets
# (vCPUs, the fuzzer's work, timeouts), and the ways the targets boot
# several at once through scripts/host/boot.sh. Sourced by
# scripts/host/lib.sh after lib/trees.sh.

# A guest is a kernel and the setting of its switches, which a boot sets once
# (they go from 0 to 1 and never back): "patched" and "debug" boot with both
# at 1, "patched-off" and "debug-off" with both at 0 (their last kselftest,
# xattr_switch_test, takes them to 1 under load), "stock" has none.
guest_kernel() { echo "${1%-off}"; }
guest_switches() {
	case $1 in
	stock | *-off) ;;
	*) echo "sysctl.fs.xattr_user_special=1 sysctl.fs.xattr_trusted_userns=1" ;;
	esac
	# the comparison runs in a boot of its own (boot_both compare), where
	# its designs turn the switches on in their order: not after the tests
	echo "xattrns.compare=0"
}

# vCPUs per guest (XATTRNS_CPUS overrides it). The debug kernel (make
# check-debug, fuzz-debug; CI's make check) gets two, one host thread
# each, so that the concurrency tests (xattr_fuzz_test's concurrent and
# the fuzzer's parallel callers) race on two CPUs in a kernel that
# checks locking; so do the guests whose switches start at 0
# (patched-off, debug-off), whose last test sets them while callers on
# another CPU run. The others keep one: two cost make check about half
# again (design/measurements.md), and the benchmark needs one, since
# QEMU's icount (its primary measure) runs a single TCG thread.
guest_cpus() { # guest_cpus GUEST MODE
	case $1:$2 in
	*:bench) echo 1 ;;
	debug*:* | *-off:check) echo 2 ;;
	*) echo 1 ;;
	esac
}

# The fuzzer's work, per make target: XATTRNS_FUZZ_STEPS steps per
# filesystem (its concurrency test: as many operations per worker, at most
# 5000), from the seed XATTRNS_FUZZ_SEED (default: the test's own fixed
# seed, so that every run is the same gate; "random" for a new one). In a
# TCG guest 1000 steps take about 3 s per filesystem (some 380 a second);
# the debug kernel (KASAN, lockdep) takes 8 to 9 times as long (xfs: 3.4 s,
# debug 30.5 s; fuzz_seconds_of).
fuzz_steps_default() { # fuzz_steps_default TARGET
	case $1 in
	check) echo 1000 ;;
	check-debug) echo 10000 ;;
	fuzz-debug) echo 100000 ;;
	*) die "no fuzz steps for target '$1'" ;;
	esac
}
# XATTRNS_FUZZ_SECONDS: only an upper bound on the time the fuzzer, and then
# its concurrency test, take per filesystem on a production kernel; a run
# that reaches it before its steps are done fails and says so. Several
# times what the steps take.
fuzz_seconds_default() { # fuzz_seconds_default TARGET
	case $1 in
	check) echo 30 ;;
	check-debug) echo 180 ;;
	fuzz-debug) echo 1800 ;;
	*) die "no fuzz time bound for target '$1'" ;;
	esac
}
# fuzz_seconds_of KERNEL SECONDS: the bound a KERNEL gets; the debug kernel
# is some 9 times slower at the fuzzer's syscalls, so it gets 10 times the
# bound (the steps, not the time, are the gate).
fuzz_seconds_of() {
	if [ "$1" = debug ]; then
		echo $((10 * $2))
	else
		echo "$2"
	fi
}
# The timeouts, derived from that bound (the fuzzer may take it twice per
# filesystem: fuzz, then concurrent, on six filesystems):
# test_timeout: seconds run_kselftest.sh gives each test program in the guest
# (--override-timeout: the programs themselves fit kselftest's default 45 s
# on KVM or bare metal, not under TCG);
test_timeout() { # test_timeout FUZZ_SECONDS
	echo $((900 + 20 * $1))
}
# guest_timeout: seconds before the host kills a guest (XATTRNS_TIMEOUT
# overrides it); the debug kernel is several times slower at everything.
guest_timeout() { # guest_timeout KERNEL FUZZ_SECONDS
	local base=600
	[ "$1" != debug ] || base=2400
	echo "${XATTRNS_TIMEOUT:-$((base + 12 * $2))}"
}

# boot_both MODE GUEST SUFFIX [OPTION...] [-- QEMU-ARG...]: boot the stock
# kernel and the guest GUEST of the patched one in MODE at once
# (scripts/host/boot.sh, with those options), their consoles named after
# the kernels ($OUT/console-stock-SUFFIX.log, console-patched-SUFFIX.log);
# fails if either does. The comparison (make run, make clients, make check)
# boots patched-off: its designs turn their switches on one after the other.
boot_both() {
	local mode=$1 guest=$2 suffix=$3 k p pids="" rc=0 opts=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	for k in stock "$guest"; do
		"$REPO/scripts/host/boot.sh" "${opts[@]}" \
			--console "$OUT/console-$(guest_kernel "$k")-$suffix.log" "$k" "$mode" "$@" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
	return $rc
}

# extra_initramfs NAME: the usual initramfs with a second one appended that
# holds the tools of initramfs/NAME-tools.list (each binary with the
# libraries ldd names) and tools/xattr-NAME's xattr_NAME, for make archive
# and make containers; writes $OUT/initramfs-NAME.cpio.gz. The kernel
# unpacks concatenated archives one after the other.
extra_initramfs() {
	local name=$1 root=$OUT/initramfs-$1.d bin pkg f
	rm -rf "$root"
	mkdir -p "$root/usr/bin"
	while IFS=: read -r bin pkg; do
		case $bin in '' | '#'*) continue ;; esac
		[ -x "$bin" ] || die "initramfs/$name-tools.list: $bin ($pkg) is not installed (add it to XATTRNS_DEPS in scripts/host/lib/env.sh)"
		for f in "$bin" $(ldd "$bin" | grep -o '/[^ ]*'); do
			[ -e "$root$f" ] && continue
			mkdir -p "$root$(dirname "$f")"
			cp -L "$f" "$root$f"
		done
	done <"$REPO/initramfs/$name-tools.list"
	make -s -C "$REPO/tools/xattr-$name" OUT="$root/usr/bin" "$root/usr/bin/xattr_$name" ||
		die "tools/xattr-$name does not build"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$OUT/$name-extra.cpio.gz"
	cat "$OUT/initramfs.cpio.gz" "$OUT/$name-extra.cpio.gz" >"$OUT/initramfs-$name.cpio.gz"
	log "$name initramfs: $OUT/initramfs-$name.cpio.gz ($(du -h "$OUT/initramfs-$name.cpio.gz" | cut -f1))"
}

# extra_guests NAME [BUILD]: boot the kernels in mode NAME with
# extra_initramfs NAME's initramfs (their kernels from the trees' BUILD
# directory when given), each guest's tally into $OUT/result-NAME-GUEST.txt;
# non-zero when any failed. make archive and make containers. The switches
# go from 0 to 1 once per boot, so the patched kernel boots twice on one
# ext4 disk: "patched" (switches 1) and then "patched-off" (switches 0),
# while "stock" runs beside them.
extra_guests() {
	local name=$1 build=${2:-} p pids="" rc=0 t disk=$OUT/$1-ext4.img
	t=$(now)
	rm -f "$disk"
	truncate -s 256M "$disk"
	mkfs.ext4 -q -F "$disk"
	boot_extra() { # GUEST [DISK]
		local opts=(--initrd "$OUT/initramfs-$name.cpio.gz" --console "$OUT/console-$1-$name.log")
		[ -z "$build" ] ||
			opts+=(--kernel "$(tree_of "$(guest_kernel "$1")")/$build/arch/x86/boot/bzImage")
		[ -z "${2:-}" ] || opts+=(--ext4 "$2")
		"$REPO/scripts/host/boot.sh" "${opts[@]}" "$1" "$name" >"$OUT/result-$name-$1.txt"
	}
	boot_extra stock &
	pids="$pids $!"
	(
		boot_extra patched "$disk" || exit 1
		boot_extra patched-off "$disk"
	) &
	pids="$pids $!"
	for p in $pids; do
		wait "$p" || rc=1
	done
	rm -f "$disk"
	phase_end "guest runs" "$t"
	return "$rc"
}
