// SPDX-License-Identifier: GPL-2.0
/*
 * xattrd: the xattr half of a virtiofsd, for measuring the designs of the
 * 2021 discussion on the real kernels.
 *
 *   xattrd [-U] RULES set NAME VALUE FILE...   the guest's calls, through
 *   xattrd [-U] RULES get NAME FILE...         the mapping, on host files;
 *   xattrd [-U] RULES list FILE...             -U: as uid 0 of a new user
 *   xattrd [-U] RULES remove NAME FILE...      namespace (see below)
 *   xattrd map RULES to-host NAME...    translate guest names (client)
 *   xattrd map RULES to-guest NAME...   translate host names (server)
 *   xattrd compare DIR                  run every design this kernel has,
 *                                       on a fresh tree under DIR
 *
 * The file operations are virtiofsd's: a regular file or directory is
 * reopened through /proc/self/fd from an O_PATH descriptor and used with
 * f*xattr(); a symlink or special file is reached with
 * fchdir("/proc/self/fd") and the descriptor's number as the path. The
 * unprivileged daemon runs as the root of a user namespace whose uid 0 is
 * host uid 1000 (with a subordinate range, as virtiofsd --sandbox=namespace
 * under a uid map does); the privileged one as real root.
 *
 * compare prints one line per measured cell:
 *   CELL|design|row|value
 * which scripts/compare.awk turns into design/comparison.md. A cell whose
 * measurement broke (an attacker that could not take its identity, a
 * label the daemon could not read back) reads "ERROR: ...", never a
 * verdict, and compare then exits non-zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "xattrmap.h"
#include "../lib/nsutil.h"

#define GUEST_ROOT_UID	1000	/* the unprivileged daemon's uid on the host */
#define ATTACKER_UID	2000	/* another unprivileged host user */
#define LABEL_NAME	"security.selinux"
#define SECRET_NAME	"trusted.host.secret"

struct design {
	const char *id;
	const char *title;
	const char *rules;
	const char *sysctl;	/* switch to turn on, or NULL */
	bool patched;		/* measured on the patched kernel */
	bool userns;		/* daemon unprivileged in a user namespace */
};

static const struct design designs[] = {
	{ "stock", "1. stock, user.* mapping, unprivileged",
	  ":map:security.selinux:user.virtiofs.:", NULL, false, true },
	{ "goyal", "2. Goyal: user.* on special files",
	  ":map:security.selinux:user.virtiofs.:", "/proc/sys/fs/xattr_user_special",
	  true, true },
	{ "schaufler", "3. Schaufler: trusted.* mapping, privileged",
	  ":map:security.selinux:trusted.virtiofs.:", NULL, false, false },
	{ "szeredi", "4. Szeredi/Biederman: trusted.* in a user namespace",
	  ":map:security.selinux:trusted.virtiofs.:", "/proc/sys/fs/xattr_trusted_userns",
	  true, true },
};

struct node {
	const char *name;
	mode_t type;
};

static const struct node nodes[] = {
	{ "file", S_IFREG }, { "dir", S_IFDIR }, { "symlink", S_IFLNK },
	{ "chr", S_IFCHR }, { "blk", S_IFBLK }, { "fifo", S_IFIFO },
	{ "sock", S_IFSOCK },
};
#define NR_NODES (sizeof(nodes) / sizeof(nodes[0]))

static void die(const char *what)
{
	fprintf(stderr, "xattrd: %s: %s\n", what, strerror(errno));
	exit(1);
}

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

/* Cells that hold no measurement: compare fails when there is any. */
static int measurement_errors;

