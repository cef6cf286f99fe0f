// SPDX-License-Identifier: GPL-2.0
/*
 * trusted.* xattrs in user namespaces, at the edges of the feature:
 *
 * - with fs.xattr_trusted_userns at 0 every name behaves as on a stock
 *   kernel, whatever it looks like;
 * - the initial namespace sees and uses every name of its filesystems as
 *   stored, at either switch, and reads and removes every name under that
 *   spelling, names written by a kernel without the switch included;
 * - a filesystem mounted inside a namespace stores the namespace's names
 *   relative to it, plain; the host spells them with the namespace's chain
 *   in front, never takes them for its own, and stores none of its own
 *   there (the step of the switch from 0 to 1 is xattr_switch_test's);
 * - an overlayfs mounted in a namespace over an idmapped lower layer
 *   copies up the namespace's entries and no others;
 * - names a namespace does not see never make its listing fail;
 * - a caller without CAP_SYS_ADMIN is shown no trusted.* name;
 * - kernfs: the initial namespace's names are never limited; a
 *   namespace's are limited like user.* xattrs on a delegated cgroup, and
 *   refused like them on sysfs.
 *
 * Documentation/filesystems/xattr-userns.rst has the rules.
 */
#include "xattr_util.h"
#include <time.h>
#include "../../kselftest_harness.h"

#define SWITCH XT_SW_TRUSTED

FIXTURE(boundary) {
	char dir[256];
	char file[PATH_MAX];
	bool patched;
	int sw;			/* fs.xattr_trusted_userns of this boot */
	bool lists_trusted;	/* to callers who may not read them */
};

FIXTURE_VARIANT(boundary) {
	struct xt_fs fs;
};

XT_FS_VARIANTS(boundary);

FIXTURE_SETUP(boundary)
{
	XT_NEED_ROOT();
	self->patched = xt_sysctl_get(SWITCH) >= 0;
	self->sw = xt_switch(SWITCH);
	XT_SETUP_FS(&variant->fs, self->dir);
	if (variant->fs.stock_lists_trusted) {
		int lists = xt_lists_trusted_to_all(self->dir);

		ASSERT_LE(0, lists);
		self->lists_trusted = lists;
		/* the series fixes it before it adds the switch */
		if (self->patched)
			ASSERT_FALSE(self->lists_trusted);
	}
	ASSERT_EQ(0, chown(self->dir, XT_OWNER, XT_OWNER));
	snprintf(self->file, sizeof(self->file), "%s/reg", self->dir);
	ASSERT_EQ(0, xt_mknode(self->file, S_IFREG, XT_OWNER, XT_OWNER));
}

FIXTURE_TEARDOWN(boundary)
{
}

#define NEED_SWITCH() do {						\
	if (!self->sw)							\
		SKIP(return, "fs.xattr_trusted_userns is 0 in this boot (%s)", \
		     self->patched ? "boot with it at 1" : "a kernel without it"); \
} while (0)

/* The trusted* names of a listing, sorted, one string "a|b|c". */
static int trusted_names(const char *file, char *out, size_t outlen)
{
	static char list[XATTR_LIST_MAX];
	const char *names[512];
	ssize_t len, off;
	size_t n = 0, i, j, used = 0;

	len = llistxattr(file, list, sizeof(list));
	if (len < 0)
		return -errno;
	for (off = 0; off < len; off += strlen(list + off) + 1)
		if (!strncmp(list + off, "trusted", 7) && n < 512)
			names[n++] = list + off;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	out[0] = '\0';
	for (i = 0; i < n; i++)
		used += snprintf(out + used, outlen - used, "%s%s", i ? "|" : "",
				 names[i]);
	return 0;
}

static bool value_is(const char *file, const char *name, const char *want)
{
	char buf[256];
	ssize_t len = lgetxattr(file, name, buf, sizeof(buf));

	return len == (ssize_t)strlen(want) && !memcmp(buf, want, len);
}

typedef void (*ns_fn)(struct __test_metadata *_metadata, const char *arg);

/*
 * Run fn(arg) in a child as root of a namespace whose root is host uid; it
 * reports through the harness (see XT_CHECK), its status is returned.
 */
static int in_userns(struct __test_metadata *_metadata, uid_t uid, ns_fn fn,
		     const char *arg)
{
	char map[32];
	pid_t pid;

	snprintf(map, sizeof(map), "0 %u 1", uid);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		const char *maps[1] = { map };

		XT_EQ(0, xt_enter_chain(maps, 1));
		fn(_metadata, arg);
		_exit(_metadata->exit_code);
	}
	return xt_wait(pid);
}

/*
 * The initial namespace's names: every name of its filesystems is its own,
 * spelt as stored, whatever it looks like, at either switch; a name that
 * begins "trusted<" is no trusted.* name at all (on any kernel: no
 * handler). At 0 a namespace has no trusted.* names; at 1 it has those
 * under its chain: here "trusted.<1000>x" and "trusted.<1000>.legacy".
 */
static bool stock_btrfs;

static void sw0_ns_refused(struct __test_metadata *_metadata, const char *file)
{
	char names[4096];

	XT_CHECK_ERR(lsetxattr(file, "trusted.foo", "v", 1, 0), EPERM);
	XT_CHECK_ERR(lgetxattr(file, "trusted.<1000>x", NULL, 0), ENODATA);
	XT_CHECK_ERR(lgetxattr(file, "trusted.x", NULL, 0), ENODATA);
	XT_EQ(0, trusted_names(file, names, sizeof(names)));
	/* stock btrfs lists trusted.* to everybody */
	if (!stock_btrfs)
		ASSERT_STREQ("", names);
}

static void sw1_ns_names(struct __test_metadata *_metadata, const char *file)
{
	char names[4096];

	XT_EQ(0, trusted_names(file, names, sizeof(names)));
	ASSERT_STREQ("trusted..legacy|trusted.x", names);
	XT_CHECK(value_is(file, "trusted.x", "s"));
	XT_CHECK_ERR(lgetxattr(file, "trusted.<1000>x", NULL, 0), ENODATA);
}

