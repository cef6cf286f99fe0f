// SPDX-License-Identifier: GPL-2.0
/*
 * user.* extended attributes on symlinks and special files.
 *
 * Stock kernels refuse user.* on anything but regular files and
 * directories: EPERM to set or remove, ENODATA to get, for everybody,
 * root included. With the sysctl fs.xattr_user_special at 1, the owner of
 * a symlink, device, FIFO or socket (as seen through the mount's
 * idmapping) and a task with CAP_FOWNER over it may use them; everybody
 * else keeps the stock errors, and listxattr() agrees with getxattr().
 *
 * The switch is set once per boot, before the tests (sysctl.fs.
 * xattr_user_special=1 on the command line): each test checks what the
 * setting of this boot must give, 0 on a kernel without the switch. Each
 * "cell" runs one caller against one file type, through both ways a file
 * server reaches such a file: the l* path calls and an O_PATH descriptor
 * reopened through /proc/self/fd.
 * Documentation/admin-guide/sysctl/fs.rst (xattr_user_special) has the
 * rules.
 */
#include "xattr_util.h"
#include "../../kselftest_harness.h"

#define IDMAPPED "/tmp/xattr_test_idmapped"
/* the host uid that reaches the owner's files through the idmapped mount */
#define XT_IDMAPPED_OWNER 3000

enum caller {
	OWNER,		/* uid 1000, owns the file */
	WRITER,		/* uid 2000, may write the file (mode 0666) */
	/* uid 2000, may not write the file (mode 0600): not on symlinks */
	NOWRITE,	/* (whose mode is always 0777, see CELLS) */
	FOWNER,		/* uid 2000 with CAP_FOWNER, nothing else */
	NS_MAPPED,	/* root of a namespace (root = 2000) mapping the owner */
	NS_UNMAPPED,	/* root of a namespace (root = 2000) not mapping it */
	IDMAPPED_OWNER,	/* uid 3000, the owner through an idmapped mount */
};

static const char * const caller_names[] = {
	"owner", "writer", "nowrite", "fowner", "ns_mapped", "ns_unmapped",
	"idmapped_owner",
};

FIXTURE(user_special) {
	char dir[256];
	int sw;		/* fs.xattr_user_special of this boot */
};

FIXTURE_VARIANT(user_special) {
	struct xt_fs fs;
};

XT_FS_VARIANTS(user_special);

FIXTURE_SETUP(user_special)
{
	XT_NEED_ROOT();
	self->sw = xt_switch(XT_SW_USER);
	XT_SETUP_FS(&variant->fs, self->dir);
	ASSERT_EQ(0, xt_mknodes(self->dir, XT_OWNER, XT_OWNER));
}

FIXTURE_TEARDOWN(user_special)
{
}

static bool caller_allowed(enum caller c)
{
	return c == OWNER || c == FOWNER || c == NS_MAPPED || c == IDMAPPED_OWNER;
}

/* Take on the caller's identity (in a child of the test). */
static int become_caller(enum caller c)
{
	int userns;

	switch (c) {
	case OWNER:
		return xt_become(XT_OWNER, XT_OWNER);
	case WRITER:
	case NOWRITE:
		return xt_become(XT_OTHER, XT_OTHER);
	case FOWNER:
		return xt_become_with_cap(XT_OTHER, XT_OTHER, CAP_FOWNER);
	case NS_MAPPED:
		userns = xt_userns_fd_map("0 2000 1\n1000 1000 1\n");
		return userns < 0 ? userns : xt_enter_userns(userns, 0, 0);
	case NS_UNMAPPED:
		userns = xt_userns_fd(0, XT_OTHER, 1);
		return userns < 0 ? userns : xt_enter_userns(userns, 0, 0);
	case IDMAPPED_OWNER:
		return xt_become(XT_IDMAPPED_OWNER, XT_IDMAPPED_OWNER);
	}
	return -EINVAL;
}

/*
 * The xattr calls, either through the path (l* calls, which do not follow
 * a symlink) or, as virtiofsd does, through fchdir() to /proc/self/fd and
 * the descriptor's number as the path of an O_PATH descriptor.
 */
struct target {
	const char *path;	/* the file, for the l* calls */
	bool via_fd;
	char fdname[16];	/* "N": the O_PATH fd in /proc/self/fd */
};

static int t_set(struct target *t, const char *name, const char *v, int flags)
{
	if (t->via_fd)
		return setxattr(t->fdname, name, v, strlen(v), flags);
	return lsetxattr(t->path, name, v, strlen(v), flags);
}

static ssize_t t_get(struct target *t, const char *name, char *buf, size_t size)
{
	if (t->via_fd)
		return getxattr(t->fdname, name, buf, size);
	return lgetxattr(t->path, name, buf, size);
}

