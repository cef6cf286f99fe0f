#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh [OPTION...] GUEST MODE [-- QEMU-ARG...]: the one booter. Boots a
# guest (stock, patched, patched-off, debug, debug-off: lib/guests.sh) in
# QEMU and runs MODE there:
#   check      the kselftests (initramfs/init), fresh ext4, xfs, btrfs, jfs
#              and f2fs disks; progress and the tally; non-zero on any failure
#   compare, bench, archive, containers
#              the comparison, the benchmark, make archive's and make
#              containers' tools: their progress, non-zero on a failure
#   standalone the kselftests as in a kernel tree: no test disks
#   shell      an interactive busybox shell on this terminal
#   vm         the initramfs's /vm-cmd (make vm): its output and status
#   probe      boot and answer, to see whether an accelerator works
#   hostroot   this machine's / as the guest's root (read-only, 9p) and
#              --init as its PID 1 (make fstests, make e2e): the console to
#              --console, the lines the sed script --progress prints to stderr
# Options (each says what a caller wants of this one boot):
#   --kernel FILE    another kernel image (default: the guest's build)
#   --initrd FILE    another initramfs (make archive's, make vm's)
#   --console FILE   the console log (default $OUT/console-GUEST.log)
#   --ext4 FILE      the ext4 disk to use and keep (make archive's and make
#                    containers' two boots of the patched kernel)
#   --skips FILE     the pinned skips (make check); --partial: their reasons
#                    only, not their counts (a part of the suite)
#   --tests LIST     only these kselftests (COLLECTION:TEST,...; default
#                    XATTRNS_TESTS)
#   --cpus N         vCPUs (default XATTRNS_CPUS, else guest_cpus)
#   --tag TEXT       added to the guest's name on progress lines
#   --append TEXT    more kernel command line
#   --timeout S      seconds before the guest is killed (default
#                    XATTRNS_TIMEOUT, else guest_timeout)
#   --init FILE, --progress SED   (hostroot)
# QEMU-ARGs after -- are added to QEMU's command line (make bench's -icount,
# the hostroot guests' memory and disks).
# The user's knobs stay in the environment: XATTRNS_ACCEL=tcg|kvm (default
# tcg unless a KVM probe boot answered), XATTRNS_TIMEOUT, XATTRNS_TESTS,
# XATTRNS_CPUS, XATTRNS_FUZZ_STEPS, XATTRNS_FUZZ_SEED, XATTRNS_FUZZ_SECONDS.
# Runs in parallel with another boot.sh: installs nothing (check_deps).
. "$(dirname "$0")/lib.sh"

usage() {
	die "usage: boot.sh [--kernel F] [--initrd F] [--console F] [--ext4 F] [--skips F] [--partial] [--tests L] [--cpus N] [--tag T] [--append T] [--timeout S] [--init F] [--progress SED] stock|patched|patched-off|debug|debug-off MODE [-- QEMU-ARG...]${1:+ ($1)}"
}
kimage="" initrd="" console="" ext4="" skips="" partial=0 tag="" append=""
tests=${XATTRNS_TESTS:-} cpus=${XATTRNS_CPUS:-} tmo=${XATTRNS_TIMEOUT:-}
init="" progress=""
while [ $# -gt 0 ]; do
	case $1 in
	--partial) partial=1; shift; continue ;;
	--) break ;;
	--*) [ $# -ge 2 ] || usage "$1 needs a value" ;;
	*) break ;;
	esac
	case $1 in
	--kernel) kimage=$2 ;;
	--initrd) initrd=$2 ;;
	--console) console=$2 ;;
	--ext4) ext4=$2 ;;
	--skips) skips=$2 ;;
	--tests) tests=$2 ;;
	--cpus) cpus=$2 ;;
	--tag) tag=$2 ;;
	--append) append=$2 ;;
	--timeout) tmo=$2 ;;
	--init) init=$2 ;;
	--progress) progress=$2 ;;
	*) usage "unknown option $1" ;;
	esac
	shift 2
