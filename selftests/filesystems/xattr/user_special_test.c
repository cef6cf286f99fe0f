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
 * Each "cell" test runs one caller against one file type with the switch
 * at 0 or 1, through both ways a file server reaches such a file: the l*
 * path calls and an O_PATH descriptor reopened through /proc/self/fd.
 * Documentation/admin-guide/sysctl/fs.rst (xattr_user_special) has the
 * rules. The switch-0 tests also pass on a stock kernel; the switch-1
 * tests SKIP there.
 */
#include "xattr_util.h"
#include "../../kselftest_harness.h"

#define SWITCH "/proc/sys/fs/xattr_user_special"
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
	int had_switch;
};

FIXTURE_VARIANT(user_special) {
	struct xt_fs fs;
};

XT_FS_VARIANTS(user_special);

FIXTURE_SETUP(user_special)
{
	XT_NEED_ROOT();
	self->had_switch = xt_sysctl_get(SWITCH) >= 0;
	XT_SETUP_FS(&variant->fs, self->dir);
	ASSERT_EQ(0, xt_mknodes(self->dir, XT_OWNER, XT_OWNER));
	/* every test starts from the default */
	if (self->had_switch)
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
}

/* The switch is global: put it back to its default whatever happened. */
FIXTURE_TEARDOWN_PARENT(user_special)
{
	if (self->had_switch)
		xt_sysctl_set(SWITCH, 0);
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

	XT_CHECK(t_set(t, "user.test", "v1", XATTR_CREATE) == 0);
	XT_CHECK_ERR(t_set(t, "user.test", "v1", XATTR_CREATE), EEXIST);
	XT_CHECK(t_set(t, "user.test", "v2", XATTR_REPLACE) == 0);
	XT_CHECK(t_set(t, "user.test", "v3", 0) == 0);
	XT_CHECK(t_get(t, "user.test", NULL, 0) == 2);
	XT_CHECK(t_get(t, "user.test", buf, sizeof(buf)) == 2);
	XT_CHECK(!memcmp(buf, "v3", 2));
	len = t_list(t, buf, sizeof(buf));
	XT_CHECK(len > 0);
	XT_CHECK(t_list(t, NULL, 0) == len);
	XT_CHECK(xt_list_has(buf, len, "user.test"));
	XT_CHECK(xt_list_has(buf, len, "user.seed") == seeded);
	if (seeded) {
		XT_CHECK(t_get(t, "user.seed", buf, sizeof(buf)) == 4);
		XT_CHECK(!memcmp(buf, "seed", 4));
	}
	XT_CHECK(t_remove(t, "user.test") == 0);
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
	XT_CHECK(xt_list_has(buf, len, "user.seed") == listed);
	XT_CHECK(!xt_list_has(buf, len, "user.test"));
	if (!listed)
		XT_CHECK(!xt_list_has_prefix(buf, len, "user."));
	/* the size probe agrees with the list */
	XT_CHECK(t_list(t, NULL, 0) == len);
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
	XT_CHECK(fchdir(procfd) == 0);
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
 * One cell of the table: caller c on the node of type xt_nodes[node] with
 * the switch at sw. Root seeds a user.seed entry first (with the switch on),
 * so that refused callers have something they must not see or change.
 */
static void run_cell(struct __test_metadata *_metadata, const char *dir,
		     bool had_switch, const char *fstype, enum caller c,
		     size_t node, int sw)
{
	char path[PATH_MAX], buf[16];
	bool allowed = sw && caller_allowed(c);
	bool seeded = false;
	pid_t pid;

	if (!had_switch && sw)
		SKIP(return, "kernel without fs.xattr_user_special");
	snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[node].name);
	TH_LOG("%s on %s, switch %d: %s", caller_names[c], xt_nodes[node].name,
	       sw, allowed ? "allowed" : "refused");

	if (had_switch) {
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
		ASSERT_EQ(0, lsetxattr(path, "user.seed", "seed", 4, XATTR_CREATE));
		seeded = true;
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, sw));
	}
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
		XT_CHECK(become_caller(c) == 0);
		run_ops(_metadata, path, allowed, seeded && sw, seeded && !sw);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));

	/* whatever the caller did, root's entry is intact */
	if (seeded) {
		snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[node].name);
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
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

