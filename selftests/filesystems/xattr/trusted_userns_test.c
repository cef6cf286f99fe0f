// SPDX-License-Identifier: GPL-2.0
/*
 * trusted.* extended attributes and user namespaces.
 *
 * Stock kernels give trusted.* to CAP_SYS_ADMIN in the initial user
 * namespace only: the root of any other namespace gets EPERM to set or
 * remove, ENODATA to get, and no trusted.* names in listxattr(). With
 * fs.xattr_trusted_userns at 0 (its default) a patched kernel must behave
 * the same.
 *
 * With the switch at 1, a namespace whose root maps to uid U stores its
 * trusted.name as trusted.<U>name on a filesystem of the initial
 * namespace; nested namespaces add one <uid> per level. Every caller sees
 * a stored name with its own chain taken off: the initial namespace sees
 * and uses it as stored (trusted.<U>name), as a stock kernel does, and a
 * namespace sees its descendants' names as trusted.<V>name. The "userns"
 * tests prove that ABI (Documentation/filesystems/xattr-userns.rst).
 *
 * The switch is set once per boot, before the tests: each test checks the
 * setting of this boot. The tests of the namespaces' names need it at 1 and
 * SKIP, saying so, at 0, where the refusals are checked.
 */
#include "xattr_util.h"
#include <dirent.h>
#include <time.h>
#include "../../kselftest_harness.h"

FIXTURE(trusted) {
	char dir[256];
	char file[PATH_MAX];
	bool patched;		/* the kernel has the switch */
	int sw;			/* fs.xattr_trusted_userns of this boot */
	bool lists_trusted;	/* to callers who may not read them */
};

FIXTURE_VARIANT(trusted) {
	struct xt_fs fs;
};

XT_FS_VARIANTS(trusted);

FIXTURE_SETUP(trusted)
{
	XT_NEED_ROOT();
	self->patched = xt_sysctl_get(XT_SW_TRUSTED) >= 0;
	self->sw = xt_switch(XT_SW_TRUSTED);
	XT_SETUP_FS(&variant->fs, self->dir);
	if (variant->fs.stock_lists_trusted) {
		int lists = xt_lists_trusted_to_all(self->dir);

		ASSERT_LE(0, lists);
		self->lists_trusted = lists;
		/* the series fixes it before it adds the switch */
		if (self->patched)
			ASSERT_FALSE(self->lists_trusted);
	}
	/* owned by a uid that the test namespaces map as their root */
	ASSERT_EQ(0, chown(self->dir, XT_OWNER, XT_OWNER));
	snprintf(self->file, sizeof(self->file), "%s/reg", self->dir);
	ASSERT_EQ(0, xt_mknode(self->file, S_IFREG, XT_OWNER, XT_OWNER));
	/* an entry of the host's own */
	ASSERT_EQ(0, setxattr(self->file, "trusted.host", "h", 1, XATTR_CREATE));
}

FIXTURE_TEARDOWN(trusted)
{
}

/* Real root: trusted.* works, as it always has. */
TEST_F(trusted, init_root_set_get_list_remove)
{
	char buf[256];
	ssize_t len;

	ASSERT_EQ(0, setxattr(self->file, "trusted.a", "value", 5, XATTR_CREATE));
	errno = 0;
	ASSERT_EQ(-1, setxattr(self->file, "trusted.a", "v", 1, XATTR_CREATE));
	ASSERT_EQ(EEXIST, errno);
	ASSERT_EQ(0, setxattr(self->file, "trusted.a", "other", 5, XATTR_REPLACE));
	ASSERT_EQ(5, getxattr(self->file, "trusted.a", buf, sizeof(buf)));
	ASSERT_EQ(0, memcmp(buf, "other", 5));
	len = listxattr(self->file, buf, sizeof(buf));
	ASSERT_LT(0, len);
	ASSERT_TRUE(xt_list_has(buf, len, "trusted.a"));
	ASSERT_TRUE(xt_list_has(buf, len, "trusted.host"));
	/* the size probe returns what the list needs */
	ASSERT_EQ(len, listxattr(self->file, NULL, 0));
	ASSERT_EQ(0, removexattr(self->file, "trusted.a"));
	errno = 0;
	ASSERT_EQ(-1, getxattr(self->file, "trusted.a", buf, sizeof(buf)));
	ASSERT_EQ(ENODATA, errno);
	errno = 0;
	ASSERT_EQ(-1, setxattr(self->file, "trusted.b", "v", 1, XATTR_REPLACE));
	ASSERT_EQ(ENODATA, errno);
}

/*
 * The checks run as a namespace's root on the file it owns. With the
 * switch at 0, every trusted.* call is refused as on a stock kernel; at 1
 * the namespace has names of its own, and still none of the host's.
 */
static void userns_root_own_names(struct __test_metadata *_metadata,
				  const char *file)
{
	char buf[256];
	ssize_t len;

	XT_EQ(0, setxattr(file, "trusted.ns", "v", 1, XATTR_CREATE));
	XT_EQ(1, getxattr(file, "trusted.ns", buf, sizeof(buf)));
	XT_CHECK_ERR(getxattr(file, "trusted.host", buf, sizeof(buf)), ENODATA);
	/* "trusted.host" is a name of its own, which does not exist */
	XT_CHECK_ERR(setxattr(file, "trusted.host", "v", 1, XATTR_REPLACE),
		     ENODATA);
	XT_CHECK_ERR(removexattr(file, "trusted.host"), ENODATA);
	len = listxattr(file, buf, sizeof(buf));
	XT_CHECK(len >= 0);
	XT_CHECK(xt_list_has(buf, len, "trusted.ns"));
	XT_CHECK(!xt_list_has(buf, len, "trusted.host"));
	XT_EQ(0, removexattr(file, "trusted.ns"));
}

static void userns_root_refused(struct __test_metadata *_metadata, const char *file,
				bool lists_trusted)
{
	char buf[256];
	ssize_t len;

	XT_CHECK_ERR(setxattr(file, "trusted.ns", "v", 1, 0), EPERM);
	XT_CHECK_ERR(setxattr(file, "trusted.ns", "v", 1, XATTR_CREATE), EPERM);
	XT_CHECK_ERR(setxattr(file, "trusted.host", "v", 1, XATTR_REPLACE), EPERM);
	XT_CHECK_ERR(getxattr(file, "trusted.host", buf, sizeof(buf)), ENODATA);
	XT_CHECK_ERR(getxattr(file, "trusted.ns", buf, sizeof(buf)), ENODATA);
	XT_CHECK_ERR(removexattr(file, "trusted.host"), EPERM);
	len = listxattr(file, buf, sizeof(buf));
	XT_CHECK(len >= 0);
	if (lists_trusted) {
		XT_CHECK(xt_list_has(buf, len, "trusted.host"));
		XT_CHECK(!xt_list_has(buf, len, "trusted.ns"));
	} else {
		XT_CHECK(!xt_list_has_prefix(buf, len, "trusted"));
	}
	/* the same owner may use user.*: the namespace itself works */
	XT_EQ(0, setxattr(file, "user.ns", "v", 1, 0));
}

static void check_host_entry(struct __test_metadata *_metadata, const char *file)
{
	char buf[16];

	ASSERT_EQ(1, getxattr(file, "trusted.host", buf, sizeof(buf)));
	ASSERT_EQ('h', buf[0]);
	errno = 0;
	ASSERT_EQ(-1, getxattr(file, "trusted.ns", buf, sizeof(buf)));
	ASSERT_EQ(ENODATA, errno);
}

/*
 * The root of a user namespace that maps uid 0 to the file's owner, as an
 * unprivileged virtiofsd runs: refused at 0; names of its own at 1; either
 * way nothing of the host's changes.
 */
TEST_F(trusted, userns_root)
{
	int userns;
	pid_t pid;

	userns = xt_userns_fd(0, XT_OWNER, 1);
	ASSERT_LE(0, userns);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, xt_enter_userns(userns, 0, 0));
		if (self->sw)
			userns_root_own_names(_metadata, self->file);
		else
			userns_root_refused(_metadata, self->file,
					    self->lists_trusted);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	check_host_entry(_metadata, self->file);
}

/*
 * A namespace that maps its root to the host's root (0 -> 0) has no
 * capability in the initial namespace: refused at 0; at 1 its names are
 * the namespace <0>'s, never the host's.
 */
TEST_F(trusted, userns_root_mapped_to_host_root)
{
	int userns;
	pid_t pid;

	ASSERT_EQ(0, chown(self->file, 0, 0));
	userns = xt_userns_fd(0, 0, 65536);
	ASSERT_LE(0, userns);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, xt_enter_userns(userns, 0, 0));
		if (self->sw)
			userns_root_own_names(_metadata, self->file);
		else
			userns_root_refused(_metadata, self->file,
					    self->lists_trusted);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	check_host_entry(_metadata, self->file);
}

/*
 * The namespaced ABI. A "chain" is a list of uid/gid maps, one per level,
 * each written by the root of the level above; the test process forks a
 * child that enters every level as its root and runs the checks there.
 */

/* root 1000 (the file's owner), room for children */
#define NS_L1 "0 1000 1000\n"
/* root = its parent's uid 5 (host 1005); the owner is its uid 100 */
#define NS_L2 "0 5 50\n100 0 1\n"
/* root = its parent's uid 7 (host 1012); the owner is its uid 100 */
#define NS_L3 "0 7 10\n100 100 1\n"
/* Biederman's case: nested, and its root is its parent's root (0 -> 0) */
#define NS_SAME_ROOT "0 0 1000\n"

static pid_t fork_in_chain(struct __test_metadata *_metadata, const char * const *maps,
			   int depth)
{
	pid_t pid = fork();

	if (pid == 0)
		XT_EQ(0, xt_enter_chain(maps, depth));
	return pid;
}

#define NEED_SWITCH() do {						\
	if (!self->sw)							\
		SKIP(return, "fs.xattr_trusted_userns is 0 in this boot (%s)", \
		     self->patched ? "boot with it at 1" : "a kernel without it"); \
} while (0)

/* Run the block as the root of the namespace chain, in a child. */
#define IN_CHAIN(maps, depth, ...) do {				\
	pid_t __pid = fork_in_chain(_metadata, maps, depth);		\
	ASSERT_LE(0, __pid);						\
	if (__pid == 0) {						\
		__VA_ARGS__;						\
		_exit(_metadata->exit_code);				\
	}								\
	ASSERT_EQ(0, xt_wait(__pid));					\
} while (0)

/* The value of name is exactly val. */
static bool has_value(const char *file, const char *name, const char *val)
{
	char buf[256];
	ssize_t len = getxattr(file, name, buf, sizeof(buf));

	if (len < 0 || (size_t)len != strlen(val) || memcmp(buf, val, len)) {
		fprintf(stderr, "# %s: got %zd bytes (errno %d), want \"%s\"\n",
			name, len, len < 0 ? errno : 0, val);
		return false;
	}
	return true;
}

/*
 * The trusted names listed are exactly the NULL-terminated list want (in
 * any order), and the size probe agrees with the list.
 */
static bool trusted_names_are(const char *file, const char * const *want)
{
	char buf[4096];
	ssize_t len = listxattr(file, buf, sizeof(buf)), off;
	int n = 0, i;

	if (len < 0 || listxattr(file, NULL, 0) != len) {
		fprintf(stderr, "# listxattr: %zd (errno %d), probe disagrees\n", len, errno);
		return false;
	}
	for (off = 0; off < len; off += strlen(buf + off) + 1) {
		if (strncmp(buf + off, "trusted", 7))
			continue;
		for (i = 0; want[i]; i++)
			if (!strcmp(buf + off, want[i]))
				break;
		if (!want[i]) {
			fprintf(stderr, "# listxattr: unexpected %s\n", buf + off);
			return false;
		}
		n++;
	}
	for (i = 0; want[i]; i++)
		;
	if (n != i)
		fprintf(stderr, "# listxattr: %d trusted names, want %d\n", n, i);
	return n == i;
}

#define NAMES(...) ((const char * const []){ __VA_ARGS__, NULL })

/*
 * Depth 1, 2 and 3: each level uses its own trusted.*, each ancestor sees
 * its descendants' entries under the exact name and may use them, and no
 * level sees or changes an ancestor's.
 */