TEST_F(boundary, names_as_stored)
{
	/* in the sorted order trusted_names() gives them back */
	static const char * const names[] = {
		"trusted.<", "trusted.<0001>.y", "trusted.<1000>.legacy",
		"trusted.<1000>x", "trusted.<abc>.legacy",
	};
	char got[4096], want[4096] = "";
	size_t i;

	/* set them in reverse, so that a listing in creation order shows */
	for (i = ARRAY_SIZE(names); i-- > 0;)
		ASSERT_EQ(0, lsetxattr(self->file, names[i], "s", 1, XATTR_CREATE));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
			 i ? "|" : "", names[i]);
	ASSERT_EQ(0, trusted_names(self->file, got, sizeof(got)));
	ASSERT_STREQ(want, got);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_TRUE(value_is(self->file, names[i], "s"));
	/* no handler takes "trusted<" */
	ASSERT_EQ(-1, lsetxattr(self->file, "trusted<1000>.x", "v", 1, 0));
	ASSERT_EQ(EOPNOTSUPP, errno);
	ASSERT_EQ(-1, lgetxattr(self->file, "trusted<1000>x", NULL, 0));
	ASSERT_EQ(EOPNOTSUPP, errno);

	stock_btrfs = self->lists_trusted;
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER,
			       self->sw ? sw1_ns_names : sw0_ns_refused,
			       self->file));

	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_EQ(0, lremovexattr(self->file, names[i]));
	ASSERT_EQ(0, trusted_names(self->file, got, sizeof(got)));
	ASSERT_STREQ("", got);
}

/*
 * The initial namespace lists, reads and removes every name as stored,
 * whoever wrote it: only a canonical chain followed by a name is a
 * namespace's entry (<1000> sees its ".legacy" and "new", with the switch
 * at 1); the rest are the initial namespace's own names. v2's spelling
 * "trusted<1000>..." is no name.
 */
static void ns_sees_legacy(struct __test_metadata *_metadata, const char *file)
{
	char names[4096];

	XT_EQ(0, trusted_names(file, names, sizeof(names)));
	ASSERT_STREQ("trusted..legacy|trusted.new", names);
	XT_CHECK(value_is(file, "trusted..legacy", "l"));
	XT_CHECK(value_is(file, "trusted.new", "n"));
}

TEST_F(boundary, every_listed_name_reachable)
{
	static const struct { const char *name, *value; } names[] = {
		{ "trusted.<abc>.x",		"a" },
		{ "trusted.<0001>.x",		"b" },
		{ "trusted.<1000>",		"c" },
		{ "trusted.<1000><abc",		"d" },
		{ "trusted.<4294967295>x",	"e" },
		{ "trusted.<>x",		"f" },
		{ "trusted.<1000>.legacy",	"l" },
		{ "trusted.plain",		"p" },
		{ "trusted.<1000>new",		"n" },
		{ "trusted.<01>y",		"y" },
		{ "trusted.<2000><0>z",		"z" },
	};
	static char list[XATTR_LIST_MAX];
	ssize_t len, off;
	char got[4096];
	size_t i, listed = 0;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_EQ(0, lsetxattr(self->file, names[i].name, names[i].value,
				       1, XATTR_CREATE));
	len = llistxattr(self->file, list, sizeof(list));
	ASSERT_GT(len, 0);
	ASSERT_EQ(len, llistxattr(self->file, NULL, 0));
	/* every listed name is readable as listed, and listed once */
	for (off = 0; off < len; off += strlen(list + off) + 1) {
		if (strncmp(list + off, "trusted", 7))
			continue;
		ASSERT_LT(0, lgetxattr(self->file, list + off, NULL, 0))
			TH_LOG("listed %s, not readable: %s", list + off, strerror(errno));
		listed++;
	}
	ASSERT_EQ(ARRAY_SIZE(names), listed);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_TRUE(value_is(self->file, names[i].name, names[i].value));
	/* v2's spelling of the chain is no name at all */
	ASSERT_EQ(-1, lgetxattr(self->file, "trusted<1000>..legacy", NULL, 0));
	ASSERT_EQ(EOPNOTSUPP, errno);
	ASSERT_EQ(-1, lsetxattr(self->file, "trusted<1000>..legacy", "x", 1, 0));
	ASSERT_EQ(EOPNOTSUPP, errno);
	if (self->sw)
		ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, ns_sees_legacy,
				       self->file));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_EQ(0, lremovexattr(self->file, names[i].name));
	ASSERT_EQ(0, trusted_names(self->file, got, sizeof(got)));
	ASSERT_STREQ("", got);
}

/*
 * A child that runs fn(arg) as root of a namespace whose root is host uid
 * XT_OWNER, in a mount namespace of its own, and then waits until the
 * parent closes *hold, so that the parent can look at its mounts through
 * /proc/PID/root and enter its mount namespace. Returns the pid; the
 * child's status tells whether fn succeeded (xt_wait()).
 */