done
[ $# -ge 2 ] || usage
guest=$1
mode=$2
shift 2
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage "unexpected '$1'"
	shift
fi
qemu_extra=("$@")
case $guest in stock | patched | patched-off | debug | debug-off) ;; *) usage "no guest '$guest'" ;; esac
[ -z "$cpus" ] || [[ $cpus =~ ^[1-9][0-9]*$ ]] || usage "--cpus '$cpus' is no number of vCPUs"
[ -z "$tmo" ] || [[ $tmo =~ ^[1-9][0-9]*$ ]] || usage "--timeout '$tmo' is no number of seconds"
[ "$mode" != hostroot ] || [ -n "$init" ] || usage "hostroot needs --init"
[ "$mode" = hostroot ] || [ -z "$init$progress" ] || usage "--init and --progress are hostroot's"

# The guest's kernel and switches (guest_kernel, guest_switches)
kernel=$(guest_kernel "$guest")
if [ "$mode" = hostroot ]; then
	# (make fstests' and make e2e's kernels: the hostroot build)
	kimage=${kimage:-$(XATTRNS_HOSTROOT=1 kimage_of "$kernel")}
else
	kimage=${kimage:-$(kimage_of "$kernel")}
	initrd=${initrd:-$OUT/initramfs.cpio.gz}
	[ -f "$initrd" ] || die "no initramfs at $initrd (make initramfs)"
fi
[ -f "$kimage" ] || die "no $kernel kernel at $kimage (make kernel)"
[ -z "$ext4" ] || [ -f "$ext4" ] || die "--ext4: no image at $ext4"
[ -z "$skips" ] || [ -r "$skips" ] || die "--skips: cannot read $skips"
check_deps
fuzz_bound=${XATTRNS_FUZZ_SECONDS:-$(fuzz_seconds_default check)}
fuzz=$(fuzz_seconds_of "$kernel" "$fuzz_bound")
fuzz_steps=${XATTRNS_FUZZ_STEPS:-$(fuzz_steps_default check)}
cpus=${cpus:-$(guest_cpus "$guest" "$mode")}
tmo=${tmo:-$(guest_timeout "$kernel" "$fuzz_bound")}

accel=${XATTRNS_ACCEL:-}
if [ -z "$accel" ]; then
	# KVM only if a probe boot answered (cached; a hung KVM guest is killed
	# after a few seconds). TCG otherwise.
	if [ ! -f "$OUT/accel" ]; then
		echo tcg >"$OUT/accel"
		if [ -w /dev/kvm ] && [ "$mode" != probe ]; then
			log "probing KVM (a few seconds)"
			if XATTRNS_ACCEL=kvm "$0" --timeout 8 "$guest" probe >/dev/null 2>&1; then
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
case $mode in
probe | standalone | shell | hostroot) ;; # (standalone: the tests make loop images)
*)
	# Fresh filesystems every boot; sparse files, so this takes no time.
	# --ext4: an ext4 image carried from one boot to the next instead
	truncate -s 256M "$run/btrfs.img" "$run/jfs.img" "$run/f2fs.img"
	truncate -s 320M "$run/xfs.img"
	if [ -n "$ext4" ]; then
		ln -s "$(realpath "$ext4")" "$run/ext4.img"
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
	;;
esac

# Each vCPU its own socket: the kernel has no ACPI, and SeaBIOS's MP table
# lists one CPU per package (with -smp 2 alone the guest sees one CPU).
# More than one vCPU under TCG: one host thread each (multi-threaded TCG),
# so that two CPUs really race in the kernel.
smp="$cpus,sockets=$cpus,cores=1,threads=1"
accel_opt=$accel
[ "$accel" != tcg ] || [ "$cpus" = 1 ] || accel_opt="tcg,thread=multi"
mem=1G
[ "$mode" != hostroot ] || mem=2G
qemu=(qemu-system-x86_64 -accel "$accel_opt" -cpu "$cpu" -m "$mem" -smp "$smp"
	-nodefaults -no-reboot -display none -kernel "$kimage")
cmdline="console=ttyS0 loglevel=5 panic=-1"
if [ "$mode" = hostroot ]; then
	# this machine's /, read-only over 9p, and a script of this
	# repository as PID 1 (it runs the host's own Debian tools)
	qemu+=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap")
	cmdline="$cmdline root=hostroot rootfstype=9p ro init=$init"
	cmdline="$cmdline rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
