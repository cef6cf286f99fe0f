#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh stock|patched|debug check|shell|vm|probe: boot a kernel in QEMU with the
# initramfs and fresh ext4, xfs, btrfs, jfs and f2fs disks.
#   check: run the kselftests, console to $OUT/console-<kernel>.log, print
#          progress and the tally, exit non-zero on any failure
#   shell: an interactive busybox shell on this terminal
#   vm:    run the initramfs's /vm-cmd (make vm), print its output, exit
#          with its status
#   probe: boot and answer, to see whether an accelerator works
# Environment: XATTRNS_ACCEL=tcg|kvm (default: tcg unless a KVM probe boot
# answered), XATTRNS_TIMEOUT (seconds; default from lib.sh's guest_timeout),
# XATTRNS_SKIPS (the pinned skips, make check's; XATTRNS_SKIPS_PARTIAL=1:
# not their counts), XATTRNS_QEMU_EXTRA, XATTRNS_TESTS (COLLECTION:TEST,... to run only those
# kselftests), XATTRNS_FUZZ_STEPS, XATTRNS_FUZZ_SEED and XATTRNS_FUZZ_SECONDS
# (the fuzzer's steps, seed and time bound), XATTRNS_CPUS (vCPUs; default:
# guest_cpus in lib.sh), XATTRNS_INITRD (another initramfs: make archive's,
# with the archive tools), XATTRNS_KIMAGE (another kernel image: make
# check-series' per series), XATTRNS_LOG_NAME (the console log's name
# instead of the guest's: console-NAME.log), XATTRNS_EXT4_IMG (the ext4 disk to use, kept:
# make archive's and make containers' two boots of the patched kernel).
# Runs in parallel with another boot.sh: installs nothing (check_deps).
. "$(dirname "$0")/lib.sh"

guest=${1:?usage: boot.sh stock|patched|patched-off|debug|debug-off check|compare|bench|shell|vm|probe}
mode=${2:-check}
# The guest's kernel and switches (guest_kernel, guest_switches in lib.sh)
kernel=$(guest_kernel "$guest")
kimage=${XATTRNS_KIMAGE:-$(kimage_of "$kernel")}
initrd=${XATTRNS_INITRD:-$OUT/initramfs.cpio.gz}
[ -f "$kimage" ] || die "no $kernel kernel at $kimage (make kernel)"
[ -f "$initrd" ] || die "no initramfs at $initrd (make initramfs)"
check_deps
fuzz_bound=${XATTRNS_FUZZ_SECONDS:-$(fuzz_seconds_default check)}
fuzz=$(fuzz_seconds_of "$kernel" "$fuzz_bound")
fuzz_steps=${XATTRNS_FUZZ_STEPS:-$(fuzz_steps_default check)}
cpus=${XATTRNS_CPUS:-$(guest_cpus "$guest" "$mode")}

accel=${XATTRNS_ACCEL:-}
if [ -z "$accel" ]; then
	# KVM only if a probe boot answered (cached; a hung KVM guest is killed
	# after a few seconds). TCG otherwise.
	if [ ! -f "$OUT/accel" ]; then
		echo tcg >"$OUT/accel"
		if [ -w /dev/kvm ] && [ "$mode" != probe ]; then
			log "probing KVM (a few seconds)"
			if XATTRNS_ACCEL=kvm XATTRNS_TIMEOUT=8 "$0" "$guest" probe >/dev/null 2>&1; then
				echo kvm >"$OUT/accel"
			fi
			log "accelerator: $(cat "$OUT/accel")"
		fi
	fi
	accel=$(cat "$OUT/accel")
fi
case $accel in
kvm) cpu=host ;;
tcg) cpu=max ;;
*) die "XATTRNS_ACCEL must be tcg or kvm, not '$accel'" ;;
esac