static pid_t ns_mounter(struct __test_metadata *_metadata, ns_fn fn,
			const char *arg, int *hold)
{
	int ready[2], wait_fd[2];
	pid_t pid;
	char c;

	if (pipe2(ready, O_CLOEXEC) || pipe2(wait_fd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char map[32];
		const char *maps[1] = { map };

		snprintf(map, sizeof(map), "0 %u 1", XT_OWNER);
		close(ready[0]);
		close(wait_fd[1]);
		XT_EQ(0, xt_enter_chain(maps, 1));
		XT_EQ(0, unshare(CLONE_NEWNS));
		XT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
		fn(_metadata, arg);
		/* ready (or failed): the parent looks, then lets us go */
		c = 0;
		XT_EQ(1, write(ready[1], &c, 1));
		XT_CHECK(read(wait_fd[0], &c, 1) >= 0);
		_exit(_metadata->exit_code);
	}
	close(ready[1]);
	close(wait_fd[0]);
	if (read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(wait_fd[1]);
		return -1;
	}
	close(ready[0]);
	*hold = wait_fd[1];
	return pid;
}

#define NS_TMPFS "/tmp/xattr_boundary_ns"
/* what the host lists of the namespace's names there (ns_tmpfs_names()) */
#define NS_TMPFS_NAMES \
	"trusted.<1000><0>kid|trusted.<1000>foo|trusted.<1000>overlay.opaque"

/*
 * A tmpfs mounted inside a namespace belongs to it (its s_user_ns): the
 * namespace's trusted.* names are stored relative to it, plain, as its
 * root writes them; with the switch at 0 it has none. low1/d gets the
 * namespace's opaque marker and a name of its own.
 */
static int nsmount_sw;

static void ns_tmpfs_names(struct __test_metadata *_metadata, const char *unused)
{
	char names[4096];

	XT_EQ(0, mount("tmpfs", NS_TMPFS, "tmpfs", 0, "mode=0755"));
	XT_EQ(0, mkdir(NS_TMPFS "/low1", 0755));
	XT_EQ(0, mkdir(NS_TMPFS "/low1/d", 0755));
	XT_EQ(0, mkdir(NS_TMPFS "/low1/ctl", 0755));
	XT_EQ(0, mkdir(NS_TMPFS "/low2", 0755));
	XT_EQ(0, mkdir(NS_TMPFS "/low2/d", 0755));
	XT_EQ(0, xt_mknode(NS_TMPFS "/low2/d/hidden", S_IFREG, 0, 0));
	if (!nsmount_sw) {
		/* stock: trusted.* is the initial namespace's alone */
		XT_CHECK_ERR(lsetxattr(NS_TMPFS "/low1/d", "trusted.overlay.opaque",
				       "y", 1, 0), EPERM);
		return;
	}
	XT_EQ(0, lsetxattr(NS_TMPFS "/low1/d", "trusted.overlay.opaque", "y", 1, 0));
	XT_EQ(0, lsetxattr(NS_TMPFS "/low1/d", "trusted.foo", "f", 1, 0));
	/* and a nested namespace's, under its chain relative to this one */
	{
		static const char * const child[] = { "0 0 1\n" };
		pid_t pid = fork();

		if (pid == 0) {
			XT_EQ(0, xt_enter_chain(child, 1));
			XT_EQ(0, lsetxattr(NS_TMPFS "/low1/d", "trusted.kid",
					   "k", 1, 0));
			XT_EQ(0, trusted_names(NS_TMPFS "/low1/d", names,
					       sizeof(names)));
			ASSERT_STREQ("trusted.kid", names);
			_exit(_metadata->exit_code);
		}
		XT_EQ(0, xt_wait(pid));
	}
	/* the namespace uses its names as it spelt them, as stored */
	XT_CHECK(value_is(NS_TMPFS "/low1/d", "trusted.overlay.opaque", "y"));
	XT_EQ(0, trusted_names(NS_TMPFS "/low1/d", names, sizeof(names)));
	ASSERT_STREQ("trusted.<0>kid|trusted.foo|trusted.overlay.opaque", names);
	/* its own overlayfs over its tmpfs honours its marker */
	XT_EQ(0, mkdir(NS_TMPFS "/merged", 0755));
	XT_EQ(0, mount("overlay", NS_TMPFS "/merged", "overlay", MS_RDONLY,
		       "lowerdir=" NS_TMPFS "/low1:" NS_TMPFS "/low2"));
	XT_CHECK_ERR(access(NS_TMPFS "/merged/d/hidden", F_OK), ENOENT);
	XT_EQ(0, umount(NS_TMPFS "/merged"));
}

/*
 * Tests that need no filesystem under test: a mount namespace of their own
 * with a tmpfs on /tmp.
 */
FIXTURE(nsmount) {
	bool patched;
	int sw;
};

FIXTURE_SETUP(nsmount)
{
	XT_NEED_ROOT();
	self->patched = xt_sysctl_get(SWITCH) >= 0;
	self->sw = xt_switch(SWITCH);
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("tmpfs", "/tmp", "tmpfs", 0, NULL));
}

FIXTURE_TEARDOWN(nsmount)
{
}

/*
 * The host and a tmpfs a namespace mounted. With the switch at 1 the host
 * spells the namespace's names with its chain in front
 * (trusted.<1000>...), finds none of its own plain names there and may
 * store none (they would be the namespace's), and a host overlayfs that
 * uses the tmpfs as a layer does not take the namespace's
 * trusted.overlay.opaque for its own, while the host's own marker, on a
 * layer of its own, is honoured (the control). With the switch at 0 the
 * namespace has no trusted.* names, and the host's view is stock.
 */
