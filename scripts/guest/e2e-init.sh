#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e-init.sh: the init (PID 1) of the make e2e guest (scripts/host/e2e.sh).
# Its root is the host's / over 9p, read-only. It runs the real virtiofsd
# (Debian's, unmodified) unprivileged in a user namespace, serving a tree of
# every file type on a fresh ext4 disk, and a nested QEMU whose guest (the
# same kernel, initramfs/init in mode "virtiofs") mounts the share and
# relabels every entry: setfattr security.selinux, read it back, list it.
# Afterwards this guest, the host of the share, checks the names stored on
# disk. Scenarios (xattrns.scenarios=...):
#   d2-sw0  design 2 (user.* mapping), fs.xattr_user_special=0: stock
#           behaviour, only the file and the directory take the label
#   d2-sw1  design 2, fs.xattr_user_special=1: every entry takes it as
#           user.virtiofs.security.selinux
#   d4-sw0  design 4 (trusted.* mapping, -o modcaps=+sys_admin),
#           fs.xattr_trusted_userns=0: stock, nothing takes it
#   d4-sw1  design 4, fs.xattr_trusted_userns=1: every entry takes it,
#           stored as trusted.<1000>virtiofs.security.selinux
# Output: KTAP (one result per entry and check), XATTRNS-E2E-END rc=N.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C LC_ALL=C
VIRTIOFSD=/usr/lib/qemu/virtiofsd
LABEL=system_u:object_r:e2e_t:s0
ENTRIES="file dir symlink chr blk fifo sock"
DAEMON_UID=1000

# shellcheck source=scripts/guest/lib.sh
. "$(dirname "$0")/lib.sh"
guest_mounts /tmp /run /var/tmp /mnt
scenarios=$(guest_arg scenarios)
kimage=$(guest_arg kimage)
initrd=$(guest_arg initrd)

# shellcheck source=scripts/report/ktap.sh
. "$(dirname "$0")/../report/ktap.sh"
result() { ktap_result "$@"; }
finish() {
	ktap_end || true
	echo "XATTRNS-E2E-END rc=$1"
	guest_dmesg
	guest_end "$1"
}

ktap_begin
echo "# e2e: $(uname -r), $(nproc) CPU(s); nested guest $kimage"
disk=$(guest_disk share) || disk=
if [ -z "$disk" ] || [ ! -f "$kimage" ] || [ ! -f "$initrd" ]; then
	echo "# e2e: missing the share disk, the kernel or the initramfs"
	finish 2
fi
mkdir -p /srv
mount -t ext4 "$disk" /srv || finish 2

# the tree the nested guest relabels, owned by the daemon's uid (the root
# of its user namespace)
make_tree() { # make_tree DIR
	mkdir -p "$1"
	(
		cd "$1" || exit 1
		echo data >file
		mkdir dir
		ln -s file symlink
		mknod chr c 1 3
		mknod blk b 7 0
		mkfifo fifo
		python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'
		chown -h "$DAEMON_UID:$DAEMON_UID" . file dir symlink chr blk fifo sock
	)
}

# stored_names DIR ENTRY: the xattr names stored on ENTRY, as the real root
# of this guest lists them
stored_names() {
	getfattr -h -m - --absolute-names "$1/$2" 2>/dev/null |
		sed -n 's/^\([a-z][^=]*\)$/\1/p' | tr '\n' ' '
}