run=$(mktemp -d "$OUT/run-$guest.XXXXXX")
trap 'rm -rf "$run"' EXIT
disks=()
# (standalone: the selftests make their own images, make check-series)
if [ "$mode" != probe ] && [ "$mode" != standalone ]; then
	# Fresh filesystems every boot; sparse files, so this takes no time.
	# XATTRNS_EXT4_IMG: an ext4 image carried from one boot to the next
	# instead (make archive and make containers: a patched kernel's boot
	# with the switches 1, then one with them 0)
	truncate -s 256M "$run/btrfs.img" "$run/jfs.img" "$run/f2fs.img"
	truncate -s 320M "$run/xfs.img"
	if [ -n "${XATTRNS_EXT4_IMG:-}" ]; then
		[ -f "$XATTRNS_EXT4_IMG" ] || die "XATTRNS_EXT4_IMG: no image at $XATTRNS_EXT4_IMG"
		ln -s "$XATTRNS_EXT4_IMG" "$run/ext4.img"
	else
		truncate -s 256M "$run/ext4.img"
		mkfs.ext4 -q -F "$run/ext4.img"
	fi
	mkfs.xfs -q -f "$run/xfs.img"
	mkfs.btrfs -q -f "$run/btrfs.img" >/dev/null
	mkfs.jfs -q "$run/jfs.img" >/dev/null
	mkfs.f2fs -q -f "$run/f2fs.img" >/dev/null
	i=0
	for fs in ext4 xfs btrfs jfs f2fs; do
		disks+=(-drive "file=$run/$fs.img,if=none,id=d$i,format=raw,cache=unsafe"
			-device "virtio-blk-pci,drive=d$i,serial=$fs")
		i=$((i + 1))
	done
fi

# Each vCPU its own socket: the kernel has no ACPI, and SeaBIOS's MP table
# lists one CPU per package (with -smp 2 alone the guest sees one CPU).
# More than one vCPU under TCG: one host thread each (multi-threaded TCG),
# so that two CPUs really race in the kernel.
smp="$cpus,sockets=$cpus,cores=1,threads=1"
accel_opt=$accel
[ "$accel" != tcg ] || [ "$cpus" = 1 ] || accel_opt="tcg,thread=multi"
qemu=(qemu-system-x86_64 -accel "$accel_opt" -cpu "$cpu" -m 1G -smp "$smp"
	-nodefaults -no-reboot -display none
	-kernel "$kimage" -initrd "$initrd" "${disks[@]}")
# more QEMU words, split on blanks (make bench's -icount)
# shellcheck disable=SC2206
qemu+=(${XATTRNS_QEMU_EXTRA:-})
cmdline="console=ttyS0 loglevel=5 panic=-1 tsc=reliable xattrns.mode=$mode"
# the fuzzer's steps and time bound (per filesystem), the time each test
# program gets, and the seed when given
cmdline="$cmdline xattrns.fuzz_steps=$fuzz_steps xattrns.fuzz_seconds=$fuzz"
cmdline="$cmdline xattrns.test_timeout=$(test_timeout "$fuzz")"
[ -z "${XATTRNS_FUZZ_SEED:-}" ] || cmdline="$cmdline xattrns.fuzz_seed=$XATTRNS_FUZZ_SEED"
# only some kselftest programs: XATTRNS_TESTS=filesystems/xattr:xattr_fuzz_test
[ -z "${XATTRNS_TESTS:-}" ] || cmdline="$cmdline xattrns.tests=$XATTRNS_TESTS"
# Under TCG without icount the guest's TSC is the host's: tell the guest
# its rate rather than let it calibrate against the emulated PIT, which
# fails on a loaded host and leaves it on a jiffies clock (design/clocks.md).
# Under icount the TSC counts virtual time and calibrates deterministically.
tsc_khz=$(cat "$OUT/tsc-khz" 2>/dev/null || true)
case $accel:${XATTRNS_QEMU_EXTRA:-} in
tcg:*-icount*) ;;
tcg:*) [ -z "$tsc_khz" ] || cmdline="$cmdline tsc_early_khz=$tsc_khz" ;;
esac
# The KASAN kernel boots with 4-level paging. With -cpu max the guest has
# LA57, and 6.12's identify_cpu() clears boot_cpu_data's capabilities and
# reads them again; until alternatives are patched pgtable_l5_enabled()
# reads that bit, so an interrupt in that window sees KASAN's shadow start
# computed for 4 levels and reports a wild-memory-access on the 5-level
# direct map (design/clocks.md: the boot-time report of v4's CI runs).
[ "$kernel" != debug ] || cmdline="$cmdline no5lvl"
# the switches this guest boots with, set once (sysctl.<name>=1)
cmdline="$cmdline $(guest_switches "$guest")"
cmdline="$cmdline ${XATTRNS_CMDLINE_EXTRA:-}"

if [ "$mode" = shell ]; then
	log "booting the $guest kernel ($accel); leave with: reboot -f (or Ctrl-a x)"
	exec "${qemu[@]}" -serial mon:stdio -append "$cmdline"