TEST_F(nsmount, tmpfs_in_userns_names)
{
	char d[PATH_MAX], names[4096], opts[PATH_MAX * 3 + 64];
	char merged[] = "/tmp/xattr_boundary_merged";
	char low0[] = "/tmp/xattr_boundary_low0";
	char low2[] = "/tmp/xattr_boundary_low2";
	int hold, mntns;
	struct stat st;
	pid_t pid;

	ASSERT_EQ(0, mkdir(NS_TMPFS, 0755));
	ASSERT_EQ(0, chown(NS_TMPFS, XT_OWNER, XT_OWNER));
	nsmount_sw = self->sw;
	pid = ns_mounter(_metadata, ns_tmpfs_names, NULL, &hold);
	ASSERT_LT(0, pid);
	snprintf(d, sizeof(d), "/proc/%d/root" NS_TMPFS "/low1/d", pid);
	ASSERT_EQ(0, trusted_names(d, names, sizeof(names)));
	if (self->sw) {
		ASSERT_STREQ(NS_TMPFS_NAMES, names);
		ASSERT_TRUE(value_is(d, "trusted.<1000>overlay.opaque", "y"));
		ASSERT_TRUE(value_is(d, "trusted.<1000><0>kid", "k"));
		errno = 0;
		ASSERT_EQ(-1, lgetxattr(d, "trusted.overlay.opaque", NULL, 0));
		ASSERT_EQ(ENODATA, errno);
		errno = 0;
		ASSERT_EQ(-1, lgetxattr(d, "trusted.foo", NULL, 0));
		ASSERT_EQ(ENODATA, errno);
		/*
		 * the host stores no plain name of its own there: the
		 * filesystem holds none of the namespaces above its own
		 */
		errno = 0;
		ASSERT_EQ(-1, lsetxattr(d, "trusted.host", "h", 1, 0));
		ASSERT_EQ(EOPNOTSUPP, errno);
		errno = 0;
		ASSERT_EQ(-1, lremovexattr(d, "trusted.host"));
		ASSERT_EQ(EOPNOTSUPP, errno);
		errno = 0;
		ASSERT_EQ(-1, lsetxattr(d, "trusted.<1000>", "h", 1, 0));
		ASSERT_EQ(EINVAL, errno);
		/* and uses the namespace's as it spells them */
		ASSERT_EQ(0, lsetxattr(d, "trusted.<1000>byhost", "b", 1, 0));
		ASSERT_EQ(0, lremovexattr(d, "trusted.<1000>byhost"));
	} else {
		ASSERT_STREQ("", names);
		/* stock: the host's names on any filesystem */
		ASSERT_EQ(0, lsetxattr(d, "trusted.host", "h", 1, 0));
		ASSERT_TRUE(value_is(d, "trusted.host", "h"));
		ASSERT_EQ(0, lremovexattr(d, "trusted.host"));
	}

	/* a host overlayfs, in the namespace's mount namespace */
	ASSERT_EQ(0, mkdir(low0, 0755));
	ASSERT_EQ(0, mkdir("/tmp/xattr_boundary_low0/ctl", 0755));
	ASSERT_EQ(0, lsetxattr("/tmp/xattr_boundary_low0/ctl",
			       "trusted.overlay.opaque", "y", 1, 0));
	ASSERT_EQ(0, mkdir(low2, 0755));
	ASSERT_EQ(0, mkdir("/tmp/xattr_boundary_low2/d", 0755));
	ASSERT_EQ(0, mkdir("/tmp/xattr_boundary_low2/ctl", 0755));
	ASSERT_EQ(0, xt_mknode("/tmp/xattr_boundary_low2/d/hidden", S_IFREG, 0, 0));
	ASSERT_EQ(0, xt_mknode("/tmp/xattr_boundary_low2/ctl/hidden", S_IFREG, 0, 0));
	ASSERT_EQ(0, mkdir(merged, 0755));
	snprintf(d, sizeof(d), "/proc/%d/ns/mnt", pid);
	mntns = open(d, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, mntns);
	ASSERT_EQ(0, setns(mntns, CLONE_NEWNS));
	close(mntns);
	snprintf(opts, sizeof(opts), "lowerdir=%s:%s/low1:%s", low0, NS_TMPFS, low2);
	ASSERT_EQ(0, mount("overlay", merged, "overlay", MS_RDONLY, opts))
		TH_LOG("overlay: %s", strerror(errno));
	/* the namespace's name is no opaque marker for the host */
	EXPECT_EQ(0, stat("/tmp/xattr_boundary_merged/d/hidden", &st));
	/* the host's own is */
	EXPECT_EQ(-1, stat("/tmp/xattr_boundary_merged/ctl/hidden", &st));
	ASSERT_EQ(0, umount(merged));

	close(hold);
	ASSERT_EQ(0, xt_wait(pid));
}

/*
 * kernfs keeps xattrs in memory, on nodes that outlive the namespaces
 * that write them. The initial namespace's trusted.* names are never
 * limited there, at either switch and on a stock kernel, chains included.
 * A namespace's names (switch 1) are treated like user.* xattrs: at most
 * 128 of them, of 128 KiB in all, per node (ENOSPC), counted apart from
 * the user.* ones, on a delegated cgroup; refused with EOPNOTSUPP on sysfs,
 * which takes no user.* xattrs.
 *
 * Each test mounts cgroup2 or sysfs in a mount namespace of its own. The
 * cgroups it makes outlive that mount namespace: the teardown removes
 * them, whatever happened, from a mount namespace of its own too.
 */
#define KERNFS_MNT "/tmp/xattr_boundary_kernfs"
#define KERNFS_MAX_CGROUPS 4
#define KERNFS_MAX_NAMES 128		/* KERNFS_MAX_USER_XATTRS */
#define KERNFS_MAX_BYTES (128 << 10)	/* KERNFS_USER_XATTR_SIZE_LIMIT */

/* The cgroups a test made, under the cgroup2 root, for the teardown. */
struct kernfs_cgroups {
	int n;
	char name[KERNFS_MAX_CGROUPS][64];
};

FIXTURE(kernfs) {
	bool patched;
	int sw;
	struct kernfs_cgroups cgs;
};

FIXTURE_SETUP(kernfs)
{
	XT_NEED_ROOT();
	self->patched = xt_sysctl_get(SWITCH) >= 0;
	self->sw = xt_switch(SWITCH);
	self->cgs.n = 0;
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("tmpfs", "/tmp", "tmpfs", 0, NULL));
	ASSERT_EQ(0, mkdir(KERNFS_MNT, 0755));
}

FIXTURE_TEARDOWN_PARENT(kernfs)
{
	pid_t pid;
	int i;

	if (!self->cgs.n)
		return;
	pid = fork();
	if (pid == 0) {
		char path[PATH_MAX];

		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tmpfs", "/tmp", "tmpfs", 0, NULL) ||
		    mkdir(KERNFS_MNT, 0755) ||
		    mount("cgroup2", KERNFS_MNT, "cgroup2", 0, NULL))
			_exit(1);
		for (i = 0; i < self->cgs.n; i++) {
			snprintf(path, sizeof(path), KERNFS_MNT "/%s",
				 self->cgs.name[i]);
			if (rmdir(path) && errno != ENOENT)
				fprintf(stderr, "# cannot remove cgroup %s: %s\n",
					path, strerror(errno));
		}
		_exit(0);
	}
	if (pid > 0)
		xt_wait(pid);
}