static ssize_t t_list(struct target *t, char *buf, size_t size)
{
	if (t->via_fd)
		return listxattr(t->fdname, buf, size);
	return llistxattr(t->path, buf, size);
}

static int t_remove(struct target *t, const char *name)
{
	if (t->via_fd)
		return removexattr(t->fdname, name);
	return lremovexattr(t->path, name);
}

/* Everything an allowed caller may do, with the exact results. */
static void allowed_ops(struct __test_metadata *_metadata, struct target *t, bool seeded)
{
	char buf[256];
	ssize_t len;

	XT_EQ(0, t_set(t, "user.test", "v1", XATTR_CREATE));
	XT_CHECK_ERR(t_set(t, "user.test", "v1", XATTR_CREATE), EEXIST);
	XT_EQ(0, t_set(t, "user.test", "v2", XATTR_REPLACE));
	XT_EQ(0, t_set(t, "user.test", "v3", 0));
	XT_EQ(2, t_get(t, "user.test", NULL, 0));
	XT_EQ(2, t_get(t, "user.test", buf, sizeof(buf)));
	XT_CHECK(!memcmp(buf, "v3", 2));
	len = t_list(t, buf, sizeof(buf));
	XT_CHECK(len > 0);
	XT_EQ(len, t_list(t, NULL, 0));
	XT_CHECK(xt_list_has(buf, len, "user.test"));
	XT_EQ(seeded, xt_list_has(buf, len, "user.seed"));
	if (seeded) {
		XT_EQ(4, t_get(t, "user.seed", buf, sizeof(buf)));
		XT_CHECK(!memcmp(buf, "seed", 4));
	}
	XT_EQ(0, t_remove(t, "user.test"));
	XT_CHECK_ERR(t_get(t, "user.test", buf, sizeof(buf)), ENODATA);
	XT_CHECK_ERR(t_remove(t, "user.test"), ENODATA);
	XT_CHECK_ERR(t_set(t, "user.test", "v4", XATTR_REPLACE), ENODATA);
	len = t_list(t, buf, sizeof(buf));
	XT_CHECK(len >= 0 && !xt_list_has(buf, len, "user.test"));
}

/*
 * Everything a refused caller tries, with the stock errors. With the switch
 * off the listing is stock too: it shows the seeded entry, which getxattr()
 * refuses (listed); with it on, it shows no user.* name.
 */
static void refused_ops(struct __test_metadata *_metadata, struct target *t,
			bool listed)
{
	char buf[256];
	ssize_t len;

	XT_CHECK_ERR(t_set(t, "user.test", "v", 0), EPERM);
	XT_CHECK_ERR(t_set(t, "user.test", "v", XATTR_CREATE), EPERM);
	XT_CHECK_ERR(t_set(t, "user.seed", "v", XATTR_REPLACE), EPERM);
	XT_CHECK_ERR(t_get(t, "user.seed", buf, sizeof(buf)), ENODATA);
	XT_CHECK_ERR(t_get(t, "user.seed", NULL, 0), ENODATA);
	XT_CHECK_ERR(t_get(t, "user.test", buf, sizeof(buf)), ENODATA);
	XT_CHECK_ERR(t_remove(t, "user.seed"), EPERM);
	len = t_list(t, buf, sizeof(buf));
	XT_CHECK(len >= 0);
	XT_EQ(listed, xt_list_has(buf, len, "user.seed"));
	XT_CHECK(!xt_list_has(buf, len, "user.test"));
	if (!listed)
		XT_CHECK(!xt_list_has_prefix(buf, len, "user."));
	/* the size probe agrees with the list */
	XT_EQ(len, t_list(t, NULL, 0));
}

static void run_ops(struct __test_metadata *_metadata, const char *path,
		    bool allowed, bool seeded, bool listed)
{
	struct target t = { .path = path };
	int fd, procfd;

	if (allowed)
		allowed_ops(_metadata, &t, seeded);
	else
		refused_ops(_metadata, &t, listed);

	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	XT_CHECK(fd >= 0);
	procfd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	XT_CHECK(procfd >= 0);
	XT_EQ(0, fchdir(procfd));
	t.via_fd = true;
	snprintf(t.fdname, sizeof(t.fdname), "%d", fd);
	if (allowed)
		allowed_ops(_metadata, &t, seeded);
	else
		refused_ops(_metadata, &t, listed);
	close(fd);
	close(procfd);
}

/*
 * One cell of the table: caller c on the node of type xt_nodes[node], with
 * this boot's switch. With the switch on, root seeds a user.seed entry
 * first, so that refused callers have something they must not see or
 * change; with it off nobody can.
 */