static void cell(const struct design *d, const char *row, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cell(const struct design *d, const char *row, const char *fmt, ...)
{
	va_list ap;

	printf("CELL|%s|%s|", d->id, row);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int enter_userns(const char *map)
{
	if (ns_enter(map)) {
		fprintf(stderr, "xattrd: cannot enter a user namespace with map \"%s\": %s\n",
			map, strerror(errno));
		return -1;
	}
	return 0;
}

/* The daemon's namespace: its root is host 1000, with a subordinate range. */
#define DAEMON_MAP "0 1000 1\n1 100000 65536\n"

static int proc_self_fd = -1, root_fd = -1;

/*
 * Become the daemon (in a child): its identity, then its own
 * /proc/self/fd (opened by this process, so that it names this process's
 * descriptors).
 */
static int enter_daemon(const struct design *d)
{
	if (d->userns && enter_userns(DAEMON_MAP))
		return -1;
	if (proc_self_fd >= 0)
		close(proc_self_fd);
	proc_self_fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return proc_self_fd < 0 || root_fd < 0 ? -1 : 0;
}

/*
 * virtiofsd's way to an inode: the O_PATH fd it keeps per inode, reopened
 * through /proc/self/fd for regular files and directories, or used as
 * fchdir("/proc/self/fd") + "<fd>" for everything else.
 */
struct handle {
	int opath;		/* the O_PATH descriptor */
	int fd;			/* reopened descriptor, or -1 */
	char num[16];		/* the O_PATH fd's number, as a path */
};

static int handle_open(struct handle *h, const char *path, mode_t type)
{
	char proc[64];

	h->fd = -1;
	h->opath = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (h->opath < 0)
		return -errno;
	snprintf(h->num, sizeof(h->num), "%d", h->opath);
	if (type == S_IFREG || type == S_IFDIR) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", h->opath);
		h->fd = open(proc, O_RDONLY | O_CLOEXEC);
		if (h->fd < 0)
			return -errno;
	}
	return 0;
}

static void handle_close(struct handle *h)
{
	if (h->fd >= 0)
		close(h->fd);
	close(h->opath);
}

#define VIA_PROC(call) ({						\
	long __r;							\
	if (fchdir(proc_self_fd))					\
		die("fchdir");						\
	__r = (call);							\
	if (fchdir(root_fd))						\
		die("fchdir");						\
	__r; })

static int h_set(struct handle *h, const char *name, const char *v, int flags)
{
	long r = h->fd >= 0 ? fsetxattr(h->fd, name, v, strlen(v), flags) :
		 VIA_PROC(setxattr(h->num, name, v, strlen(v), flags));

	return r < 0 ? -errno : 0;
}

static ssize_t h_get(struct handle *h, const char *name, char *buf, size_t len)
{
	long r = h->fd >= 0 ? fgetxattr(h->fd, name, buf, len) :
		 VIA_PROC(getxattr(h->num, name, buf, len));

	return r < 0 ? -errno : r;
}

static ssize_t h_list(struct handle *h, char *buf, size_t len)
{
	long r = h->fd >= 0 ? flistxattr(h->fd, buf, len) :
		 VIA_PROC(listxattr(h->num, buf, len));

	return r < 0 ? -errno : r;
}

static int h_remove(struct handle *h, const char *name)
{
	long r = h->fd >= 0 ? fremovexattr(h->fd, name) :
		 VIA_PROC(removexattr(h->num, name));

	return r < 0 ? -errno : 0;
}

/* The daemon's operations, on guest names, through the mapping. */
struct daemon {
	const struct design *d;
	struct xmap map;
	const char *dir;
};

/* The host path of a file of the daemon's tree ("" for a path as given). */
static void daemon_path(struct daemon *dm, const char *file, char *path, size_t len)
{
	if (*dm->dir)
		snprintf(path, len, "%s/%s", dm->dir, file);
	else
		snprintf(path, len, "%s", file);
}

/*
 * Map the guest's name to the host's (into host) and open the daemon's
 * handle on file. Returns 0, or the mapping's or the open's error; the
 * handle is open only on success.
 */
static int d_open(struct daemon *dm, const char *file, mode_t type,
		  const char *guest, char *host, size_t hostlen, struct handle *h)
{
	char path[512];
	int ret;

	ret = xmap_to_host(&dm->map, guest, host, hostlen);
	if (ret)
		return ret;
	daemon_path(dm, file, path, sizeof(path));
	ret = handle_open(h, path, type);
	if (ret)
		handle_close(h);
	return ret;
}

static int d_set(struct daemon *dm, const char *file, mode_t type,
		 const char *guest, const char *value)
{
	char host[256];
	struct handle h;
	int ret = d_open(dm, file, type, guest, host, sizeof(host), &h);

	if (ret)
		return ret;
	ret = h_set(&h, host, value, 0);
	handle_close(&h);
	return ret;
}

static ssize_t d_get(struct daemon *dm, const char *file, mode_t type,
		     const char *guest, char *buf, size_t len)
{
	char host[256];
	struct handle h;
	ssize_t ret = d_open(dm, file, type, guest, host, sizeof(host), &h);

	if (ret)	/* virtiofsd answers a refused get with ENODATA */
		return ret == -EPERM ? -ENODATA : ret;
	ret = h_get(&h, host, buf, len);
	handle_close(&h);
	return ret;
}