run_scenario() { # run_scenario NAME
	local sc=$1 design sw rules modcaps="" sysctl want_name allowed dir sock log
	design=${sc%-*}
	sw=${sc#*-sw}
	case $design in
	d2)
		rules=:map:security.selinux:user.virtiofs.:
		sysctl=xattr_user_special
		want_name=user.virtiofs.security.selinux
		allowed="file dir"
		;;
	d4)
		rules=:map:security.selinux:trusted.virtiofs.:
		modcaps="-o modcaps=+sys_admin"
		sysctl=xattr_trusted_userns
		want_name="trusted.<$DAEMON_UID>virtiofs.security.selinux"
		allowed=""
		;;
	*) echo "# unknown scenario $sc"; failed=$((failed + 1)); return ;;
	esac
	[ "$sw" = 1 ] && allowed=$ENTRIES
	# The switches go from 0 to 1 once per boot: the scenarios at 0 run
	# first (the default order), and each one at 1 sets its switch.
	if [ "$sw" = 1 ]; then
		echo 1 >/proc/sys/fs/$sysctl || { result FAIL "$sc: set fs.$sysctl=1"; return; }
	elif [ "$(cat /proc/sys/fs/$sysctl)" != 0 ]; then
		result FAIL "$sc: fs.$sysctl is already 1 (run the -sw0 scenarios before the -sw1 ones)"
		return
	fi

	dir=/srv/$sc
	make_tree "$dir"
	sock=/tmp/$sc/vfsd.sock
	log=/tmp/$sc/log
	mkdir -p "/tmp/$sc"
	chmod 0777 "/tmp/$sc"
	# the daemon as an unprivileged user would run it: uid 1000, root of a
	# user namespace of its own, with a private /run for its pid file
	/usr/bin/setpriv --reuid=$DAEMON_UID --regid=$DAEMON_UID --clear-groups \
		/usr/bin/unshare -r -m /bin/sh -c "mount -t tmpfs tmpfs /run &&
		exec $VIRTIOFSD --socket-path=$sock -o source=$dir -o sandbox=namespace \
			-o xattr -o xattrmap=$rules $modcaps --rlimit-nofile=0" \
		>"$log.virtiofsd" 2>&1 &
	local vpid=$! i=0
	while [ ! -S "$sock" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -S "$sock" ]; then
		result FAIL "$sc: virtiofsd did not start"
		sed 's/^/# virtiofsd| /' "$log.virtiofsd"
		return
	fi
	local t0 t1
	t0=$(date +%s)
	timeout -k 5 900 qemu-system-x86_64 -accel tcg -cpu max -m 256M -smp 1 \
		-nodefaults -no-reboot -display none \
		-object memory-backend-memfd,id=mem,size=256M,share=on \
		-machine q35,memory-backend=mem \
		-chardev socket,id=vfs,path="$sock" \
		-device vhost-user-fs-pci,chardev=vfs,tag=share \
		-kernel "$kimage" -initrd "$initrd" -serial stdio \
		-append "console=ttyS0 loglevel=5 panic=-1 xattrns.mode=virtiofs xattrns.label=$LABEL" \
		</dev/null >"$log" 2>&1
	local qrc=$?
	t1=$(date +%s)
	wait "$vpid"
	sed 's/\r$//; s/XATTRNS-/inner-/g; s/^/inner| /' "$log"
	echo "# $sc: nested guest ran $((t1 - t0)) s (qemu rc=$qrc, virtiofsd log below)"
	sed 's/^/# virtiofsd| /' "$log.virtiofsd" | tail -n 5
	grep -q '^XATTRNS-VIRTIOFS-END rc=0' "$log"
	result "$([ $? = 0 ] && echo OK || echo FAIL)" "$sc: the nested guest mounted the share and finished"

	local e line want
	for e in $ENTRIES; do
		line=$(sed -n "s/\r$//; s/^VIRTIOFS|$e|//p" "$log")
		case " $allowed " in
		*" $e "*) want="set=ok|get=$LABEL|list=security.selinux" ;;
		*)
			# refused: EPERM, nothing readable or listed
			want="set=EPERM|get=ENODATA|list=" ;;
		esac
		[ "$line" = "$want" ]
		# the name says what is expected, a failure what happened
		result "$([ $? = 0 ] && echo OK || echo FAIL)" "$sc: guest relabels $e: $want"
		[ "$line" = "$want" ] || echo "# got: $line"
		# what is stored on the host's disk: the mapped name on what took
		# the label, nothing on the rest
		local names
		names=$(stored_names "$dir" "$e")
		case " $allowed " in
		*" $e "*) want="$want_name " ;;
		*) want="" ;;
		esac
		[ "$names" = "$want" ]
		result "$([ $? = 0 ] && echo OK || echo FAIL)" "$sc: host stores on $e: ${want:-nothing}"
		[ "$names" = "$want" ] || echo "# got: ${names:-nothing}"
	done
}

for sc in ${scenarios//,/ }; do
	run_scenario "$sc"
done
umount /srv
finish "$([ "$KTAP_FAILED" = 0 ] && echo 0 || echo 1)"