static void run_cell(struct __test_metadata *_metadata, const char *dir,
		     int sw, const char *fstype, enum caller c, size_t node)
{
	char path[PATH_MAX], buf[16];
	bool allowed = sw && caller_allowed(c);
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[node].name);
	TH_LOG("%s on %s, switch %d: %s", caller_names[c], xt_nodes[node].name,
	       sw, allowed ? "allowed" : "refused");

	if (sw)
		ASSERT_EQ(0, lsetxattr(path, "user.seed", "seed", 4, XATTR_CREATE));
	if (c == NOWRITE) {
		/* chmod() would follow a symlink: NOWRITE has no symlink cells */
		ASSERT_NE(S_IFLNK, xt_nodes[node].type);
		ASSERT_EQ(0, chmod(path, 0600));
	}
	if (c == IDMAPPED_OWNER) {
		/* the filesystem's 1000 is 3000 on this mount */
		int userns = xt_userns_fd(XT_OWNER, XT_IDMAPPED_OWNER, 1);

		ASSERT_LE(0, userns);
		ASSERT_EQ(0, mkdir(IDMAPPED, 0755) && errno != EEXIST ? -1 : 0);
		XT_IDMAPPED_MOUNT(XT_MNT, IDMAPPED, userns, fstype);
		snprintf(path, sizeof(path), "%s/%s/%s", IDMAPPED,
			 dir + strlen(XT_MNT) + 1, xt_nodes[node].name);
	}

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, become_caller(c));
		run_ops(_metadata, path, allowed, sw, false);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));

	/* whatever the caller did, root's entry is intact */
	if (sw) {
		snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[node].name);
		ASSERT_EQ(4, lgetxattr(path, "user.seed", buf, sizeof(buf)));
		ASSERT_EQ(0, memcmp(buf, "seed", 4));
		errno = 0;
		ASSERT_EQ(-1, lgetxattr(path, "user.test", buf, sizeof(buf)));
		ASSERT_EQ(ENODATA, errno);
	}
}

/* The node indexes in xt_nodes[] */
#define NODE_symlink	2
#define NODE_chr	3
#define NODE_blk	4
#define NODE_fifo	5
#define NODE_sock	6

#define CELL(caller, node)						\
TEST_F(user_special, caller##_##node)					\
{									\
	run_cell(_metadata, self->dir, self->sw, variant->fs.fstype,	\
		 caller_##caller, NODE_##node);				\
}

#define CELLS_NO_SYMLINK(caller)					\
	CELL(caller, chr)						\
	CELL(caller, blk)						\
	CELL(caller, fifo)						\
	CELL(caller, sock)

#define CELLS(caller)							\
	CELL(caller, symlink)						\
	CELLS_NO_SYMLINK(caller)

/* the test names are lower case */
#define caller_owner		OWNER
#define caller_writer		WRITER
#define caller_nowrite		NOWRITE
#define caller_fowner		FOWNER
#define caller_ns_mapped	NS_MAPPED
#define caller_ns_unmapped	NS_UNMAPPED
#define caller_idmapped_owner	IDMAPPED_OWNER

CELLS(owner)
CELLS(writer)
/*
 * A symlink's mode is always 0777 (there is no lchmod), so no caller lacks
 * write permission on one: a nowrite symlink cell would be the writer one
 * again. The non-owner on a symlink is writer_symlink.
 */
CELLS_NO_SYMLINK(nowrite)
CELLS(fowner)
CELLS(ns_mapped)
CELLS(ns_unmapped)
CELLS(idmapped_owner)

/* Root: no exception with the switch at 0; CAP_FOWNER with it at 1. */
TEST_F(user_special, root)
{
	char path[PATH_MAX];
	size_t i;
	pid_t pid;

	for (i = 0; i < XT_NR_NODES; i++) {
		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), "%s/%s", self->dir, xt_nodes[i].name);
		TH_LOG("%s", xt_nodes[i].name);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			run_ops(_metadata, path, self->sw, false, false);
			_exit(_metadata->exit_code);
		}
		ASSERT_EQ(0, xt_wait(pid));
	}
}

/*
 * The /dev/null concern: a non-owner who may write a root-owned device
 * node attaches nothing to it, and neither reads nor lists root's entries.
 */
