// SPDX-License-Identifier: GPL-2.0
/*
 * xattr_containers: what rootless containers get from the two series, as
 * KTAP on standard output (make containers).
 *
 *   xattr_containers DIR
 *
 * Run as root in the guest, DIR on ext4. The container is a user
 * namespace that uid 1000 creates, mapped as a rootless runtime maps it
 * with newuidmap (0 -> 1000, 1..65536 -> 100000..165535), with a mount
 * namespace of its own. Modes:
 * "stock" (a kernel without the switches), "switch 0" and "switch 1" (both
 * fs.xattr_user_special and fs.xattr_trusted_userns).
 *
 * 1. fuse-overlayfs -o xattr_permissions=2 (Debian's 1.10), the storage of
 *    rootless podman with force_mask: an image layer of file, dir,
 *    symlink, fifo, chr 1:3 and blk 7:0, owned by the user; the container
 *    chowns each node to 5:6 and chmods it to 0640 through the mount
 *    (which stores "uid:gid:mode" in user.fuseoverlayfs.override_stat on
 *    the upper copy instead of chowning), unmounts, mounts again and stats.
 *    Checked per node: what chown and chmod return, whether the upper copy
 *    holds the override with 5:6, and the owner the remounted merged dir
 *    shows. Printed per node: the upper copy as the host sees it.
 * 2. Kernel overlayfs mounted in the namespace, with and without
 *    userxattr: a whiteout (unlink of a lower file) and an opaque
 *    directory (rmdir and mkdir of a lower directory) must survive a
 *    remount (without userxattr: only at patch B's switch 1). Also: the namespace labels an upper directory
 *    trusted.overlay.opaque itself, and an overlayfs the host mounts over
 *    the same layers must not take it as opaque.
 * 3. A layer round trip: the container packs fuse-overlayfs's upper layer
 *    with GNU tar --xattrs, unpacks it with the switch as it is and, on a
 *    patched kernel, packs at switch 1 and unpacks at 0; checked per node
 *    that carries an override: it came back with the same value.
 * Expected results are in the tables below, with the reasons in
 * design/containers.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../lib/ktap.h"
#include "../lib/nodes.h"
#include "../lib/nsutil.h"
#include "../lib/switches.h"

#define USER		1000
#define FUSE_OVERLAYFS	"/usr/bin/fuse-overlayfs"
#define TAR		"/usr/bin/tar"
#define OVERRIDE	"user.fuseoverlayfs.override_stat"
#define OVERRIDE_CS	"user.containers.override_stat"
#define NEW_UID		5
#define NEW_GID		6
#define NEW_MODE	0640

enum mode { STOCK, SW0, SW1, NR_MODES };
static const char *const mode_name[] = { "stock", "switch 0", "switch 1" };

static const struct tl_node nodes[] = {
	{ "file", S_IFREG }, { "dir", S_IFDIR }, { "symlink", S_IFLNK },
	{ "fifo", S_IFIFO }, { "chr", S_IFCHR }, { "blk", S_IFBLK },
};
#define NR_NODES	TL_NR(nodes)

/*
 * Part 1, expected per node: chown's and chmod's errno through
 * fuse-overlayfs (0: success; -1: fails, with EIO or ENOENT from one run
 * to the next), whether the upper copy holds the override with 5:6,
 * whether the remounted mount shows 5:6. The same on every kernel and
 * switch (design/containers.md): fuse-overlayfs 1.10 copies a FIFO or a
 * device up as a regular file that carries the override (its own device
 * handling fails chmod and chown with EIO, fixed in 1.15), and it writes a
 * symlink's override with lsetxattr() on /proc/self/fd/N, procfs's link,
 * whose EPERM it ignores: the owner of a symlink is never kept.
 */
struct fo_expect {
	int chown_err, chmod_err;
	bool stored, shown;
};

static const struct fo_expect fo_expect[NR_NODES] = {
	{ 0, 0, true, true },		/* file */
	{ 0, 0, true, true },		/* dir */
	{ 0, 0, false, false },		/* symlink */
	{ EIO, EIO, false, false },	/* fifo */
	{ EIO, EIO, true, true },	/* chr */
	{ -1, EIO, false, false },	/* blk */
};