else
	qemu+=(-initrd "$initrd" "${disks[@]}")
	cmdline="$cmdline tsc=reliable xattrns.mode=$mode"
	# the fuzzer's steps and time bound (per filesystem), the time each test
	# program gets, and the seed when given
	cmdline="$cmdline xattrns.fuzz_steps=$fuzz_steps xattrns.fuzz_seconds=$fuzz"
	cmdline="$cmdline xattrns.test_timeout=$(test_timeout "$fuzz")"
	[ -z "${XATTRNS_FUZZ_SEED:-}" ] || cmdline="$cmdline xattrns.fuzz_seed=$XATTRNS_FUZZ_SEED"
	# only some kselftest programs: --tests filesystems/xattr:xattr_fuzz_test
	[ -z "$tests" ] || cmdline="$cmdline xattrns.tests=$tests"
	# the switches this guest boots with, set once (sysctl.<name>=1)
	cmdline="$cmdline $(guest_switches "$guest")"
fi
qemu+=("${qemu_extra[@]}")
# Under TCG without icount the guest's TSC is the host's: tell the guest
# its rate rather than let it calibrate against the emulated PIT, which
# fails on a loaded host and leaves it on a jiffies clock (design/clocks.md).
# Under icount the TSC counts virtual time and calibrates deterministically.
tsc_khz=$(cat "$OUT/tsc-khz" 2>/dev/null || true)
case $accel:${qemu_extra[*]} in
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
cmdline="$cmdline $append"

if [ "$mode" = shell ]; then
	log "booting the $guest kernel ($accel); leave with: reboot -f (or Ctrl-a x)"
	exec "${qemu[@]}" -serial mon:stdio -append "$cmdline"
fi

log=${console:-$OUT/console-$guest.log}
[ "$mode" = probe ] && log=$run/console.log
name="$guest$tag"
start=$(now)
case $mode in
probe | vm | hostroot) ;;
*) log "$name: booting ($accel, $cpus vCPU(s), timeout ${tmo}s; console: $log)" ;;
esac
set +e
timeout --foreground -k 5 "$tmo" "${qemu[@]}" -serial stdio -append "$cmdline" </dev/null |
	tee "$log" | {
	case $mode in
	# make vm: the command's output, as it comes
	vm) exec sed -u -n -e 's/\r$//' \
		-e '/^XATTRNS-VM-BEGIN/,/^XATTRNS-VM-END/{/^XATTRNS-VM-/d;p;}' ;;
	# the lines the caller's sed script prints
	hostroot) exec sed -u -n "${progress:-d}" >&2 ;;
	check | compare | bench) ;;
	*) exec cat >/dev/null ;;
	esac
	# progress: one line per test result, failures marked
	sed -u -n -e 's/\r$//' \
		-e "s/^# \(not ok [0-9]* .*\)$/    [$name] \1  <-- FAILED/p" \
		-e "s/^# \(ok [0-9]* .*\)$/    [$name] \1/p" \
		-e "s/^\(not ok [0-9]* .*\)$/  [$name] \1  <-- FAILED/p" \
		-e "s/^\(ok [0-9]* selftests: .*\)$/  [$name] \1/p" \
		-e "s/^XATTRNS-GUEST \(.*\)$/  [$name] guest: \1/p" \
		-e "s/^DESIGN|[^|]*|\(.*\)$/  [$name] comparison: \1/p" \
		-e "s/^BENCH|\([^|]*\)|\([^|]*\)|\([^|]*\)|\([^|]*\)|.*$/  [$name] \1, \2, \3: \4/p" >&2
}
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "XATTRNS-TIMEOUT after ${tmo}s" >>"$log"
	if [ "$mode" != probe ]; then
		echo "$name: guest timed out after ${tmo}s; last 50 console lines:" >&2
		tail -n 50 "$log" | sed 's/^/    | /' >&2
	fi
fi
case $mode in
probe)
	grep -q XATTRNS-PROBE-OK "$log"
	exit
	;;
hostroot)
	# the caller reads the console (its own KTAP, its own marker)
	phase_end "$name guest run" "$start"
	exit "$rc"
	;;
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
esac
phase_end "$name guest run" "$start"
case $mode in
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
# make check pins the skips (--skips); other targets count them
awk -v name="$guest" -v skips="$skips" -v partial="$partial" \
	-f "$REPO/scripts/report/ktap.awk" "$log"