/* cgroup2 at KERNFS_MNT, or SKIP with the reason. */
#define KERNFS_CGROUP2() do {						\
	if (mount("cgroup2", KERNFS_MNT, "cgroup2", 0, NULL))		\
		SKIP(return, "cannot mount cgroup2 at " KERNFS_MNT ": %s", \
		     strerror(errno));					\
} while (0)

/* A new cgroup under the cgroup2 root, owned by uid:gid, at cg. */
static void kernfs_cgroup(struct __test_metadata *_metadata,
			  struct kernfs_cgroups *cgs, const char *tag,
			  uid_t uid, char *cg, size_t len)
{
	ASSERT_GT(KERNFS_MAX_CGROUPS, cgs->n);
	snprintf(cgs->name[cgs->n], sizeof(cgs->name[0]), "xattr_boundary.%d.%s",
		 getpid(), tag);
	snprintf(cg, len, KERNFS_MNT "/%s", cgs->name[cgs->n]);
	ASSERT_EQ(0, mkdir(cg, 0755)) {
		TH_LOG("mkdir %s: %s", cg, strerror(errno));
	}
	cgs->n++;
	ASSERT_EQ(0, chown(cg, uid, uid));
}

/* How many names of a listing begin with prefix. */
static int count_names(struct __test_metadata *_metadata, const char *path,
		       const char *prefix)
{
	static char list[XATTR_LIST_MAX];
	ssize_t len = llistxattr(path, list, sizeof(list)), off;
	int n = 0;

	EXPECT_LE(0, len) {
		TH_LOG("llistxattr %s: %s", path, strerror(errno));
	}
	for (off = 0; off < len; off += strlen(list + off) + 1)
		if (!strncmp(list + off, prefix, strlen(prefix)))
			n++;
	return n;
}

/*
 * cgroup2 is one superblock for the whole system, owned by the initial
 * namespace: a namespace's trusted.delegate on a cgroup delegated to it
 * is stored under its chain, and the host does not take it for the
 * delegation marker it sets itself.
 */
static void ns_delegate(struct __test_metadata *_metadata, const char *cg)
{
	char name[32];
	int i;

	XT_EQ(0, lsetxattr(cg, "trusted.delegate", "1", 1, 0));
	XT_CHECK(value_is(cg, "trusted.delegate", "1"));
	/*
	 * kernfs counts a namespace's names like user.* ones, at most 128 a
	 * node: no unbounded pile of xattrs on a global object
	 */
	for (i = 1; i < 128; i++) {
		snprintf(name, sizeof(name), "trusted.n%d", i);
		XT_EQ(0, lsetxattr(cg, name, "v", 1, 0));
	}
	XT_CHECK_ERR(lsetxattr(cg, "trusted.one_more", "v", 1, 0), ENOSPC);
	XT_EQ(0, lremovexattr(cg, "trusted.n1"));
	XT_EQ(0, lsetxattr(cg, "trusted.one_more", "v", 1, 0));
}

#define KERNFS_NEED_SWITCH() do {					\
	if (!self->sw)							\
		SKIP(return, "fs.xattr_trusted_userns is 0 in this boot (%s)", \
		     self->patched ? "boot with it at 1" : "a kernel without it"); \
} while (0)

TEST_F(kernfs, cgroup2_delegate_keeps_chain)
{
	char cg[PATH_MAX];

	KERNFS_NEED_SWITCH();
	KERNFS_CGROUP2();
	kernfs_cgroup(_metadata, &self->cgs, "delegate", XT_OWNER, cg, sizeof(cg));
	EXPECT_EQ(0, in_userns(_metadata, XT_OWNER, ns_delegate, cg));
	ASSERT_EQ(0, lgetxattr(cg, "trusted.<1000>delegate", NULL, 0) == 1 ? 0 : -1);
	/* the host's own names are not limited */
	for (int i = 0; i < 130; i++) {
		char name[32];

		snprintf(name, sizeof(name), "trusted.host%d", i);
		ASSERT_EQ(0, lsetxattr(cg, name, "v", 1, 0));
	}
	EXPECT_EQ(-1, lgetxattr(cg, "trusted.delegate", NULL, 0));
	EXPECT_EQ(ENODATA, errno);
}

/*
 * The initial namespace sets 129 names under namespace 1000's chain, of
 * 1 KiB each (more than a namespace may have by number and by size), on
 * a cgroup: they all succeed, at either switch, as on a stock kernel.
 */
TEST_F(kernfs, root_chain_names_unlimited)
{
	static char value[1024];
	char cg[PATH_MAX], name[64], tag[8];
	int i;

	KERNFS_CGROUP2();
	memset(value, 'r', sizeof(value));
	snprintf(tag, sizeof(tag), "root%d", self->sw);
	kernfs_cgroup(_metadata, &self->cgs, tag, 0, cg, sizeof(cg));
	for (i = 0; i <= KERNFS_MAX_NAMES; i++) {
		snprintf(name, sizeof(name), "trusted.<1000>n%03d", i);
		ASSERT_EQ(0, lsetxattr(cg, name, value, sizeof(value), XATTR_CREATE))
			TH_LOG("switch %d: %s: %s", self->sw, name, strerror(errno));
	}
	ASSERT_EQ(KERNFS_MAX_NAMES + 1, count_names(_metadata, cg, "trusted.<1000>n"));
	for (i = 0; i <= KERNFS_MAX_NAMES; i++) {
		snprintf(name, sizeof(name), "trusted.<1000>n%03d", i);
		ASSERT_EQ((ssize_t)sizeof(value), lgetxattr(cg, name, NULL, 0));
	}
	/* and one more after a replace */
	ASSERT_EQ(0, lsetxattr(cg, "trusted.<1000>n000", "w", 1, XATTR_REPLACE));
	ASSERT_EQ(0, lsetxattr(cg, "trusted.<1000>more", "m", 1, XATTR_CREATE));
}