TEST_F(trusted, userns_nested_depth_1_2_3)
{
	static const char * const chain[] = { NS_L1, NS_L2, NS_L3 };
	const char *f = self->file;

	NEED_SWITCH();
	IN_CHAIN(chain, 3, {
		XT_EQ(0, setxattr(f, "trusted.l3", "3", 1, XATTR_CREATE));
		/* an ancestor's name, spelt from here, is our own new entry */
		XT_EQ(0, setxattr(f, "trusted.l1", "fake", 4, XATTR_CREATE));
		XT_CHECK(has_value(f, "trusted.l3", "3"));
		XT_CHECK_ERR(getxattr(f, "trusted.host", NULL, 0), ENODATA);
		XT_CHECK(trusted_names_are(f, NAMES("trusted.l3", "trusted.l1")));
	});
	IN_CHAIN(chain, 2, {
		XT_EQ(0, setxattr(f, "trusted.l2", "2", 1, XATTR_CREATE));
		XT_CHECK(has_value(f, "trusted.<7>l3", "3"));
		XT_EQ(0, setxattr(f, "trusted.<7>l3", "3b", 2, XATTR_REPLACE));
		XT_EQ(0, removexattr(f, "trusted.<7>l1"));
		XT_CHECK_ERR(getxattr(f, "trusted.l1", NULL, 0), ENODATA);
		XT_CHECK(trusted_names_are(f, NAMES("trusted.l2", "trusted.<7>l3")));
	});
	IN_CHAIN(chain, 1, {
		XT_EQ(0, setxattr(f, "trusted.l1", "1", 1, XATTR_CREATE));
		XT_CHECK(has_value(f, "trusted.<5>l2", "2"));
		XT_CHECK(has_value(f, "trusted.<5><7>l3", "3b"));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.l1", "trusted.<5>l2",
						    "trusted.<5><7>l3")));
	});
	/* the initial namespace sees them all, as stored */
	ASSERT_TRUE(has_value(f, "trusted.host", "h"));
	ASSERT_TRUE(has_value(f, "trusted.<1000>l1", "1"));
	ASSERT_TRUE(has_value(f, "trusted.<1000><5>l2", "2"));
	ASSERT_TRUE(has_value(f, "trusted.<1000><5><7>l3", "3b"));
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host", "trusted.<1000>l1",
					       "trusted.<1000><5>l2",
					       "trusted.<1000><5><7>l3")));
	/* and may change and remove them */
	ASSERT_EQ(0, setxattr(f, "trusted.<1000><5>l2", "2h", 2, XATTR_REPLACE));
	ASSERT_EQ(0, removexattr(f, "trusted.<1000><5><7>l3"));
	IN_CHAIN(chain, 3, {
		XT_CHECK_ERR(getxattr(f, "trusted.l3", NULL, 0), ENODATA);
		XT_CHECK(trusted_names_are(f, NAMES(NULL)));
	});
	IN_CHAIN(chain, 2, {
		XT_CHECK(has_value(f, "trusted.l2", "2h"));
	});
}

/*
 * Biederman's case: a namespace nested in another with the same root kuid
 * (0 mapped to 0) cannot read, list, overwrite or remove its parent's
 * entries; its own show in the parent as trusted.<0>name, and in the
 * initial namespace as stored, trusted.<1000><0>name.
 */
TEST_F(trusted, userns_same_root_nested)
{
	static const char * const chain[] = { NS_L1, NS_SAME_ROOT };
	const char *f = self->file;

	NEED_SWITCH();
	IN_CHAIN(chain, 1, {
		XT_EQ(0, setxattr(f, "trusted.label", "parent", 6, XATTR_CREATE));
	});
	IN_CHAIN(chain, 2, {
		XT_CHECK_ERR(getxattr(f, "trusted.label", NULL, 0), ENODATA);
		XT_CHECK(trusted_names_are(f, NAMES(NULL)));
		XT_CHECK_ERR(removexattr(f, "trusted.label"), ENODATA);
		XT_CHECK_ERR(setxattr(f, "trusted.label", "forged", 6, XATTR_REPLACE), ENODATA);
		XT_EQ(0, setxattr(f, "trusted.label", "forged", 6, 0));
		XT_CHECK(has_value(f, "trusted.label", "forged"));
	});
	IN_CHAIN(chain, 1, {
		XT_CHECK(has_value(f, "trusted.label", "parent"));
		XT_CHECK(has_value(f, "trusted.<0>label", "forged"));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.label", "trusted.<0>label")));
	});
	ASSERT_TRUE(has_value(f, "trusted.<1000>label", "parent"));
	ASSERT_TRUE(has_value(f, "trusted.<1000><0>label", "forged"));
}

/*
 * Siblings: two namespaces with the same root uid share entries (the
 * identity is the uid, not the namespace object); a different root uid is
 * another identity and sees nothing of them.
 */
TEST_F(trusted, userns_siblings)
{
	static const char * const same[] = { NS_L1 };
	/* root 1001; the owner 1000 is mapped as its uid 1 */
	static const char * const other[] = { "0 1001 1\n1 1000 1\n" };
	const char *f = self->file;

	NEED_SWITCH();
	IN_CHAIN(same, 1, {
		XT_EQ(0, setxattr(f, "trusted.s", "shared", 6, XATTR_CREATE));
	});
	IN_CHAIN(same, 1, {
		XT_CHECK(has_value(f, "trusted.s", "shared"));
	});
	IN_CHAIN(other, 1, {
		XT_CHECK_ERR(getxattr(f, "trusted.s", NULL, 0), ENODATA);
		XT_CHECK(trusted_names_are(f, NAMES(NULL)));
		XT_EQ(0, setxattr(f, "trusted.s", "mine", 4, XATTR_CREATE));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.s")));
	});
	ASSERT_TRUE(has_value(f, "trusted.<1000>s", "shared"));
	ASSERT_TRUE(has_value(f, "trusted.<1001>s", "mine"));
}

/*
 * No access: a namespace member without CAP_SYS_ADMIN, and a namespace
 * root on an inode whose owner is not mapped in its namespace.
 */
TEST_F(trusted, userns_no_capability_or_unmapped_owner)
{
	static const char * const l1[] = { NS_L1 };
	static const char * const unmapped[] = { "0 2000 1\n" };
	const char *f = self->file;
	pid_t pid;

	NEED_SWITCH();
	IN_CHAIN(l1, 1, {
		XT_EQ(0, setxattr(f, "trusted.x", "v", 1, XATTR_CREATE));
	});
	pid = fork_in_chain(_metadata, l1, 1);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* uid 5 of the namespace: no capabilities */
		XT_EQ(0, xt_become(5, 5));
		XT_CHECK_ERR(setxattr(f, "trusted.y", "v", 1, 0), EPERM);
		XT_CHECK_ERR(getxattr(f, "trusted.x", NULL, 0), ENODATA);
		XT_CHECK_ERR(removexattr(f, "trusted.x"), EPERM);
		XT_CHECK(trusted_names_are(f, NAMES(NULL)));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	IN_CHAIN(unmapped, 1, {
		XT_CHECK_ERR(setxattr(f, "trusted.y", "v", 1, 0), EPERM);
		XT_CHECK_ERR(getxattr(f, "trusted.x", NULL, 0), ENODATA);
		XT_CHECK_ERR(removexattr(f, "trusted.x"), EPERM);
		XT_CHECK(trusted_names_are(f, NAMES(NULL)));
	});
	ASSERT_TRUE(has_value(f, "trusted.<1000>x", "v"));
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host", "trusted.<1000>x")));
}

/*
 * Idmapped mounts: the outermost uid is stored in the filesystem's uid
 * space. A namespace with root 5000 reaching the filesystem through a
 * mount that shows its 1000 as 5000 uses the same entries as root 1000
 * through the plain mount, and so does root 6000 through a mount that
 * shows 1000 as 6000; root 5000 through the second mount has no name.
 */
TEST_F(trusted, userns_idmapped_mounts)
{
	static const char * const r1000[] = { NS_L1 };
	static const char * const r5000[] = { "0 5000 1000\n" };
	static const char * const r6000[] = { "0 6000 1000\n" };
	char m1[PATH_MAX], m2[PATH_MAX];
	const char *rel = self->file + strlen(XT_MNT) + 1;
	int userns;

	NEED_SWITCH();
	snprintf(m1, sizeof(m1), "/tmp/xattr_idmap1/%s", rel);
	snprintf(m2, sizeof(m2), "/tmp/xattr_idmap2/%s", rel);
	ASSERT_EQ(0, mkdir("/tmp/xattr_idmap1", 0755) && errno != EEXIST ? -1 : 0);
	ASSERT_EQ(0, mkdir("/tmp/xattr_idmap2", 0755) && errno != EEXIST ? -1 : 0);
	userns = xt_userns_fd(1000, 5000, 1000);
	ASSERT_LE(0, userns);
	XT_IDMAPPED_MOUNT(XT_MNT, "/tmp/xattr_idmap1", userns, variant->fs.fstype);
	userns = xt_userns_fd(1000, 6000, 1000);
	ASSERT_LE(0, userns);
	XT_IDMAPPED_MOUNT(XT_MNT, "/tmp/xattr_idmap2", userns, variant->fs.fstype);

	IN_CHAIN(r5000, 1, {
		XT_EQ(0, setxattr(m1, "trusted.via1", "1", 1, XATTR_CREATE));
	});
	IN_CHAIN(r6000, 1, {
		XT_CHECK(has_value(m2, "trusted.via1", "1"));
		XT_EQ(0, setxattr(m2, "trusted.via2", "2", 1, XATTR_CREATE));
		XT_CHECK(trusted_names_are(m2, NAMES("trusted.via1", "trusted.via2")));
	});
	IN_CHAIN(r1000, 1, {
		XT_CHECK(has_value(self->file, "trusted.via1", "1"));
		XT_CHECK(has_value(self->file, "trusted.via2", "2"));
	});
	IN_CHAIN(r5000, 1, {
		/* 5000 is nobody on the second mount */
		XT_CHECK_ERR(getxattr(m2, "trusted.via1", NULL, 0), ENODATA);
		XT_CHECK_ERR(setxattr(m2, "trusted.via1", "x", 1, 0), EPERM);
		XT_CHECK(trusted_names_are(m2, NAMES(NULL)));
	});
	ASSERT_TRUE(has_value(self->file, "trusted.<1000>via1", "1"));
	ASSERT_TRUE(has_value(self->file, "trusted.<1000>via2", "2"));
	/*
	 * The host, the filesystem's own namespace, sees and uses every name as
	 * stored, through every mount: a name is no owner, and the host's view
	 * of what is stored does not depend on how it reaches it.
	 */
	ASSERT_TRUE(has_value(m1, "trusted.<1000>via1", "1"));
	ASSERT_TRUE(has_value(m2, "trusted.<1000>via2", "2"));
	ASSERT_TRUE(trusted_names_are(m1, NAMES("trusted.host", "trusted.<1000>via1",
						"trusted.<1000>via2")));
	ASSERT_EQ(0, setxattr(m2, "trusted.<6000>host", "h", 1, XATTR_CREATE));
	ASSERT_TRUE(has_value(self->file, "trusted.<6000>host", "h"));
	/* a name that is no canonical chain goes through as spelt */
	ASSERT_EQ(0, setxattr(m1, "trusted.<01>odd", "o", 1, XATTR_CREATE));
	ASSERT_TRUE(has_value(self->file, "trusted.<01>odd", "o"));
	ASSERT_TRUE(has_value(m2, "trusted.<01>odd", "o"));
	ASSERT_TRUE(trusted_names_are(self->file, NAMES("trusted.host", "trusted.<1000>via1",
							"trusted.<1000>via2", "trusted.<6000>host",
							"trusted.<01>odd")));
	ASSERT_TRUE(trusted_names_are(m2, NAMES("trusted.host", "trusted.<1000>via1",
						"trusted.<1000>via2", "trusted.<6000>host",
						"trusted.<01>odd")));
}

/*
 * A namespace's prefix depends on the way it reaches the filesystem and
 * exists only once its root is mapped, however the kernel computes it:
 * one namespace root (host 5000, with the owner 1000 mapped as its uid 1)
 * uses the plain mount, then a mount that shows 1000 as 5000, then the
 * plain one again; and a namespace that tries before its uid_map is
 * written has no name then and the right one afterwards.
 */