fi

log=$OUT/console-${XATTRNS_LOG_NAME:-$guest}${XATTRNS_LOG_SUFFIX:-}.log
[ "$mode" = probe ] && log=$run/console.log
tmo=$(guest_timeout "$kernel" "$fuzz_bound")
start=$(now)
[ "$mode" != probe ] && [ "$mode" != vm ] && log "$guest: booting ($accel, $cpus vCPU(s), timeout ${tmo}s; console: $log)"
set +e
timeout --foreground -k 5 "$tmo" "${qemu[@]}" -serial stdio -append "$cmdline" </dev/null |
	tee "$log" | {
	# make vm: the command's output, as it comes
	[ "$mode" != vm ] || exec sed -u -n -e 's/\r$//' \
		-e '/^XATTRNS-VM-BEGIN/,/^XATTRNS-VM-END/{/^XATTRNS-VM-/d;p;}'
	[ "$mode" = check ] || [ "$mode" = compare ] || [ "$mode" = bench ] ||
		exec cat >/dev/null
	# progress: one line per test result, failures marked
	sed -u -n -e 's/\r$//' \
		-e "s/^# \(not ok [0-9]* .*\)$/    [$guest] \1  <-- FAILED/p" \
		-e "s/^# \(ok [0-9]* .*\)$/    [$guest] \1/p" \
		-e "s/^\(not ok [0-9]* .*\)$/  [$guest] \1  <-- FAILED/p" \
		-e "s/^\(ok [0-9]* selftests: .*\)$/  [$guest] \1/p" \
		-e "s/^XATTRNS-GUEST \(.*\)$/  [$guest] guest: \1/p" \
		-e "s/^DESIGN|[^|]*|\(.*\)$/  [$guest] comparison: \1/p" \
		-e "s/^BENCH|\([^|]*\)|\([^|]*\)|\([^|]*\)|\([^|]*\)|.*$/  [$guest${XATTRNS_TAG:-}] \1, \2, \3: \4/p" >&2
}
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "XATTRNS-TIMEOUT after ${tmo}s" >>"$log"
	if [ "$mode" != probe ]; then
		echo "$guest: guest timed out after ${tmo}s; last 50 console lines:" >&2
		tail -n 50 "$log" | sed 's/^/    | /' >&2
	fi
fi
if [ "$mode" = probe ]; then
	grep -q XATTRNS-PROBE-OK "$log"
	exit
fi
[ "$mode" = vm ] || phase_end "$guest guest run" "$start"
case $mode in
vm)
	# the command's status; a kernel splat fails a command that passed
	status=$(sed -n 's/\r$//; s/^XATTRNS-VM-END rc=\([0-9]*\)$/\1/p' "$log")
	# (in the kernel's log only: the command's own output may say WARNING)
	splat=$(sed -n '/XATTRNS-DMESG-BEGIN/,/XATTRNS-DMESG-END/{/XATTRNS-DMESG-/d;p;}' "$log" |
		awk -v name="$guest" -v ktap=0 -v guest=0 -f "$REPO/scripts/report/ktap.awk" |
		grep ': KERNEL: ' || true)
	[ -n "$status" ] || die "$guest: the guest did not finish the command (console: $log)"
	if [ -n "$splat" ]; then
		echo "$splat" >&2
		echo "$guest: the kernel logged a warning or BUG (console: $log)" >&2
		[ "$status" != 0 ] || status=1
	fi
	exit "$status"
	;;
bench | compare)
	# no KTAP: the guest's end marker, its tool's status (the marker
	# XATTRNS-BENCH-END / -COMPARE-END rc=0), no kernel splat
	marker=$(echo "$mode" | tr '[:lower:]' '[:upper:]')
	if ! summary=$(awk -v name="$guest" -v ktap=0 -v marker="$marker" \
		-f "$REPO/scripts/report/ktap.awk" "$log"); then
		echo "$summary" | grep -v ' passed, ' >&2 || true
		die "$guest: the $mode run failed (console: $log)"
	fi
	exit 0
	;;
esac
# make check pins the skips (XATTRNS_SKIPS); other targets count them
awk -v name="$guest" -v skips="${XATTRNS_SKIPS:-}" -v partial="${XATTRNS_SKIPS_PARTIAL:-0}" \
	-f "$REPO/scripts/report/ktap.awk" "$log"