/*
 * In the namespace whose root owns the cgroup: 128 trusted.* names, not
 * one more (a descendant's neither: they are stored on the node too),
 * and apart from them 128 user.* names; a replace at the limit fares as
 * for user.*; removing one name makes room for one.
 */
static void ns_kernfs_count(struct __test_metadata *_metadata, const char *cg)
{
	char name[64];
	int i, terr, uerr;

	for (i = 0; i < KERNFS_MAX_NAMES; i++) {
		snprintf(name, sizeof(name), "trusted.n%03d", i);
		XT_EQ(0, lsetxattr(cg, name, "v", 1, XATTR_CREATE));
	}
	XT_CHECK_ERR(lsetxattr(cg, "trusted.n128", "v", 1, XATTR_CREATE), ENOSPC);
	XT_CHECK_ERR(lsetxattr(cg, "trusted.n128", "v", 1, 0), ENOSPC);
	XT_CHECK_ERR(lgetxattr(cg, "trusted.n128", NULL, 0), ENODATA);
	XT_CHECK_ERR(lsetxattr(cg, "trusted.<5>child", "v", 1, 0), ENOSPC);
	XT_EQ(KERNFS_MAX_NAMES, count_names(_metadata, cg, "trusted."));
	for (i = 0; i < KERNFS_MAX_NAMES; i++) {
		snprintf(name, sizeof(name), "user.u%03d", i);
		XT_EQ(0, lsetxattr(cg, name, "v", 1, XATTR_CREATE));
	}
	XT_CHECK_ERR(lsetxattr(cg, "user.u128", "v", 1, XATTR_CREATE), ENOSPC);
	XT_EQ(KERNFS_MAX_NAMES, count_names(_metadata, cg, "user."));
	/* a replace with both counts at the limit: the same for both */
	errno = 0;
	terr = lsetxattr(cg, "trusted.n000", "w", 1, XATTR_REPLACE) ? errno : 0;
	errno = 0;
	uerr = lsetxattr(cg, "user.u000", "w", 1, XATTR_REPLACE) ? errno : 0;
	XT_EQ(uerr, terr);
	if (terr != uerr)
		TH_LOG("replace at the limit: trusted.* errno %d, user.* errno %d",
		       terr, uerr);
	/* room for one again */
	XT_EQ(0, lremovexattr(cg, "trusted.n000"));
	XT_EQ(0, lsetxattr(cg, "trusted.n128", "v", 1, XATTR_CREATE));
	XT_CHECK(value_is(cg, "trusted.n128", "v"));
	XT_CHECK_ERR(lsetxattr(cg, "trusted.n000", "v", 1, XATTR_CREATE), ENOSPC);
	XT_EQ(0, lremovexattr(cg, "trusted.n001"));
	XT_EQ(0, lsetxattr(cg, "trusted.<5>child", "c", 1, XATTR_CREATE));
	XT_CHECK(value_is(cg, "trusted.<5>child", "c"));
	XT_EQ(KERNFS_MAX_NAMES, count_names(_metadata, cg, "trusted."));
}

/*
 * 128 KiB of trusted.* values, not one byte more; user.* has its own. A
 * replace at the limit fares as for user.*; removing a value frees room.
 */
static void ns_kernfs_size(struct __test_metadata *_metadata, const char *cg)
{
	static char big[XATTR_SIZE_MAX];
	int terr, uerr;

	memset(big, 'b', sizeof(big));
	XT_EQ(0, lsetxattr(cg, "trusted.big0", big, sizeof(big), XATTR_CREATE));
	XT_EQ(0, lsetxattr(cg, "trusted.big1", big,
			   KERNFS_MAX_BYTES - sizeof(big), XATTR_CREATE));
	XT_CHECK_ERR(lsetxattr(cg, "trusted.small", "s", 1, XATTR_CREATE), ENOSPC);
	XT_CHECK_ERR(lgetxattr(cg, "trusted.small", NULL, 0), ENODATA);
	XT_EQ(0, lsetxattr(cg, "user.big0", big, sizeof(big), XATTR_CREATE));
	XT_EQ(0, lsetxattr(cg, "user.big1", big,
			   KERNFS_MAX_BYTES - sizeof(big), XATTR_CREATE));
	XT_CHECK_ERR(lsetxattr(cg, "user.small", "s", 1, XATTR_CREATE), ENOSPC);
	errno = 0;
	terr = lsetxattr(cg, "trusted.big1", "x", 1, XATTR_REPLACE) ? errno : 0;
	errno = 0;
	uerr = lsetxattr(cg, "user.big1", "x", 1, XATTR_REPLACE) ? errno : 0;
	XT_EQ(uerr, terr);
	if (terr != uerr)
		TH_LOG("replace at the limit: trusted.* errno %d, user.* errno %d",
		       terr, uerr);
	XT_EQ(0, lremovexattr(cg, "trusted.big1"));
	XT_EQ(0, lsetxattr(cg, "trusted.small", "s", 1, XATTR_CREATE));
	XT_CHECK(value_is(cg, "trusted.small", "s"));
	XT_EQ((ssize_t)sizeof(big), lgetxattr(cg, "trusted.big0", NULL, 0));
}