static bool errno_as_expected(int err, int want)
{
	if (want == -1)
		return err == EIO || err == ENOENT;
	return err == want;
}

static void set_switches(enum mode m)
{
	const char *v = m == SW1 ? "1\n" : "0\n";

	if (m == STOCK)
		return;
	if (ns_write_str(SW_USER, v) || ns_write_str(SW_TRUSTED, v))
		ktap_bail("cannot set the switches");
}

static void mkdir_as(const char *path, uid_t uid)
{
	if (mkdir(path, 0755) || chown(path, uid, uid))
		ktap_bail("mkdir %s", path);
}

/*
 * Fork the container. The child, as uid 1000, unshares a user namespace;
 * we, root of the parent namespace, write its maps as newuidmap and
 * newgidmap do for a rootless runtime: 0 -> 1000 and 1..65536 -> the
 * subordinate range 100000..165535 (so that chown to 5:6 in it is valid).
 * The child, now root in its namespace, unshares its mount namespace. In
 * the parent: the child's pid; in the child: 0, or it exits 126.
 */
#define SUBID_MAP	"0 1000 1\n1 100000 65536\n"

static pid_t container_fork(void)
{
	int ready[2], done[2];
	char path[64], c = 'x';
	pid_t pid;

	if (pipe(ready) || pipe(done))
		ktap_bail("pipe");
	pid = fork();
	if (pid < 0)
		ktap_bail("fork");
	if (pid == 0) {
		close(ready[0]);
		close(done[1]);
		if (ns_become(USER) || unshare(CLONE_NEWUSER) ||
		    write(ready[1], "u", 1) != 1 || read(done[0], &c, 1) != 1 || c != 'm' ||
		    unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(126);
		close(ready[1]);
		close(done[0]);
		return 0;
	}
	close(ready[1]);
	close(done[0]);
	if (read(ready[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		c = ns_write_str(path, SUBID_MAP) ? 'x' : 'm';
		snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
		if (c == 'm' && ns_write_str(path, SUBID_MAP))
			c = 'x';
	}
	if (write(done[1], &c, 1) != 1)
		c = 'x';
	close(ready[0]);
	close(done[1]);
	return pid;
}

/* Run argv in this process's namespaces; output to log; its status. */
static int run(char *const *argv, const char *log)
{
	pid_t pid;
	int fd;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return ns_wait(pid);
}

static void print_log(const char *log)
{
	char line[512];
	FILE *f = fopen(log, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   %s", line);
	fclose(f);
}

static void list_names(const char *path, char *out, size_t size);

/* Part 1 -------------------------------------------------------------- */

struct fo_seen {
	int mounted, remounted;		/* 0 or errno-ish status */
	int chown_err[NR_NODES], chmod_err[NR_NODES];
	uid_t uid[NR_NODES];
	gid_t gid[NR_NODES];
	mode_t mode[NR_NODES];
	int stat_err[NR_NODES];
};

static int fo_mount(const char *b, const char *log)
{
	char opts[1024], merged[600];
	char *argv[] = { FUSE_OVERLAYFS, "-o", opts, merged, NULL };

	snprintf(opts, sizeof(opts),
		 "lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/work,xattr_permissions=2",
		 b, b, b);
	snprintf(merged, sizeof(merged), "%s/merged", b);
	return run(argv, log);
}

static void fo_container(const char *b, const char *log, struct fo_seen *s)
{
	char path[700], merged[600];
	size_t i;

	snprintf(merged, sizeof(merged), "%s/merged", b);
	s->mounted = fo_mount(b, log);
	if (s->mounted)
		return;
	for (i = 0; i < NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", merged, nodes[i].name);
		/*
		 * chmod first: fuse-overlayfs 1.10's chmod writes the override
		 * with owner 0:0 whatever it held (fixed in 1.14), its chown
		 * keeps the mode.
		 */
		s->chmod_err[i] = nodes[i].type == S_IFLNK ? 0 :
				  chmod(path, NEW_MODE) ? errno : 0;
		s->chown_err[i] = lchown(path, NEW_UID, NEW_GID) ? errno : 0;
	}
	if (umount2(merged, 0))
		s->remounted = -errno;
	else
		s->remounted = fo_mount(b, log);
	if (s->remounted)
		return;
	for (i = 0; i < NR_NODES; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", merged, nodes[i].name);
		s->stat_err[i] = lstat(path, &st) ? errno : 0;
		s->uid[i] = st.st_uid;
		s->gid[i] = st.st_gid;
		s->mode[i] = st.st_mode & 07777;
	}
	umount2(merged, 0);
}

/* Does path carry the override with NEW_UID:NEW_GID (read as root)? */
static bool override_stored(const char *path, char *val, size_t size)
{
	ssize_t n = lgetxattr(path, OVERRIDE, val, size - 1);
	unsigned int uid, gid;

	if (n < 0) {
		snprintf(val, size, "none (%s)", strerror(errno));
		return false;
	}
	val[n] = '\0';
	return sscanf(val, "%u:%u:", &uid, &gid) == 2 && uid == NEW_UID && gid == NEW_GID;
}

static void make_layer(const char *lower)
{
	char path[700];
	size_t i;

	for (i = 0; i < NR_NODES; i++) {
		int r;

		snprintf(path, sizeof(path), "%s/%s", lower, nodes[i].name);
		r = tl_mknode(path, nodes[i].type, nodes[i].type == S_IFDIR ? 0 : 0644);
		if (r || lchown(path, USER, USER))
			ktap_bail("make %s", path);
	}
}

static void part_fuse_overlayfs(const char *dir, enum mode m)
{
	struct fo_seen *s;
	char b[600], path[700], log[700], val[128];
	const char *tag = mode_name[m];
	bool started;
	size_t i;
	pid_t pid;

	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		ktap_bail("mmap");
	memset(s, 0, sizeof(*s));
	snprintf(b, sizeof(b), "%s/fo-%d", dir, m);
	mkdir_as(b, USER);
	snprintf(path, sizeof(path), "%s/lower", b);
	mkdir_as(path, USER);
	make_layer(path);
	snprintf(path, sizeof(path), "%s/upper", b);
	mkdir_as(path, USER);
	snprintf(path, sizeof(path), "%s/work", b);
	mkdir_as(path, USER);
	snprintf(path, sizeof(path), "%s/merged", b);
	mkdir_as(path, USER);
	/* written by the container's uid */
	snprintf(log, sizeof(log), "%s/fuse-overlayfs.log", b);
	unlink(log);

	set_switches(m);
	pid = container_fork();
	if (pid == 0) {
		fo_container(b, log, s);
		_exit(0);
	}
	started = ns_wait(pid) == 0;
	print_log(log);
	ktap_result(started && !s->mounted && !s->remounted,
	       "fuse-overlayfs: %s: the container mounts, unmounts and mounts again", tag);
	if (!started || s->mounted || s->remounted) {
		printf("# container %s, mount %d, remount %d\n",
		       started ? "ran" : "failed", s->mounted, s->remounted);
		print_log(log);
		for (i = 0; i < NR_NODES; i++)
			ktap_result(false, "fuse-overlayfs: %s: %s: not reached", tag, nodes[i].name);
		munmap(s, sizeof(*s));
		return;
	}
	for (i = 0; i < NR_NODES; i++) {
		const struct fo_expect *e = &fo_expect[i];
		bool stored, shown;

		snprintf(path, sizeof(path), "%s/upper/%s", b, nodes[i].name);
		stored = override_stored(path, val, sizeof(val));
		shown = !s->stat_err[i] && s->uid[i] == NEW_UID && s->gid[i] == NEW_GID;
		printf("# %s %s: chown %s, chmod %s, upper override %s, remounted shows %u:%u %04o%s\n",
		       tag, nodes[i].name, s->chown_err[i] ? strerror(s->chown_err[i]) : "ok",
		       s->chmod_err[i] ? strerror(s->chmod_err[i]) : "ok", val,
		       s->uid[i], s->gid[i], s->mode[i], s->stat_err[i] ? " (lstat failed)" : "");
		{
			struct stat st;
			char names[512];

			list_names(path, names, sizeof(names));
			if (lstat(path, &st))
				printf("#   upper copy: none (%s)\n", strerror(errno));
			else
				printf("#   upper copy: type %o, owner %u:%u, mode %04o, xattrs %s\n",
				       st.st_mode & S_IFMT, st.st_uid, st.st_gid, st.st_mode & 07777, names);
		}
		ktap_result(errno_as_expected(s->chown_err[i], e->chown_err) &&
		       errno_as_expected(s->chmod_err[i], e->chmod_err) &&
		       stored == e->stored && shown == e->shown,
		       "fuse-overlayfs: %s: %s: chown %s, override %s, owner %s after remount",
		       tag, nodes[i].name,
		       e->chown_err == -1 ? "fails" : e->chown_err ? strerror(e->chown_err) : "ok",
		       e->stored ? "stored" : "not stored", e->shown ? "kept" : "lost");
	}
	munmap(s, sizeof(*s));
}

/* Part 2 -------------------------------------------------------------- */

struct ovl_seen {
	int mount_err, unlink_err, rmdir_err, mkdir_err, remount_err, label_err;
	bool gone_hidden, old_hidden, new_there;
};

static int ovl_mount(const char *b, bool userxattr)
{
	char opts[1024], merged[600];

	snprintf(opts, sizeof(opts), "lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/work%s",
		 b, b, b, userxattr ? ",userxattr" : "");
	snprintf(merged, sizeof(merged), "%s/merged", b);
	return mount("overlay", merged, "overlay", 0, opts) ? errno : 0;
}

static void ovl_container(const char *b, bool userxattr, struct ovl_seen *s)
{
	char p[700], merged[600];

	snprintf(merged, sizeof(merged), "%s/merged", b);
	s->mount_err = ovl_mount(b, userxattr);
	if (s->mount_err)
		return;
	snprintf(p, sizeof(p), "%s/gone", merged);
	s->unlink_err = unlink(p) ? errno : 0;
	/* the lower directory emptied, removed and made again: opaque */
	snprintf(p, sizeof(p), "%s/dir/old", merged);
	s->rmdir_err = unlink(p) ? errno : 0;
	snprintf(p, sizeof(p), "%s/dir", merged);
	if (!s->rmdir_err)
		s->rmdir_err = rmdir(p) ? errno : 0;
	s->mkdir_err = mkdir(p, 0755) ? errno : 0;
	snprintf(p, sizeof(p), "%s/dir/new", merged);
	if (!s->mkdir_err)
		close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	umount2(merged, 0);
	s->remount_err = ovl_mount(b, userxattr);
	if (s->remount_err)
		return;
	snprintf(p, sizeof(p), "%s/gone", merged);
	s->gone_hidden = access(p, F_OK) && errno == ENOENT;
	snprintf(p, sizeof(p), "%s/dir/old", merged);
	s->old_hidden = access(p, F_OK) && errno == ENOENT;
	snprintf(p, sizeof(p), "%s/dir/new", merged);
	s->new_there = !access(p, F_OK);
	umount2(merged, 0);
	/* the namespace's own label on an upper directory */
	snprintf(p, sizeof(p), "%s/upper/labelled", b);
	s->label_err = setxattr(p, "trusted.overlay.opaque", "y", 1, 0) ? errno : 0;
}

static void ovl_layers(const char *b)
{
	char p[700];

	mkdir_as(b, USER);
	snprintf(p, sizeof(p), "%s/lower", b);
	mkdir_as(p, USER);
	snprintf(p, sizeof(p), "%s/lower/gone", b);
	if (mknod(p, S_IFREG | 0644, 0) || chown(p, USER, USER))
		ktap_bail("%s", p);
	snprintf(p, sizeof(p), "%s/lower/dir", b);
	mkdir_as(p, USER);
	snprintf(p, sizeof(p), "%s/lower/dir/old", b);
	if (mknod(p, S_IFREG | 0644, 0) || chown(p, USER, USER))
		ktap_bail("%s", p);
	snprintf(p, sizeof(p), "%s/lower/labelled", b);
	mkdir_as(p, USER);
	snprintf(p, sizeof(p), "%s/lower/labelled/below", b);
	if (mknod(p, S_IFREG | 0644, 0) || chown(p, USER, USER))
		ktap_bail("%s", p);
	snprintf(p, sizeof(p), "%s/upper", b);
	mkdir_as(p, USER);
	snprintf(p, sizeof(p), "%s/upper/labelled", b);
	mkdir_as(p, USER);
	snprintf(p, sizeof(p), "%s/work", b);
	mkdir_as(p, USER);
	snprintf(p, sizeof(p), "%s/merged", b);
	mkdir_as(p, USER);
}

static void list_names(const char *path, char *out, size_t size)
{
	char list[4096];
	ssize_t n = llistxattr(path, list, sizeof(list));
	size_t used = 0;
	ssize_t i;

	out[0] = '\0';
	if (n < 0) {
		snprintf(out, size, "(%s)", strerror(errno));
		return;
	}
	for (i = 0; i < n; i += strlen(list + i) + 1)
		used += snprintf(out + used, used < size ? size - used : 0, "%s%s",
				 used ? " " : "", list + i);
	if (!used)
		snprintf(out, size, "(none)");
}

static void part_overlayfs(const char *dir, enum mode m, bool userxattr)
{
	const char *tag = mode_name[m], *opt = userxattr ? "userxattr" : "no userxattr";
	char b[600], p[700], names[1024];
	struct ovl_seen *s;
	bool started, works, host_opaque;
	pid_t pid;

	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		ktap_bail("mmap");
	memset(s, 0, sizeof(*s));
	snprintf(b, sizeof(b), "%s/ovl-%d-%d", dir, m, userxattr);
	ovl_layers(b);
	set_switches(m);
	pid = container_fork();
	if (pid == 0) {
		ovl_container(b, userxattr, s);
		_exit(0);
	}
	started = ns_wait(pid) == 0;
	printf("# overlayfs %s, %s: mount %s, unlink %s, rmdir %s, mkdir %s, remount %s\n",
	       tag, opt, strerror(s->mount_err), strerror(s->unlink_err),
	       strerror(s->rmdir_err), strerror(s->mkdir_err), strerror(s->remount_err));
	snprintf(p, sizeof(p), "%s/upper/dir", b);
	list_names(p, names, sizeof(names));
	printf("# overlayfs %s, %s: the host sees on upper/dir: %s\n", tag, opt, names);
	/*
	 * Without userxattr, overlayfs writes trusted.overlay.* from inside
	 * the kernel with the mounter's credentials. Without patch B's
	 * switch those get the host's rule: the mount falls back to no
	 * xattrs, whiteouts (0/0 devices) work, and removing a lower
	 * directory fails with EIO because nothing can make its replacement
	 * opaque. With it, overlayfs passes its names on as its mounter
	 * spells them (B/0015): the mark is the namespace's own
	 * trusted.<1000>overlay.opaque on the host, and the directory works.
	 */
	works = userxattr || m == SW1;
	ktap_result(started && !s->mount_err && !s->unlink_err && !s->remount_err &&
	       s->gone_hidden &&
	       (works ? !s->rmdir_err && !s->mkdir_err && s->old_hidden && s->new_there :
			s->rmdir_err == EIO),
	       "overlayfs in a namespace: %s, %s: whiteout kept, opaque directory %s",
	       tag, opt, works ? "kept" : "refused (EIO)");

	/*
	 * The namespace's own trusted.overlay.opaque: refused without
	 * patch B's switch, its own name with it; never the host's.
	 */
	snprintf(p, sizeof(p), "%s/upper/labelled", b);
	list_names(p, names, sizeof(names));
	printf("# overlayfs %s, %s: the namespace labels upper/labelled: %s; the host sees %s\n",
	       tag, opt, s->label_err ? strerror(s->label_err) : "ok", names);
	if (!userxattr) {
		char work[700];

		/* an overlayfs of the host's, over the same layers */
		snprintf(work, sizeof(work), "%s/hostwork", b);
		mkdir_as(work, 0);
		snprintf(p, sizeof(p), "lowerdir=%s/lower,upperdir=%s/upper,workdir=%s", b, b, work);
		snprintf(work, sizeof(work), "%s/merged", b);
		if (mount("overlay", work, "overlay", 0, p))
			ktap_bail("host overlayfs mount");
		snprintf(p, sizeof(p), "%s/merged/labelled/below", b);
		host_opaque = access(p, F_OK) != 0;
		umount2(work, 0);
		ktap_result((m == SW1 ? !s->label_err : s->label_err == EPERM) && !host_opaque,
		       "overlayfs in a namespace: %s: the namespace's trusted.overlay.opaque %s, a host overlayfs ignores it",
		       tag, m == SW1 ? "is its own" : "is refused (EPERM)");
	}
	munmap(s, sizeof(*s));
}

/* Part 3 -------------------------------------------------------------- */

/*
 * The layer containers/storage writes with force_mask: the container makes
 * each node it can (no devices in a user namespace) and records its owner
 * in user.containers.override_stat with lsetxattr(), as storage does.
 */
static void make_storage_layer(const char *src)
{
	char p[700];
	size_t i;
	int r;

	for (i = 0; i < NR_NODES; i++) {
		snprintf(p, sizeof(p), "%s/%s", src, nodes[i].name);
		if (nodes[i].type == S_IFCHR || nodes[i].type == S_IFBLK)
			continue;
		r = tl_mknode(p, nodes[i].type, nodes[i].type == S_IFDIR ? 0 : 0644);
		if (r)
			_exit(125);
		/* refused on a FIFO or symlink without patch A's switch */
		lsetxattr(p, OVERRIDE_CS, "5:6:0640", 8, 0);
	}
}

/* The steps of part_layer(): a layer packed at 1 is unpacked at 0 in the next boot */
#define LAYER_PACK	1
#define LAYER_UNPACK	2
#define LAYER_CHECK	4
#define LAYER_ALL	(LAYER_PACK | LAYER_UNPACK | LAYER_CHECK)

/* tar's exit statuses, kept in the layer's directory between the steps */
static void layer_rc(const char *w, int *rc, bool save)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/rc", w);
	f = fopen(path, save ? "we" : "re");
	if (!f || (save ? fprintf(f, "%d %d\n", rc[0], rc[1]) < 0 :
		   fscanf(f, "%d %d", &rc[0], &rc[1]) != 2) || fclose(f))
		ktap_bail("%s: %s", path, save ? "cannot save" : "not saved (did the boot at switch 1 run first?)");
}

/*
 * Pack a layer of mode m in the container, unpack it at mode unpack:
 * fuse-overlayfs's upper layer of part 1, or (storage) a containers/storage
 * layer made here. steps: LAYER_*, which of pack, unpack and check to run.
 */
static void part_layer(const char *dir, enum mode m, enum mode unpack, bool storage, int steps)
{
	char w[300], src[600], dst[600], arch[700], log[700], p[700];
	char *pack_argv[] = { TAR, "--xattrs", "--xattrs-include=*", "-cf", arch, "-C", src, ".", NULL };
	char *unpack_argv[] = { TAR, "--xattrs", "--xattrs-include=*", "-xpf", arch, "-C", dst, NULL };
	const char *what = storage ? "storage layer" : "fuse-overlayfs layer";
	const char *name = storage ? OVERRIDE_CS : OVERRIDE;
	int *rc;
	size_t i;
	pid_t pid;

	rc = mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rc == MAP_FAILED)
		ktap_bail("mmap");
	/* the container's own directory: the archive, tar's log, the layers */
	snprintf(w, sizeof(w), "%s/layer-%d-%d-%d", dir, m, unpack, storage);
	if (storage)
		snprintf(src, sizeof(src), "%s/src", w);
	else
		snprintf(src, sizeof(src), "%s/fo-%d/upper", dir, m);
	snprintf(dst, sizeof(dst), "%s/root", w);
	snprintf(arch, sizeof(arch), "%s/layer.tar", w);
	snprintf(log, sizeof(log), "%s/tar.log", w);
	if (steps & LAYER_PACK) {
		mkdir_as(w, USER);
		if (storage)
			mkdir_as(src, USER);
		mkdir_as(dst, USER);
	} else {
		layer_rc(w, rc, false);
	}
	for (i = 0; i < 2; i++) {
		if (!(steps & (i ? LAYER_UNPACK : LAYER_PACK)))
			continue;
		set_switches(i ? unpack : m);
		pid = container_fork();
		if (pid == 0) {
			if (!i && storage)
				make_storage_layer(src);
			rc[i] = run(i ? unpack_argv : pack_argv, log);
			_exit(0);
		}
		if (ns_wait(pid))
			rc[i] = -1;
	}
	if (!(steps & LAYER_CHECK)) {
		layer_rc(w, rc, true);
		munmap(rc, 2 * sizeof(int));
		return;
	}
	printf("# %s %s > %s: tar -c %d, tar -x %d\n", what, mode_name[m], mode_name[unpack],
	       rc[0], rc[1]);
	if (rc[0] || rc[1])
		print_log(log);
	/* what is on disk: read with the switch on where there is one */
	set_switches(m == SW1 || unpack == SW1 ? SW1 : m);
	for (i = 0; i < NR_NODES; i++) {
		char had[128], has[128];
		struct stat st;
		ssize_t n;
		bool plain;

		snprintf(p, sizeof(p), "%s/%s", src, nodes[i].name);
		if (lstat(p, &st))
			continue;	/* a device a namespace cannot make */
		plain = S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
		n = lgetxattr(p, name, had, sizeof(had) - 1);
		if (storage)
			ktap_result((n >= 0) == (plain || m == SW1),
			       "%s: %s: %s: the container's override %s", what,
			       mode_name[m], nodes[i].name,
			       plain || m == SW1 ? "stored" : "refused");
		if (n < 0)
			continue;	/* none stored: nothing to carry */
		had[n] = '\0';
		snprintf(p, sizeof(p), "%s/%s", dst, nodes[i].name);
		n = lgetxattr(p, name, has, sizeof(has) - 1);
		has[n < 0 ? 0 : n] = '\0';
		/*
		 * The upper copy of a FIFO or device in fuse-overlayfs is a
		 * regular file (part 1), so its override travels on every
		 * kernel; on a symlink or special file it comes back only
		 * where the unpacking may write it (patch A's switch on). tar
		 * -x reports what it could not set with exit status 0.
		 */
		ktap_result((n >= 0 && !strcmp(had, has)) == (plain || unpack == SW1),
		       "%s round trip: %s > %s: %s (%s): override %s", what,
		       mode_name[m], mode_name[unpack], nodes[i].name,
		       plain ? "plain" : "special", plain || unpack == SW1 ? "kept" : "lost");
	}
	munmap(rc, 2 * sizeof(int));
}

/* The switches as this boot has them: STOCK (none), SW0 or SW1 (both the same) */
static enum mode boot_mode(void)
{
	int sw = sw_boot();

	return sw < 0 ? STOCK : sw ? SW1 : SW0;
}

/*
 * The switches go from 0 to 1 once per boot, so a patched kernel runs in two
 * boots on the same disk: the first with both switches 1 (mode "switch 1",
 * and the packing of the layers to unpack at 0), the second with both 0
 * (mode "switch 0", then the unpacking at 0 of what the first packed, then
 * the checks of those, with the switches set). make containers carries the
 * disk from one boot to the other.
 */
int main(int argc, char **argv)
{
	enum mode m = boot_mode();
	int storage;

	if (argc != 2) {
		fprintf(stderr, "usage: xattr_containers DIR\n");
		return 2;
	}
	if (strlen(argv[1]) > 200) {
		fprintf(stderr, "xattr_containers: DIR is too long\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	printf("# kernel %s\n", m == STOCK ? "stock (no switches)" : m == SW1 ?
	       "patched, switches 1: mode switch 1, packs the layers of switch 1 > switch 0" :
	       "patched, switches 0: mode switch 0, unpacks the layers of switch 1 > switch 0");
	if (access(FUSE_OVERLAYFS, X_OK) || access(TAR, X_OK))
		ktap_bail("no %s or %s", FUSE_OVERLAYFS, TAR);
	if (access("/dev/fuse", F_OK))
		ktap_bail("no /dev/fuse: the kernel needs CONFIG_FUSE_FS");
	if (chmod("/dev/fuse", 0666))
		ktap_bail("chmod /dev/fuse");
	part_fuse_overlayfs(argv[1], m);
	part_overlayfs(argv[1], m, false);
	part_overlayfs(argv[1], m, true);
	for (storage = 0; storage < 2; storage++) {
		part_layer(argv[1], m, m, storage, LAYER_ALL);
		if (m == SW1)
			part_layer(argv[1], SW1, SW0, storage, LAYER_PACK);
	}
	if (m == SW0) {
		for (storage = 0; storage < 2; storage++)
			part_layer(argv[1], SW1, SW0, storage, LAYER_UNPACK);
		for (storage = 0; storage < 2; storage++)
			part_layer(argv[1], SW1, SW0, storage, LAYER_CHECK);
	}
	printf("1..%d\n", ktap_count);
	return 0;
}