/* Does the guest's listxattr show name? 1, 0, or a negative errno. */
static int d_lists(struct daemon *dm, const char *file, mode_t type, const char *name)
{
	char path[512], list[4096], guest[256];
	struct handle h;
	ssize_t len, off;
	int ret, found = 0;

	daemon_path(dm, file, path, sizeof(path));
	ret = handle_open(&h, path, type);
	len = ret ? ret : h_list(&h, list, sizeof(list));
	handle_close(&h);
	if (len < 0)
		return len;
	for (off = 0; off < len; off += strlen(list + off) + 1)
		if (xmap_to_guest(&dm->map, list + off, guest, sizeof(guest)) == 1 &&
		    !strcmp(guest, name))
			found = 1;
	return found;
}

static int d_remove(struct daemon *dm, const char *file, mode_t type, const char *guest)
{
	char host[256];
	struct handle h;
	int ret = d_open(dm, file, type, guest, host, sizeof(host), &h);

	if (ret)
		return ret;
	ret = h_remove(&h, host);
	handle_close(&h);
	return ret;
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
		if (strlen(path) >= sizeof(sun.sun_path))
			return -1;
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

/* The guest relabels every node, reads each back, lists, removes one. */
static int run_relabel(struct daemon *dm)
{
	char buf[256], row[64];
	size_t i;
	int ret;

	for (i = 0; i < NR_NODES; i++) {
		const char *label = label_for(nodes[i].name);
		ssize_t len;

		ret = d_set(dm, nodes[i].name, nodes[i].type, LABEL_NAME, label);
		snprintf(row, sizeof(row), "set %s", nodes[i].name);
		cell(dm->d, row, "%s", errname(-ret));
		len = d_get(dm, nodes[i].name, nodes[i].type, LABEL_NAME, buf, sizeof(buf));
		snprintf(row, sizeof(row), "get %s", nodes[i].name);
		if (len < 0)
			cell(dm->d, row, "%s", errname(-len));
		else
			cell(dm->d, row, "%s", (size_t)len == strlen(label) &&
			     !memcmp(buf, label, len) ? "ok" : "wrong value");
		ret = d_lists(dm, nodes[i].name, nodes[i].type, LABEL_NAME);
		snprintf(row, sizeof(row), "list %s", nodes[i].name);
		cell(dm->d, row, "%s", ret < 0 ? errname(-ret) : ret ? "listed" : "absent");
	}
	ret = d_remove(dm, "symlink", S_IFLNK, LABEL_NAME);
	cell(dm->d, "remove symlink", "%s", errname(-ret));
	return 0;
}

/*
 * A child's exit status when the measurement itself broke: it could not
 * take the identity it measures as, or could not read what it must. Not
 * an errno value (those stay below 200), so never read as "refused".
 */
#define HARNESS_ERROR 255

/*
 * Wait for a measuring child: its exit status (an errno value, 0), or -1
 * when it broke (HARNESS_ERROR, a signal, a failed wait).
 */
static int measure_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == HARNESS_ERROR)
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Read the file's label as the daemon sees it, into buf ("" if it has
 * none). 0, or -1 when the daemon could not read it (any error but
 * ENODATA): then there is nothing to compare an attack against.
 */
static int daemon_label(const struct design *d, struct daemon *dm, char *buf, size_t len)
{
	int pipefd[2];
	pid_t pid;
	ssize_t n;

	buf[0] = 0;
	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char v[256] = "";
		ssize_t l;

		close(pipefd[0]);
		if (enter_daemon(d))
			_exit(HARNESS_ERROR);
		l = d_get(dm, "file", S_IFREG, LABEL_NAME, v, sizeof(v) - 1);
		if (l < 0 && l != -ENODATA) {
			fprintf(stderr, "xattrd: %s: the daemon cannot read the label: %s\n",
				d->id, strerror(-l));
			_exit(HARNESS_ERROR);
		}
		if (l > 0 && write(pipefd[1], v, l) != l)
			_exit(HARNESS_ERROR);
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
	close(pipefd[0]);
	return measure_wait(pid) == 0 && n >= 0 ? 0 : -1;
}