TEST_F(kernfs, ns_names_limited_on_cgroup)
{
	char cg[PATH_MAX], cgbig[PATH_MAX], name[64];
	int i;

	KERNFS_NEED_SWITCH();
	KERNFS_CGROUP2();
	kernfs_cgroup(_metadata, &self->cgs, "ns", XT_OWNER, cg, sizeof(cg));
	kernfs_cgroup(_metadata, &self->cgs, "nsbig", XT_OWNER, cgbig, sizeof(cgbig));
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, ns_kernfs_count, cg));
	/* the namespace's names, as stored */
	ASSERT_EQ(KERNFS_MAX_NAMES - 1, count_names(_metadata, cg, "trusted.<1000>n"));
	ASSERT_TRUE(value_is(cg, "trusted.<1000>n128", "v"));
	ASSERT_TRUE(value_is(cg, "trusted.<1000><5>child", "c"));
	/* the initial namespace is not limited, at the namespace's limit */
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "trusted.<1000>root%d", i);
		ASSERT_EQ(0, lsetxattr(cg, name, "r", 1, XATTR_CREATE));
	}
	ASSERT_EQ(0, lsetxattr(cg, "trusted.host", "h", 1, XATTR_CREATE));
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, ns_kernfs_size, cgbig));
	ASSERT_EQ(XATTR_SIZE_MAX, lgetxattr(cgbig, "trusted.<1000>big0", NULL, 0));
}

/*
 * sysfs takes no user.* xattrs, and so no namespace's trusted.* ones: a
 * namespace whose root is host uid 0 has CAP_SYS_ADMIN over the sysfs
 * node, and gets for trusted.* what it gets for user.*: EOPNOTSUPP to set
 * and remove, ENODATA to get. With the switch off, the stock EPERM; a
 * namespace without privilege over the node gets EPERM at either switch.
 */
static void ns_sysfs_refused(struct __test_metadata *_metadata, const char *node)
{
	XT_CHECK_ERR(lsetxattr(node, "user.x", "v", 1, 0), EOPNOTSUPP);
	XT_CHECK_ERR(lsetxattr(node, "trusted.x", "v", 1, 0), EOPNOTSUPP);
	XT_CHECK_ERR(lsetxattr(node, "trusted.x", "v", 1, XATTR_CREATE), EOPNOTSUPP);
	XT_CHECK_ERR(lsetxattr(node, "trusted.<5>x", "v", 1, 0), EOPNOTSUPP);
	XT_CHECK_ERR(lremovexattr(node, "user.x"), EOPNOTSUPP);
	XT_CHECK_ERR(lremovexattr(node, "trusted.x"), EOPNOTSUPP);
	XT_CHECK_ERR(lgetxattr(node, "user.x", NULL, 0), ENODATA);
	XT_CHECK_ERR(lgetxattr(node, "trusted.x", NULL, 0), ENODATA);
}

static void ns_sysfs_stock(struct __test_metadata *_metadata, const char *node)
{
	XT_CHECK_ERR(lsetxattr(node, "user.x", "v", 1, 0), EOPNOTSUPP);
	XT_CHECK_ERR(lsetxattr(node, "trusted.x", "v", 1, 0), EPERM);
	XT_CHECK_ERR(lremovexattr(node, "trusted.x"), EPERM);
	XT_CHECK_ERR(lgetxattr(node, "trusted.x", NULL, 0), ENODATA);
}

static void ns_sysfs_unprivileged(struct __test_metadata *_metadata,
				  const char *node)
{
	XT_CHECK_ERR(lsetxattr(node, "trusted.x", "v", 1, 0), EPERM);
	XT_CHECK_ERR(lgetxattr(node, "trusted.x", NULL, 0), ENODATA);
}

TEST_F(kernfs, ns_names_refused_on_sysfs)
{
	const char *node = KERNFS_MNT "/kernel";
	struct stat st;

	if (mount("sysfs", KERNFS_MNT, "sysfs", 0, NULL))
		SKIP(return, "cannot mount sysfs at " KERNFS_MNT ": %s", strerror(errno));
	ASSERT_EQ(0, lstat(node, &st));
	ASSERT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(0U, st.st_uid);
	ASSERT_EQ(0U, st.st_gid);
	/* uid_map and gid_map "0 0 1", written by real root */
	ASSERT_EQ(0, in_userns(_metadata, 0,
			       self->sw ? ns_sysfs_refused : ns_sysfs_stock, node));
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, ns_sysfs_unprivileged, node));
}

/* the names on the lower file, as the host lists them through any mount */
#define IDMAPPED_LOWER_NAMES \
	"trusted.<1000>wrong|trusted.<2000>mine|trusted.<3000>other|trusted.host"

/*
 * An overlayfs that a namespace mounts over an idmapped lower layer: the
 * mount shows the filesystem's uid 2000 as 1000, so the namespace whose
 * root is 1000 owns the lower file through it and its names are stored
 * under <2000>. Copy-up carries exactly those, as the namespace's own on
 * the upper layer (<1000>), never the host's or another namespace's,
 * and never fails over them.
 */
struct ovl_idmapped {
	char lower[512], idmapped[512], upper[512];
};

static void ns_overlay_copy_up(struct __test_metadata *_metadata, const char *arg)
{
	const struct ovl_idmapped *o = (const void *)arg;
	char opts[2048], up[600], work[600], merged[600], f[700];
	char names[4096];

	snprintf(up, sizeof(up), "%s/up", o->upper);
	snprintf(work, sizeof(work), "%s/work", o->upper);
	snprintf(merged, sizeof(merged), "%s/merged", o->upper);
	XT_EQ(0, mount("tmpfs", o->upper, "tmpfs", 0, "mode=0755"));
	XT_CHECK(mkdir(up, 0755) == 0 && mkdir(work, 0755) == 0 &&
		 mkdir(merged, 0755) == 0);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s,userxattr",
		 o->idmapped, up, work);
	if (mount("overlay", merged, "overlay", 0, opts)) {
		TH_LOG("overlay: %s", strerror(errno));
		_exit(xt_ovl_unsupported(errno) ? XT_CHILD_SKIP : 1);
	}
	snprintf(f, sizeof(f), "%s/f", merged);
	/* the namespace's view of the lower file, through the overlay */
	XT_EQ(0, trusted_names(f, names, sizeof(names)));
	ASSERT_STREQ("trusted.mine", names) {
		TH_LOG("the namespace's view through the overlay");
	}
	/* copy it up */
	XT_EQ(0, chmod(f, 0640));
	snprintf(f, sizeof(f), "%s/f", up);
	XT_EQ(0, trusted_names(f, names, sizeof(names)));
	ASSERT_STREQ("trusted.mine", names) {
		TH_LOG("the upper layer's copy");
	}
	XT_CHECK(value_is(f, "trusted.mine", "m"));
	XT_CHECK(value_is(f, "user.u", "u"));
}