#define CELL(caller, node, sw)						\
TEST_F(user_special, caller##_##node##_sw##sw)				\
{									\
	run_cell(_metadata, self->dir, self->had_switch,		\
		 variant->fs.fstype, caller, NODE_##node, sw);		\
}

#define CELLS_NO_SYMLINK(caller, sw)					\
	CELL(caller, chr, sw)						\
	CELL(caller, blk, sw)						\
	CELL(caller, fifo, sw)						\
	CELL(caller, sock, sw)

#define CELLS(caller, sw)						\
	CELL(caller, symlink, sw)					\
	CELLS_NO_SYMLINK(caller, sw)

CELLS(OWNER, 0)
CELLS(OWNER, 1)
CELLS(WRITER, 0)
CELLS(WRITER, 1)
/*
 * A symlink's mode is always 0777 (there is no lchmod), so no caller lacks
 * write permission on one: a NOWRITE symlink cell would be the WRITER one
 * again. The non-owner on a symlink is WRITER_symlink_sw*.
 */
CELLS_NO_SYMLINK(NOWRITE, 0)
CELLS_NO_SYMLINK(NOWRITE, 1)
CELLS(FOWNER, 0)
CELLS(FOWNER, 1)
CELLS(NS_MAPPED, 0)
CELLS(NS_MAPPED, 1)
CELLS(NS_UNMAPPED, 0)
CELLS(NS_UNMAPPED, 1)
CELLS(IDMAPPED_OWNER, 0)
CELLS(IDMAPPED_OWNER, 1)

/* Root gets no exception on stock, nor with the switch at 0. */
TEST_F(user_special, root_refused_sw0)
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
			run_ops(_metadata, path, false, false, false);
			_exit(_metadata->exit_code);
		}
		ASSERT_EQ(0, xt_wait(pid));
	}
}

/*
 * The /dev/null concern: a non-owner who may write a root-owned device
 * node attaches nothing to it, and neither reads nor lists root's entries.
 */
TEST_F(user_special, devnull_nonowner_sw1)
{
	char path[PATH_MAX], buf[16];
	pid_t pid;

	if (!self->had_switch)
		SKIP(return, "kernel without fs.xattr_user_special");
	snprintf(path, sizeof(path), "%s/null", self->dir);
	ASSERT_EQ(0, xt_mknode(path, S_IFCHR, 0, 0));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	ASSERT_EQ(0, lsetxattr(path, "user.seed", "seed", 4, XATTR_CREATE));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		XT_CHECK(xt_become(XT_OTHER, XT_OTHER) == 0);
		/* the device itself is writable */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		XT_CHECK(fd >= 0);
		XT_CHECK(write(fd, "x", 1) == 1);
		close(fd);
		run_ops(_metadata, path, false, true, false);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	ASSERT_EQ(4, lgetxattr(path, "user.seed", buf, sizeof(buf)));
	errno = 0;
	ASSERT_EQ(-1, lgetxattr(path, "user.test", buf, sizeof(buf)));
	ASSERT_EQ(ENODATA, errno);
}

/*
 * Entries on special files are ordinary xattrs on disk: they survive an
 * unmount, and turning the switch off hides them without removing them.
 */
