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
 * compare runs the comparison of tools/compare (the designs, the tree, the
 * relabel, the attacks, the CELL lines that scripts/report/compare.awk turns into
 * design/comparison.md) with a daemon of its own per design: a child that
 * takes the daemon's identity and answers the guest's calls, one message
 * each, with the syscalls above. It exits non-zero when a cell holds no
 * measurement (ERROR).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "xattrmap.h"
#include "../compare/compare.h"
#include "../lib/nsutil.h"

static void die(const char *what)
{
	fprintf(stderr, "xattrd: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int proc_self_fd = -1, root_fd = -1;

/*
 * Become the daemon: its identity (userns: uid 0 of a user namespace with
 * the daemon's map), then its own /proc/self/fd (opened by this process,
 * so that it names this process's descriptors).
 */
static int enter_daemon(bool userns)
{
	if (userns && ns_enter(CMP_DAEMON_MAP)) {
		fprintf(stderr, "xattrd: cannot enter a user namespace with map \"%s\": %s\n",
			CMP_DAEMON_MAP, strerror(errno));
		return -1;
	}
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
	struct xmap map;
	const char *dir;	/* its tree ("" for paths as given) */
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

/* The guest's listxattr: the names the mapping shows it, each NUL-terminated. */
static ssize_t d_list(struct daemon *dm, const char *file, mode_t type, char *buf, size_t len)
{
	char path[512], list[4096], guest[256];
	size_t out = 0, l;
	struct handle h;
	ssize_t n, off;
	int ret;

	daemon_path(dm, file, path, sizeof(path));
	ret = handle_open(&h, path, type);
	n = ret ? ret : h_list(&h, list, sizeof(list));
	handle_close(&h);
	if (n < 0)
		return n;
	for (off = 0; off < n; off += strlen(list + off) + 1) {
		if (xmap_to_guest(&dm->map, list + off, guest, sizeof(guest)) != 1)
			continue;
		l = strlen(guest) + 1;
		if (out + l > len)
			return -ERANGE;
		memcpy(buf + out, guest, l);
		out += l;
	}
	return out;
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

/* One guest call (compare.h's ops) on file. */
static ssize_t d_call(struct daemon *dm, enum cmp_op op, const char *file, mode_t type,
		      const char *name, const char *value, char *buf, size_t len)
{
	switch (op) {
	case CMP_SET:
		return d_set(dm, file, type, name, value);
	case CMP_GET:
		return d_get(dm, file, type, name, buf, len);
	case CMP_LIST:
		return d_list(dm, file, type, buf, len);
	case CMP_REMOVE:
		return d_remove(dm, file, type, name);
	}
	return -EINVAL;
}

/* ---- compare: the daemon in a child, the guest's calls as messages ---- */

struct msg {
	enum cmp_op op;
	unsigned int node;	/* in cmp_nodes */
	size_t len;		/* the caller's buffer */
	long ret;		/* the answer: >= 0, or -errno */
	char name[256];
	char value[256];
	char data[4096];	/* the answer's value or list */
};

/* One daemon of compare: a child answering on sock. */
struct xd {
	pid_t pid;
	int sock;
	struct daemon dm;
};

static struct xd *running;	/* for the fatal path */

/* The daemon's loop, until the parent hangs up. */
static void serve(struct daemon *dm, int sock)
{
	struct msg m;

	while (recv(sock, &m, sizeof(m), 0) == sizeof(m)) {
		const struct cmp_node *n = &cmp_nodes[m.node % CMP_NR_NODES];

		m.name[sizeof(m.name) - 1] = 0;
		m.value[sizeof(m.value) - 1] = 0;
		m.ret = d_call(dm, m.op, n->name, n->type, m.name, m.value, m.data,
			       m.len < sizeof(m.data) ? m.len : sizeof(m.data));
		if (send(sock, &m, sizeof(m), 0) != sizeof(m))
			_exit(1);
	}
	_exit(0);
}

static void xd_start(struct cmp_run *r)
{
	struct xd *xd = r->priv;
	char err[256], path[64];
	int sv[2], ok = 0;

	memset(xd, 0, sizeof(*xd));
	if (xmap_parse(r->d->rules, &xd->dm.map, err, sizeof(err)))
		cmp_fatal("%s: the rules: %s", r->d->id, err);
	xd->dm.dir = r->dir;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		cmp_fatal("socketpair: %s", strerror(errno));
	fflush(stdout);
	xd->pid = fork();
	if (xd->pid < 0)
		cmp_fatal("fork: %s", strerror(errno));
	if (xd->pid == 0) {
		close(sv[0]);
		ok = !enter_daemon(r->d->userns);
		if (send(sv[1], &ok, sizeof(ok), 0) != sizeof(ok) || !ok)
			_exit(1);
		serve(&xd->dm, sv[1]);
	}
	close(sv[1]);
	xd->sock = sv[0];
	running = xd;
	if (recv(xd->sock, &ok, sizeof(ok), 0) != sizeof(ok) || !ok)
		cmp_fatal("%s: the daemon could not take its identity", r->d->id);
	if (r->d->userns) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", xd->pid);
		r->userns = open(path, O_RDONLY | O_CLOEXEC);
		if (r->userns < 0)
			cmp_fatal("%s: %s", path, strerror(errno));
	}
}

static void xd_stop(struct cmp_run *r)
{
	struct xd *xd = r->priv;
	int status;

	close(xd->sock);
	status = ns_wait(xd->pid);
	running = NULL;
	if (status)
		cmp_fatal("%s: the daemon exited with status %d", r->d->id, status);
	if (r->userns >= 0)
		close(r->userns);
	xmap_free(&xd->dm.map);
}

static void xd_abort(void)
{
	if (!running)
		return;
	kill(running->pid, SIGKILL);
	ns_wait(running->pid);
	running = NULL;
}

/* One guest call through the daemon: its answer, the data into buf. */
static ssize_t xd_call(struct cmp_run *r, enum cmp_op op, const struct cmp_node *n,
		       const char *name, const char *value, char *buf, size_t len)
{
	struct xd *xd = r->priv;
	struct msg m = { .op = op, .node = n - cmp_nodes, .len = len };

	snprintf(m.name, sizeof(m.name), "%s", name ?: "");
	snprintf(m.value, sizeof(m.value), "%s", value ?: "");
	if (send(xd->sock, &m, sizeof(m), 0) != sizeof(m) ||
	    recv(xd->sock, &m, sizeof(m), 0) != sizeof(m))
		cmp_fatal("%s: the daemon does not answer", r->d->id);
	if (m.ret > 0 && buf)
		memcpy(buf, m.data, m.ret < len ? m.ret : len);
	return m.ret;
}

static const struct cmp_backend xattrd_backend = {
	.tool = "xattrd",
	.tag = "",
	.start = xd_start,
	.stop = xd_stop,
	.call = xd_call,
	.abort = xd_abort,
};

/* ---- by hand ---- */

/*
 * Become uid 0 of a new user namespace: as root, with the daemon's map (root
 * = host 1000 and a subordinate range, as newuidmap would give); as anyone
 * else, with the one mapping an unprivileged process may write, its own uid.
 */
static int own_userns(void)
{
	if (geteuid() == 0)
		return ns_enter(CMP_DAEMON_MAP);
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
	struct daemon dm = { .dir = "" };	/* the files' paths, as given */
	const char *name, *value;
	char err[256], host[256] = "", buf[4096];
	int first, i, failed = 0;
	enum cmp_op op;

	first = cmp_op_args("xattrd", "FILE", argc, argv, &op, &name, &value);
	if (first < 0)
		return 2;
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
	if (enter_daemon(false))
		die("/proc/self/fd");
	for (i = first; i < argc; i++) {
		const char *f = argv[i];
		mode_t type = file_type(f);
		ssize_t ret, off;

		if (!type) {
			printf("%s: %s: %s\n", f, argv[0], cmp_errname(errno));
			failed = 1;
			continue;
		}
		ret = d_call(&dm, op, f, type, name, value, buf, sizeof(buf) - 1);
		if (ret >= 0 && op == CMP_GET) {
			buf[ret] = 0;
			printf("%s: get %s (host %s): \"%s\"\n", f, name, host, buf);
			continue;
		}
		if (ret >= 0 && op == CMP_LIST) {
			printf("%s: list:", f);
			for (off = 0; off < ret; off += strlen(buf + off) + 1)
				printf(" %s", buf + off);
			printf("\n");
			continue;
		}
		if (ret < 0)
			failed = 1;
		printf("%s: %s %s (host %s): %s\n", f, argv[0], name ? name : "", host,
		       cmp_errname(ret < 0 ? -ret : 0));
	}
	xmap_free(&dm.map);
	return failed;
}

int main(int argc, char **argv)
{
	bool userns = false;
	struct xd xd;

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
		return cmp_compare(&xattrd_backend, argv[2], &xd);
	fprintf(stderr, "usage: xattrd [-U] RULES set NAME VALUE FILE...\n"
		"       xattrd [-U] RULES get|remove NAME FILE...\n"
		"       xattrd [-U] RULES list FILE...\n"
		"       xattrd compare DIR\n");
	return 2;
}
