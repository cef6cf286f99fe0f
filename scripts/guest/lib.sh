# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# lib.sh: what the guests' inits share: initramfs/init (which the initramfs
# carries as /lib/xattrns-guest.sh), e2e-init.sh and fstests-init.sh (whose
# root is the host's / over 9p). POSIX sh: busybox's in the initramfs.
#   guest_mounts [DIR...]  proc, sysfs, devtmpfs, /dev/fd, and a tmpfs on
#                          each DIR
#   guest_arg NAME [DEF]   the value of xattrns.NAME= on the command line
#   guest_disk SERIAL      the virtio disk the host named SERIAL
#   guest_dmesg            the kernel log between markers, for the host's
#                          splat scan (scripts/report/ktap.awk)
#   guest_end RC           XATTRNS-END rc=RC, then power off (the host
#                          runs QEMU with -no-reboot)

guest_mounts() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev 2>/dev/null
	for d in "$@"; do
		mkdir -p "$d"
		mount -t tmpfs tmpfs "$d"
	done
	ln -sf /proc/self/fd /dev/fd
}

guest_arg() {
	# (the command line is words)
	# shellcheck disable=SC2013
	for a in $(cat /proc/cmdline); do
		case $a in "xattrns.$1="*) echo "${a#*=}"; return 0 ;; esac
	done
	echo "${2:-}"
}

guest_disk() {
	for s in /sys/block/vd*/serial; do
		[ "$(cat "$s" 2>/dev/null)" = "$1" ] || continue
		s=${s%/serial}
		echo "/dev/${s##*/}"
		return 0
	done
	return 1
}

guest_dmesg() {
	echo "XATTRNS-DMESG-BEGIN"
	# util-linux colours a tty (the serial console); busybox cannot
	dmesg --color=never 2>/dev/null || dmesg
	echo "XATTRNS-DMESG-END"
}

guest_end() {
	sync
	echo "XATTRNS-END rc=$1"
	# busybox's reboot: Debian's asks a systemd that is not running
	/bin/busybox reboot -f
	sleep 10
}
