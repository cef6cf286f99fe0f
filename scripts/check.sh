#!/bin/bash
# check.sh [KERNEL...]: the whole test job. Prepare the trees, build the
# kernels (each only when its inputs changed) and the initramfs, then boot
# each kernel in QEMU (in parallel, one vCPU each) and run the kselftests.
# The last line is the total tally: "N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"

kernels=${*:-stock patched}
total_start=$(now)
lock

t=$(now)
"$REPO/scripts/prepare-tree.sh"
phase_end "prepare trees" "$t"
for k in $kernels; do
	"$REPO/scripts/build-kernel.sh" "$k"
done
"$REPO/scripts/mkinitramfs.sh"

t=$(now)
pids=""
for k in $kernels; do
	"$REPO/scripts/boot.sh" "$k" check >"$OUT/result-$k.txt" 2>"$OUT/progress-$k.txt" &
	pids="$pids $!"
	# progress of both guests on this terminal as it happens
done
tail -q -n +1 -F $(for k in $kernels; do echo "$OUT/progress-$k.txt"; done) 2>/dev/null &
tailpid=$!
rc=0
for p in $pids; do
	wait "$p" || rc=1
done
sleep 1
kill "$tailpid" 2>/dev/null || true
wait "$tailpid" 2>/dev/null || true
phase_end "guest runs" "$t"

passed=0 failed=0 skipped=0
for k in $kernels; do
	cat "$OUT/result-$k.txt"
	line=$(tail -n 1 "$OUT/result-$k.txt")
	case $line in
	*" passed, "*" failed, "*" skipped")
		set -- $(echo "$line" | sed 's/^[^:]*: //; s/[^0-9 ]//g')
		passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
		;;
	*) rc=1 ;;
	esac
done
phase_end "make check" "$total_start"
[ "$rc" = 0 ] || echo "FAILED: see the lines above and $OUT/console-*.log" >&2
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
