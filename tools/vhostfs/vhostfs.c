// SPDX-License-Identifier: GPL-2.0
/*
 * vhostfs: the unmodified virtiofsd (QEMU 7.2's C daemon, Debian's
 * /usr/lib/qemu/virtiofsd) driven through vhost-user and FUSE by a client
 * of ours, with no VM: the referee of tools/xattrd.
 *
 *   vhostfs compare DIR
 *	every design of design/comparison.md this kernel carries, on a fresh
 *	tree under DIR, through one virtiofsd per design; prints
 *	VCELL|design|row|value, the rows and values of `xattrd compare`
 *   vhostfs [-U] [-S] RULES DIR set NAME VALUE PATH...
 *   vhostfs [-U] [-S] RULES DIR get|remove NAME PATH...
 *   vhostfs [-U] [-S] RULES DIR list PATH...
 *	one virtiofsd sharing DIR with --xattrmap RULES, the guest's calls
 *	on PATHs (relative to DIR); -U: the daemon runs as uid 0 of a user
 *	namespace (host uid 1000), -S: with -o modcaps=+sys_admin
 *
 * The daemon: `virtiofsd --fd=N -o source=DIR -o sandbox=namespace -o
 * xattrmap=RULES --rlimit-nofile=0` (plus -o modcaps=+sys_admin for the
 * trusted.* mappings), on a listening socket we hand it (so it writes no
 * pid file), either as real root or, like `setpriv --reuid=1000 unshare
 * -r` with newuidmap, as uid 1000 in a user namespace it created, whose
 * maps we (root, as newuidmap would) write: uid_map and gid_map
 * `0 1000 1`, `1 100000 65536`, the map tools/xattrd uses. It exits when
 * we disconnect: one daemon per design. VIRTIOFSD overrides its path;
 * VHOSTFS_DEBUG=1 prints its log even when all went well.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "fuse_client.h"
#include "../lib/nsutil.h"

#define VIRTIOFSD	"/usr/lib/qemu/virtiofsd"
#define GUEST_ROOT_UID	1000	/* the unprivileged daemon's uid on the host */
#define ATTACKER_UID	2000	/* another unprivileged host user */
#define DAEMON_MAP	"0 1000 1\n1 100000 65536\n"
#define LABEL_NAME	"security.selinux"
#define SECRET_NAME	"trusted.host.secret"
#define EXIT_TIMEOUT_MS	10000	/* for the daemon to exit once we hang up */

/* The designs of tools/xattrd, with what the real daemon needs on top. */
struct design {
	const char *id;
	const char *title;
	const char *rules;
	const char *sysctl;	/* switch to turn on, or NULL */
	bool patched;		/* measured on the patched kernel */
	bool userns;		/* daemon unprivileged in a user namespace */
	bool sys_admin;		/* -o modcaps=+sys_admin (trusted.* mappings) */
};

static const struct design designs[] = {
	{ "stock", "1. stock, user.* mapping, unprivileged",
	  ":map:security.selinux:user.virtiofs.:", NULL, false, true, false },
	{ "goyal", "2. Goyal: user.* on special files",
	  ":map:security.selinux:user.virtiofs.:", "/proc/sys/fs/xattr_user_special",
	  true, true, false },
	{ "schaufler", "3. Schaufler: trusted.* mapping, privileged",
	  ":map:security.selinux:trusted.virtiofs.:", NULL, false, false, true },
	{ "szeredi", "4. Szeredi/Biederman: trusted.* in a user namespace",
	  ":map:security.selinux:trusted.virtiofs.:", "/proc/sys/fs/xattr_trusted_userns",
	  true, true, true },
};

struct node {
	const char *name;
	mode_t type;
};

static const struct node nodes[] = {
	{ "file", S_IFREG }, { "dir", S_IFDIR }, { "symlink", S_IFLNK },
	{ "chr", S_IFCHR }, { "blk", S_IFBLK }, { "fifo", S_IFIFO },
	{ "sock", S_IFSOCK }, { "devnull", S_IFCHR },
};
#define NR_NODES	(sizeof(nodes) / sizeof(nodes[0]))
#define NR_RELABELLED	(NR_NODES - 1)	/* devnull is the attacks' */