TEST_F(user_special, devnull_nonowner)
{
	char path[PATH_MAX], buf[16];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/null", self->dir);
	ASSERT_EQ(0, xt_mknode(path, S_IFCHR, 0, 0));
	if (self->sw)
		ASSERT_EQ(0, lsetxattr(path, "user.seed", "seed", 4, XATTR_CREATE));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		XT_EQ(0, xt_become(XT_OTHER, XT_OTHER));
		/* the device itself is writable */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		XT_CHECK(fd >= 0);
		XT_EQ(1, write(fd, "x", 1));
		close(fd);
		run_ops(_metadata, path, false, self->sw, false);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	if (self->sw)
		ASSERT_EQ(4, lgetxattr(path, "user.seed", buf, sizeof(buf)));
	errno = 0;
	ASSERT_EQ(-1, lgetxattr(path, "user.test", buf, sizeof(buf)));
	ASSERT_EQ(self->sw ? ENODATA : ENODATA, errno);
}

/*
 * Entries on special files are ordinary xattrs on disk: they survive an
 * unmount. With the switch at 0 nobody can make one, and regular files and
 * directories keep theirs.
 */
TEST_F(user_special, survive_remount)
{
	char path[PATH_MAX], buf[16];
	size_t i;
	bool kept;

	if (!variant->fs.dev_env)
		SKIP(return, "%s keeps nothing across an unmount", variant->fs.fstype);
	for (i = 0; i < XT_NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", self->dir, xt_nodes[i].name);
		kept = self->sw || !xt_special(xt_nodes[i].type);
		TH_LOG("%s", xt_nodes[i].name);
		if (kept) {
			ASSERT_EQ(0, lsetxattr(path, "user.kept", xt_nodes[i].name,
					       strlen(xt_nodes[i].name), XATTR_CREATE));
		} else {
			errno = 0;
			ASSERT_EQ(-1, lsetxattr(path, "user.kept", "x", 1,
						XATTR_CREATE));
			ASSERT_EQ(EPERM, errno);
		}
	}
	ASSERT_EQ(0, xt_remount(&variant->fs));
	for (i = 0; i < XT_NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", self->dir, xt_nodes[i].name);
		kept = self->sw || !xt_special(xt_nodes[i].type);
		TH_LOG("%s", xt_nodes[i].name);
		errno = 0;
		if (kept) {
			ASSERT_EQ(strlen(xt_nodes[i].name),
				  lgetxattr(path, "user.kept", buf, sizeof(buf)));
			ASSERT_EQ(0, memcmp(buf, xt_nodes[i].name,
					    strlen(xt_nodes[i].name)));
		} else {
			ASSERT_EQ(-1, lgetxattr(path, "user.kept", buf, sizeof(buf)));
			ASSERT_EQ(ENODATA, errno);
		}
	}
}

/*
 * Rootless container storage (containers/storage with force_mask,
 * fuse-overlayfs -o xattr_permissions=2) keeps each file's owner and mode
 * in a user.* xattr of the file, written by the unprivileged user in a
 * user namespace of its own (0 -> 1000, `unshare -r`), because it cannot
 * chown. On a FIFO or a symlink that needs the switch: stock and switch 0
 * refuse it (EPERM), with the switch on it is kept across a remount, on
 * every node type the namespace can create. Regular files and directories
 * work either way.
 */
#define OVERRIDE_STAT "user.containers.override_stat"

TEST_F(user_special, rootless_override_stat)
{
	static const struct {
		const char *name, *value;
		mode_t type;
	} nodes[] = {
		{ "file", "0:0:0644:file", S_IFREG },
		{ "dir", "0:0:0755:dir", S_IFDIR },
		{ "fifo", "5:6:0640:pipe", S_IFIFO },
		{ "symlink", "5:6:0777:symlink", S_IFLNK },
	};
	char layer[512], path[PATH_MAX], buf[64];
	int sw = self->sw;
	size_t i;
	pid_t pid;

	snprintf(layer, sizeof(layer), "%s/layer", self->dir);
	ASSERT_EQ(0, mkdir(layer, 0755));
	ASSERT_EQ(0, chown(layer, XT_OWNER, XT_OWNER));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int userns = xt_userns_fd_map("0 1000 1\n");

		XT_CHECK(userns >= 0);
		XT_EQ(0, xt_enter_userns(userns, 0, 0));
		for (i = 0; i < ARRAY_SIZE(nodes); i++) {
			bool kept = sw || !xt_special(nodes[i].type);
			int ret;

			snprintf(path, sizeof(path), "%s/%s", layer, nodes[i].name);
			if (nodes[i].type == S_IFDIR)
				ret = mkdir(path, 0755);
			else if (nodes[i].type == S_IFLNK)
				ret = symlink("file", path);
			else
				ret = mknod(path, nodes[i].type | 0644, 0);
			XT_EQ(0, ret);
			ret = lsetxattr(path, OVERRIDE_STAT, nodes[i].value,
					strlen(nodes[i].value), 0) ? errno : 0;
			XT_EQ(kept ? 0 : EPERM, ret);
		}
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	/* what the next mount of the layer reads back */
	if (variant->fs.dev_env)
		ASSERT_EQ(0, xt_remount(&variant->fs));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int userns = xt_userns_fd_map("0 1000 1\n");

		XT_CHECK(userns >= 0);
		XT_EQ(0, xt_enter_userns(userns, 0, 0));
		for (i = 0; i < ARRAY_SIZE(nodes); i++) {
			size_t len = strlen(nodes[i].value);

			snprintf(path, sizeof(path), "%s/%s", layer, nodes[i].name);
			if (sw || !xt_special(nodes[i].type)) {
				XT_EQ((ssize_t)len, lgetxattr(path, OVERRIDE_STAT,
							      buf, sizeof(buf)));
				XT_MEMEQ(nodes[i].value, buf, len);
			} else {
				XT_CHECK_ERR(lgetxattr(path, OVERRIDE_STAT, buf, sizeof(buf)),
					     ENODATA);
			}
		}
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
}