/*
 * The attack in a child, as the given identity: its result (an errno
 * value, 0 for success) as the child reports it, or -1 when the child
 * could not take the identity (or died): no result.
 */
enum who { HOST_USER, NESTED_SAME_ROOT, GUEST, SAME_UID, SAME_UID_USERNS };

struct attack {
	const char *file;	/* path */
	const char *name;	/* xattr name, as spelt by the attacker */
	const char *value;	/* NULL: get */
};

static int attack_as(const struct design *d, enum who who, struct attack *a,
		     struct daemon *dm)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char buf[256];
		long r;

		switch (who) {
		case HOST_USER:
			if (ns_become(ATTACKER_UID)) {
				perror("xattrd: attacker: become uid 2000");
				_exit(HARNESS_ERROR);
			}
			break;
		case NESTED_SAME_ROOT:
			/* inside the daemon's namespace, 0 mapped to 0 */
			if (enter_daemon(d) || enter_userns("0 0 1\n1 1 1000\n"))
				_exit(HARNESS_ERROR);
			break;
		case SAME_UID:
		case SAME_UID_USERNS:
			/*
			 * the daemon's host uid, outside the daemon: as itself,
			 * or as the root of a namespace of its own (unshare -r)
			 */
			if (ns_become(GUEST_ROOT_UID)) {
				perror("xattrd: attacker: become uid 1000");
				_exit(HARNESS_ERROR);
			}
			if (who == SAME_UID_USERNS && ns_unshare_self()) {
				perror("xattrd: attacker: unshare -r as uid 1000");
				_exit(HARNESS_ERROR);
			}
			break;
		case GUEST:
			/* the guest asks the daemon, through the mapping */
			if (enter_daemon(d))
				_exit(HARNESS_ERROR);
			if (a->value)
				r = d_set(dm, a->file, S_IFREG, a->name, a->value);
			else
				r = d_get(dm, a->file, S_IFREG, a->name, buf, sizeof(buf));
			_exit(r < 0 ? -r : 0);
		}
		if (a->value)
			r = lsetxattr(a->file, a->name, a->value, strlen(a->value), 0);
		else
			r = lgetxattr(a->file, a->name, buf, sizeof(buf));
		_exit(r < 0 ? errno : 0);
	}
	return measure_wait(pid);
}

/* A cell for a measurement that broke: no verdict. */
static void error_cell(const struct design *d, const char *row, const char *why)
{
	cell(d, row, "ERROR: %s", why);
	measurement_errors++;
}

/*
 * The verdict of an attack that must not change the daemon's label: from
 * the attacker's result and the label before and after, or an ERROR cell.
 */
static void label_verdict(const struct design *d, const char *row, const char *errrow,
			  int ret, int read_before, const char *before,
			  int read_after, const char *after)
{
	if (ret < 0) {
		error_cell(d, row, "the attacker could not take its identity");
		error_cell(d, errrow, "no result");
	} else if (read_before || read_after) {
		error_cell(d, row, "the daemon could not read its label back");
		cell(d, errrow, "%s", errname(ret));
	} else {
		cell(d, row, "%s", strcmp(before, after) ? "BREACH" : "stopped");
		cell(d, errrow, "%s", errname(ret));
	}
}

/* The verdict of an attack whose success is its call's success. */
static void call_verdict(const struct design *d, const char *row, const char *errrow, int ret)
{
	if (ret < 0) {
		error_cell(d, row, "the attacker could not take its identity");
		error_cell(d, errrow, "no result");
		return;
	}
	cell(d, row, "%s", ret ? "stopped" : "BREACH");
	cell(d, errrow, "%s", errname(ret));
}

/*
 * host_spelling: how a host user names the daemon's label, the one name
 * the host's root lists on the file after the relabel besides its own
 * secret (the kernel's spelling, whatever it stores), or NULL when the
 * listing holds more than one: no name to attack under.
 */