/* One virtiofsd and our connection to it. */
struct daemon {
	const char *what;	/* for messages */
	pid_t pid;
	int userns;		/* its user namespace, or -1 */
	int log;		/* memfd: its stdout and stderr */
	struct fc fc;
	uint64_t ids[NR_NODES];	/* node ids of the tree (compare) */
};

static struct daemon *running;		/* for the fatal path */
static const char *switch_on;		/* a sysctl to turn back off */

static const char *errname(int err)
{
	switch (err) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENODATA: return "ENODATA";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case EEXIST: return "EEXIST";
	default: return strerrorname_np(err) ? strerrorname_np(err) : "error";
	}
}

static void dump_log(struct daemon *dm)
{
	char buf[4096], *line, *save;
	off_t off = 0;
	ssize_t n;

	if (dm->log < 0)
		return;
	fprintf(stderr, "vhostfs: %s: the daemon's log:\n", dm->what);
	while ((n = pread(dm->log, buf, sizeof(buf) - 1, off)) > 0) {
		buf[n] = 0;
		off += n;
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "    virtiofsd| %s\n", line);
	}
}

static void cleanup_and_exit(void) __attribute__((noreturn));
static void cleanup_and_exit(void)
{
	if (running && running->pid > 0) {
		int status;

		kill(running->pid, SIGKILL);
		status = ns_wait(running->pid);
		if (status != 128 + SIGKILL)
			fprintf(stderr, "vhostfs: %s: the daemon had exited with status %d\n",
				running->what, status);
		dump_log(running);
	}
	if (switch_on)
		ns_write_str(switch_on, "0\n");
	exit(1);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "vhostfs: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	cleanup_and_exit();
}

static void fc_fatal(struct fc *c, const char *msg) __attribute__((noreturn));
static void fc_fatal(struct fc *c, const char *msg)
{
	die("%s: %s", running ? running->what : "?", msg);
}

/* In the daemon's child: report a setup failure into its log and exit. */
static void child_fail(const char *what)
{
	dprintf(2, "vhostfs (daemon setup): %s: %s\n", what, strerror(errno));
	_exit(127);
}

/* Is our root the initramfs (rootfs), which pivot_root() cannot leave? */
static bool root_is_rootfs(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024], mnt[256];
	bool ret = false;

	if (!f)
		return false;
	/* id parent dev root mountpoint options ... - fstype source options */
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (sep && sscanf(line, "%*s %*s %*s %*s %255s", mnt) == 1 && !strcmp(mnt, "/"))
			ret = !strncmp(sep + 3, "rootfs ", 7);	/* the top one counts */
	}
	fclose(f);
	return ret;
}

/*
 * The daemon's child, before it execs virtiofsd. virtiofsd's sandbox
 * pivot_root()s into the shared directory, which the kernel refuses while
 * the caller's root is the initramfs (rootfs has no parent mount: EINVAL).
 * Where that is so (the test guest), the daemon gets, in a mount namespace
 * of its own, a root that is a recursive bind of the initramfs on /mnt:
 * the same files at the same paths, on a mount that has a parent. The
 * unprivileged daemon does this as root of its user namespace, which it
 * makes first (unshare(CLONE_NEWUSER) is refused to a chrooted task).
 */
static void leave_rootfs(void)
{
	if (unshare(CLONE_NEWNS))
		child_fail("unshare(CLONE_NEWNS)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		child_fail("make / private");
	if (mount("/", "/mnt", NULL, MS_BIND | MS_REC, NULL))
		child_fail("bind / on /mnt");
	if (chroot("/mnt") || chdir("/"))
		child_fail("chroot /mnt");
}

static void exec_daemon(const char *source, const char *rules, bool sys_admin,
			int listen_fd)
{
	const char *path = getenv("VIRTIOFSD") ?: VIRTIOFSD;
	char fdarg[32], src[600], map[600];
	const char *argv[16];
	int i = 0;

	snprintf(fdarg, sizeof(fdarg), "--fd=%d", listen_fd);
	snprintf(src, sizeof(src), "source=%s", source);
	snprintf(map, sizeof(map), "xattrmap=%s", rules);
	argv[i++] = path;
	argv[i++] = fdarg;
	argv[i++] = "-o";
	argv[i++] = src;
	argv[i++] = "-o";
	argv[i++] = "sandbox=namespace";
	argv[i++] = "-o";
	argv[i++] = map;
	if (sys_admin) {
		argv[i++] = "-o";
		argv[i++] = "modcaps=+sys_admin";
	}
	/* it cannot raise the hard limit in a user namespace: leave it */
	argv[i++] = "--rlimit-nofile=0";
	argv[i] = NULL;
	if (fcntl(listen_fd, F_SETFD, 0))
		child_fail("clear FD_CLOEXEC");
	execv(path, (char **)argv);
	child_fail(path);
}

static int write_map(pid_t pid, const char *file, const char *map)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	return ns_write_str(path, map);
}