TEST_F(trusted, userns_prefix_per_mount_and_map)
{
	static const char * const r5000[] = { "0 5000 1\n1 1000 1\n" };
	const char *rel = self->file + strlen(XT_MNT) + 1;
	const char *f = self->file;
	int ready[2], mapped[2], userns;
	char m1[PATH_MAX], path[64], c;
	pid_t pid;

	NEED_SWITCH();
	snprintf(m1, sizeof(m1), "/tmp/xattr_idmap1/%s", rel);
	ASSERT_EQ(0, mkdir("/tmp/xattr_idmap1", 0755) && errno != EEXIST ? -1 : 0);
	userns = xt_userns_fd(1000, 5000, 1000);
	ASSERT_LE(0, userns);
	XT_IDMAPPED_MOUNT(XT_MNT, "/tmp/xattr_idmap1", userns, variant->fs.fstype);

	IN_CHAIN(r5000, 1, {
		XT_EQ(0, setxattr(f, "trusted.plain", "p", 1, XATTR_CREATE));
		XT_EQ(0, setxattr(m1, "trusted.mapped", "m", 1, XATTR_CREATE));
		XT_CHECK(has_value(f, "trusted.plain", "p"));
		XT_CHECK_ERR(getxattr(f, "trusted.mapped", NULL, 0), ENODATA);
		XT_CHECK(has_value(m1, "trusted.mapped", "m"));
		XT_CHECK_ERR(getxattr(m1, "trusted.plain", NULL, 0), ENODATA);
		XT_CHECK(trusted_names_are(f, NAMES("trusted.plain")));
		XT_CHECK(trusted_names_are(m1, NAMES("trusted.mapped")));
	});
	ASSERT_TRUE(has_value(f, "trusted.<5000>plain", "p"));
	ASSERT_TRUE(has_value(f, "trusted.<1000>mapped", "m"));

	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(mapped, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, unshare(CLONE_NEWUSER));
		/* no uid_map yet: the namespace's root has no uid anywhere */
		XT_CHECK_ERR(setxattr(f, "trusted.early", "e", 1, 0), EPERM);
		XT_CHECK_ERR(getxattr(f, "trusted.host", NULL, 0), ENODATA);
		XT_EQ(1, write(ready[1], "u", 1));
		XT_EQ(1, read(mapped[0], &c, 1));
		XT_EQ(0, setxattr(f, "trusted.late", "l", 1, XATTR_CREATE));
		/* root 1000's entries, the one made through the mount too */
		XT_CHECK(trusted_names_are(f, NAMES("trusted.mapped", "trusted.late")));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	ASSERT_EQ(0, xt_write_file(path, "0 1000 1\n"));
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	ASSERT_EQ(0, xt_write_file(path, "0 1000 1\n"));
	ASSERT_EQ(1, write(mapped[1], "m", 1));
	ASSERT_EQ(0, xt_wait(pid));
	ASSERT_TRUE(has_value(f, "trusted.<1000>late", "l"));
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host", "trusted.<5000>plain",
					       "trusted.<1000>mapped", "trusted.<1000>late")));
}

/*
 * Entries are ordinary trusted xattrs on disk: they survive an unmount, and
 * the host sees and uses them under the stored name.
 */
TEST_F(trusted, userns_survive_remount)
{
	static const char * const l1[] = { NS_L1 };
	const char *f = self->file;

	NEED_SWITCH();
	if (!variant->fs.dev_env)
		SKIP(return, "%s keeps nothing across an unmount", variant->fs.fstype);
	IN_CHAIN(l1, 1, {
		XT_EQ(0, setxattr(f, "trusted.kept", "k", 1, XATTR_CREATE));
	});
	ASSERT_EQ(0, xt_remount(&variant->fs));
	ASSERT_TRUE(has_value(f, "trusted.<1000>kept", "k"));
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.<1000>kept", "trusted.host")));
	errno = 0;
	ASSERT_EQ(-1, getxattr(f, "trusted<1000>.kept", NULL, 0));
	ASSERT_EQ(EOPNOTSUPP, errno);
	IN_CHAIN(l1, 1, {
		XT_CHECK(has_value(f, "trusted.kept", "k"));
	});
}

/*
 * The initial namespace's view does not depend on the switch. A file that
 * holds the host's names, the names of namespaces at depths 1 to 3 and of
 * a sibling, and host names that only look like chains (those under
 * <1000> no namespace can spell): written by the namespaces themselves
 * with the switch at 1, by root as stored otherwise (as a kernel without
 * the switch, or one with it at 0, may have written them).
 */
#define NS_SIBLING "0 1001 1\n1 1000 1\n"

static void put_names(struct __test_metadata *_metadata, const char *f, int sw)
{
	static const char * const chain[] = { NS_L1, NS_L2, NS_L3 };
	static const char * const sibling[] = { NS_SIBLING };

	if (!sw) {
		ASSERT_EQ(0, setxattr(f, "trusted.<1000><5><7>l3", "3", 1, XATTR_CREATE));
		ASSERT_EQ(0, setxattr(f, "trusted.<1000><5>l2", "2", 1, XATTR_CREATE));
		ASSERT_EQ(0, setxattr(f, "trusted.<1000>l1", "1", 1, XATTR_CREATE));
		ASSERT_EQ(0, setxattr(f, "trusted.<1000><5>by1", "b", 1, XATTR_CREATE));
		ASSERT_EQ(0, setxattr(f, "trusted.<1001>s", "s", 1, XATTR_CREATE));
		goto host;
	}
	IN_CHAIN(chain, 3, {
		XT_EQ(0, setxattr(f, "trusted.l3", "3", 1, XATTR_CREATE));
	});
	IN_CHAIN(chain, 2, {
		XT_EQ(0, setxattr(f, "trusted.l2", "2", 1, XATTR_CREATE));
	});
	IN_CHAIN(chain, 1, {
		XT_EQ(0, setxattr(f, "trusted.l1", "1", 1, XATTR_CREATE));
		/* a name of its child <5>, set by the parent */
		XT_EQ(0, setxattr(f, "trusted.<5>by1", "b", 1, XATTR_CREATE));
	});
	IN_CHAIN(sibling, 1, {
		XT_EQ(0, setxattr(f, "trusted.s", "s", 1, XATTR_CREATE));
	});
host:
	ASSERT_EQ(0, setxattr(f, "trusted.<01>x", "o", 1, XATTR_CREATE));
	ASSERT_EQ(0, setxattr(f, "trusted.<1000>", "c", 1, XATTR_CREATE));
	ASSERT_EQ(0, setxattr(f, "trusted.<1000><01>x", "z", 1, XATTR_CREATE));
	/* namespace 1000's ".dot", set by the host */
	ASSERT_EQ(0, setxattr(f, "trusted.<1000>.dot", "d", 1, XATTR_CREATE));
	ASSERT_EQ(0, setxattr(f, "user.u", "u", 1, XATTR_CREATE));
}

/* What put_names() stored, as the initial namespace lists it. */
#define STORED_NAMES NAMES("trusted.host", "trusted.<1000><5><7>l3",		\
			   "trusted.<1000><5>l2", "trusted.<1000>l1",		\
			   "trusted.<1000><5>by1", "trusted.<1001>s",		\
			   "trusted.<01>x", "trusted.<1000>",			\
			   "trusted.<1000><01>x", "trusted.<1000>.dot")

/* Every namespace of put_names() sees its names, with their values. */
static void check_ns_views(struct __test_metadata *_metadata, const char *f)
{
	static const char * const chain[] = { NS_L1, NS_L2, NS_L3 };
	static const char * const sibling[] = { NS_SIBLING };

	IN_CHAIN(chain, 3, {
		XT_CHECK(has_value(f, "trusted.l3", "3"));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.l3")));
	});
	IN_CHAIN(chain, 2, {
		XT_CHECK(has_value(f, "trusted.l2", "2"));
		XT_CHECK(has_value(f, "trusted.by1", "b"));
		XT_CHECK(has_value(f, "trusted.<7>l3", "3"));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.l2", "trusted.by1",
						    "trusted.<7>l3")));
	});
	IN_CHAIN(chain, 1, {
		XT_CHECK(has_value(f, "trusted.l1", "1"));
		XT_CHECK(has_value(f, "trusted.<5>l2", "2"));
		XT_CHECK(has_value(f, "trusted.<5><7>l3", "3"));
		XT_CHECK(has_value(f, "trusted..dot", "d"));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.l1", "trusted.<5>l2",
						    "trusted.<5>by1", "trusted.<5><7>l3",
						    "trusted..dot")));
	});
	IN_CHAIN(sibling, 1, {
		XT_CHECK(has_value(f, "trusted.s", "s"));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.s")));
	});
}

/* A whole listing, by listxattr() and by flistxattr(). */
struct full_list {
	char buf[4096];
	ssize_t len, probe, flen;
	char fbuf[4096];
};

static void list_all(struct __test_metadata *_metadata, const char *f,
		     struct full_list *l)
{
	int fd = open(f, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, fd);
	l->probe = listxattr(f, NULL, 0);
	l->len = listxattr(f, l->buf, sizeof(l->buf));
	l->flen = flistxattr(fd, l->fbuf, sizeof(l->fbuf));
	close(fd);
	ASSERT_LT(0, l->len);
	ASSERT_EQ(l->len, l->probe);
	ASSERT_EQ(l->len, l->flen);
	ASSERT_EQ(0, memcmp(l->buf, l->fbuf, l->len));
}

/*
 * Root's listing through a plain mount is the stored names, as a stock
 * kernel lists them, whoever wrote them and whatever the switch of this
 * boot: by listxattr() and flistxattr(), the size probe agreeing.
 */
TEST_F(trusted, root_list_as_stored)
{
	static struct full_list l;
	const char *f = self->file;

	put_names(_metadata, f, self->sw);
	ASSERT_TRUE(trusted_names_are(f, STORED_NAMES));
	list_all(_metadata, f, &l);
	ASSERT_TRUE(xt_list_has(l.buf, l.len, "user.u"));
	if (self->sw)
		check_ns_views(_metadata, f);
}

/* getfattr --dump of every trusted.* name root lists. */
#define DUMP_MAX 32

struct tdump {
	int n;
	char name[DUMP_MAX][XATTR_NAME_MAX + 1];
	char value[DUMP_MAX][16];
	ssize_t len[DUMP_MAX];
	const char *names[DUMP_MAX + 1];	/* for trusted_names_are() */
};

static void dump_trusted(struct __test_metadata *_metadata, const char *f,
			 struct tdump *d)
{
	char list[4096];
	ssize_t len = listxattr(f, list, sizeof(list)), off;

	ASSERT_LT(0, len);
	d->n = 0;
	for (off = 0; off < len; off += strlen(list + off) + 1) {
		if (strncmp(list + off, "trusted.", 8))
			continue;
		ASSERT_GT(DUMP_MAX, d->n);
		snprintf(d->name[d->n], sizeof(d->name[0]), "%s", list + off);
		d->len[d->n] = getxattr(f, list + off, d->value[d->n],
					sizeof(d->value[0]));
		ASSERT_LE(0, d->len[d->n]) {
			TH_LOG("listed %s, not readable: %s", list + off,
			       strerror(errno));
		}
		d->names[d->n] = d->name[d->n];
		d->n++;
	}
	d->names[d->n] = NULL;
}

/* Each dumped name: read it, remove it, set it again (XATTR_CREATE). */
static void reset_each(struct __test_metadata *_metadata, const char *f,
		       const struct tdump *d)
{
	char buf[16];
	int i;

	for (i = 0; i < d->n; i++) {
		ASSERT_EQ(d->len[i], getxattr(f, d->name[i], buf, sizeof(buf)))
			TH_LOG("%s: %s", d->name[i], strerror(errno));
		ASSERT_EQ(0, memcmp(buf, d->value[i], d->len[i]));
		ASSERT_EQ(0, removexattr(f, d->name[i]))
			TH_LOG("%s: %s", d->name[i], strerror(errno));
		errno = 0;
		ASSERT_EQ(-1, getxattr(f, d->name[i], NULL, 0));
		ASSERT_EQ(ENODATA, errno);
		ASSERT_EQ(0, setxattr(f, d->name[i], d->value[i], d->len[i],
				      XATTR_CREATE))
			TH_LOG("%s: %s", d->name[i], strerror(errno));
	}
}

static void remove_all(struct __test_metadata *_metadata, const char *f,
		       const struct tdump *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		ASSERT_EQ(0, removexattr(f, d->name[i]))
			TH_LOG("%s: %s", d->name[i], strerror(errno));
	ASSERT_TRUE(trusted_names_are(f, NAMES(NULL)));
}