static void run_attacks(const struct design *d, struct daemon *dm, const char *host_label,
			const char *host_spelling)
{
	char path[512], devnull[512], before[256], after[256], v[256];
	struct attack a;
	int ret, rb, ra;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/file", dm->dir);
	snprintf(devnull, sizeof(devnull), "%s/devnull", dm->dir);

	if (!host_spelling) {
		error_cell(d, "(a) host user tags root's device node",
			   "the host lists more than one name for the label");
		error_cell(d, "(a) errno", "no result");
		error_cell(d, "(b) host user changes the guest's label",
			   "the host lists more than one name for the label");
		error_cell(d, "(b) errno", "no result");
	} else {
		/* (a) a non-owner attaches an xattr to a root-owned device it can write */
		a = (struct attack){ devnull, host_spelling, "junk" };
		ret = attack_as(d, HOST_USER, &a, dm);
		call_verdict(d, "(a) host user tags root's device node", "(a) errno", ret);

		/* (b) another host user who can write the shared file relabels it */
		rb = daemon_label(d, dm, before, sizeof(before));
		a = (struct attack){ path, host_spelling, "unconfined_u:object_r:forged_t:s0" };
		ret = attack_as(d, HOST_USER, &a, dm);
		ra = daemon_label(d, dm, after, sizeof(after));
		label_verdict(d, "(b) host user changes the guest's label", "(b) errno",
			      ret, rb, before, ra, after);
	}

	/* (c) a namespace nested in the daemon's, same root kuid, forges it */
	rb = daemon_label(d, dm, before, sizeof(before));
	a = (struct attack){ path, host_label, "unconfined_u:object_r:nested_t:s0" };
	ret = attack_as(d, NESTED_SAME_ROOT, &a, dm);
	ra = daemon_label(d, dm, after, sizeof(after));
	label_verdict(d, "(c) nested same-root namespace forges the label", "(c) errno",
		      ret, rb, before, ra, after);

	/* (d) the guest reads and overwrites the host's own trusted.* entry */
	a = (struct attack){ "file", SECRET_NAME, NULL };
	ret = attack_as(d, GUEST, &a, dm);
	call_verdict(d, "(d) guest reads host trusted.*", "(d) read errno", ret);
	a = (struct attack){ "file", SECRET_NAME, "pwned" };
	ret = attack_as(d, GUEST, &a, dm);
	errno = 0;
	n = lgetxattr(path, SECRET_NAME, v, sizeof(v) - 1);
	v[n > 0 ? n : 0] = 0;
	if (ret < 0) {
		error_cell(d, "(d) guest overwrites host trusted.*",
			   "the attacker could not take its identity");
		error_cell(d, "(d) write errno", "no result");
	} else {
		/* the secret gone (ENODATA) is as much a breach as a new value */
		if (n < 0 && errno != ENODATA)
			error_cell(d, "(d) guest overwrites host trusted.*",
				   "the host cannot read its entry back");
		else
			cell(d, "(d) guest overwrites host trusted.*", "%s",
			     strcmp(v, "s3cret") ? "BREACH" : "stopped");
		cell(d, "(d) write errno", "%s", errname(ret));
	}

	/*
	 * (e) another process of the daemon's host uid rewrites the label
	 * under the daemon's own name: plainly for user.*, which needs only
	 * the file's ownership or write access; for trusted.* as the root of
	 * a user namespace of its own whose root is that uid (unshare -r),
	 * the one way an unprivileged process gets near trusted.*
	 */
	rb = daemon_label(d, dm, before, sizeof(before));
	a = (struct attack){ path, host_label, "unconfined_u:object_r:sameuid_t:s0" };
	ret = attack_as(d, strncmp(host_label, "trusted.", 8) ? SAME_UID : SAME_UID_USERNS,
			&a, dm);
	ra = daemon_label(d, dm, after, sizeof(after));
	label_verdict(d, "(e) another process of the daemon's uid rewrites the guest's label",
		      "(e) errno", ret, rb, before, ra, after);
}

/*
 * Every host name on the file but the secret, space-separated, as the
 * host's root lists them; how many.
 */
static int host_names(const char *path, char *out, size_t len)
{
	char list[4096];
	ssize_t n = llistxattr(path, list, sizeof(list)), off;
	int count = 0;

	out[0] = 0;
	for (off = 0; n > 0 && off < n; off += strlen(list + off) + 1) {
		if (!strcmp(list + off, SECRET_NAME))
			continue;
		if (*out)
			strncat(out, " ", len - strlen(out) - 1);
		strncat(out, list + off, len - strlen(out) - 1);
		count++;
	}
	return count;
}

