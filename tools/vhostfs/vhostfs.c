// SPDX-License-Identifier: GPL-2.0
/*
 * vhostfs: the unmodified virtiofsd (QEMU 7.2's C daemon, Debian's
 * /usr/lib/qemu/virtiofsd) driven through vhost-user and FUSE by a client
 * of ours, with no VM: the referee of tools/xattrd.
 *
 *   vhostfs compare DIR
 *	every design of design/comparison.md this kernel carries, on a fresh
 *	tree under DIR, through one virtiofsd per design: the comparison of
 *	tools/compare, the one `xattrd compare` runs, its guest's calls as
 *	FUSE requests; prints VDESIGN, VCELL and VTIME lines (compare.h)
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
 * `0 1000 1`, `1 100000 65536` (CMP_DAEMON_MAP). It exits when
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
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuse_client.h"
#include "../compare/compare.h"
#include "../lib/nsutil.h"

#define VIRTIOFSD	"/usr/lib/qemu/virtiofsd"
#define EXIT_TIMEOUT_MS	10000	/* for the daemon to exit once we hang up */

/* One virtiofsd and our connection to it. */
struct daemon {
	const char *what;	/* for messages */
	pid_t pid;
	int userns;		/* its user namespace, or -1 */
	int log;		/* memfd: its stdout and stderr */
	struct fc fc;
	uint64_t ids[CMP_NR_NODES];	/* node ids of the tree (compare) */
};

static struct daemon *running;		/* for the fatal path */

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

/* The fatal path: kill the daemon that runs, if any, and show its log. */
static void kill_running(void)
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
	running = NULL;
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
	kill_running();
	exit(1);
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
 * userns: as uid 1000 in a user namespace of its own (CMP_DAEMON_MAP).
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
			if (setgroups(0, NULL) || setresgid(CMP_DAEMON_UID, CMP_DAEMON_UID,
							    CMP_DAEMON_UID) ||
			    setresuid(CMP_DAEMON_UID, CMP_DAEMON_UID, CMP_DAEMON_UID))
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
		if (dm->userns < 0 || write_map(dm->pid, "uid_map", CMP_DAEMON_MAP) ||
		    write_map(dm->pid, "gid_map", CMP_DAEMON_MAP))
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

/* ---- compare: the comparison of tools/compare, through the daemon ---- */

static int vf_ready(const char *base)
{
	const char *path = getenv("VIRTIOFSD") ?: VIRTIOFSD;
	struct stat st;

	/* the unprivileged daemon (host uid 1000) has to reach its tree */
	if (stat(base, &st) || !S_ISDIR(st.st_mode))
		die("%s: not a directory", base);
	if (!(st.st_mode & S_IXOTH))
		die("%s: uid 1000 cannot search it (chmod o+x)", base);
	if (access(path, X_OK))
		die("no virtiofsd at %s (Debian: apt-get install qemu-system-common)", path);
	return 0;
}

/* The design's daemon, and a LOOKUP of every node of its tree. */
static void vf_start(struct cmp_run *r)
{
	struct daemon *dm = r->priv;
	static char what[64];
	uint32_t mode;
	size_t i;
	int ret;

	snprintf(what, sizeof(what), "design %s", r->d->id);
	start_daemon(dm, what, r->dir, r->d->rules, r->d->userns, r->d->sys_admin);
	r->userns = dm->userns;
	for (i = 0; i < CMP_NR_NODES; i++) {
		ret = fc_lookup(&dm->fc, FC_ROOT_ID, cmp_nodes[i].name, &dm->ids[i], &mode);
		if (ret)
			die("%s: LOOKUP %s: %s", what, cmp_nodes[i].name, strerror(-ret));
		if ((mode & S_IFMT) != cmp_nodes[i].type)
			die("%s: LOOKUP %s: mode %o, not type %o", what, cmp_nodes[i].name,
			    mode, cmp_nodes[i].type);
	}
}

static void vf_stop(struct cmp_run *r)
{
	struct daemon *dm = r->priv;
	size_t i;

	for (i = 0; i < CMP_NR_NODES; i++)
		fc_forget(&dm->fc, dm->ids[i], 1);
	stop_daemon(dm);
}

/* One guest call (compare.h's ops) as a FUSE request on node id. */
static ssize_t fuse_call(struct fc *fc, enum cmp_op op, uint64_t id, const char *name,
			 const char *value, char *buf, size_t len)
{
	switch (op) {
	case CMP_SET:
		return fc_setxattr(fc, id, name, value, strlen(value), 0);
	case CMP_GET:
		return fc_getxattr(fc, id, name, buf, len);
	case CMP_LIST:
		return fc_listxattr(fc, id, buf, len);
	case CMP_REMOVE:
		return fc_removexattr(fc, id, name);
	}
	return -EINVAL;
}

static ssize_t vf_call(struct cmp_run *r, enum cmp_op op, const struct cmp_node *n,
		       const char *name, const char *value, char *buf, size_t len)
{
	struct daemon *dm = r->priv;

	return fuse_call(&dm->fc, op, dm->ids[n - cmp_nodes], name, value, buf, len);
}

static const struct cmp_backend vhostfs_backend = {
	.tool = "vhostfs",
	.tag = "V",
	.ready = vf_ready,
	.start = vf_start,
	.stop = vf_stop,
	.call = vf_call,
	.abort = kill_running,
};

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
	const char *name, *value;
	char buf[4096];
	struct daemon dm;
	int first, i, j, failed = 0;
	enum cmp_op op;

	first = cmp_op_args("vhostfs", "PATH", argc, argv, &op, &name, &value);
	if (first < 0)
		return 2;
	start_daemon(&dm, "virtiofsd", dir, rules, userns, sys_admin);
	for (i = first; i < argc; i++) {
		uint64_t id, trail[32];
		ssize_t ret, off;
		int depth;

		ret = walk(&dm, argv[i], &id, trail, &depth);
		if (!ret)
			ret = fuse_call(&dm.fc, op, id, name, value, buf, sizeof(buf) - 1);
		for (j = 0; j < depth; j++)
			fc_forget(&dm.fc, trail[j], 1);
		if (ret >= 0 && op == CMP_GET) {
			buf[ret] = 0;
			printf("%s: get %s: \"%s\"\n", argv[i], name, buf);
			continue;
		}
		if (ret >= 0 && op == CMP_LIST) {
			printf("%s: list:", argv[i]);
			for (off = 0; off < ret; off += strlen(buf + off) + 1)
				printf(" %s", buf + off);
			printf("\n");
			continue;
		}
		if (ret < 0)
			failed = 1;
		printf("%s: %s %s: %s\n", argv[i], argv[0], name ?: "",
		       cmp_errname(ret < 0 ? -ret : 0));
	}
	stop_daemon(&dm);
	return failed;
}

int main(int argc, char **argv)
{
	bool userns = false, sys_admin = false;
	struct daemon dm;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && !strcmp(argv[1], "compare"))
		return cmp_compare(&vhostfs_backend, argv[2], &dm);
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