/*
 * Regular files and directories do not change with the switch: a writer
 * who is not the owner may use user.* on a 0666 file, nobody but the owner
 * on a sticky directory, and a reader nothing.
 */
TEST_F(user_special, reg_dir_unchanged)
{
	char reg[PATH_MAX], sticky[PATH_MAX], ro[PATH_MAX];
	pid_t pid;

	snprintf(reg, sizeof(reg), "%s/reg", self->dir);
	snprintf(ro, sizeof(ro), "%s/ro", self->dir);
	snprintf(sticky, sizeof(sticky), "%s/sticky", self->dir);
	ASSERT_EQ(0, chmod(reg, 0666));
	ASSERT_EQ(0, xt_mknode(ro, S_IFREG, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, mkdir(sticky, 01777));
	ASSERT_EQ(0, chown(sticky, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, chmod(sticky, 01777));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char buf[16];

		XT_EQ(0, xt_become(XT_OTHER, XT_OTHER));
		XT_EQ(0, lsetxattr(reg, "user.w", "v", 1, 0));
		XT_EQ(1, lgetxattr(reg, "user.w", buf, sizeof(buf)));
		XT_EQ(0, lremovexattr(reg, "user.w"));
		XT_CHECK_ERR(lsetxattr(ro, "user.w", "v", 1, 0), EACCES);
		XT_CHECK_ERR(lsetxattr(sticky, "user.w", "v", 1, 0), EPERM);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
}

/*
 * Inodes without xattrs and filesystems without user.* handlers. procfs's
 * links have no xattrs at all: they keep the old refusal whatever the
 * switch (EPERM to change, ENODATA to read). fuse-overlayfs (every release
 * up to 1.15) writes a symlink's override with lsetxattr() on
 * /proc/self/fd/N, which lands on procfs's own link, and takes EPERM as
 * "not on this kind of file"; EOPNOTSUPP there would fail the container's
 * chown -h. sysfs has a user.* handler that refuses changes
 * (no KERNFS_ROOT_SUPPORT_USER_XATTR): with the switch on, its symlinks
 * answer as its regular files do, EOPNOTSUPP to a change and ENODATA to a
 * read; with it off, the old refusal.
 */
#define SYSFS_LINK "/sys/dev/char/1:3"

TEST(no_user_handler)
{
	char link[64], buf[16];
	int sw = xt_switch(XT_SW_USER);
	struct stat st;
	int fd;

	XT_NEED_ROOT();
	if (lstat(SYSFS_LINK, &st) || !S_ISLNK(st.st_mode))
		SKIP(return, "no sysfs symlink at %s (sysfs not mounted at /sys)",
		     SYSFS_LINK);
	fd = open("/", O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	XT_CHECK_ERR(lsetxattr(link, "user.t", "v", 1, 0), EPERM);
	XT_CHECK_ERR(lgetxattr(link, "user.t", buf, sizeof(buf)), ENODATA);
	XT_CHECK_ERR(lremovexattr(link, "user.t"), EPERM);
	XT_CHECK_ERR(lsetxattr(SYSFS_LINK, "user.t", "v", 1, 0),
		     sw ? EOPNOTSUPP : EPERM);
	XT_CHECK_ERR(lgetxattr(SYSFS_LINK, "user.t", buf, sizeof(buf)), ENODATA);
	XT_CHECK_ERR(lsetxattr(SYSFS_LINK "/dev", "user.t", "v", 1, 0),
		     EOPNOTSUPP);
	close(fd);
}

/*
 * devtmpfs's device nodes are the kernel's, some lent to users (login(1)
 * gives the console user its tty): their owner may not store user.*
 * xattrs there at either setting, where they would be charged to the
 * inode space new nodes need and stay after the node is given back. Nor
 * may root. A mount of devtmpfs is the kernel's devtmpfs; the node made
 * here is removed again.
 */
#define DEVTMPFS_DIR "/tmp/xattr_user_special_devtmpfs"

TEST(devtmpfs_owner_refused)
{
	char node[PATH_MAX], buf[16];
	pid_t pid;

	XT_DEVTMPFS_NODE(DEVTMPFS_DIR, node, XT_OWNER);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, xt_become(XT_OWNER, XT_OWNER));
		XT_CHECK_ERR(lsetxattr(node, "user.t", "v", 1, 0), EPERM);
		XT_CHECK_ERR(lgetxattr(node, "user.t", buf, sizeof(buf)),
			     ENODATA);
		XT_CHECK_ERR(lremovexattr(node, "user.t"), EPERM);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	XT_CHECK_ERR(lsetxattr(node, "user.t", "v", 1, 0), EPERM);
	ASSERT_EQ(0, xt_devtmpfs_release(DEVTMPFS_DIR, node));
}

/*
 * An entry that exists on a FIFO although nobody could write it at this
 * setting: ext4's debugfs puts user.seed on it, on the unmounted image, as
 * a kernel with the switch set (or any other writer of the disk) leaves
 * it. At 0 every caller is shown the name, as on a stock kernel, and none
 * may read it; at 1 the owner and root read it, and a non-owner neither
 * sees nor reads it.
 */
#define SEED_DIR "/tmp/xattr_user_special_seed"

static void seed_caller(struct __test_metadata *_metadata, const char *fifo,
			uid_t uid, bool listed, bool readable)
{
	char buf[256];
	ssize_t len;

	XT_EQ(0, xt_become(uid, uid));
	len = llistxattr(fifo, buf, sizeof(buf));
	XT_CHECK(len >= 0);
	XT_EQ(listed, xt_list_has(buf, len, "user.seed"));
	XT_EQ(len, llistxattr(fifo, NULL, 0));
	if (readable) {
		XT_EQ(4, lgetxattr(fifo, "user.seed", buf, sizeof(buf)));
		XT_MEMEQ("seed", buf, 4);
	} else {
		XT_CHECK_ERR(lgetxattr(fifo, "user.seed", buf, sizeof(buf)),
			     ENODATA);
	}
}

TEST(seeded_entry_at_this_setting)
{
	char img[] = SEED_DIR "/ext4.img", dev[64], cmd[512];
	const char *fifo = SEED_DIR "/mnt/fifo";
	int sw = xt_switch(XT_SW_USER), i, hold;
	pid_t pid;

	XT_NEED_ROOT();
	if (system("command -v mkfs.ext4 >/dev/null 2>&1 && command -v debugfs >/dev/null 2>&1"))
		SKIP(return, "no mkfs.ext4 or debugfs (e2fsprogs)");
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("tmpfs", "/tmp", "tmpfs", 0, NULL));
	ASSERT_EQ(0, mkdir(SEED_DIR, 0755));
	ASSERT_EQ(0, mkdir(SEED_DIR "/mnt", 0755));
	snprintf(cmd, sizeof(cmd),
		 "truncate -s 32M %s && mkfs.ext4 -q -F %s >/dev/null 2>&1", img, img);
	ASSERT_EQ(0, system(cmd));
	hold = xt_loop_attach(img, dev, sizeof(dev), false);
	if (hold == -ENXIO)
		SKIP(return, "the kernel has no loop devices");
	ASSERT_LE(0, hold);
	XT_EQ(0, mount(dev, SEED_DIR "/mnt", "ext4", 0, NULL));
	ASSERT_EQ(0, xt_mknode(fifo, S_IFIFO, XT_OWNER, XT_OWNER));
	/* the device stays attached (hold) while debugfs writes it unmounted */
	ASSERT_EQ(0, umount(SEED_DIR "/mnt"));
	snprintf(cmd, sizeof(cmd),
		 "debugfs -w -R 'ea_set /fifo user.seed seed' %s >/dev/null 2>&1", dev);
	ASSERT_EQ(0, system(cmd));
	XT_EQ(0, mount(dev, SEED_DIR "/mnt", "ext4", 0, NULL));
	close(hold);
	/*
	 * root and the owner: listed at either setting, readable at 1; a
	 * non-owner: listed at 0 only, never readable
	 */
	for (i = 0; i < 3; i++) {
		uid_t uid = i == 0 ? 0 : i == 1 ? XT_OWNER : XT_OTHER;

		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			seed_caller(_metadata, fifo, uid, i < 2 || !sw,
				    i < 2 && sw);
			_exit(_metadata->exit_code);
		}
		ASSERT_EQ(0, xt_wait(pid));
	}
	ASSERT_EQ(0, umount(SEED_DIR "/mnt"));
}

