#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fstests-init.sh: the init (PID 1) of a make fstests guest. The guest's
# root is the host's / over 9p, read-only (scripts/host/fstests.sh), so fstests
# and every tool it calls are the host's own Debian binaries; everything
# the guest writes goes to tmpfs or to the 9p share "xout" (the results).
# Kernel command line: xattrns.fstests_dir=DIR (the built fstests tree),
# xattrns.fs=ext4,xfs,btrfs, xattrns.switch=0|1 (both sysctls of the
# series; stock kernels have none), xattrns.tests=generic/062,... .
# Prints KTAP-free progress, then XATTRNS-FSTESTS-END rc=N and the dmesg.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C LC_ALL=C

# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"
guest_mounts /tmp /run /var/tmp /mnt
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
ln -sf /proc/self/mounts /tmp/mtab
hostname fstests

# fstests' users (the tests that switch to them run instead of "notrun"):
# the host's passwd and group with them added, bound over the read-only ones
cp /etc/passwd /etc/group /tmp/
cat >>/tmp/passwd <<'EOF'
fsgqa:x:1100:1100:fstests:/tmp:/bin/bash
fsgqa2:x:1101:1101:fstests:/tmp:/bin/bash
123456-fsgqa:x:1102:1102:fstests:/tmp:/bin/bash
EOF
cat >>/tmp/group <<'EOF'
fsgqa:x:1100:
fsgqa2:x:1101:
123456-fsgqa:x:1102:
EOF
# su (fstests' _su) needs a shadow entry too: without one PAM's account
# stage refuses and _require_user says "fsgqa cannot execute commands"
cp /etc/shadow /tmp/shadow
for u in fsgqa fsgqa2 123456-fsgqa; do
	echo "$u:!:19000:0:99999:7:::" >>/tmp/shadow
done
mount --bind /tmp/passwd /etc/passwd
mount --bind /tmp/group /etc/group
mount --bind /tmp/shadow /etc/shadow

dir=$(guest_arg fstests_dir)
fslist=$(guest_arg fs ext4)
switch=$(guest_arg switch)
tests=$(guest_arg tests)

finish() {
	echo "XATTRNS-FSTESTS-END rc=$1"
	guest_dmesg
	sync
	umount /mnt/xout 2>/dev/null
	guest_end "$1"
}

mkdir -p /mnt/xout
if ! mount -t 9p -o trans=virtio,version=9p2000.L xout /mnt/xout; then
	echo "fstests-init: cannot mount the results share"
	finish 2
fi
[ -d "$dir" ] || { echo "fstests-init: no fstests tree at '$dir'"; finish 2; }

if [ -n "$switch" ]; then
	for s in xattr_user_special xattr_trusted_userns; do
		if ! echo "$switch" >/proc/sys/fs/$s; then
			echo "fstests-init: cannot set fs.$s=$switch"
			finish 2
		fi
	done
fi
echo "fstests-init: kernel $(uname -r), switches '${switch:-none}'," \
	"fs.xattr_user_special=$(cat /proc/sys/fs/xattr_user_special 2>/dev/null || echo absent)," \
	"fs.xattr_trusted_userns=$(cat /proc/sys/fs/xattr_trusted_userns 2>/dev/null || echo absent)"

# The disks carry their role and filesystem in the serial: test-ext4,
# scratch-ext4, ...

rc=0
cd "$dir" || finish 2
for fs in ${fslist//,/ }; do
	if ! test_dev=$(guest_disk "test-$fs") || ! scratch_dev=$(guest_disk "scratch-$fs"); then
		echo "fstests-init: no test/scratch disks for $fs"
		rc=2
		continue
	fi
	mkdir -p "/mnt/test-$fs" "/mnt/scratch-$fs"
	echo "fstests-init: $fs on $test_dev (test) and $scratch_dev (scratch)"
	# shellcheck disable=SC2086
	FSTYP=$fs TEST_DEV=$test_dev TEST_DIR=/mnt/test-$fs \
		SCRATCH_DEV=$scratch_dev SCRATCH_MNT=/mnt/scratch-$fs \
		RESULT_BASE=/mnt/xout/$fs HOST_OPTIONS=/nonexistent \
		./check ${tests//,/ } </dev/null 2>&1 | sed -u "s|^|[$fs] |"
	[ "${PIPESTATUS[0]}" = 0 ] || echo "fstests-init: $fs: ./check exited non-zero (failures above)"
	umount "/mnt/test-$fs" "/mnt/scratch-$fs" 2>/dev/null
done
finish "$rc"