static int run_design(const struct design *d, const char *base)
{
	struct daemon dm = { .d = d };
	char err[256], dir[512], path[600], host_label[256], names[1024];
	uid_t owner = d->userns ? GUEST_ROOT_UID : 0;
	size_t i;
	pid_t pid;
	int n;

	if (xmap_parse(d->rules, &dm.map, err, sizeof(err))) {
		fprintf(stderr, "xattrd: %s: %s\n", d->id, err);
		return 1;
	}
	if (xmap_to_host(&dm.map, LABEL_NAME, host_label, sizeof(host_label)))
		return 1;
	snprintf(dir, sizeof(dir), "%s/%s", base, d->id);
	if (mkdir(dir, 0755) || chown(dir, owner, owner))
		die(dir);
	dm.dir = dir;
	for (i = 0; i < NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, nodes[i].name);
		if (mknode(path, nodes[i].type, owner))
			die(path);
	}
	snprintf(path, sizeof(path), "%s/devnull", dir);
	if (mknode(path, S_IFCHR, 0))
		die(path);
	snprintf(path, sizeof(path), "%s/file", dir);
	if (lsetxattr(path, SECRET_NAME, "s3cret", 6, 0))
		die("host secret");
	if (d->sysctl && ns_write_str(d->sysctl, "1\n"))
		die(d->sysctl);

	cell(d, "rules", "`%s`", d->rules);
	cell(d, "daemon", "%s", d->userns ?
	     "uid 0 of a user namespace (uid_map `0 1000 1`, `1 100000 65536`)" :
	     "real root (CAP_SYS_ADMIN)");
	cell(d, "switch", "%s", d->sysctl ? strrchr(d->sysctl, '/') + 1 : "-");

	pid = fork();
	if (pid == 0) {
		if (enter_daemon(d))
			_exit(1);
		run_relabel(&dm);
		_exit(0);
	}
	if (ns_wait(pid))
		return 1;
	snprintf(path, sizeof(path), "%s/file", dir);
	n = host_names(path, names, sizeof(names));
	cell(d, "host sees on file", "`%s`", *names ? names : "(nothing)");
	/*
	 * A host user names the label as the host lists it; with nothing
	 * listed (no label stored), by the daemon's own name.
	 */
	run_attacks(d, &dm, host_label, n > 1 ? NULL : n == 1 ? names : host_label);
	host_names(path, names, sizeof(names));
	cell(d, "host sees on file after the attacks", "`%s`", *names ? names : "(nothing)");
	if (d->sysctl)
		ns_write_str(d->sysctl, "0\n");
	xmap_free(&dm.map);
	return 0;
}

static int cmd_compare(const char *base)
{
	bool patched = access("/proc/sys/fs/xattr_trusted_userns", F_OK) == 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(designs) / sizeof(designs[0]); i++) {
		if (designs[i].patched != patched)
			continue;
		fprintf(stderr, "xattrd: design %s\n", designs[i].title);
		printf("DESIGN|%s|%s\n", designs[i].id, designs[i].title);
		ret |= run_design(&designs[i], base);
	}
	if (measurement_errors) {
		fprintf(stderr, "xattrd: %d cell(s) hold no measurement (ERROR)\n",
			measurement_errors);
		ret = 1;
	}
	return ret;
}

static int cmd_map(const char *rules, const char *dir, int argc, char **argv)
{
	struct xmap m;
	char err[256], out[256];
	int i, ret;

	if (xmap_parse(rules, &m, err, sizeof(err))) {
		fprintf(stderr, "xattrd: bad rules: %s\n", err);
		return 2;
	}
	for (i = 0; i < argc; i++) {
		if (!strcmp(dir, "to-host")) {
			ret = xmap_to_host(&m, argv[i], out, sizeof(out));
			printf("%s -> %s\n", argv[i], ret ? errname(-ret) : out);
		} else {
			ret = xmap_to_guest(&m, argv[i], out, sizeof(out));
			printf("%s -> %s\n", argv[i], ret < 0 ? errname(-ret) :
			       ret ? out : "(hidden)");
		}
	}
	xmap_free(&m);
	return 0;
}

/*
 * Become uid 0 of a new user namespace: as root, with the daemon's map (root
 * = host 1000 and a subordinate range, as newuidmap would give); as anyone
 * else, with the one mapping an unprivileged process may write, its own uid.
 */
static int own_userns(void)
{
	if (geteuid() == 0)
		return enter_userns(DAEMON_MAP);
	return ns_unshare_self();
}