/*
 * The switch itself: 0 or 1 as this boot set it; only 0 and 1 are values,
 * once 1 it stays 1, and only the global administrator may write it. The
 * step from 0 to 1 is xattr_switch_test's.
 */
TEST(switch_values_and_permissions)
{
	int userns, sw;
	pid_t pid;

	XT_NEED_ROOT();
	sw = xt_sysctl_get(XT_SW_USER);
	if (sw < 0)
		SKIP(return, "kernel without fs.xattr_user_special");
	ASSERT_TRUE(sw == 0 || sw == 1);
	ASSERT_EQ(-EINVAL, xt_write_file(XT_SW_USER, "2\n"));
	ASSERT_EQ(-EINVAL, xt_write_file(XT_SW_USER, "-1\n"));
	ASSERT_EQ(-EINVAL, xt_write_file(XT_SW_USER, "yes\n"));
	/* what it is may be written again; 1 does not go back */
	ASSERT_EQ(0, xt_sysctl_set(XT_SW_USER, sw));
	if (sw)
		ASSERT_EQ(-EINVAL, xt_sysctl_set(XT_SW_USER, 0));
	ASSERT_EQ(sw, xt_sysctl_get(XT_SW_USER));

	/* an unprivileged user cannot open it for writing */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, xt_become(XT_OTHER, XT_OTHER));
		XT_EQ(-EACCES, xt_write_file(XT_SW_USER, "1\n"));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));

	/*
	 * Root of a user namespace that maps 0 to the host's 0 passes the
	 * file's mode check, but has no capability in the initial namespace.
	 */
	userns = xt_userns_fd(0, 0, 65536);
	ASSERT_LE(0, userns);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, xt_enter_userns(userns, 0, 0));
		XT_EQ(-EPERM, xt_write_file(XT_SW_USER, "1\n"));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	ASSERT_EQ(sw, xt_sysctl_get(XT_SW_USER));
}

