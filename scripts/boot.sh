#!/bin/bash
# boot.sh stock|patched|debug check|shell|probe: boot a kernel in QEMU with the
# initramfs and fresh ext4, xfs and btrfs disks.
#   check: run the kselftests, console to $OUT/console-<kernel>.log, print
#          progress and the tally, exit non-zero on any failure
#   shell: an interactive busybox shell on this terminal
#   probe: boot and answer, to see whether an accelerator works
# Environment: XATTRNS_ACCEL=tcg|kvm (default: tcg unless a KVM probe boot
# answered), XATTRNS_TIMEOUT (seconds, default 600), XATTRNS_QEMU_EXTRA,
# XATTRNS_TESTS (COLLECTION:TEST,... to run only those kselftests),
# XATTRNS_FUZZ_SECONDS and XATTRNS_FUZZ_SEED (the fuzzer's budget and seed).
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: boot.sh stock|patched check|shell|probe}
mode=${2:-check}
kimage=$(kimage_of "$kernel")
initrd=$OUT/initramfs.cpio.gz
[ -f "$kimage" ] || die "no $kernel kernel at $kimage (make kernel)"
[ -f "$initrd" ] || die "no initramfs at $initrd (make initramfs)"
need qemu-system-x86_64:qemu-system-x86 mkfs.ext4:e2fsprogs \
	mkfs.xfs:xfsprogs mkfs.btrfs:btrfs-progs timeout:coreutils

accel=${XATTRNS_ACCEL:-}
if [ -z "$accel" ]; then
	# KVM only if a probe boot answered (cached; a hung KVM guest is killed
	# after a few seconds). TCG otherwise.
	if [ ! -f "$OUT/accel" ]; then
		echo tcg >"$OUT/accel"
		if [ -w /dev/kvm ] && [ "$mode" != probe ]; then
			log "probing KVM (a few seconds)"
			if XATTRNS_ACCEL=kvm XATTRNS_TIMEOUT=8 "$0" "$kernel" probe >/dev/null 2>&1; then
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

run=$(mktemp -d "$OUT/run-$kernel.XXXXXX")
trap 'rm -rf "$run"' EXIT
disks=()
if [ "$mode" != probe ]; then
	# Fresh filesystems every boot; sparse files, so this takes no time.
	truncate -s 256M "$run/ext4.img" "$run/btrfs.img"
	truncate -s 320M "$run/xfs.img"
	mkfs.ext4 -q -F "$run/ext4.img"
	mkfs.xfs -q -f "$run/xfs.img"
	mkfs.btrfs -q -f "$run/btrfs.img" >/dev/null
	i=0
	for fs in ext4 xfs btrfs; do
		disks+=(-drive "file=$run/$fs.img,if=none,id=d$i,format=raw,cache=unsafe"
			-device "virtio-blk-pci,drive=d$i,serial=$fs")
		i=$((i + 1))
	done
fi

qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m 1G -smp 1
	-nodefaults -no-reboot -display none
	-kernel "$kimage" -initrd "$initrd" "${disks[@]}"
	${XATTRNS_QEMU_EXTRA:-})
cmdline="console=ttyS0 loglevel=5 panic=-1 tsc=reliable xattrns.mode=$mode"
# the fuzzer's budget (seconds per filesystem) and seed, when given
[ -z "${XATTRNS_FUZZ_SECONDS:-}" ] || cmdline="$cmdline xattrns.fuzz_seconds=$XATTRNS_FUZZ_SECONDS"
[ -z "${XATTRNS_FUZZ_SEED:-}" ] || cmdline="$cmdline xattrns.fuzz_seed=$XATTRNS_FUZZ_SEED"
# only some kselftest programs: XATTRNS_TESTS=filesystems/xattr:xattr_fuzz_test
[ -z "${XATTRNS_TESTS:-}" ] || cmdline="$cmdline xattrns.tests=$XATTRNS_TESTS"
cmdline="$cmdline ${XATTRNS_CMDLINE_EXTRA:-}"

if [ "$mode" = shell ]; then
	log "booting the $kernel kernel ($accel); leave with: reboot -f (or Ctrl-a x)"
	exec "${qemu[@]}" -serial mon:stdio -append "$cmdline"
fi

log=$OUT/console-$kernel${XATTRNS_LOG_SUFFIX:-}.log
[ "$mode" = probe ] && log=$run/console.log
# the fuzzer runs its budget twice per filesystem (fuzz, concurrent); the
# debug kernel is several times slower at everything else
base=600
[ "$kernel" != debug ] || base=2400
tmo=${XATTRNS_TIMEOUT:-$((base + 12 * ${XATTRNS_FUZZ_SECONDS:-3}))}
start=$(now)
[ "$mode" != probe ] && log "$kernel: booting ($accel, timeout ${tmo}s; console: $log)"
set +e
timeout --foreground -k 5 "$tmo" "${qemu[@]}" -serial stdio -append "$cmdline" </dev/null |
	tee "$log" | {
	[ "$mode" = check ] || [ "$mode" = compare ] || [ "$mode" = bench ] ||
		exec cat >/dev/null
	# progress: one line per test result, failures marked
	sed -u -n -e 's/\r$//' \
		-e "s/^# \(not ok [0-9]* .*\)$/    [$kernel] \1  <-- FAILED/p" \
		-e "s/^# \(ok [0-9]* .*\)$/    [$kernel] \1/p" \
		-e "s/^\(not ok [0-9]* .*\)$/  [$kernel] \1  <-- FAILED/p" \
		-e "s/^\(ok [0-9]* selftests: .*\)$/  [$kernel] \1/p" \
		-e "s/^DESIGN|[^|]*|\(.*\)$/  [$kernel] comparison: \1/p" \
		-e "s/^BENCH|\([^|]*\)|\([^|]*\)|\([^|]*\)|\([^|]*\)|.*$/  [$kernel${XATTRNS_TAG:-}] \1, \2, \3: \4/p" >&2
}
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "XATTRNS-TIMEOUT after ${tmo}s" >>"$log"
	if [ "$mode" != probe ]; then
		echo "$kernel: guest timed out after ${tmo}s; last 50 console lines:" >&2
		tail -n 50 "$log" | sed 's/^/    | /' >&2
	fi
fi
if [ "$mode" = probe ]; then
	grep -q XATTRNS-PROBE-OK "$log"
	exit
fi
phase_end "$kernel guest run" "$start"
case $mode in
bench | compare)
	# no KTAP: the guest's end marker, its tool's status, no kernel splat
	marker=$(echo "$mode" | tr a-z A-Z)
	if ! summary=$(awk -v name="$kernel" -v ktap=0 -f "$REPO/scripts/ktap.awk" "$log"); then
		echo "$summary" | grep -v ' passed, ' >&2
		die "$kernel: the $mode run failed (console: $log)"
	fi
	grep -q "XATTRNS-$marker-END rc=0" "$log" ||
		die "$kernel: the $mode tool failed in the guest (console: $log)"
	exit 0
	;;
esac
awk -v name="$kernel" -f "$REPO/scripts/ktap.awk" "$log"