static void restore_all(struct __test_metadata *_metadata, const char *f,
			const struct tdump *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		ASSERT_EQ(0, setxattr(f, d->name[i], d->value[i], d->len[i],
				      XATTR_CREATE))
			TH_LOG("%s: %s", d->name[i], strerror(errno));
}

/*
 * A name root lists is a name it can use: it reads, removes and sets each
 * again, and a getfattr --dump restores them all; with the switch at 1 the
 * namespaces find their names as they were.
 */
TEST_F(trusted, root_names_dump_restore)
{
	static struct tdump d;
	const char *f = self->file;

	put_names(_metadata, f, self->sw);
	dump_trusted(_metadata, f, &d);
	ASSERT_EQ(10, d.n);
	ASSERT_TRUE(trusted_names_are(f, STORED_NAMES));
	reset_each(_metadata, f, &d);
	ASSERT_TRUE(trusted_names_are(f, d.names));
	if (self->sw)
		check_ns_views(_metadata, f);
	dump_trusted(_metadata, f, &d);
	ASSERT_EQ(10, d.n);
	remove_all(_metadata, f, &d);
	restore_all(_metadata, f, &d);
	ASSERT_TRUE(trusted_names_are(f, STORED_NAMES));
	if (self->sw)
		check_ns_views(_metadata, f);
}

/*
 * The overflow uid (kernel.overflowuid, 65534: nobody) is a uid like any
 * other for the chains: a namespace whose root is nobody, one level down or
 * nested, has the names under <65534>, which every process of uid nobody
 * can claim (as Documentation/filesystems/xattr-userns.rst says of every
 * uid: a file server must not run as nobody). What is unmapped has no
 * chain: from_kuid() never reports the overflow uid.
 */
TEST_F(trusted, userns_overflow_root_is_a_uid)
{
	int ov = xt_sysctl_get("/proc/sys/kernel/overflowuid");
	char nobody[64], wide[64], nested[64], top[64], deep[64];
	const char *f = self->file;
	const char *d1[1] = { nobody }, *d2[2] = { wide, nested };

	NEED_SWITCH();
	ASSERT_LT(1, ov) TH_LOG("kernel.overflowuid: %d", ov);
	/* one level down: root is nobody; the file's owner is its uid 1 */
	snprintf(nobody, sizeof(nobody), "0 %d 1\n1 1000 1\n", ov);
	/* nested: root 1000 with nobody mapped, then a root that is its nobody */
	snprintf(wide, sizeof(wide), "0 1000 1\n1 200000 %d\n", ov + 1);
	snprintf(nested, sizeof(nested), "0 %d 1\n1 0 1\n", ov);
	snprintf(top, sizeof(top), "trusted.<%d>x", ov);
	snprintf(deep, sizeof(deep), "trusted.<1000><%d>x", ov);

	IN_CHAIN(d1, 1, {
		XT_EQ(0, setxattr(f, "trusted.x", "1", 1, XATTR_CREATE));
		XT_CHECK(has_value(f, "trusted.x", "1"));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.x")));
	});
	IN_CHAIN(d2, 2, {
		XT_EQ(0, setxattr(f, "trusted.x", "2", 1, XATTR_CREATE));
		XT_CHECK(has_value(f, "trusted.x", "2"));
		XT_CHECK(trusted_names_are(f, NAMES("trusted.x")));
	});
	ASSERT_TRUE(has_value(f, top, "1"));
	ASSERT_TRUE(has_value(f, deep, "2"));
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host", top, deep)));
}

/*
 * v2 spelt a namespace's names "trusted<1000>.x"; there is no such
 * spelling any more. A name that begins "trusted<" is no trusted.* name:
 * the VFS leaves it alone, and no handler of the filesystems under test
 * takes it (EOPNOTSUPP), for every caller at either switch, as on a stock
 * kernel.
 */
static const char * const not_trusted[] = {
	"trusted<", "trusted<>", "trusted<01>.x", "trusted<+1>.x",
	"trusted<-1>.x", "trusted<4294967295>.x", "trusted<1",
	"trusted<1>", "trusted<1>.", "trusted<1>x", "trusted<a>.b",
	"trusted<1><>.x", "trusted< 1>.x", "trusted<1>.<2>.x",
	/* what v2 took for the names of namespaces 1000, 1000/5 and 0 */
	"trusted<1000>.x", "trusted<1000><5>.x", "trusted<0>.x",
};

/*
 * In a namespace, "trusted." must go on with a name that does not begin
 * with "<", or with a descendant's canonical chain and such a name:
 * anything else is EINVAL. In the initial namespace all but "trusted."
 * are ordinary names, stored as spelt (userns_malformed_names_host_names
 * below, and trusted_boundary_test).
 */
static const char * const ns_malformed[] = {
	"trusted.", "trusted.<", "trusted.<>", "trusted.<>x", "trusted.<01>x",
	"trusted.<00>x", "trusted.<+1>x", "trusted.<-1>x",
	"trusted.<4294967295>x", "trusted.<99999999999999999999>x",
	"trusted.<1", "trusted.<1>", "trusted.<0>", "trusted.<1><",
	"trusted.<1><2>", "trusted.<a>b", "trusted.<x>y", "trusted.<1><>x",
	"trusted.< 1>x", "trusted.<1 >x", "trusted.<1><01>x", "trusted.<<1>>x",
};

/*
 * A canonical chain and then a name, however odd: a descendant's name,
 * which a namespace may use. Stored under the namespace's chain as
 * "trusted.<1000>" + what follows "trusted.".
 */
static const char * const ns_odd_but_valid[] = {
	"trusted.<1>.x", "trusted.<1>>x", "trusted.<0>.", "trusted.<4294967294>x",
	"trusted.<1>.<2>.x", "trusted.<1>x<2>", "trusted.<1><2>.",
};

/* A name whose set, get and remove fail with these errors. */
static void check_errs(struct __test_metadata *_metadata, const char *f,
		       const char *name, int set_err, int get_err, int rm_err)
{
	int s, g, r;

	errno = 0;
	s = setxattr(f, name, "v", 1, 0) == -1 ? errno : 0;
	errno = 0;
	g = getxattr(f, name, NULL, 0) == -1 ? errno : 0;
	errno = 0;
	r = removexattr(f, name) == -1 ? errno : 0;
	ASSERT_TRUE(s == set_err && g == get_err && r == rm_err) {
		TH_LOG("%s: set/get/remove errno %d/%d/%d, want %d/%d/%d",
		       name, s, g, r, set_err, get_err, rm_err);
	}
}

/* Every name of not_trusted[]: no handler, in every namespace. */
static void check_not_trusted(struct __test_metadata *_metadata, const char *f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(not_trusted); i++)
		check_errs(_metadata, f, not_trusted[i], EOPNOTSUPP, EOPNOTSUPP,
			   EOPNOTSUPP);
}

/*
 * With the switch at 1, a namespace gets EINVAL for the names of
 * ns_malformed[], and EOPNOTSUPP for those of not_trusted[] (it may write
 * the file: the error is the missing handler's), as does the initial
 * namespace. At 0, a namespace gets what a stock kernel gives it: EPERM and
 * ENODATA for every trusted.* name, EOPNOTSUPP for the others.
 */
TEST_F(trusted, userns_malformed_names)
{
	static const char * const l1[] = { NS_L1 };
	const char *f = self->file;
	int sw = self->sw;
	size_t i;

	check_not_trusted(_metadata, f);
	IN_CHAIN(l1, 1, {
		for (i = 0; i < ARRAY_SIZE(ns_malformed); i++) {
			if (sw)
				check_errs(_metadata, f, ns_malformed[i], EINVAL,
					   EINVAL, EINVAL);
			else
				check_errs(_metadata, f, ns_malformed[i], EPERM,
					   ENODATA, EPERM);
		}
		for (i = 0; !sw && i < ARRAY_SIZE(ns_odd_but_valid); i++)
			check_errs(_metadata, f, ns_odd_but_valid[i], EPERM, ENODATA,
				   EPERM);
		check_not_trusted(_metadata, f);
		/* stock btrfs lists trusted.* to everybody */
		if (self->lists_trusted)
			XT_CHECK(trusted_names_are(f, NAMES("trusted.host")));
		else
			XT_CHECK(trusted_names_are(f, NAMES(NULL)));
	});
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host")));
}

/*
 * A canonical chain followed by any name is a descendant's name: the
 * namespace sets, reads, lists and removes it as spelt, and the initial
 * namespace finds it under the namespace's chain.
 */
TEST_F(trusted, userns_odd_descendant_names)
{
	static const char * const l1[] = { NS_L1 };
	const char *want[ARRAY_SIZE(ns_odd_but_valid) + 1];
	char stored[ARRAY_SIZE(ns_odd_but_valid)][64];
	const char *host_want[ARRAY_SIZE(ns_odd_but_valid) + 2];
	const char *f = self->file;
	size_t i;

	NEED_SWITCH();
	for (i = 0; i < ARRAY_SIZE(ns_odd_but_valid); i++) {
		want[i] = ns_odd_but_valid[i];
		snprintf(stored[i], sizeof(stored[i]), "trusted.<1000>%s",
			 ns_odd_but_valid[i] + strlen("trusted."));
		host_want[i] = stored[i];
	}
	want[i] = NULL;
	host_want[i] = "trusted.host";
	host_want[i + 1] = NULL;
	IN_CHAIN(l1, 1, {
		for (i = 0; i < ARRAY_SIZE(ns_odd_but_valid); i++) {
			XT_EQ(0, setxattr(f, ns_odd_but_valid[i], "o", 1, XATTR_CREATE));
			XT_CHECK(has_value(f, ns_odd_but_valid[i], "o"));
		}
		XT_CHECK(trusted_names_are(f, want));
	});
	ASSERT_TRUE(trusted_names_are(f, host_want));
	for (i = 0; i < ARRAY_SIZE(ns_odd_but_valid); i++)
		ASSERT_TRUE(has_value(f, stored[i], "o"));
	IN_CHAIN(l1, 1, {
		for (i = 0; i < ARRAY_SIZE(ns_odd_but_valid); i++)
			XT_EQ(0, removexattr(f, ns_odd_but_valid[i]));
		XT_CHECK(trusted_names_are(f, NAMES(NULL)));
	});
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host")));
}

/*
 * The initial namespace uses every trusted.* name as it is spelt, at
 * either switch: the names of ns_malformed[] (but "trusted.", which no
 * handler takes) are ordinary names of its own, stored, read, listed and
 * removed as spelt; no namespace sees them, nor the same after its own
 * chain, which it cannot spell. One name at a time, as a filesystem with
 * 1 KiB blocks keeps few names per inode.
 */
TEST_F(trusted, userns_malformed_names_host_names)
{
	static const char * const l1[] = { NS_L1 };
	const char *f = self->file;
	char under[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ns_malformed); i++) {
		const char *name = ns_malformed[i];

		if (!strcmp(name, "trusted."))
			continue;
		/* the same after namespace 1000's chain */
		snprintf(under, sizeof(under), "trusted.<1000>%s",
			 name + strlen("trusted."));
		ASSERT_EQ(0, setxattr(f, name, "m", 1, XATTR_CREATE))
			TH_LOG("%s: %s", name, strerror(errno));
		ASSERT_EQ(0, setxattr(f, under, "u", 1, XATTR_CREATE))
			TH_LOG("%s: %s", under, strerror(errno));
		ASSERT_TRUE(has_value(f, name, "m"));
		ASSERT_TRUE(has_value(f, under, "u"));
		ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host", name, under)));
		if (self->sw) {
			IN_CHAIN(l1, 1, {
				XT_CHECK(trusted_names_are(f, NAMES(NULL)));
			});
		}
		ASSERT_EQ(0, removexattr(f, name));
		ASSERT_EQ(0, removexattr(f, under));
	}
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host")));
}

/*
 * Inside a namespace, "trusted." names nothing (it would be stored as the
 * bare chain "trusted.<1000>", which no namespace can spell): EINVAL, as
 * the initial namespace's root gets, and nothing is stored. Found by the
 * fuzzer.
 */