/*
 * overlayfs copy-up of symlinks and special files that carry user.*
 * entries: copy-up never fails over them. It copies what the mounter may
 * read (switch on, a mounter with CAP_FOWNER) and leaves out what it may
 * not (a mounter without CAP_FOWNER), as it leaves out anything else the
 * mounter cannot read, and what the upper layer does not store (an upper
 * filesystem mounted nouser_xattr answers EOPNOTSUPP, which copy-up
 * skips). The lower entries stay.
 */
#define OVL_MNT "/tmp/xattr_test_ovl"

enum ovl_mounter { MOUNTER_ROOT, MOUNTER_NO_FOWNER };

/* mount the overlay over @lower, on an upper layer at OVL_MNT, and copy up */
static int ovl_copy_up_specials(struct __test_metadata *_metadata,
				const char *lower, enum ovl_mounter m)
{
	char opts[1024], path[PATH_MAX];
	struct stat st;
	size_t i;

	XT_EQ(0, mkdir(OVL_MNT "/upper", 0755));
	XT_EQ(0, mkdir(OVL_MNT "/work", 0755));
	XT_EQ(0, mkdir(OVL_MNT "/merged", 0755));
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower,
		 OVL_MNT "/upper", OVL_MNT "/work");
	if (m == MOUNTER_NO_FOWNER) {
		/* overlayfs keeps its mounter's credentials for copy-up */
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct data[2];

		XT_EQ(0, syscall(__NR_capget, &hdr, data));
		data[0].effective &= ~(1u << CAP_FOWNER);
		data[0].permitted &= ~(1u << CAP_FOWNER);
		XT_EQ(0, syscall(__NR_capset, &hdr, data));
	}
	XT_EQ(0, mount("overlay", OVL_MNT "/merged", "overlay", 0, opts));
	for (i = 0; i < XT_NR_NODES; i++) {
		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), OVL_MNT "/merged/%s", xt_nodes[i].name);
		/* a change of times copies the node up, and needs no ownership */
		TH_LOG("copy-up of %s", xt_nodes[i].name);
		XT_EQ(0, utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW));
		/* copied up */
		snprintf(path, sizeof(path), OVL_MNT "/upper/%s", xt_nodes[i].name);
		XT_EQ(0, lstat(path, &st));
		XT_EQ(xt_nodes[i].type, st.st_mode & S_IFMT);
	}
	return _metadata->exit_code;
}

/*
 * The upper layer's copies carry user.keep exactly when it was copied; a
 * copy that has none gives @err (ENODATA, or EOPNOTSUPP from an upper
 * filesystem that stores no user.* xattrs).
 */
