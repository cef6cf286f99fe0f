#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fstests.sh: make fstests. fstests' xattr and idmapped-mount tests
# (scripts/report/fstests.list) on ext4, xfs and btrfs in QEMU guests whose root is
# this machine's / over 9p (read-only; scripts/guest/fstests-init.sh is their
# init), three runs:
#   stock      the stock kernel: the baseline
#   patched-0  the patched kernel, both switches 0: must give stock's results
#              exactly (same status per test, same output of every failure)
#   patched-1  both switches 1: stock's results except the documented
#              differences (scripts/report/fstests.expected; the output each
#              expected failure must give is kept under design/fstests/)
# fstests is not a Debian package: the script clones
# https://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git (or its mirror
# github.com/kdave/xfstests) into the cache the first time; on a machine
# that reaches neither, XATTRNS_FSTESTS_SRC names a clone or a git bundle
# holding the pinned FSTESTS_COMMIT (any copy of either repository will
# do). The verdict: scripts/report/fstests-verdict.sh.
# Environment: XATTRNS_FSTESTS (tests, comma-separated: instead of the list),
# XATTRNS_FSTESTS_FS (default ext4,xfs,btrfs), XATTRNS_FSTESTS_RUNS
# (default "stock patched-0 patched-1"), XATTRNS_FSTESTS_JOBS (guests at
# once, 1 vCPU each; default the host's CPUs), XATTRNS_FSTESTS_COMPARE_ONLY=1 (no
# guests: compare the results of the last run again, after editing
# scripts/report/fstests.expected).
. "$(dirname "$0")/lib.sh"

FSTESTS_COMMIT=63a29724a85f1999e49bf0a9bf0d22643b6116e5
# What building and running fstests needs beyond XATTRNS_DEPS (fstests'
# README, less what the listed tests never call: dbench, fio, lvm2, quota)
FSTESTS_DEPS="
gawk:gawk autoconf:autoconf automake:automake libtoolize:libtool
/usr/bin/libtool:libtool-bin pkg-config:pkg-config
/usr/include/xfs/xfs.h:xfslibs-dev /usr/include/uuid/uuid.h:uuid-dev
uuidgen:uuid-runtime /usr/include/sys/acl.h:libacl1-dev
/usr/include/attr/libattr.h:libattr1-dev /usr/include/libaio.h:libaio-dev
/usr/include/sys/capability.h:libcap-dev /usr/include/liburing.h:liburing-dev
/usr/include/gdbm.h:libgdbm-dev /usr/include/ndbm.h:libgdbm-compat-dev
setfacl:acl fuser:psmisc xfs_io:xfsprogs chattr:e2fsprogs python3:python3
"
expected=$REPO/scripts/report/fstests.expected
fslist=${XATTRNS_FSTESTS_FS:-ext4,xfs,btrfs}
runs=${XATTRNS_FSTESTS_RUNS:-stock patched-0 patched-1}
if [ -n "${XATTRNS_FSTESTS:-}" ]; then
	tests=$XATTRNS_FSTESTS