TEST_F(trusted, userns_empty_name)
{
	static const char * const l1[] = { NS_L1 };
	const char *f = self->file;

	NEED_SWITCH();
	IN_CHAIN(l1, 1, {
		XT_CHECK_ERR(setxattr(f, "trusted.", "v", 1, 0), EINVAL);
		XT_CHECK_ERR(getxattr(f, "trusted.", NULL, 0), EINVAL);
		XT_CHECK_ERR(removexattr(f, "trusted."), EINVAL);
		XT_CHECK(trusted_names_are(f, NAMES(NULL)));
	});
	errno = 0;
	ASSERT_EQ(-1, setxattr(f, "trusted.", "v", 1, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host")));
}

/*
 * The longest name that fits once translated, and one byte more (ERANGE),
 * from a namespace (chain "<1000>") and from the initial namespace, whose
 * spelling is the stored name: only the 255-byte limit of every name
 * applies to it (a longer one is ERANGE when the name is copied in, as on
 * a stock kernel).
 */
static char bigbuf[XATTR_SIZE_MAX + 1];

TEST_F(trusted, userns_name_length)
{
	static const char * const l1[] = { NS_L1 };
	const char *f = self->file;
	/* stored: "trusted." + "<1000>" + suffix <= 255 */
	char fits[256], over[256], host_fits[256], host_over[257], stored[256];

	NEED_SWITCH();
	snprintf(fits, sizeof(fits), "trusted.%0241d", 0);
	snprintf(over, sizeof(over), "trusted.%0242d", 0);
	snprintf(host_fits, sizeof(host_fits), "trusted.<1000>%0241d", 1);
	snprintf(host_over, sizeof(host_over), "trusted.<1000>%0242d", 1);
	/*
	 * The limit is the VFS's (XATTR_NAME_MAX on the stored name, checked
	 * where the name is translated), the same on every filesystem: each
	 * one stores a 255-byte trusted name, so the test runs on all of them.
	 */
	IN_CHAIN(l1, 1, {
		XT_EQ(0, setxattr(f, fits, "v", 1, XATTR_CREATE));
		XT_EQ(1, getxattr(f, fits, NULL, 0));
		XT_CHECK_ERR(setxattr(f, over, "v", 1, 0), ERANGE);
		XT_CHECK_ERR(getxattr(f, over, NULL, 0), ERANGE);
		/* the name's ERANGE, not the big buffer's E2BIG (fuzzer) */
		XT_CHECK_ERR(getxattr(f, over, bigbuf, XATTR_SIZE_MAX), ERANGE);
		XT_CHECK_ERR(getxattr(f, over, bigbuf, XATTR_SIZE_MAX + 1), ERANGE);
	});
	/* the namespace's name as stored: 255 bytes */
	snprintf(stored, sizeof(stored), "trusted.<1000>%0241d", 0);
	ASSERT_EQ(255U, strlen(stored));
	ASSERT_TRUE(has_value(f, stored, "v"));
	ASSERT_EQ(0, setxattr(f, host_fits, "w", 1, XATTR_CREATE));
	errno = 0;
	ASSERT_EQ(-1, setxattr(f, host_over, "w", 1, 0));
	ASSERT_EQ(ERANGE, errno);
	/* the host's name and the namespace's were two different entries */
	ASSERT_TRUE(has_value(f, host_fits, "w"));
	IN_CHAIN(l1, 1, {
		char name[256];

		snprintf(name, sizeof(name), "trusted.%0241d", 1);
		XT_CHECK(has_value(f, name, "w"));
		XT_CHECK(has_value(f, fits, "v"));
	});
}

/* XATTR_CREATE and XATTR_REPLACE, empty values and the largest value. */
TEST_F(trusted, userns_create_replace_sizes)
{
	static const char * const l1[] = { NS_L1 };
	const char *f = self->file;
	/* the largest value each filesystem keeps for one xattr */
	bool big = !strcmp(variant->fs.fstype, "tmpfs") ||
		   !strcmp(variant->fs.fstype, "xfs");

	NEED_SWITCH();
	IN_CHAIN(l1, 1, {
		char *v = malloc(XATTR_SIZE_MAX), *r = malloc(XATTR_SIZE_MAX);

		XT_CHECK(v && r);
		memset(v, 'z', XATTR_SIZE_MAX);
		XT_CHECK_ERR(setxattr(f, "trusted.c", "v", 1, XATTR_REPLACE), ENODATA);
		XT_EQ(0, setxattr(f, "trusted.c", "v", 1, XATTR_CREATE));
		XT_CHECK_ERR(setxattr(f, "trusted.c", "v", 1, XATTR_CREATE), EEXIST);
		XT_EQ(0, setxattr(f, "trusted.c", "", 0, XATTR_REPLACE));
		XT_EQ(0, getxattr(f, "trusted.c", r, XATTR_SIZE_MAX));
		if (big) {
			XT_EQ(0, setxattr(f, "trusted.big", v, XATTR_SIZE_MAX, 0));
			XT_EQ(XATTR_SIZE_MAX, getxattr(f, "trusted.big", NULL, 0));
			XT_EQ(XATTR_SIZE_MAX, getxattr(f, "trusted.big", r, XATTR_SIZE_MAX));
			XT_CHECK(!memcmp(v, r, XATTR_SIZE_MAX));
			XT_CHECK_ERR(getxattr(f, "trusted.big", r, XATTR_SIZE_MAX - 1), ERANGE);
		}
		XT_EQ(0, removexattr(f, "trusted.c"));
		XT_CHECK_ERR(removexattr(f, "trusted.c"), ENODATA);
	});
	if (big)
		ASSERT_EQ(XATTR_SIZE_MAX, getxattr(f, "trusted.<1000>big", NULL, 0));
}

/*
 * listxattr: the size probe returns exactly the translated size, a buffer
 * one byte short is ERANGE, and a buffer that fits the translated list but
 * not the stored one works (the namespace's names are shorter than the
 * stored ones). The initial namespace's list is the stored names, and as
 * long.
 */
TEST_F(trusted, userns_list_probe_and_erange)
{
	static const char * const l1[] = { NS_L1 };
	const char *f = self->file;
	char buf[4096];
	ssize_t len;

	NEED_SWITCH();
	IN_CHAIN(l1, 1, {
		char b[4096];
		ssize_t n;

		XT_EQ(0, setxattr(f, "trusted.a", "1", 1, 0));
		XT_EQ(0, setxattr(f, "trusted.<9>bb", "2", 1, 0));
		XT_EQ(0, setxattr(f, "user.u", "3", 1, 0));
		n = listxattr(f, NULL, 0);
		/* "trusted.a" "trusted.<9>bb" "user.u" and nothing else */
		XT_EQ(10 + 14 + 7, n);
		XT_EQ(n, listxattr(f, b, n));
		XT_CHECK_ERR(listxattr(f, b, n - 1), ERANGE);
	});
	len = listxattr(f, NULL, 0);
	/* "trusted.host" "trusted.<1000>a" "trusted.<1000><9>bb" "user.u" */
	ASSERT_EQ(13 + 16 + 20 + 7, len);
	ASSERT_EQ(len, listxattr(f, buf, len));
	ASSERT_TRUE(xt_list_has(buf, len, "user.u"));
	ASSERT_TRUE(trusted_names_are(f, NAMES("trusted.host", "trusted.<1000>a",
					       "trusted.<1000><9>bb")));
	errno = 0;
	ASSERT_EQ(-1, listxattr(f, buf, len - 1));
	ASSERT_EQ(ERANGE, errno);
}

/* io_uring's xattr operations give the results of the system calls. */
/* an io_uring xattr operation: the result, or -errno (xt_uring_xattr()) */
#define URING(op, fd, path, name, value, size, flags)			\
	xt_uring_xattr(IORING_OP_##op, fd, path, name, value, size, flags)

TEST_F(trusted, userns_io_uring)
{
	static const char * const l1[] = { NS_L1 };
	const char *f = self->file;
	long ret;

	if (!xt_have_uring())
		SKIP(return, "io_uring not available (CONFIG_IO_URING, io_uring_disabled)");
	ret = URING(GETXATTR, -1, f, "trusted.host", NULL, 0, 0);
	ASSERT_EQ(1, ret);
	if (!self->sw) {
		/* stock: a namespace root gets what the system calls give */
		IN_CHAIN(l1, 1, {
			XT_EQ(-EPERM, URING(SETXATTR, -1, f, "trusted.u", "io", 2, 0));
			XT_EQ(-ENODATA, URING(GETXATTR, -1, f, "trusted.host", NULL, 0, 0));
		});
		return;
	}
	NEED_SWITCH();
	IN_CHAIN(l1, 1, {
		char buf[16];
		int fd = open(f, O_RDONLY | O_CLOEXEC);

		XT_CHECK(fd >= 0);
		XT_EQ(0, URING(SETXATTR, -1, f, "trusted.u", "io", 2, XATTR_CREATE));
		XT_EQ(-EEXIST, URING(SETXATTR, -1, f, "trusted.u", "io", 2, XATTR_CREATE));
		XT_EQ(2, URING(GETXATTR, -1, f, "trusted.u", buf, sizeof(buf), 0));
		XT_CHECK(!memcmp(buf, "io", 2));
		XT_EQ(0, URING(FSETXATTR, fd, NULL, "trusted.<3>f", "fd", 2, 0));
		XT_EQ(2, URING(FGETXATTR, fd, NULL, "trusted.<3>f", buf, sizeof(buf), 0));
		XT_EQ(-ENODATA, URING(FGETXATTR, fd, NULL, "trusted.host", buf, sizeof(buf), 0));
		XT_EQ(-EINVAL, URING(SETXATTR, -1, f, "trusted.<01>x", "v", 1, 0));
		XT_EQ(-EINVAL, URING(FGETXATTR, fd, NULL, "trusted.<1>", buf, sizeof(buf), 0));
		/* a descendant's name, that nobody set */
		XT_EQ(-ENODATA, URING(FGETXATTR, fd, NULL, "trusted.<1>.x", buf, sizeof(buf), 0));
		/* v2's spelling: no trusted.* name, no handler */
		XT_EQ(-EOPNOTSUPP, URING(SETXATTR, -1, f, "trusted<3>.f", "v", 1, 0));
		XT_EQ(-EOPNOTSUPP, URING(FGETXATTR, fd, NULL, "trusted<3>.f", buf, sizeof(buf), 0));
		/* and the system calls agree */
		XT_CHECK(has_value(f, "trusted.u", "io"));
		XT_CHECK(has_value(f, "trusted.<3>f", "fd"));
		close(fd);
	});
	ASSERT_TRUE(has_value(f, "trusted.<1000>u", "io"));
	ASSERT_TRUE(has_value(f, "trusted.<1000><3>f", "fd"));
	/* the initial namespace through io_uring: the stored names too */
	ASSERT_EQ(2, URING(GETXATTR, -1, f, "trusted.<1000><3>f", NULL, 0, 0));
	ASSERT_EQ(0, URING(SETXATTR, -1, f, "trusted.<1000>u", "ui", 2,
			   XATTR_REPLACE));
	ASSERT_TRUE(has_value(f, "trusted.<1000>u", "ui"));
}

/* The directories of an overlayfs in the test's directory, and its options. */
struct ovl_dirs {
	char lower[512], upper[512], work[512], merged[512];
	char opts[4 * PATH_MAX];
};

static int ovl_dirs_make(const char *dir, struct ovl_dirs *o, bool userxattr)
{
	snprintf(o->lower, sizeof(o->lower), "%s/lower", dir);
	snprintf(o->upper, sizeof(o->upper), "%s/upper", dir);
	snprintf(o->work, sizeof(o->work), "%s/work", dir);
	snprintf(o->merged, sizeof(o->merged), "%s/merged", dir);
	snprintf(o->opts, sizeof(o->opts), "lowerdir=%s,upperdir=%s,workdir=%s%s",
		 o->lower, o->upper, o->work, userxattr ? ",userxattr" : "");
	return xt_mknode(o->lower, S_IFDIR, XT_OWNER, XT_OWNER) ?:
	       xt_mknode(o->upper, S_IFDIR, XT_OWNER, XT_OWNER) ?:
	       xt_mknode(o->work, S_IFDIR, XT_OWNER, XT_OWNER) ?:
	       xt_mknode(o->merged, S_IFDIR, XT_OWNER, XT_OWNER);
}

/*
 * In a child: mount the overlay in a mount namespace of its own, or exit
 * with XT_CHILD_SKIP when the namespace may not mount it here (the parent
 * SKIPs the test).
 */
static void ovl_mount_private(struct __test_metadata *_metadata, const struct ovl_dirs *o)
{
	XT_EQ(0, unshare(CLONE_NEWNS));
	if (mount("overlay", o->merged, "overlay", 0, o->opts)) {
		TH_LOG("overlayfs mount in a user namespace: %s", strerror(errno));
		_exit(xt_ovl_unsupported(errno) ? XT_CHILD_SKIP : 1);
	}
}

/*
 * Copy-up through an overlayfs that a namespace mounted: the lower file
 * carries the host's trusted.* entry, the namespace's own and a user.*
 * one. Opening it for writing copies it up with the mounter's
 * credentials, which may read the namespace's entry but not the host's:
 * the copy-up must succeed, carry the namespace's entry and user.*, and
 * leave the host's behind (the mounter cannot read it, as on a stock
 * kernel where no trusted.* is copied at all). With the switch off, the
 * stock result: nothing trusted copied (btrfs: the copy-up fails, see
 * stock_lists_trusted).
 */
TEST_F(trusted, userns_overlayfs_copy_up)
{
	static const char * const l1[] = { NS_L1 };
	static struct ovl_dirs o;
	char lfile[PATH_MAX], ufile[PATH_MAX];
	bool on = self->sw;
	pid_t pid;

	ASSERT_EQ(0, ovl_dirs_make(self->dir, &o, true));
	snprintf(lfile, sizeof(lfile), "%s/g", o.lower);
	snprintf(ufile, sizeof(ufile), "%s/g", o.upper);
	ASSERT_EQ(0, xt_mknode(lfile, S_IFREG, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, setxattr(lfile, "trusted.host", "h", 1, 0));
	ASSERT_EQ(0, setxattr(lfile, "user.u", "u", 1, 0));
	if (on)
		ASSERT_EQ(0, setxattr(lfile, "trusted.<1000>mine", "m", 1, 0));

	pid = fork_in_chain(_metadata, l1, 1);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char path[PATH_MAX];
		int fd;

		ovl_mount_private(_metadata, &o);
		snprintf(path, sizeof(path), "%s/g", o.merged);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (!on && self->lists_trusted) {
			/*
			 * btrfs without its fix lists trusted.host, then refuses
			 * it: copy-up fails (stock) or skips it (with "ovl: do
			 * not fail copy-up on an xattr that the mounter cannot
			 * read")
			 */
			XT_CHECK(fd >= 0 || errno == ENODATA);
			if (fd >= 0)
				close(fd);
			_exit(_metadata->exit_code);
		}
		XT_CHECK(fd >= 0);
		close(fd);
		_exit(_metadata->exit_code);
	}
	XT_WAIT_OVL_CHILD(pid, variant->fs.fstype);
	if (!on && self->lists_trusted)
		return;	/* as the child checked */
	ASSERT_TRUE(has_value(ufile, "user.u", "u"));
	errno = 0;
	ASSERT_EQ(-1, getxattr(ufile, "trusted.host", NULL, 0));
	ASSERT_EQ(ENODATA, errno);
	if (on) {
		ASSERT_TRUE(has_value(ufile, "trusted.<1000>mine", "m"));
		ASSERT_TRUE(trusted_names_are(ufile, NAMES("trusted.<1000>mine")));
	} else {
		ASSERT_TRUE(trusted_names_are(ufile, NAMES(NULL)));
	}
}

/*
 * An overlayfs the host mounts (initial namespace, trusted.overlay.*)
 * deals in stored names, which are the host's spelling: copying a file up
 * keeps the namespaces' entries as they are, and the host's own. The
 * host's names are the same on a stock kernel, where the test runs too.
 */
TEST_F(trusted, init_overlayfs_copy_up_keeps_namespaced)
{
	static struct ovl_dirs o;
	char lfile[PATH_MAX], ufile[PATH_MAX], mfile[PATH_MAX];
	int fd;

	ASSERT_EQ(0, ovl_dirs_make(self->dir, &o, false));
	snprintf(lfile, sizeof(lfile), "%s/g", o.lower);
	snprintf(ufile, sizeof(ufile), "%s/g", o.upper);
	snprintf(mfile, sizeof(mfile), "%s/g", o.merged);
	ASSERT_EQ(0, xt_mknode(lfile, S_IFREG, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, setxattr(lfile, "trusted.host", "h", 1, 0));
	ASSERT_EQ(0, setxattr(lfile, "trusted.<1000>ns", "n", 1, 0));
	ASSERT_EQ(0, setxattr(lfile, "trusted.<1000><5>nested", "d", 1, 0));
	if (mount("overlay", o.merged, "overlay", 0, o.opts)) {
		int err = errno;

		ASSERT_TRUE(xt_ovl_unsupported(err)) {
			TH_LOG("overlayfs over %s: %s", variant->fs.fstype, strerror(err));
		}
		SKIP(return, "overlayfs over %s: %s", variant->fs.fstype, strerror(err));
	}
	fd = open(mfile, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_TRUE(has_value(mfile, "trusted.<1000>ns", "n"));
	ASSERT_EQ(0, umount(o.merged));
	ASSERT_TRUE(has_value(ufile, "trusted.host", "h"));
	ASSERT_TRUE(has_value(ufile, "trusted.<1000>ns", "n"));
	ASSERT_TRUE(has_value(ufile, "trusted.<1000><5>nested", "d"));
	if (self->sw) {
		static const char * const l1[] = { NS_L1 };

		/* still namespace 1000's names on the copy */
		IN_CHAIN(l1, 1, {
			XT_CHECK(has_value(ufile, "trusted.ns", "n"));
			XT_CHECK(has_value(ufile, "trusted.<5>nested", "d"));
			XT_CHECK(trusted_names_are(ufile, NAMES("trusted.ns",
								"trusted.<5>nested")));
		});
	}
}

/*
 * A container that writes overlayfs's own markers (an image unpacker
 * marking a directory opaque with trusted.overlay.opaque, as containerd's
 * does) writes its own name, not the host's: an overlayfs the host mounts
 * over the same layers ignores it, while the host's own marker still
 * works (so the check can fail).
 */
TEST_F(trusted, userns_overlay_marker_not_honoured_by_host)
{
	static const char * const l1[] = { NS_L1 };
	static struct ovl_dirs o;
	char ns_dir[PATH_MAX], host_dir[PATH_MAX], p[PATH_MAX];

	NEED_SWITCH();
	ASSERT_EQ(0, ovl_dirs_make(self->dir, &o, false));
	snprintf(p, sizeof(p), "%s/ns", o.lower);
	ASSERT_EQ(0, xt_mknode(p, S_IFDIR, XT_OWNER, XT_OWNER));
	snprintf(p, sizeof(p), "%s/ns/below", o.lower);
	ASSERT_EQ(0, xt_mknode(p, S_IFREG, XT_OWNER, XT_OWNER));
	snprintf(p, sizeof(p), "%s/host", o.lower);
	ASSERT_EQ(0, xt_mknode(p, S_IFDIR, XT_OWNER, XT_OWNER));
	snprintf(p, sizeof(p), "%s/host/below", o.lower);
	ASSERT_EQ(0, xt_mknode(p, S_IFREG, XT_OWNER, XT_OWNER));
	snprintf(ns_dir, sizeof(ns_dir), "%s/ns", o.upper);
	ASSERT_EQ(0, xt_mknode(ns_dir, S_IFDIR, XT_OWNER, XT_OWNER));
	snprintf(host_dir, sizeof(host_dir), "%s/host", o.upper);
	ASSERT_EQ(0, xt_mknode(host_dir, S_IFDIR, XT_OWNER, XT_OWNER));

	IN_CHAIN(l1, 1, {
		XT_EQ(0, setxattr(ns_dir, "trusted.overlay.opaque", "y", 1, 0));
	});
	ASSERT_TRUE(has_value(ns_dir, "trusted.<1000>overlay.opaque", "y"));
	errno = 0;
	ASSERT_EQ(-1, getxattr(ns_dir, "trusted.overlay.opaque", NULL, 0));
	ASSERT_EQ(ENODATA, errno);
	ASSERT_EQ(0, setxattr(host_dir, "trusted.overlay.opaque", "y", 1, 0));

	if (mount("overlay", o.merged, "overlay", 0, o.opts)) {
		int err = errno;

		ASSERT_TRUE(xt_ovl_unsupported(err)) {
			TH_LOG("overlayfs over %s: %s", variant->fs.fstype, strerror(err));
		}
		SKIP(return, "overlayfs over %s: %s", variant->fs.fstype, strerror(err));
	}
	snprintf(p, sizeof(p), "%s/ns/below", o.merged);
	EXPECT_EQ(0, access(p, F_OK));
	snprintf(p, sizeof(p), "%s/host/below", o.merged);
	errno = 0;
	EXPECT_EQ(-1, access(p, F_OK));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, umount(o.merged));
}

/*
 * Stacking: trusted.* set through an overlayfs that the namespace mounted
 * itself lands on the upper filesystem under the namespace's name, and so
 * does a nested namespace's, under its chain. The overlay mount belongs to
 * the namespace (its s_user_ns): there the namespace's names are plain;
 * overlayfs passes them down with the mounter's credentials and the upper
 * filesystem stores them relative to the initial namespace.
 */
TEST_F(trusted, userns_overlayfs_upper)
{
	static const char * const l1[] = { NS_L1 };
	static const char * const l2[] = { NS_L2 };
	static struct ovl_dirs o;
	char file[PATH_MAX];
	pid_t pid;

	NEED_SWITCH();
	ASSERT_EQ(0, ovl_dirs_make(self->dir, &o, true));
	snprintf(file, sizeof(file), "%s/f", o.upper);
	ASSERT_EQ(0, xt_mknode(file, S_IFREG, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, setxattr(file, "trusted.host", "h", 1, 0));

	pid = fork_in_chain(_metadata, l1, 1);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char path[PATH_MAX];
		pid_t child;

		ovl_mount_private(_metadata, &o);
		snprintf(path, sizeof(path), "%s/f", o.merged);
		XT_EQ(0, setxattr(path, "trusted.ov", "o", 1, 0));
		XT_CHECK(has_value(path, "trusted.ov", "o"));
		XT_CHECK_ERR(getxattr(path, "trusted.host", NULL, 0), ENODATA);
		/* a namespace nested in this one, through the same overlay */
		child = fork();
		XT_CHECK(child >= 0);
		if (child == 0) {
			XT_EQ(0, xt_enter_chain(l2, 1));
			XT_EQ(0, setxattr(path, "trusted.c", "c", 1, 0));
			XT_CHECK(trusted_names_are(path, NAMES("trusted.c")));
			_exit(_metadata->exit_code);
		}
		XT_EQ(0, xt_wait(child));
		XT_CHECK(has_value(path, "trusted.<5>c", "c"));
		XT_CHECK(trusted_names_are(path, NAMES("trusted.ov", "trusted.<5>c")));
		XT_EQ(0, removexattr(path, "trusted.ov"));
		XT_EQ(0, setxattr(path, "trusted.ov", "p", 1, XATTR_CREATE));
		_exit(_metadata->exit_code);
	}
	XT_WAIT_OVL_CHILD(pid, variant->fs.fstype);
	ASSERT_TRUE(has_value(file, "trusted.<1000>ov", "p"));
	ASSERT_TRUE(has_value(file, "trusted.<1000><5>c", "c"));
	ASSERT_TRUE(trusted_names_are(file, NAMES("trusted.host", "trusted.<1000>ov",
						  "trusted.<1000><5>c")));
}

/*
 * An overlayfs that a namespace mounts without userxattr keeps its own
 * trusted.overlay.* on the upper layer as the namespace's names: a lower
 * directory emptied, removed and made again through it becomes an opaque
 * upper directory, marked trusted.<1000>overlay.opaque as the host sees it
 * (never the host's plain name), and the namespace's overlay honours the
 * mark after a remount. redirect_dir and metacopy keep asking for
 * CAP_SYS_ADMIN in the initial namespace (userns_overlayfs_redirect_not_followed).
 * overlayfs needs d_type from the upper filesystem to tell its whiteouts
 * from files.
 */

/* Does readdir() of @dir give d_type (the entry @name is a regular file)? */
static int dir_has_d_type(const char *dir, const char *name)
{
	struct dirent *de;
	int ret = -ENOENT;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, name))
			ret = de->d_type != DT_UNKNOWN;
	closedir(d);
	return ret;
}

TEST_F(trusted, userns_overlayfs_own_xattrs)
{
	static const char * const l1[] = { NS_L1 };
	static struct ovl_dirs o;
	char p[PATH_MAX], upper_dir[PATH_MAX];
	pid_t pid;
	int status;

	NEED_SWITCH();
	ASSERT_EQ(0, ovl_dirs_make(self->dir, &o, false));
	snprintf(p, sizeof(p), "%s/d", o.lower);
	ASSERT_EQ(0, xt_mknode(p, S_IFDIR, XT_OWNER, XT_OWNER));
	snprintf(p, sizeof(p), "%s/d/old", o.lower);
	ASSERT_EQ(0, xt_mknode(p, S_IFREG, XT_OWNER, XT_OWNER));
	snprintf(p, sizeof(p), "%s/d", o.lower);
	status = dir_has_d_type(p, "old");
	ASSERT_LE(0, status);
	if (!status)
		SKIP(return, "%s gives no d_type: overlayfs cannot tell its whiteouts",
		     variant->fs.fstype);

	pid = fork_in_chain(_metadata, l1, 1);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char m[PATH_MAX];

		ovl_mount_private(_metadata, &o);
		snprintf(m, sizeof(m), "%s/d/old", o.merged);
		XT_EQ(0, unlink(m));
		snprintf(m, sizeof(m), "%s/d", o.merged);
		XT_EQ(0, rmdir(m));
		XT_EQ(0, mkdir(m, 0755));
		XT_EQ(0, umount(o.merged));
		XT_EQ(0, mount("overlay", o.merged, "overlay", 0, o.opts));
		snprintf(m, sizeof(m), "%s/d/old", o.merged);
		XT_CHECK_ERR(access(m, F_OK), ENOENT);
		_exit(_metadata->exit_code);
	}
	XT_WAIT_OVL_CHILD(pid, variant->fs.fstype);
	snprintf(upper_dir, sizeof(upper_dir), "%s/d", o.upper);
	ASSERT_TRUE(has_value(upper_dir, "trusted.<1000>overlay.opaque", "y"));
	errno = 0;
	ASSERT_EQ(-1, getxattr(upper_dir, "trusted.overlay.opaque", NULL, 0));
	ASSERT_EQ(ENODATA, errno);
}

/*
 * The namespace's trusted.overlay.* are marks that whoever owns the
 * namespace can write (any namespace with the same root uid writes the
 * same names), as user.overlay.* are: an overlayfs that a namespace
 * mounts must not follow a redirect it finds there unless the mounter may
 * write the host's trusted.*. Without an option it gets what userxattr
 * gets, redirect_dir=nofollow: a lookup that meets a redirect fails with
 * EPERM instead of showing the lower directory it names. On a stock
 * kernel, or with the switch off, the mark cannot be written (the workdir
 * probe fails too, and overlayfs falls back to nofollow).
 */
TEST_F(trusted, userns_overlayfs_redirect_not_followed)
{
	static const char * const l1[] = { NS_L1 };
	static struct ovl_dirs o;
	char p[PATH_MAX];
	pid_t pid;

	NEED_SWITCH();
	ASSERT_EQ(0, ovl_dirs_make(self->dir, &o, false));
	snprintf(p, sizeof(p), "%s/secret", o.lower);
	ASSERT_EQ(0, xt_mknode(p, S_IFDIR, XT_OWNER, XT_OWNER));
	snprintf(p, sizeof(p), "%s/secret/f", o.lower);
	ASSERT_EQ(0, xt_mknode(p, S_IFREG, XT_OWNER, XT_OWNER));
	snprintf(p, sizeof(p), "%s/d", o.upper);
	ASSERT_EQ(0, xt_mknode(p, S_IFDIR, XT_OWNER, XT_OWNER));

	pid = fork_in_chain(_metadata, l1, 1);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char m[PATH_MAX];

		/* the forged mark, as the namespace's own name */
		XT_EQ(0, setxattr(p, "trusted.overlay.redirect", "/secret", 7, 0));
		ovl_mount_private(_metadata, &o);
		snprintf(m, sizeof(m), "%s/secret/f", o.merged);
		XT_EQ(0, access(m, F_OK));
		snprintf(m, sizeof(m), "%s/d/f", o.merged);
		XT_CHECK_ERR(access(m, F_OK), EPERM);
		_exit(_metadata->exit_code);
	}
	XT_WAIT_OVL_CHILD(pid, variant->fs.fstype);
	ASSERT_TRUE(has_value(p, "trusted.<1000>overlay.redirect", "/secret"));
}