TEST_F(boundary, userns_overlay_idmapped_lower)
{
	static struct ovl_idmapped o;
	char f[PATH_MAX], names[4096];
	int userns, hold;
	pid_t pid;

	NEED_SWITCH();
	snprintf(o.lower, sizeof(o.lower), "%s/lower", self->dir);
	snprintf(o.idmapped, sizeof(o.idmapped), "%s/idmapped", self->dir);
	snprintf(o.upper, sizeof(o.upper), "%s/upper", self->dir);
	ASSERT_EQ(0, xt_mknode(o.lower, S_IFDIR, XT_OTHER, XT_OTHER));
	ASSERT_EQ(0, xt_mknode(o.idmapped, S_IFDIR, 0, 0));
	ASSERT_EQ(0, xt_mknode(o.upper, S_IFDIR, XT_OWNER, XT_OWNER));
	snprintf(f, sizeof(f), "%s/f", o.lower);
	ASSERT_EQ(0, xt_mknode(f, S_IFREG, XT_OTHER, XT_OTHER));
	ASSERT_EQ(0, lsetxattr(f, "trusted.host", "h", 1, 0));
	ASSERT_EQ(0, lsetxattr(f, "trusted.<2000>mine", "m", 1, 0));
	ASSERT_EQ(0, lsetxattr(f, "trusted.<3000>other", "o", 1, 0));
	ASSERT_EQ(0, lsetxattr(f, "trusted.<1000>wrong", "w", 1, 0));
	ASSERT_EQ(0, lsetxattr(f, "user.u", "u", 1, 0));

	/* filesystem uid 2000 is 1000 through the idmapped mount */
	userns = xt_userns_fd(XT_OTHER, XT_OWNER, 1);
	ASSERT_LE(0, userns);
	XT_IDMAPPED_MOUNT(o.lower, o.idmapped, userns, variant->fs.fstype);
	snprintf(f, sizeof(f), "%s/f", o.idmapped);
	ASSERT_EQ(0, trusted_names(f, names, sizeof(names)));
	/* the host's view through the mount: the names as stored */
	ASSERT_STREQ(IDMAPPED_LOWER_NAMES, names);

	pid = ns_mounter(_metadata, ns_overlay_copy_up, (const char *)&o, &hold);
	ASSERT_LT(0, pid);
	close(hold);
	XT_WAIT_OVL_CHILD(pid, variant->fs.fstype);
}

/*
 * Names a namespace does not see never make its listing fail: the host
 * and another namespace hold more than XATTR_LIST_MAX bytes of names, and
 * the namespace still lists its one name, with an exact size probe.
 * Filesystems that keep all names in one block cannot hold that much.
 */
static void ns_lists_own(struct __test_metadata *_metadata, const char *file)
{
	char list[64];
	ssize_t len;

	XT_EQ(0, lsetxattr(file, "trusted.mine", "m", 1, 0));
	len = llistxattr(file, NULL, 0);
	XT_EQ((ssize_t)sizeof("trusted.mine"), len);
	XT_EQ(len, llistxattr(file, list, sizeof(list)));
	XT_CHECK(!strcmp(list, "trusted.mine"));
	XT_CHECK_ERR(llistxattr(file, list, len - 1), ERANGE);
}

TEST_F(boundary, userns_list_ignores_foreign_bulk)
{
	char name[XATTR_NAME_MAX + 1];
	size_t total = 0;
	int i;

	NEED_SWITCH();
	for (i = 0; total <= XATTR_LIST_MAX; i++) {
		/* names of 250 bytes: the host's and another namespace's */
		snprintf(name, sizeof(name), i & 1 ? "trusted.<2000>%0236d" :
			 "trusted.%0242d", i);
		if (lsetxattr(self->file, name, "", 0, 0)) {
			if (errno == ENOSPC || errno == E2BIG)
				SKIP(return, "%s holds %zu bytes of names per inode",
				     variant->fs.fstype, total);
			ASSERT_EQ(0, errno);
		}
		total += strlen(name) + 1;
	}
	/* too many for the host to list */
	ASSERT_EQ(-1, llistxattr(self->file, NULL, 0) > XATTR_LIST_MAX ? -1 : 0);
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, ns_lists_own, self->file));
}

/*
 * getxattr() of a trusted.* name needs CAP_SYS_ADMIN, so listxattr()
 * shows such names to nobody else, on every filesystem, whatever the
 * switch. (Stock btrfs lists them to everybody.)
 */
static void lists_no_trusted(struct __test_metadata *_metadata, const char *file)
{
	char names[4096];

	XT_EQ(0, trusted_names(file, names, sizeof(names)));
	ASSERT_STREQ("", names) {
		TH_LOG("listed to uid %d", getuid());
	}
}

TEST_F(boundary, unprivileged_list_has_no_trusted)
{
	int status;
	pid_t pid;

	if (self->lists_trusted)
		SKIP(return, "this btrfs lists trusted.* to everybody (without the fix)");
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.host", "h", 1, 0));
	ASSERT_EQ(0, lsetxattr(self->file, "user.u", "u", 1, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, xt_become(XT_OTHER, XT_OTHER));
		lists_no_trusted(_metadata, self->file);
		_exit(_metadata->exit_code);
	}
	status = xt_wait(pid);
	ASSERT_EQ(0, status);
}

TEST_HARNESS_MAIN