TEST_F(user_special, survive_remount_and_switch_sw1)
{
	char path[PATH_MAX], buf[16];
	size_t i;

	if (!self->had_switch)
		SKIP(return, "kernel without fs.xattr_user_special");
	if (!variant->fs.dev_env)
		SKIP(return, "%s keeps nothing across an unmount", variant->fs.fstype);
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	for (i = 0; i < XT_NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", self->dir, xt_nodes[i].name);
		ASSERT_EQ(0, lsetxattr(path, "user.kept", xt_nodes[i].name,
				       strlen(xt_nodes[i].name), XATTR_CREATE));
	}
	ASSERT_EQ(0, xt_remount(&variant->fs));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
	for (i = 0; i < XT_NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", self->dir, xt_nodes[i].name);
		TH_LOG("%s", xt_nodes[i].name);
		errno = 0;
		if (xt_special(xt_nodes[i].type)) {
			ASSERT_EQ(-1, lgetxattr(path, "user.kept", buf, sizeof(buf)));
			ASSERT_EQ(ENODATA, errno);
		} else {
			ASSERT_EQ(strlen(xt_nodes[i].name),
				  lgetxattr(path, "user.kept", buf, sizeof(buf)));
		}
	}
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	for (i = 0; i < XT_NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", self->dir, xt_nodes[i].name);
		ASSERT_EQ(strlen(xt_nodes[i].name),
			  lgetxattr(path, "user.kept", buf, sizeof(buf)));
		ASSERT_EQ(0, memcmp(buf, xt_nodes[i].name, strlen(xt_nodes[i].name)));
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

static void rootless_override_stat(struct __test_metadata *_metadata,
				   const struct xt_fs *fs, const char *dir,
				   bool had_switch, int sw)
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
	size_t i;
	pid_t pid;

	if (!had_switch && sw)
		SKIP(return, "kernel without fs.xattr_user_special");
	if (had_switch)
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, sw));
	snprintf(layer, sizeof(layer), "%s/layer", dir);
	ASSERT_EQ(0, mkdir(layer, 0755));
	ASSERT_EQ(0, chown(layer, XT_OWNER, XT_OWNER));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int userns = xt_userns_fd_map("0 1000 1\n");

		XT_CHECK(userns >= 0 && xt_enter_userns(userns, 0, 0) == 0);
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
			XT_CHECK(ret == 0);
			ret = lsetxattr(path, OVERRIDE_STAT, nodes[i].value,
					strlen(nodes[i].value), 0) ? errno : 0;
			XT_CHECK(ret == (kept ? 0 : EPERM));
		}
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	/* what the next mount of the layer reads back */
	if (fs->dev_env)
		ASSERT_EQ(0, xt_remount(fs));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int userns = xt_userns_fd_map("0 1000 1\n");

		XT_CHECK(userns >= 0 && xt_enter_userns(userns, 0, 0) == 0);
		for (i = 0; i < ARRAY_SIZE(nodes); i++) {
			size_t len = strlen(nodes[i].value);

			snprintf(path, sizeof(path), "%s/%s", layer, nodes[i].name);
			if (sw || !xt_special(nodes[i].type)) {
				XT_CHECK(lgetxattr(path, OVERRIDE_STAT, buf, sizeof(buf)) ==
					 (ssize_t)len);
				XT_CHECK(memcmp(buf, nodes[i].value, len) == 0);
			} else {
				XT_CHECK_ERR(lgetxattr(path, OVERRIDE_STAT, buf, sizeof(buf)),
					     ENODATA);
			}
		}
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
}

TEST_F(user_special, rootless_override_stat_sw0)
{
	rootless_override_stat(_metadata, &variant->fs, self->dir, self->had_switch, 0);
}

TEST_F(user_special, rootless_override_stat_sw1)
{
	rootless_override_stat(_metadata, &variant->fs, self->dir, self->had_switch, 1);
}

/*
 * Regular files and directories do not change with the switch: a writer
 * who is not the owner may use user.* on a 0666 file, nobody but the owner
 * on a sticky directory, and a reader nothing.
 */