/*
 * The capability over the inode is checked under the inode lock, when the
 * name is changed, as for every other xattr: a namespace root that owned
 * the file when its call began, but not when the call takes the lock, is
 * refused (EPERM). The order is made, not hoped for: a writer W holds the
 * file's inode lock for a long time (it writes from a mapping of an
 * uncached file, and each page it copies is read from disk while it holds
 * the lock); root's chown to an owner the namespace does not map queues
 * for the lock first, then the namespace's setxattr, which finds the file
 * still its own when it begins. Waiters that sleep take the lock in the
 * order they came, so the chown is done before the setxattr gets it. A run
 * whose writer let go of the lock too early proves nothing and is taken
 * again with a longer write.
 */
#define RACE_SRC "/tmp/xattr_race_src"

struct race_times {
	double w_end, a_start, a_end, b_start, b_end;
	int b_err;
};

static double race_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void race_sleep_ms(int ms)
{
	usleep(ms * 1000);
}

/* a file of @mb MiB on an ext4 image of its own, mounted again: uncached */
static int race_source(struct __test_metadata *_metadata, unsigned int mb)
{
	char dev[64], path[PATH_MAX];
	static char chunk[1 << 20];
	int ret, fd;
	unsigned int i;

	/* room for the largest source the test tries, 128 MiB */
	ret = xt_loop_image("race-src", "mkfs.ext4 -q -F", 300, dev,
			    sizeof(dev));
	if (ret)
		return ret;
	if (mkdir(RACE_SRC, 0755) && errno != EEXIST)
		return -errno;
	umount2(RACE_SRC, MNT_DETACH);
	if (mount(dev, RACE_SRC, "ext4", 0, NULL))
		return -errno;
	snprintf(path, sizeof(path), RACE_SRC "/src");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	memset(chunk, 'r', sizeof(chunk));
	for (i = 0; i < mb; i++)
		if (write(fd, chunk, sizeof(chunk)) != sizeof(chunk)) {
			close(fd);
			return -EIO;
		}
	if (fsync(fd) || close(fd))
		return -errno;
	/* a new mount reads every page from the device again */
	if (umount2(RACE_SRC, 0) || mount(dev, RACE_SRC, "ext4", 0, NULL))
		return -errno;
	return 0;
}

