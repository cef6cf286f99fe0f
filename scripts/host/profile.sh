#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# profile.sh [--guest GUEST] [--fs tmpfs|ext4|xfs|btrfs] OP DEPTH [NAMES]:
# make profile. Where the kernel's instructions go, function by function,
# in one xattr call: OP (get, set, list, probe) by the root of a namespace
# DEPTH levels down (0: root of the initial one), on a file of NAMES mixed
# names for list and probe (default 16). The guest (default patched, both
# switches 1; patched-off for 0, stock) runs `xattr_bench --loop` ITER
# and 2 x ITER times (XATTRNS_PROFILE_ITER, default 1000) in two boots
# under -icount (the boots run the same instructions) and the QEMU plugin
# tools/kprof, which counts the instructions of each
# kernel block; the difference of the two boots over ITER is one call's,
# boot and setup left out. Each block is given to the function of
# System.map that holds it. Prints the functions, the most instructions
# first, and the total; the counts are in $OUT/profile-GUEST-FS-OP-DEPTH-NAMES/.
#   make profile PROFILE='get 1'
#   make profile PROFILE='--guest stock list 1 128'
. "$(dirname "$0")/lib.sh"

usage() { die "usage: profile.sh [--guest stock|patched|patched-off] [--fs tmpfs|ext4|xfs|btrfs] get|set|list|probe DEPTH [NAMES]${1:+ ($1)}"; }
guest=patched fs=tmpfs
while [ $# -gt 0 ]; do
	case $1 in
	--guest) guest=${2:-}; shift 2 || usage ;;
	--fs) fs=${2:-}; shift 2 || usage ;;
	-*) usage "unknown option $1" ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
op=$1 depth=$2 names=${3:-16}
case $guest in stock | patched | patched-off) ;; *) usage "no guest '$guest'" ;; esac
case $fs in tmpfs | ext4 | xfs | btrfs) ;; *) usage "no filesystem '$fs'" ;; esac
case $op in get | set | list | probe) ;; *) usage "no operation '$op'" ;; esac
[[ $depth =~ ^[0-8]$ ]] || usage "DEPTH is 0 to 8"
[[ $names =~ ^[1-9][0-9]*$ ]] || usage "NAMES is a number of names"
iter=${XATTRNS_PROFILE_ITER:-1000}
[[ $iter =~ ^[1-9][0-9]*$ ]] || die "XATTRNS_PROFILE_ITER=$iter is no number of calls"

install_deps
kernel=$(guest_kernel "$guest")
build_all "$kernel" >&2
lock
dir=$OUT/profile-$guest-$fs-$op-$depth-$names
rm -rf "$dir"
mkdir -p "$dir"
make -s -C "$REPO/tools/kprof" OUT="$dir" "$dir/libkprof.so" || die "tools/kprof does not build"
map=$(bdir_of "$kernel")/System.map
[ -f "$map" ] || die "no System.map at $map"

# profile_boot N: the guest runs N calls; its blocks' counts in $dir/blocks-N.txt
profile_boot() {
	local n=$1 run=$dir/run-$1 mnt
	mkdir -p "$run"
	case $fs in
	tmpfs) mnt='mount -t tmpfs tmpfs /mnt/p' ;;
	*) mnt="mount -t $fs \"\$XATTR_TEST_DEV_$(echo "$fs" | tr '[:lower:]' '[:upper:]')\" /mnt/p" ;;
	esac
	printf 'mkdir -p /mnt/p && %s && xattr_bench --loop %s %s %s %s /mnt/p\n' \
		"$mnt" "$op" "$depth" "$names" "$n" >"$run/vm-cmd"
	(cd "$run" && echo vm-cmd | cpio -o -H newc --quiet | gzip -1) >"$run/cmd.cpio.gz"
	cat "$OUT/initramfs.cpio.gz" "$run/cmd.cpio.gz" >"$run/initramfs.cpio.gz"
	log "$guest: $n calls of $op at depth $depth on $fs under tools/kprof"
	"$REPO/scripts/host/boot.sh" --initrd "$run/initramfs.cpio.gz" --cpus 1 \
		--console "$dir/console-$n.log" "$guest" vm \
		-- -icount shift=0,sleep=off -plugin "$dir/libkprof.so,out=$dir/blocks-$n.txt" >"$run/out.txt" ||
		die "the $n-call guest failed (console: $dir/console-$n.log)"
	grep -q "^LOOP|$op|$depth|" "$run/out.txt" ||
		die "the $n-call guest did not finish its loop (console: $dir/console-$n.log)"
	[ -s "$dir/blocks-$n.txt" ] || die "tools/kprof wrote no counts ($dir/blocks-$n.txt)"
}
profile_boot "$iter"
profile_boot $((2 * iter))

# one call: the second boot's count less the first's, over ITER, given to
# the text symbol at or below each block (System.map and the blocks sorted
# together by address, a symbol before a block at the same address)
{
	awk '$2 ~ /^[tTwW]$/ { print $1, 0, $3 }' "$map"
	awk -v a="$dir/blocks-$iter.txt" '
		BEGIN { while ((getline l < a) > 0) { split(l, f, " "); first[f[1] " " f[2]] = f[3] } }
		{ k = $1 " " $2; d = $3 - first[k]; if (d) print $1, 1, $2 * d; delete first[k] }
		END { for (k in first) { split(k, f, " "); print f[1], 1, -f[2] * first[k] } }
	' "$dir/blocks-$((2 * iter)).txt"
} | LC_ALL=C sort -k1,1 -k2,2n | awk -v iter="$iter" '
	$2 == 0 { fn = $3; next }
	{ insns[fn] += $3 }
	END {
		for (f in insns) {
			v = insns[f] / iter
			if (v >= 0.5 || v <= -0.5) printf("%10.1f  %s\n", v, f)
			total += v
		}
		printf("%10.1f  TOTAL\n", total) > "/dev/stderr"
	}' 2>"$dir/total.txt" | sort -rn >"$dir/profile.txt"
echo "kernel instructions per call: $op at depth $depth${names:+ ($names names for a listing)} on $fs, $guest"
cat "$dir/profile.txt"
cat "$dir/total.txt"
source_version