static int ovl_upper_keeps(struct __test_metadata *_metadata, bool copied,
			   int err)
{
	char path[PATH_MAX], buf[16];
	size_t i;

	for (i = 0; i < XT_NR_NODES; i++) {
		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), OVL_MNT "/upper/%s", xt_nodes[i].name);
		TH_LOG("upper %s", xt_nodes[i].name);
		if (copied)
			XT_EQ(4, lgetxattr(path, "user.keep", buf, sizeof(buf)));
		else
			XT_CHECK_ERR(lgetxattr(path, "user.keep", buf, sizeof(buf)),
				     err);
	}
	return _metadata->exit_code;
}

enum ovl_upper { UPPER_TMPFS, UPPER_NOUSER_XATTR };

static void copy_up_specials(struct __test_metadata *_metadata,
			     const char *dir, int sw, enum ovl_mounter m,
			     enum ovl_upper u)
{
	bool copied = sw && m == MOUNTER_ROOT && u == UPPER_TMPFS;
	char path[PATH_MAX], buf[16];
	size_t i;
	pid_t pid;

	for (i = 0; sw && i < XT_NR_NODES; i++) {
		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[i].name);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			XT_EQ(0, xt_become(XT_OWNER, XT_OWNER));
			XT_EQ(0, lsetxattr(path, "user.keep", "keep", 4, 0));
			_exit(_metadata->exit_code);
		}
		ASSERT_EQ(0, xt_wait(pid));
	}
	ASSERT_EQ(0, mkdir(OVL_MNT, 0755) && errno != EEXIST ? -1 : 0);
	if (u == UPPER_TMPFS) {
		ASSERT_EQ(0, mount("tmpfs", OVL_MNT, "tmpfs", 0, NULL));
	} else {
		/* f2fs with nouser_xattr: it refuses user.* with EOPNOTSUPP */
		char dev[64];
		int ret = xt_loop_image("upper-f2fs", "mkfs.f2fs -q -f", 256,
					dev, sizeof(dev));

		if (ret == -ENOPKG || ret == -ENXIO)
			SKIP(return, "no f2fs image for an upper layer: %s",
			     strerror(-ret));
		ASSERT_EQ(0, ret);
		ret = mount(dev, OVL_MNT, "f2fs", 0, "nouser_xattr") ? -errno : 0;
		if (ret == -ENODEV && !xt_kernel_has_fs("f2fs"))
			SKIP(return, "kernel without f2fs");
		ASSERT_EQ(0, ret);
		snprintf(path, sizeof(path), OVL_MNT "/probe");
		ASSERT_EQ(0, xt_mknode(path, S_IFREG, 0, 0));
		errno = 0;
		ASSERT_EQ(-1, lsetxattr(path, "user.probe", "p", 1, 0));
		ASSERT_EQ(EOPNOTSUPP, errno);
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pid_t child;
		int ret;

		/* mount and copy up (maybe without CAP_FOWNER), look as root */
		child = fork();
		XT_CHECK(child >= 0);
		if (child == 0)
			_exit(ovl_copy_up_specials(_metadata, dir, m));
		ret = xt_wait(child);
		/* with the switch at 0 nobody gets that far on the upper */
		_exit(ret ?: ovl_upper_keeps(_metadata, copied,
					     u == UPPER_TMPFS || !sw ? ENODATA :
					     EOPNOTSUPP));
	}
	ASSERT_EQ(0, xt_wait(pid));
	/* the lower entries stay */
	for (i = 0; sw && i < XT_NR_NODES; i++) {
		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[i].name);
		ASSERT_EQ(4, lgetxattr(path, "user.keep", buf, sizeof(buf)));
	}
}

/*
 * Each mounts an overlayfs and copies up every node type; the last one
 * makes and mounts an f2fs image first: minutes under KASAN in a loaded
 * TCG guest, where the harness's 30 s default ran out.
 */
TEST_F_TIMEOUT(user_special, copy_up, 180)
{
	copy_up_specials(_metadata, self->dir, self->sw, MOUNTER_ROOT,
			 UPPER_TMPFS);
}

TEST_F_TIMEOUT(user_special, copy_up_mounter_without_fowner, 180)
{
	copy_up_specials(_metadata, self->dir, self->sw, MOUNTER_NO_FOWNER,
			 UPPER_TMPFS);
}

TEST_F_TIMEOUT(user_special, copy_up_upper_without_user_xattrs, 180)
{
	copy_up_specials(_metadata, self->dir, self->sw, MOUNTER_ROOT,
			 UPPER_NOUSER_XATTR);
}

TEST_HARNESS_MAIN