TEST_F_TIMEOUT(trusted, userns_chown_race, 300)
{
	static const char * const l1[] = { NS_L1 };
	struct race_times *t;
	const char *f = self->file;
	unsigned int mb = 32;
	bool proved = false;
	int attempt;

	NEED_SWITCH();
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, t);
	for (attempt = 0; attempt < 4 && !proved; attempt++, mb *= 2) {
		pid_t w, a, b;
		int ret;

		ret = race_source(_metadata, mb);
		if (ret == -ENOPKG || ret == -ENXIO)
			SKIP(return, "no ext4 image for the slow writer: %s",
			     strerror(-ret));
		ASSERT_EQ(0, ret);
		ASSERT_EQ(0, chown(f, XT_OWNER, XT_OWNER));
		memset(t, 0, sizeof(*t));
		w = fork();
		ASSERT_LE(0, w);
		if (w == 0) {
			size_t len = (size_t)mb << 20;
			int src = open(RACE_SRC "/src", O_RDONLY | O_CLOEXEC);
			int dst = open(f, O_WRONLY | O_CLOEXEC);
			void *map;

			XT_CHECK(src >= 0 && dst >= 0);
			map = mmap(NULL, len, PROT_READ, MAP_SHARED, src, 0);
			XT_CHECK(map != MAP_FAILED);
			/* one page a fault, where the kernel has madvise() */
			madvise(map, len, MADV_RANDOM);
			XT_EQ((ssize_t)len, write(dst, map, len));
			t->w_end = race_now();
			_exit(_metadata->exit_code);
		}
		race_sleep_ms(100);
		a = fork();
		ASSERT_LE(0, a);
		if (a == 0) {
			t->a_start = race_now();
			XT_EQ(0, chown(f, XT_OTHER, XT_OTHER));
			t->a_end = race_now();
			_exit(_metadata->exit_code);
		}
		race_sleep_ms(100);
		b = fork_in_chain(_metadata, l1, 1);
		ASSERT_LE(0, b);
		if (b == 0) {
			t->b_start = race_now();
			t->b_err = setxattr(f, "trusted.race", "r", 1, 0) ? errno : 0;
			t->b_end = race_now();
			_exit(_metadata->exit_code);
		}
		ASSERT_EQ(0, xt_wait(w));
		ASSERT_EQ(0, xt_wait(a));
		ASSERT_EQ(0, xt_wait(b));
		umount2(RACE_SRC, 0);
		/*
		 * The writer held the lock until both had queued for it, and
		 * the chown took it first: it returned first, or the
		 * setxattr found the owner it made. Both return within a
		 * tick of each other when the lock is let go, so either
		 * order of the two return times is seen. (A check made before
		 * the lock would be made at once, 10 ms before the writer is
		 * done at the latest, with the file still the namespace's.)
		 */
		proved = t->a_start < t->b_start &&
			 t->w_end > t->b_start + 0.01 &&
			 (t->a_end <= t->b_end || t->b_err == EPERM);
		TH_LOG("%u MiB: writer done %+.3f s after setxattr began, chown %.3f-%.3f,",
		       mb, t->w_end - t->b_start, t->a_start, t->a_end);
		TH_LOG("setxattr %.3f-%.3f: errno %d%s",
		       t->b_start, t->b_end, t->b_err,
		       proved ? "" : " (the lock was let go too early)");
		if (proved) {
			ASSERT_EQ(EPERM, t->b_err);
			errno = 0;
			ASSERT_EQ(-1, getxattr(f, "trusted.<1000>race", NULL, 0));
			ASSERT_EQ(ENODATA, errno);
		} else if (!t->b_err) {
			ASSERT_EQ(0, removexattr(f, "trusted.<1000>race"));
		}
	}
	ASSERT_TRUE(proved);
}

/*
 * Who can claim a chain (Documentation/filesystems/xattr-userns.rst): the
 * names under <U> belong to whoever can make a namespace whose root is U.
 * With the setuid newuidmap(1) and newgidmap(1) of shadow (Debian's uidmap
 * package) and /etc/subuid, the owner of a subordinate range maps any uid
 * of it as the root of a namespace of its own; a process of uid U does the
 * same with "0 U 1", as unshare -r does; a user who owns no range cannot
 * map U, and so never reaches the names under <U>.
 *
 * The tests run with an /etc of their own (a tmpfs in the test's mount
 * namespace): SUB_OWNER owns the subordinate uids and gids SUB_START to
 * SUB_START + SUB_COUNT - 1, NO_RANGE owns none.
 */
#define NEWUIDMAP "/usr/bin/newuidmap"
#define NEWGIDMAP "/usr/bin/newgidmap"
#define SUB_OWNER 1000
#define NO_RANGE 2000
#define SUB_START 100000
#define SUB_COUNT 65536
#define SUB_ROOT_MAP "0 100000 65536"

/* Why newuidmap cannot run here, or NULL. */
static const char *newidmap_missing(void)
{
	static const char * const tools[] = { NEWUIDMAP, NEWGIDMAP };
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		if (stat(tools[i], &st) || !(st.st_mode & 0111))
			return "newuidmap and newgidmap are not installed (the uidmap package)";
		if (st.st_uid != 0 || !(st.st_mode & S_ISUID))
			return "newuidmap and newgidmap are not setuid root";
	}
	return NULL;
}