static mode_t file_type(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_mode & S_IFMT;
}

/* One operation on each file, reported per file; exit 1 if any failed. */
static int cmd_ops(bool userns, const char *rules, int argc, char **argv)
{
	const struct design d = { "cli", "cli", rules, NULL, false, userns };
	struct daemon dm = { .d = &d, .dir = "." };
	const char *op = argv[0], *name = NULL, *value = NULL;
	char err[256], host[256], buf[4096], guest[256];
	int first = 1, i, failed = 0;

	if (!strcmp(op, "set") && argc >= 4) {
		name = argv[1];
		value = argv[2];
		first = 3;
	} else if ((!strcmp(op, "get") || !strcmp(op, "remove")) && argc >= 3) {
		name = argv[1];
		first = 2;
	} else if (strcmp(op, "list") || argc < 2) {
		fprintf(stderr, "xattrd: usage: set NAME VALUE FILE... | get NAME FILE... |"
			" list FILE... | remove NAME FILE...\n");
		return 2;
	}
	/* the rules first: nothing is touched when they are wrong */
	if (xmap_parse(rules, &dm.map, err, sizeof(err))) {
		fprintf(stderr, "xattrd: bad --xattrmap rules: %s\n", err);
		return 2;
	}
	if (name && xmap_to_host(&dm.map, name, host, sizeof(host)))
		snprintf(host, sizeof(host), "(refused by the rules)");
	if (userns ? own_userns() : 0) {
		fprintf(stderr, "xattrd: cannot enter a user namespace: %s\n", strerror(errno));
		return 1;
	}
	if (enter_daemon(&(struct design){ .userns = false }))
		die("/proc/self/fd");
	for (i = first; i < argc; i++) {
		const char *f = argv[i];
		mode_t type = file_type(f);
		char dirpath[512];
		ssize_t ret;

		/* the daemon's calls take a path relative to its tree: use it whole */
		snprintf(dirpath, sizeof(dirpath), "%s", f);
		dm.dir = "";
		if (!type) {
			printf("%s: %s: %s\n", f, op, errname(errno));
			failed = 1;
			continue;
		}
		if (!strcmp(op, "set")) {
			ret = d_set(&dm, dirpath, type, name, value);
		} else if (!strcmp(op, "get")) {
			ret = d_get(&dm, dirpath, type, name, buf, sizeof(buf) - 1);
			if (ret >= 0) {
				buf[ret] = 0;
				printf("%s: get %s (host %s): \"%s\"\n", f, name, host, buf);
				continue;
			}
		} else if (!strcmp(op, "remove")) {
			ret = d_remove(&dm, dirpath, type, name);
		} else {
			struct handle h;
			ssize_t off;

			ret = handle_open(&h, dirpath, type);
			if (!ret)
				ret = h_list(&h, buf, sizeof(buf));
			handle_close(&h);
			if (ret >= 0) {
				printf("%s: list:", f);
				for (off = 0; off < ret; off += strlen(buf + off) + 1)
					if (xmap_to_guest(&dm.map, buf + off, guest, sizeof(guest)) == 1)
						printf(" %s", guest);
				printf("\n");
				continue;
			}
		}
		if (ret < 0)
			failed = 1;
		printf("%s: %s %s (host %s): %s\n", f, op, name ? name : "", host,
		       errname(ret < 0 ? -ret : 0));
	}
	xmap_free(&dm.map);
	return failed;
}

int main(int argc, char **argv)
{
	bool userns = false;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "-U")) {
		userns = true;
		argv++;
		argc--;
	}
	if (argc >= 4 && (!strcmp(argv[2], "set") || !strcmp(argv[2], "get") ||
			  !strcmp(argv[2], "list") || !strcmp(argv[2], "remove")))
		return cmd_ops(userns, argv[1], argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "compare"))
		return cmd_compare(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "map") &&
	    (!strcmp(argv[3], "to-host") || !strcmp(argv[3], "to-guest")))
		return cmd_map(argv[2], argv[3], argc - 4, argv + 4);
	fprintf(stderr, "usage: xattrd [-U] RULES set NAME VALUE FILE...\n"
		"       xattrd [-U] RULES get|remove NAME FILE...\n"
		"       xattrd [-U] RULES list FILE...\n"
		"       xattrd map RULES to-host|to-guest NAME...\n"
		"       xattrd compare DIR\n");
	return 2;
}