else
	tests=$(sed 's/#.*//' "$REPO/scripts/report/fstests.list" | tr -s ' \n' ',')
	tests=${tests#,}
	tests=${tests%,}
fi
[ -n "$tests" ] || die "no tests (scripts/report/fstests.list is empty)"

total_start=$(now)
XATTRNS_DEPS="$XATTRNS_DEPS $FSTESTS_DEPS"
install_deps
export XATTRNS_HOSTROOT=1
build_all --kernels-only
lock

# fstests at the pinned commit, built once into the cache
fst=$XATTRNS_CACHE/fstests
if [ "$(cat "$fst/.xattrns-built" 2>/dev/null)" != "$FSTESTS_COMMIT" ]; then
	# the source: XATTRNS_FSTESTS_SRC (a clone, or a git bundle), else a
	# clone in the cache, made here from kernel.org (or its GitHub
	# mirror) the first time
	src=${XATTRNS_FSTESTS_SRC:-$XATTRNS_CACHE/xfstests-dev}
	if [ -z "${XATTRNS_FSTESTS_SRC:-}" ] && [ ! -e "$src" ]; then
		log "fetching xfstests-dev into $src"
		git clone -q https://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git "$src" 2>/dev/null ||
			git clone -q https://github.com/kdave/xfstests.git "$src" ||
			{ rm -rf "$src"; die "fstests: cannot fetch xfstests-dev; set XATTRNS_FSTESTS_SRC to a clone or a git bundle that holds commit $FSTESTS_COMMIT"; }
	fi
	[ -e "$src" ] || die "fstests: XATTRNS_FSTESTS_SRC=$src does not exist"
	t=$(now)
	log "building fstests $FSTESTS_COMMIT from $src (a few minutes)"
	rm -rf "$fst"
	git clone -q --no-checkout "$src" "$fst" 2>/dev/null ||
		die "fstests: cannot clone $src (a clone or a git bundle of xfstests-dev)"
	git -C "$fst" cat-file -e "$FSTESTS_COMMIT^{commit}" 2>/dev/null ||
		{ rm -rf "$fst"; die "fstests: $src does not hold commit $FSTESTS_COMMIT (git -C $src fetch, or set XATTRNS_FSTESTS_SRC)"; }
	git -C "$fst" checkout -q --detach "$FSTESTS_COMMIT"
	make -C "$fst" -j"$JOBS" >"$XATTRNS_CACHE/fstests-build.log" 2>&1 ||
		die "fstests does not build (log: $XATTRNS_CACHE/fstests-build.log)"
	echo "$FSTESTS_COMMIT" >"$fst/.xattrns-built"
	phase_end "fstests build" "$t"
fi

# one guest per run: 1 vCPU each, as many at once as there are host CPUs
# (XATTRNS_FSTESTS_JOBS: all three at once finish sooner than two then one)
res=$OUT/fstests
compare_only=${XATTRNS_FSTESTS_COMPARE_ONLY:-0}
[ "$compare_only" = 1 ] || rm -rf "$res"
mkdir -p "$res"
boot_fstests() { # boot_fstests RUN
	local run=$1 kernel switch dir fs i=0 disks=() append
	kernel=${run%-*}
	switch=
	[ "$kernel" = "$run" ] || switch=${run#*-}
	dir=$res/$run
	mkdir -p "$dir/xout"
	for fs in ${fslist//,/ }; do
		for role in test scratch; do
			truncate -s 2G "$dir/$role-$fs.img"
			disks+=(-drive "file=$dir/$role-$fs.img,if=none,id=d$i,format=raw,cache=unsafe"
				-device "virtio-blk-pci,drive=d$i,serial=$role-$fs")
			i=$((i + 1))
		done
		# fstests formats the scratch device itself, the test device not
		case $fs in
		ext4) mkfs.ext4 -q -F "$dir/test-$fs.img" ;;
		xfs) mkfs.xfs -q -f "$dir/test-$fs.img" ;;
		btrfs) mkfs.btrfs -q -f "$dir/test-$fs.img" >/dev/null ;;
		*) die "make fstests: no mkfs for '$fs'" ;;
		esac
	done
	append="xattrns.fstests_dir=$fst xattrns.fs=$fslist xattrns.tests=$tests"
	[ -z "$switch" ] || append="$append xattrns.switch=$switch"
	log "$run: booting the $kernel kernel (console: $dir/console.log)"
	"$REPO/scripts/host/boot.sh" --console "$dir/console.log" --cpus 1 \
		--timeout "${XATTRNS_FSTESTS_TIMEOUT:-5400}" \
		--init "$REPO/scripts/guest/fstests-init.sh" --append "$append" \
		--progress "s/\r$//; s/^\[\([a-z0-9]*\)\] \([a-z]*\/[0-9]*\) \(.*\)$/  [$run] \1 \2 \3/p" \
		"$kernel" hostroot -- \
		-virtfs "local,path=$dir/xout,mount_tag=xout,security_model=none,multidevs=remap" \
		"${disks[@]}" || true
	rm -f "$dir"/*.img
	awk -v name="$run" -v ktap=0 -v marker=FSTESTS -f "$REPO/scripts/report/ktap.awk" \
		"$dir/console.log" >"$dir/guest.txt" || {
		cat "$dir/guest.txt" >&2
		return 1
	}
}

t=$(now)
rc=0
# shellcheck disable=SC2086
set -- $runs
[ "$compare_only" = 0 ] || set --
while [ $# -gt 0 ]; do
	pids=""
	for _ in $(seq "${XATTRNS_FSTESTS_JOBS:-$(nproc)}"); do
		[ $# -gt 0 ] || break
		boot_fstests "$1" &
		pids="$pids $!"
		shift
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
done
phase_end "guest runs" "$t"
[ "$rc" = 0 ] || die "a make fstests guest failed (consoles: $res/*/console.log)"

# the table and the verdict (scripts/report/fstests-verdict.sh)
baseline=${runs%% *}
fail=0
"$REPO/scripts/report/fstests-verdict.sh" "$res" "$fst" "$expected" "$runs" "$fslist" "$tests" || fail=1
source_version >&2
phase_end "make fstests" "$total_start"
[ "$fail" = 0 ] || die "make fstests: a test fails on the baseline, did not run unpinned, or results differ from it beyond the documented differences"
echo "make fstests: every run matches $baseline except the documented differences ($(grep -c '^[a-z]' "$expected" || true) listed in scripts/report/fstests.expected)"