static void reg_dir_unchanged(struct __test_metadata *_metadata,
			      const char *dir, bool had_switch, int sw)
{
	char reg[PATH_MAX], sticky[PATH_MAX], ro[PATH_MAX];
	pid_t pid;

	if (!had_switch && sw)
		SKIP(return, "kernel without fs.xattr_user_special");
	if (had_switch)
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, sw));
	snprintf(reg, sizeof(reg), "%s/reg", dir);
	snprintf(ro, sizeof(ro), "%s/ro", dir);
	snprintf(sticky, sizeof(sticky), "%s/sticky", dir);
	ASSERT_EQ(0, chmod(reg, 0666));
	ASSERT_EQ(0, xt_mknode(ro, S_IFREG, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, mkdir(sticky, 01777));
	ASSERT_EQ(0, chown(sticky, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, chmod(sticky, 01777));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char buf[16];

		XT_CHECK(xt_become(XT_OTHER, XT_OTHER) == 0);
		XT_CHECK(lsetxattr(reg, "user.w", "v", 1, 0) == 0);
		XT_CHECK(lgetxattr(reg, "user.w", buf, sizeof(buf)) == 1);
		XT_CHECK(lremovexattr(reg, "user.w") == 0);
		XT_CHECK_ERR(lsetxattr(ro, "user.w", "v", 1, 0), EACCES);
		XT_CHECK_ERR(lsetxattr(sticky, "user.w", "v", 1, 0), EPERM);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
}

TEST_F(user_special, reg_dir_unchanged_sw0)
{
	reg_dir_unchanged(_metadata, self->dir, self->had_switch, 0);
}

TEST_F(user_special, reg_dir_unchanged_sw1)
{
	reg_dir_unchanged(_metadata, self->dir, self->had_switch, 1);
}

/* The switch itself: 0 and 1 only, and only for the global administrator. */
/*
 * A symlink on a filesystem that stores no user.* xattrs keeps the old
 * refusal whatever the switch: EPERM for a change, ENODATA for a read.
 * procfs has no user.* handler at all: fuse-overlayfs (every release up
 * to 1.15) writes the override of a symlink with lsetxattr() on
 * /proc/self/fd/N, which lands on procfs's own link, and takes EPERM as
 * "not on this kind of file"; EOPNOTSUPP there would fail the container's
 * chown -h. sysfs has one that refuses (no KERNFS_ROOT_SUPPORT_USER_XATTR):
 * its symlinks refuse as before, its regular files keep EOPNOTSUPP.
 */
#define SYSFS_LINK "/sys/dev/char/1:3"

static void no_user_handler(struct __test_metadata *_metadata, int sw)
{
	char link[64], buf[16];
	int fd, set_err, get_err, sys_set_err, sys_get_err, sys_reg_err;
	bool had_switch = xt_sysctl_get(SWITCH) >= 0;
	struct stat st;

	XT_NEED_ROOT();
	if (!had_switch && sw)
		SKIP(return, "kernel without fs.xattr_user_special");
	if (lstat(SYSFS_LINK, &st) || !S_ISLNK(st.st_mode))
		SKIP(return, "no sysfs symlink at %s (sysfs not mounted at /sys)",
		     SYSFS_LINK);
	fd = open("/", O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (had_switch)
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, sw));
	set_err = lsetxattr(link, "user.t", "v", 1, 0) ? errno : 0;
	get_err = lgetxattr(link, "user.t", buf, sizeof(buf)) < 0 ? errno : 0;
	sys_set_err = lsetxattr(SYSFS_LINK, "user.t", "v", 1, 0) ? errno : 0;
	sys_get_err = lgetxattr(SYSFS_LINK, "user.t", buf, sizeof(buf)) < 0 ? errno : 0;
	sys_reg_err = lsetxattr(SYSFS_LINK "/dev", "user.t", "v", 1, 0) ? errno : 0;
	if (had_switch)
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
	close(fd);
	ASSERT_EQ(EPERM, set_err);
	ASSERT_EQ(ENODATA, get_err);
	ASSERT_EQ(EPERM, sys_set_err);
	ASSERT_EQ(ENODATA, sys_get_err);
	ASSERT_EQ(EOPNOTSUPP, sys_reg_err);
}

TEST(no_user_handler_sw0)
{
	no_user_handler(_metadata, 0);
}

TEST(no_user_handler_sw1)
{
	no_user_handler(_metadata, 1);
}

TEST(switch_values_and_permissions)
{
	int userns, ret;
	pid_t pid;

	XT_NEED_ROOT();
	if (xt_sysctl_get(SWITCH) < 0)
		SKIP(return, "kernel without fs.xattr_user_special");
	ASSERT_EQ(0, xt_sysctl_get(SWITCH));
	ASSERT_EQ(-EINVAL, xt_write_file(SWITCH, "2\n"));
	ASSERT_EQ(-EINVAL, xt_write_file(SWITCH, "-1\n"));
	ASSERT_EQ(-EINVAL, xt_write_file(SWITCH, "yes\n"));
	ASSERT_EQ(0, xt_sysctl_get(SWITCH));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	ASSERT_EQ(1, xt_sysctl_get(SWITCH));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));

	/* an unprivileged user cannot open it for writing */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_CHECK(xt_become(XT_OTHER, XT_OTHER) == 0);
		XT_CHECK(xt_write_file(SWITCH, "1\n") == -EACCES);
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
		XT_CHECK(xt_enter_userns(userns, 0, 0) == 0);
		ret = xt_write_file(SWITCH, "1\n");
		XT_CHECK(ret == -EPERM);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	ASSERT_EQ(0, xt_sysctl_get(SWITCH));
}

/*
 * overlayfs copy-up of symlinks and special files that carry user.*
 * entries: copy-up never fails over them. It copies what the mounter may
 * read (switch on, a mounter with CAP_FOWNER) and leaves out what it may
 * not (switch off, or a mounter without CAP_FOWNER), as it leaves out
 * anything else the mounter cannot read. The lower entries stay.
 */
#define OVL_MNT "/tmp/xattr_test_ovl"

enum ovl_mounter { MOUNTER_ROOT, MOUNTER_NO_FOWNER };