static int write_etc(const char *name, const char *text, size_t len)
{
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/etc/%s", name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * An /etc of the test's own: the users, their groups and the subordinate
 * ranges newuidmap and newgidmap read; the dynamic loader's cache is kept.
 */
static int private_etc(void)
{
	static const char passwd[] =
		"root:x:0:0:root:/root:/bin/sh\n"
		"subowner:x:1000:1000::/:/bin/sh\n"
		"norange:x:2000:2000::/:/bin/sh\n";
	static const char group[] = "root:x:0:\nsubowner:x:1000:\nnorange:x:2000:\n";
	static const char subids[] = "subowner:100000:65536\n";
	static char cache[4 << 20];
	ssize_t cache_len = -1;
	int fd, ret;

	fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		cache_len = read(fd, cache, sizeof(cache));
		close(fd);
	}
	if (mount("tmpfs", "/etc", "tmpfs", 0, "mode=0755"))
		return -errno;
	ret = write_etc("passwd", passwd, strlen(passwd)) ?:
	      write_etc("group", group, strlen(group)) ?:
	      write_etc("subuid", subids, strlen(subids)) ?:
	      write_etc("subgid", subids, strlen(subids));
	if (!ret && cache_len > 0 && cache_len < (ssize_t)sizeof(cache))
		ret = write_etc("ld.so.cache", cache, cache_len);
	return ret;
}

/*
 * Run tool ("newuidmap" or "newgidmap") on pid with the one mapping map;
 * its exit status, and what it said in the test's log.
 */
static int run_idmap_tool(struct __test_metadata *_metadata, const char *tool,
			  pid_t pid, const char *map)
{
	char pidstr[16], m[3][16], out[512];
	int p[2], status;
	ssize_t n, len = 0;
	pid_t child;

	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	if (sscanf(map, "%15s %15s %15s", m[0], m[1], m[2]) != 3 || pipe2(p, O_CLOEXEC))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		static char * const envp[] = { "PATH=/usr/bin:/bin", NULL };
		char *argv[6];

		argv[0] = (char *)tool;
		argv[1] = pidstr;
		argv[2] = m[0];
		argv[3] = m[1];
		argv[4] = m[2];
		argv[5] = NULL;
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		execve(tool, argv, envp);
		_exit(127);
	}
	close(p[1]);
	while (len < (ssize_t)sizeof(out) - 1 &&
	       (n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	close(p[0]);
	while (len && out[len - 1] == '\n')
		len--;
	out[len] = '\0';
	status = xt_wait(child);
	if (len)
		TH_LOG("%s %s %s: exit %d: %s", tool, pidstr, map, status, out);
	return status;
}

typedef void (*idmap_body)(struct __test_metadata *_metadata, const char *file);

/*
 * As host user `user`, without capabilities, create a user namespace and
 * ask newuidmap and newgidmap to map SUB_ROOT_MAP in it (its root is host
 * uid SUB_START); then run body there, as its root when the mapping took,
 * else as whatever the unmapped namespace makes of us. Returns whether
 * both tools succeeded: 1, 0, or -1 when the test could not run.
 */
static int in_newidmap_ns(struct __test_metadata *_metadata, uid_t user,
			  idmap_body body, const char *file)
{
	int *mapped = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ready[2], go[2], ret;
	pid_t pid;

	if (mapped == MAP_FAILED)
		return -1;
	*mapped = -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		pid_t ns;
		char c;

		XT_EQ(0, xt_become(user, user));
		XT_CHECK(pipe2(ready, O_CLOEXEC) == 0 && pipe2(go, O_CLOEXEC) == 0);
		ns = fork();
		XT_CHECK(ns >= 0);
		if (ns == 0) {
			close(ready[0]);
			close(go[1]);
			XT_EQ(0, unshare(CLONE_NEWUSER));
			XT_EQ(1, write(ready[1], "u", 1));
			XT_EQ(1, read(go[0], &c, 1));
			if (c == 'y')
				XT_EQ(0, xt_become(0, 0));
			body(_metadata, file);
			_exit(_metadata->exit_code);
		}
		close(ready[1]);
		close(go[0]);
		XT_EQ(1, read(ready[0], &c, 1));
		*mapped = run_idmap_tool(_metadata, NEWUIDMAP, ns, SUB_ROOT_MAP) == 0 &&
			  run_idmap_tool(_metadata, NEWGIDMAP, ns, SUB_ROOT_MAP) == 0;
		XT_CHECK(write(go[1], *mapped ? "y" : "n", 1) == 1);
		XT_EQ(0, xt_wait(ns));
		_exit(_metadata->exit_code);
	}
	ret = xt_wait(pid) ? -1 : *mapped;
	munmap(mapped, sizeof(int));
	return ret;
}

/*
 * Run body as root of a namespace that host uid `uid` makes and maps
 * itself, "0 uid 1" (unshare -r), without any privilege.
 */
static int in_own_ns(struct __test_metadata *_metadata, uid_t uid,
		     idmap_body body, const char *file)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		char map[32];

		snprintf(map, sizeof(map), "0 %u 1\n", uid);
		XT_EQ(0, xt_become(uid, uid));
		XT_EQ(0, unshare(CLONE_NEWUSER));
		XT_EQ(0, xt_write_file("/proc/self/setgroups", "deny\n"));
		XT_EQ(0, xt_write_file("/proc/self/uid_map", map));
		XT_EQ(0, xt_write_file("/proc/self/gid_map", map));
		body(_metadata, file);
		_exit(_metadata->exit_code);
	}
	return xt_wait(pid);
}

/* Skip without newuidmap or the switch; a private /etc, a file of SUB_START's. */
#define NEWIDMAP_SETUP(file) do {					\
	const char *__why = newidmap_missing();				\
									\
	if (__why)							\
		SKIP(return, "%s", __why);				\
	NEED_SWITCH();							\
	ASSERT_EQ(0, private_etc());					\
	snprintf(file, sizeof(file), "%s/sub", self->dir);		\
	ASSERT_EQ(0, xt_mknode(file, S_IFREG, SUB_START, SUB_START));	\
} while (0)

static void sub_root_sets(struct __test_metadata *_metadata, const char *f)
{
	XT_CHECK(getuid() == 0 && geteuid() == 0);
	XT_EQ(0, setxattr(f, "trusted.label", "sub", 3, XATTR_CREATE));
	XT_CHECK(has_value(f, "trusted.label", "sub"));
	XT_CHECK(trusted_names_are(f, NAMES("trusted.label")));
}

static void sees_no_label(struct __test_metadata *_metadata, const char *f)
{
	XT_CHECK_ERR(getxattr(f, "trusted.label", NULL, 0), ENODATA);
	XT_CHECK_ERR(getxattr(f, "trusted.<100000>label", NULL, 0), ENODATA);
	XT_CHECK_ERR(setxattr(f, "trusted.label", "x", 1, 0), EPERM);
	XT_CHECK_ERR(removexattr(f, "trusted.label"), EPERM);
	XT_CHECK(trusted_names_are(f, NAMES(NULL)));
}

/*
 * User 1000, who owns 100000-165535 in /etc/subuid, maps its namespace's
 * root to 100000 with newuidmap and newgidmap; that root sets trusted.label
 * on a file owned by 100000:100000, which the host sees as
 * trusted.<100000>label. User 1000's own namespace (unshare -r: root 1000)
 * is another chain and sees nothing of it.
 */
TEST_F(trusted, userns_newuidmap_subordinate_root)
{
	char file[PATH_MAX];

	NEWIDMAP_SETUP(file);
	ASSERT_EQ(1, in_newidmap_ns(_metadata, SUB_OWNER, sub_root_sets, file));
	ASSERT_TRUE(has_value(file, "trusted.<100000>label", "sub"));
	ASSERT_TRUE(trusted_names_are(file, NAMES("trusted.<100000>label")));
	ASSERT_EQ(0, in_own_ns(_metadata, SUB_OWNER, sees_no_label, file));
	ASSERT_TRUE(has_value(file, "trusted.<100000>label", "sub"));
}

static void uid_rewrites(struct __test_metadata *_metadata, const char *f)
{
	XT_CHECK(has_value(f, "trusted.label", "sub"));
	XT_CHECK(trusted_names_are(f, NAMES("trusted.label")));
	XT_EQ(0, setxattr(f, "trusted.label", "own", 3, XATTR_REPLACE));
}

static void sub_root_reads_rewrite(struct __test_metadata *_metadata, const char *f)
{
	XT_CHECK(has_value(f, "trusted.label", "own"));
}

/*
 * A process of host uid 100000, not user 1000, makes a namespace of its
 * own with "0 100000 1" (unshare -r) and reads and rewrites the label set
 * through newuidmap: both namespaces have the chain <100000>, and so the
 * same names, as documented; user 1000's mapped namespace reads the new
 * value.
 */
TEST_F(trusted, userns_newuidmap_uid_claims_chain)
{
	char file[PATH_MAX];

	NEWIDMAP_SETUP(file);
	ASSERT_EQ(1, in_newidmap_ns(_metadata, SUB_OWNER, sub_root_sets, file));
	ASSERT_EQ(0, in_own_ns(_metadata, SUB_START, uid_rewrites, file));
	ASSERT_TRUE(has_value(file, "trusted.<100000>label", "own"));
	ASSERT_EQ(1, in_newidmap_ns(_metadata, SUB_OWNER, sub_root_reads_rewrite, file));
	ASSERT_TRUE(trusted_names_are(file, NAMES("trusted.<100000>label")));
}

/*
 * User 2000 owns no subordinate range: newuidmap refuses to map 100000 for
 * it, and its namespace, left unmapped, reaches no trusted.* name; nor does
 * the one it maps itself (root 2000, which does not map the file's owner).
 * The label stays as it was.
 */
TEST_F(trusted, userns_newuidmap_no_subordinate_range)
{
	char file[PATH_MAX];

	NEWIDMAP_SETUP(file);
	ASSERT_EQ(1, in_newidmap_ns(_metadata, SUB_OWNER, sub_root_sets, file));
	ASSERT_EQ(0, in_newidmap_ns(_metadata, NO_RANGE, sees_no_label, file));
	ASSERT_EQ(0, in_own_ns(_metadata, NO_RANGE, sees_no_label, file));
	ASSERT_TRUE(has_value(file, "trusted.<100000>label", "sub"));
	ASSERT_TRUE(trusted_names_are(file, NAMES("trusted.<100000>label")));
}

/*
 * devtmpfs's device nodes are the kernel's, some lent to users (login(1)
 * gives the console user its tty), and devtmpfs opts out of xattrs that
 * their owner could store there (SB_I_NOUSER_SPECIAL): a namespace whose
 * root owns the node may not give it trusted.* names of its own either,
 * at either setting. They would be charged to the inode space new nodes
 * need and stay after the node is given back. Nothing is stored under
 * the namespace's chain. A name the host stored under that chain is not
 * the namespace's either: not listed to it, not readable, not removable,
 * and kept. A mount of devtmpfs is the kernel's devtmpfs; the node made
 * here is removed again.
 */
#define DEVTMPFS_DIR "/tmp/xattr_trusted_userns_devtmpfs"

TEST(userns_devtmpfs_refused)
{
	static const char * const l1[] = { NS_L1 };
	char node[PATH_MAX], buf[16];
	pid_t pid;

	XT_DEVTMPFS_NODE(DEVTMPFS_DIR, node, XT_OWNER);
	ASSERT_EQ(0, lsetxattr(node, "trusted.<1000>h", "h", 1, 0));
	pid = fork_in_chain(_metadata, l1, 1);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char list[256];
		ssize_t len;

		XT_CHECK_ERR(lsetxattr(node, "trusted.t", "v", 1, 0), EPERM);
		XT_CHECK_ERR(lgetxattr(node, "trusted.t", buf, sizeof(buf)),
			     ENODATA);
		XT_CHECK_ERR(lremovexattr(node, "trusted.t"), EPERM);
		XT_CHECK_ERR(lgetxattr(node, "trusted.h", buf, sizeof(buf)),
			     ENODATA);
		XT_CHECK_ERR(lremovexattr(node, "trusted.h"), EPERM);
		len = llistxattr(node, list, sizeof(list));
		XT_CHECK(len >= 0);
		XT_EQ(0, xt_list_has(list, len, "trusted.h"));
		XT_EQ(len, llistxattr(node, NULL, 0));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	errno = 0;
	ASSERT_EQ(-1, lgetxattr(node, "trusted.<1000>t", buf, sizeof(buf)));
	ASSERT_EQ(ENODATA, errno);
	ASSERT_TRUE(has_value(node, "trusted.<1000>h", "h"));
	ASSERT_EQ(0, xt_devtmpfs_release(DEVTMPFS_DIR, node));
}

TEST_HARNESS_MAIN