/*
 * Start a virtiofsd sharing source and connect to it: vhost-user, FUSE_INIT.
 * userns: as uid 1000 in a user namespace of its own (DAEMON_MAP).
 */
static void start_daemon(struct daemon *dm, const char *what, const char *source,
			 const char *rules, bool userns, bool sys_admin)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t alen = sizeof(addr);
	int lfd, cfd, up[2], go[2];
	char c, path[64];

	memset(dm, 0, sizeof(*dm));
	dm->what = what;
	dm->userns = -1;
	dm->log = memfd_create("virtiofsd-log", MFD_CLOEXEC);
	if (dm->log < 0)
		die("memfd_create: %s", strerror(errno));
	running = dm;
	/* a listening socket on an abstract address of the kernel's choosing */
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(sa_family_t)) ||
	    listen(lfd, 1) || getsockname(lfd, (struct sockaddr *)&addr, &alen))
		die("listening socket: %s", strerror(errno));
	if (pipe2(up, O_CLOEXEC) || pipe2(go, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	dm->pid = fork();
	if (dm->pid < 0)
		die("fork: %s", strerror(errno));
	if (dm->pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, 0) < 0 || dup2(dm->log, 1) < 0 || dup2(dm->log, 2) < 0)
			_exit(127);
		if (userns) {
			/* as the unprivileged user would: its own namespace */
			if (setgroups(0, NULL) || setresgid(GUEST_ROOT_UID, GUEST_ROOT_UID,
							    GUEST_ROOT_UID) ||
			    setresuid(GUEST_ROOT_UID, GUEST_ROOT_UID, GUEST_ROOT_UID))
				child_fail("become uid 1000");
			if (unshare(CLONE_NEWUSER))
				child_fail("unshare(CLONE_NEWUSER)");
			if (write(up[1], "u", 1) != 1)
				child_fail("write");
		}
		if (read(go[0], &c, 1) != 1 || c != 'g')
			_exit(127);	/* the parent gave up */
		/* after the user namespace: a chrooted task cannot make one */
		if (root_is_rootfs())
			leave_rootfs();
		exec_daemon(source, rules, sys_admin, lfd);
	}
	close(up[1]);
	close(go[0]);
	if (userns) {
		if (read(up[0], &c, 1) != 1)
			die("%s: the daemon's child failed before its namespace was made", what);
		snprintf(path, sizeof(path), "/proc/%d/ns/user", dm->pid);
		dm->userns = open(path, O_RDONLY | O_CLOEXEC);
		if (dm->userns < 0 || write_map(dm->pid, "uid_map", DAEMON_MAP) ||
		    write_map(dm->pid, "gid_map", DAEMON_MAP))
			die("%s: the daemon's user namespace: %s", what, strerror(errno));
	}
	if (write(go[1], "g", 1) != 1)
		die("%s: write: %s", what, strerror(errno));
	close(up[0]);
	close(go[1]);
	cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (cfd < 0 || connect(cfd, (struct sockaddr *)&addr, alen))
		die("%s: connect to the daemon: %s", what, strerror(errno));
	close(lfd);
	dm->fc.fatal = fc_fatal;
	fc_start(&dm->fc, cfd);
}