static int ovl_copy_up_specials(struct __test_metadata *_metadata,
				const char *lower, enum ovl_mounter m)
{
	char opts[1024], path[PATH_MAX];
	struct stat st;
	size_t i;

	XT_CHECK(mount("tmpfs", OVL_MNT, "tmpfs", 0, NULL) == 0);
	XT_CHECK(mkdir(OVL_MNT "/upper", 0755) == 0);
	XT_CHECK(mkdir(OVL_MNT "/work", 0755) == 0);
	XT_CHECK(mkdir(OVL_MNT "/merged", 0755) == 0);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower,
		 OVL_MNT "/upper", OVL_MNT "/work");
	if (m == MOUNTER_NO_FOWNER) {
		/* overlayfs keeps its mounter's credentials for copy-up */
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct data[2];

		XT_CHECK(syscall(__NR_capget, &hdr, data) == 0);
		data[0].effective &= ~(1u << CAP_FOWNER);
		data[0].permitted &= ~(1u << CAP_FOWNER);
		XT_CHECK(syscall(__NR_capset, &hdr, data) == 0);
	}
	XT_CHECK(mount("overlay", OVL_MNT "/merged", "overlay", 0, opts) == 0);
	for (i = 0; i < XT_NR_NODES; i++) {
		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), OVL_MNT "/merged/%s", xt_nodes[i].name);
		/* a change of times copies the node up, and needs no ownership */
		TH_LOG("copy-up of %s", xt_nodes[i].name);
		XT_CHECK(utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW) == 0);
		/* copied up */
		snprintf(path, sizeof(path), OVL_MNT "/upper/%s", xt_nodes[i].name);
		XT_CHECK(lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == xt_nodes[i].type);
	}
	return _metadata->exit_code;
}

/* The upper layer's copies carry user.keep exactly when it was copied. */
static int ovl_upper_keeps(struct __test_metadata *_metadata, bool copied)
{
	char path[PATH_MAX], buf[16];
	size_t i;

	/* with the switch on, so that a copied entry would be seen */
	XT_CHECK(xt_sysctl_set(SWITCH, 1) == 0);
	for (i = 0; i < XT_NR_NODES; i++) {
		ssize_t n;

		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), OVL_MNT "/upper/%s", xt_nodes[i].name);
		n = lgetxattr(path, "user.keep", buf, sizeof(buf));
		XT_CHECK(copied ? n == 4 : n < 0);
	}
	return _metadata->exit_code;
}

static void copy_up_specials(struct __test_metadata *_metadata,
			     const char *dir, bool had_switch, int sw,
			     enum ovl_mounter m)
{
	char path[PATH_MAX], buf[16];
	bool copied = sw && m == MOUNTER_ROOT;
	size_t i;
	pid_t pid;

	if (!had_switch)
		SKIP(return, "kernel without fs.xattr_user_special");
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	for (i = 0; i < XT_NR_NODES; i++) {
		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[i].name);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			XT_CHECK(xt_become(XT_OWNER, XT_OWNER) == 0);
			XT_CHECK(lsetxattr(path, "user.keep", "keep", 4, 0) == 0);
			_exit(_metadata->exit_code);
		}
		ASSERT_EQ(0, xt_wait(pid));
	}
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, sw));
	ASSERT_EQ(0, mkdir(OVL_MNT, 0755) && errno != EEXIST ? -1 : 0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pid_t child;
		int ret;

		XT_CHECK(unshare(CLONE_NEWNS) == 0);
		/* mount and copy up (without CAP_FOWNER), look as full root */
		child = fork();
		XT_CHECK(child >= 0);
		if (child == 0)
			_exit(ovl_copy_up_specials(_metadata, dir, m));
		ret = xt_wait(child);
		_exit(ret ?: ovl_upper_keeps(_metadata, copied));
	}
	ASSERT_EQ(0, xt_wait(pid));
	/* the lower entries stay */
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	for (i = 0; i < XT_NR_NODES; i++) {
		if (!xt_special(xt_nodes[i].type))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[i].name);
		ASSERT_EQ(4, lgetxattr(path, "user.keep", buf, sizeof(buf)));
	}
}

TEST_F(user_special, copy_up_sw0)
{
	copy_up_specials(_metadata, self->dir, self->had_switch, 0, MOUNTER_ROOT);
}

TEST_F(user_special, copy_up_sw1)
{
	copy_up_specials(_metadata, self->dir, self->had_switch, 1, MOUNTER_ROOT);
}

TEST_F(user_special, copy_up_sw1_mounter_without_fowner)
{
	copy_up_specials(_metadata, self->dir, self->had_switch, 1, MOUNTER_NO_FOWNER);
}

TEST_HARNESS_MAIN