/* DESTROY, hang up, and see the daemon exit 0. */
static void stop_daemon(struct daemon *dm)
{
	int pidfd, status;
	struct pollfd pfd;

	fc_stop(&dm->fc);
	pidfd = syscall(SYS_pidfd_open, dm->pid, 0);
	if (pidfd < 0)
		die("%s: pidfd_open: %s", dm->what, strerror(errno));
	pfd = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	if (poll(&pfd, 1, EXIT_TIMEOUT_MS) != 1)
		die("%s: the daemon did not exit within %d ms of the disconnect",
		    dm->what, EXIT_TIMEOUT_MS);
	close(pidfd);
	status = ns_wait(dm->pid);
	dm->pid = 0;
	if (status) {
		dump_log(dm);
		die("%s: the daemon exited with status %d", dm->what, status);
	}
	if (getenv("VHOSTFS_DEBUG"))
		dump_log(dm);
	if (dm->userns >= 0)
		close(dm->userns);
	close(dm->log);
	running = NULL;
}

/* ---- compare: the scenario of `xattrd compare`, through the daemon ---- */

static void cell(const struct design *d, const char *row, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cell(const struct design *d, const char *row, const char *fmt, ...)
{
	va_list ap;

	printf("VCELL|%s|%s|", d->id, row);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int mknode(const char *path, mode_t type, uid_t uid)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, ret = 0;

	switch (type) {
	case S_IFREG:
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
		ret = fd < 0 ? -1 : close(fd);
		break;
	case S_IFDIR:
		ret = mkdir(path, 0755);
		break;
	case S_IFLNK:
		ret = symlink("file", path);
		break;
	case S_IFCHR:
		ret = mknod(path, S_IFCHR | 0666, makedev(1, 3));
		break;
	case S_IFBLK:
		ret = mknod(path, S_IFBLK | 0660, makedev(7, 0));
		break;
	case S_IFIFO:
		ret = mknod(path, S_IFIFO | 0644, 0);
		break;
	case S_IFSOCK:
		if (strlen(path) >= sizeof(sun.sun_path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(sun.sun_path, path, strlen(path) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ret = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sun, sizeof(sun));
		if (fd >= 0)
			close(fd);
		break;
	}
	if (ret || lchown(path, uid, uid))
		return -1;
	if (type == S_IFREG && chmod(path, 0666))	/* a shared, writable file */
		return -1;
	return 0;
}

static const char *label_for(const char *node)
{
	static char label[64];

	snprintf(label, sizeof(label), "system_u:object_r:%s_t:s0", node);
	return label;
}

static uint64_t node_id(struct daemon *dm, const char *name)
{
	size_t i;

	for (i = 0; i < NR_NODES; i++)
		if (!strcmp(nodes[i].name, name))
			return dm->ids[i];
	die("no node %s", name);
}

/* Does the guest's listxattr show name? 1, 0, or a negative errno. */
static int guest_lists(struct daemon *dm, uint64_t id, const char *name)
{
	char list[4096];
	ssize_t len, off;

	len = fc_listxattr(&dm->fc, id, list, sizeof(list));
	if (len < 0)
		return len;
	for (off = 0; off < len; off += strlen(list + off) + 1)
		if (!strcmp(list + off, name))
			return 1;
	return 0;
}

/* The guest relabels every node, reads each back, lists, removes one. */
static void run_relabel(const struct design *d, struct daemon *dm)
{
	char buf[256], row[64];
	size_t i;
	int ret;

	for (i = 0; i < NR_RELABELLED; i++) {
		const char *label = label_for(nodes[i].name);
		ssize_t len;

		ret = fc_setxattr(&dm->fc, dm->ids[i], LABEL_NAME, label, strlen(label), 0);
		snprintf(row, sizeof(row), "set %s", nodes[i].name);
		cell(d, row, "%s", errname(-ret));
		len = fc_getxattr(&dm->fc, dm->ids[i], LABEL_NAME, buf, sizeof(buf));
		snprintf(row, sizeof(row), "get %s", nodes[i].name);
		if (len < 0)
			cell(d, row, "%s", errname(-len));
		else
			cell(d, row, "%s", (size_t)len == strlen(label) &&
			     !memcmp(buf, label, len) ? "ok" : "wrong value");
		ret = guest_lists(dm, dm->ids[i], LABEL_NAME);
		snprintf(row, sizeof(row), "list %s", nodes[i].name);
		cell(d, row, "%s", ret < 0 ? errname(-ret) : ret ? "listed" : "absent");
	}
	ret = fc_removexattr(&dm->fc, node_id(dm, "symlink"), LABEL_NAME);
	cell(d, "remove symlink", "%s", errname(-ret));
}

/*
 * The file's label as the guest reads it through the daemon ("" if none).
 * Any error but ENODATA leaves nothing to judge an attack by: stop, never
 * "stopped".
 */
static void guest_label(struct daemon *dm, char *buf, size_t len)
{
	ssize_t n = fc_getxattr(&dm->fc, node_id(dm, "file"), LABEL_NAME, buf, len - 1);

	if (n < 0 && n != -ENODATA)
		die("%s: the guest cannot read its label back: %s", dm->what, strerror(-n));
	buf[n > 0 ? n : 0] = 0;
}

enum who { HOST_USER, NESTED_SAME_ROOT, SAME_UID, SAME_UID_USERNS };

static const char *who_name(enum who who)
{
	switch (who) {
	case HOST_USER: return "host user";
	case NESTED_SAME_ROOT: return "nested namespace";
	case SAME_UID: return "uid 1000";
	case SAME_UID_USERNS: return "uid 1000 in a namespace of its own";
	}
	return "?";
}

/*
 * lsetxattr(path, name, value) in a child as who; its errno (0: success).
 * NESTED_SAME_ROOT: the root of a namespace nested in the daemon's own
 * (the real one: we hold it), mapping 0 to 0; for the privileged daemon,
 * nested in the initial namespace. SAME_UID: a process of the daemon's
 * host uid outside the daemon; SAME_UID_USERNS: the same, as the root of
 * a user namespace it made itself (unshare -r), not the daemon's.
 */
static int attack_as(struct daemon *dm, enum who who, const char *path,
		     const char *name, const char *value)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		switch (who) {
		case HOST_USER:
			if (ns_become(ATTACKER_UID))
				_exit(200);
			break;
		case NESTED_SAME_ROOT:
			if (dm->userns >= 0 && (setns(dm->userns, CLONE_NEWUSER) || ns_become(0)))
				_exit(200);
			if (ns_enter("0 0 1\n1 1 1000\n"))
				_exit(200);
			break;
		case SAME_UID:
		case SAME_UID_USERNS:
			if (ns_become(GUEST_ROOT_UID))
				_exit(200);
			if (who == SAME_UID_USERNS && ns_unshare_self())
				_exit(200);
			break;
		}
		_exit(lsetxattr(path, name, value, strlen(value), 0) ? errno : 0);
	}
	return ns_wait(pid);
}

static int checked_attack(struct daemon *dm, enum who who, const char *path,
			  const char *name, const char *value)
{
	int ret = attack_as(dm, who, path, name, value);

	if (ret == 200 || ret >= 128)
		die("%s: the attacker (%s) could not be set up (status %d)", dm->what,
		    who_name(who), ret);
	return ret;
}

/* Every host name on the file but the secret, as the host's root lists them. */
static int host_names(const char *path, char *out, size_t len)
{
	char list[4096];
	ssize_t n = llistxattr(path, list, sizeof(list)), off;
	int count = 0;

	if (n < 0)
		die("llistxattr %s: %s", path, strerror(errno));
	out[0] = 0;
	for (off = 0; off < n; off += strlen(list + off) + 1) {
		if (!strcmp(list + off, SECRET_NAME))
			continue;
		if (*out)
			strncat(out, " ", len - strlen(out) - 1);
		strncat(out, list + off, len - strlen(out) - 1);
		count++;
	}
	return count;
}

/*
 * The daemon's own (host-side) name of a guest name under the designs'
 * one-rule mapping ":map:KEY:PREPEND:": what a process of its namespace
 * calls the entry.
 */
static void mapped_name(const char *rules, const char *guest, char *out, size_t len)
{
	char key[128], prepend[128];

	if (sscanf(rules, ":map:%127[^:]:%127[^:]:", key, prepend) != 2 ||
	    strncmp(guest, key, strlen(key)))
		die("cannot map %s with the rules %s", guest, rules);
	snprintf(out, len, "%s%s", prepend, guest);
}

static void run_attacks(const struct design *d, struct daemon *dm, const char *dir,
			const char *host_label, const char *host_spelling)
{
	char path[600], devnull[600], before[256], after[256], v[256], buf[256];
	ssize_t n;
	int ret;

	snprintf(path, sizeof(path), "%s/file", dir);
	snprintf(devnull, sizeof(devnull), "%s/devnull", dir);

	/* (a) a non-owner attaches an xattr to a root-owned device it can write */
	ret = checked_attack(dm, HOST_USER, devnull, host_spelling, "junk");
	cell(d, "(a) host user tags root's device node", "%s", ret ? "stopped" : "BREACH");
	cell(d, "(a) errno", "%s", errname(ret));

	/* (b) another host user who can write the shared file relabels it */
	guest_label(dm, before, sizeof(before));
	ret = checked_attack(dm, HOST_USER, path, host_spelling,
			     "unconfined_u:object_r:forged_t:s0");
	guest_label(dm, after, sizeof(after));
	cell(d, "(b) host user changes the guest's label", "%s",
	     strcmp(before, after) ? "BREACH" : "stopped");
	cell(d, "(b) errno", "%s", errname(ret));

	/* (c) a namespace nested in the daemon's, same root kuid, forges it */
	guest_label(dm, before, sizeof(before));
	ret = checked_attack(dm, NESTED_SAME_ROOT, path, host_label,
			     "unconfined_u:object_r:nested_t:s0");
	guest_label(dm, after, sizeof(after));
	cell(d, "(c) nested same-root namespace forges the label", "%s",
	     strcmp(before, after) ? "BREACH" : "stopped");
	cell(d, "(c) errno", "%s", errname(ret));

	/* (d) the guest reads and overwrites the host's own trusted.* entry */
	n = fc_getxattr(&dm->fc, node_id(dm, "file"), SECRET_NAME, buf, sizeof(buf));
	cell(d, "(d) guest reads host trusted.*", "%s", n < 0 ? "stopped" : "BREACH");
	cell(d, "(d) read errno", "%s", errname(n < 0 ? -n : 0));
	ret = fc_setxattr(&dm->fc, node_id(dm, "file"), SECRET_NAME, "pwned", 5, 0);
	n = lgetxattr(path, SECRET_NAME, v, sizeof(v) - 1);
	/* the secret gone (ENODATA) is as much a breach as a new value */
	if (n < 0 && errno != ENODATA)
		die("%s: the host cannot read %s back: %s", dm->what, SECRET_NAME,
		    strerror(errno));
	v[n > 0 ? n : 0] = 0;
	cell(d, "(d) guest overwrites host trusted.*", "%s",
	     strcmp(v, "s3cret") ? "BREACH" : "stopped");
	cell(d, "(d) write errno", "%s", errname(-ret));

	/*
	 * (e) another process of the daemon's host uid rewrites the label
	 * under the daemon's own name: plainly for user.*, for trusted.* as
	 * the root of a namespace of its own (unshare -r)
	 */
	guest_label(dm, before, sizeof(before));
	ret = checked_attack(dm, strncmp(host_label, "trusted.", 8) ? SAME_UID : SAME_UID_USERNS,
			     path, host_label, "unconfined_u:object_r:sameuid_t:s0");
	guest_label(dm, after, sizeof(after));
	cell(d, "(e) another process of the daemon's uid rewrites the guest's label", "%s",
	     strcmp(before, after) ? "BREACH" : "stopped");
	cell(d, "(e) errno", "%s", errname(ret));
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void run_design(const struct design *d, const char *base)
{
	char dir[512], path[600], names[1024], what[64], host_label[300], host_spelling[1024];
	uid_t owner = d->userns ? GUEST_ROOT_UID : 0;
	struct timespec t0;
	struct daemon dm;
	uint32_t mode;
	size_t i;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(dir, sizeof(dir), "%s/%s", base, d->id);
	if (mkdir(dir, 0755) || chown(dir, owner, owner))
		die("%s: %s", dir, strerror(errno));
	for (i = 0; i < NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, nodes[i].name);
		/* the attacks' device node belongs to root */
		if (mknode(path, nodes[i].type, strcmp(nodes[i].name, "devnull") ? owner : 0))
			die("%s: %s", path, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/file", dir);
	if (lsetxattr(path, SECRET_NAME, "s3cret", 6, 0))
		die("host secret on %s: %s", path, strerror(errno));
	if (d->sysctl) {
		if (ns_write_str(d->sysctl, "1\n"))
			die("cannot turn on %s", d->sysctl);
		switch_on = d->sysctl;
	}

	cell(d, "rules", "`%s`", d->rules);
	cell(d, "daemon", "%s", d->userns ?
	     "uid 0 of a user namespace (uid_map `0 1000 1`, `1 100000 65536`)" :
	     "real root (CAP_SYS_ADMIN)");
	cell(d, "switch", "%s", d->sysctl ? strrchr(d->sysctl, '/') + 1 : "-");

	snprintf(what, sizeof(what), "design %s", d->id);
	start_daemon(&dm, what, dir, d->rules, d->userns, d->sys_admin);
	for (i = 0; i < NR_NODES; i++) {
		ret = fc_lookup(&dm.fc, FC_ROOT_ID, nodes[i].name, &dm.ids[i], &mode);
		if (ret)
			die("%s: LOOKUP %s: %s", what, nodes[i].name, strerror(-ret));
		if ((mode & S_IFMT) != nodes[i].type)
			die("%s: LOOKUP %s: mode %o, not type %o", what, nodes[i].name,
			    mode, nodes[i].type);
	}

	run_relabel(d, &dm);
	snprintf(path, sizeof(path), "%s/file", dir);
	ret = host_names(path, names, sizeof(names));
	cell(d, "host sees on file", "`%s`", *names ? names : "(nothing)");
	/* how a host user names the guest's label: as the host's root sees it */
	if (ret > 1)
		die("%s: more than one name on the file after the relabel: %s", what, names);
	mapped_name(d->rules, LABEL_NAME, host_label, sizeof(host_label));
	snprintf(host_spelling, sizeof(host_spelling), "%s", ret == 1 ? names : host_label);
	run_attacks(d, &dm, dir, host_label, host_spelling);
	host_names(path, names, sizeof(names));
	cell(d, "host sees on file after the attacks", "`%s`", *names ? names : "(nothing)");

	for (i = 0; i < NR_NODES; i++)
		fc_forget(&dm.fc, dm.ids[i], 1);
	stop_daemon(&dm);
	if (d->sysctl) {
		ns_write_str(d->sysctl, "0\n");
		switch_on = NULL;
	}
	printf("VTIME|%s|%ld\n", d->id, ms_since(&t0));
	fprintf(stderr, "vhostfs: design %s: %ld ms\n", d->id, ms_since(&t0));
}

static int cmd_compare(const char *base)
{
	bool patched = access("/proc/sys/fs/xattr_trusted_userns", F_OK) == 0;
	struct stat st;
	size_t i;

	/* the unprivileged daemon (host uid 1000) has to reach its tree */
	if (stat(base, &st) || !S_ISDIR(st.st_mode))
		die("%s: not a directory", base);
	if (!(st.st_mode & S_IXOTH))
		die("%s: uid 1000 cannot search it (chmod o+x)", base);
	if (access(getenv("VIRTIOFSD") ?: VIRTIOFSD, X_OK))
		die("no virtiofsd at %s (Debian: apt-get install qemu-system-common)",
		    getenv("VIRTIOFSD") ?: VIRTIOFSD);
	for (i = 0; i < sizeof(designs) / sizeof(designs[0]); i++) {
		if (designs[i].patched != patched)
			continue;
		fprintf(stderr, "vhostfs: design %s\n", designs[i].title);
		printf("VDESIGN|%s|%s\n", designs[i].id, designs[i].title);
		run_design(&designs[i], base);
	}
	return 0;
}

/* ---- by hand: one daemon, the guest's calls on paths ---- */

/* LOOKUP each component of path from the root: the last node's id. */
static int walk(struct daemon *dm, const char *path, uint64_t *id, uint64_t *trail,
		int *depth)
{
	char buf[512], *comp, *save;
	uint64_t parent = FC_ROOT_ID;
	uint32_t mode;
	int ret;

	snprintf(buf, sizeof(buf), "%s", path);
	*depth = 0;
	*id = parent;
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		if (*depth >= 32)
			return -ELOOP;
		ret = fc_lookup(&dm->fc, parent, comp, id, &mode);
		if (ret)
			return ret;
		trail[(*depth)++] = *id;
		parent = *id;
	}
	return 0;
}

static int cmd_ops(bool userns, bool sys_admin, const char *rules, const char *dir,
		   int argc, char **argv)
{
	const char *op = argv[0], *name = NULL, *value = NULL;
	char buf[4096];
	struct daemon dm;
	int first, i, j, failed = 0;

	if (!strcmp(op, "set") && argc >= 4) {
		name = argv[1];
		value = argv[2];
		first = 3;
	} else if ((!strcmp(op, "get") || !strcmp(op, "remove")) && argc >= 3) {
		name = argv[1];
		first = 2;
	} else if (!strcmp(op, "list") && argc >= 2) {
		first = 1;
	} else {
		fprintf(stderr, "vhostfs: usage: set NAME VALUE PATH... | get NAME PATH... |"
			" list PATH... | remove NAME PATH...\n");
		return 2;
	}
	start_daemon(&dm, "virtiofsd", dir, rules, userns, sys_admin);
	for (i = first; i < argc; i++) {
		uint64_t id, trail[32];
		ssize_t ret;
		int depth;

		ret = walk(&dm, argv[i], &id, trail, &depth);
		if (!ret && !strcmp(op, "set")) {
			ret = fc_setxattr(&dm.fc, id, name, value, strlen(value), 0);
		} else if (!ret && !strcmp(op, "get")) {
			ret = fc_getxattr(&dm.fc, id, name, buf, sizeof(buf) - 1);
			if (ret >= 0) {
				buf[ret] = 0;
				printf("%s: get %s: \"%s\"\n", argv[i], name, buf);
			}
		} else if (!ret && !strcmp(op, "remove")) {
			ret = fc_removexattr(&dm.fc, id, name);
		} else if (!ret) {
			ret = fc_listxattr(&dm.fc, id, buf, sizeof(buf));
			if (ret >= 0) {
				ssize_t off;

				printf("%s: list:", argv[i]);
				for (off = 0; off < ret; off += strlen(buf + off) + 1)
					printf(" %s", buf + off);
				printf("\n");
			}
		}
		for (j = 0; j < depth; j++)
			fc_forget(&dm.fc, trail[j], 1);
		if (ret >= 0 && (!strcmp(op, "get") || !strcmp(op, "list")))
			continue;
		if (ret < 0)
			failed = 1;
		printf("%s: %s %s: %s\n", argv[i], op, name ?: "", errname(ret < 0 ? -ret : 0));
	}
	stop_daemon(&dm);
	return failed;
}

int main(int argc, char **argv)
{
	bool userns = false, sys_admin = false;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && !strcmp(argv[1], "compare"))
		return cmd_compare(argv[2]);
	while (argc > 1 && argv[1][0] == '-' && argv[1][1] && !argv[1][2] &&
	       (argv[1][1] == 'U' || argv[1][1] == 'S')) {
		if (argv[1][1] == 'U')
			userns = true;
		else
			sys_admin = true;
		argv++;
		argc--;
	}
	if (argc >= 5)
		return cmd_ops(userns, sys_admin, argv[1], argv[2], argc - 3, argv + 3);
	fprintf(stderr, "usage: vhostfs compare DIR\n"
		"       vhostfs [-U] [-S] RULES DIR set NAME VALUE PATH...\n"
		"       vhostfs [-U] [-S] RULES DIR get|remove NAME PATH...\n"
		"       vhostfs [-U] [-S] RULES DIR list PATH...\n"
		"  -U: the daemon as uid 0 of a user namespace (host uid 1000)\n"
		"  -S: -o modcaps=+sys_admin (trusted.* mappings)\n"
		"  VIRTIOFSD: the daemon (default " VIRTIOFSD ")\n");
	return 2;
}
