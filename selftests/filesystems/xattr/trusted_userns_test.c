// SPDX-License-Identifier: GPL-2.0
/*
 * trusted.* extended attributes and user namespaces.
 *
 * Stock kernels give trusted.* to CAP_SYS_ADMIN in the initial user
 * namespace only: the root of any other namespace gets EPERM to set or
 * remove, ENODATA to get, and no trusted.* names in listxattr(). These
 * tests pin that; with fs.xattr_trusted_userns at 0 (its default) a
 * patched kernel must behave the same.
 */
#include "xattr_util.h"
#include "../../kselftest_harness.h"

#define SWITCH "/proc/sys/fs/xattr_trusted_userns"

FIXTURE(trusted) {
	char dir[256];
	char file[PATH_MAX];
};

FIXTURE_VARIANT(trusted) {
	struct xt_fs fs;
	/*
	 * btrfs_listxattr() lists every name, trusted.* included, to callers
	 * that getxattr() then refuses: stock behaviour, pinned as such.
	 */
	bool lists_trusted_to_all;
};

FIXTURE_VARIANT_ADD(trusted, tmpfs) {
	.fs = { "tmpfs", NULL },
};
FIXTURE_VARIANT_ADD(trusted, ext4) {
	.fs = { "ext4", "XATTR_TEST_DEV_EXT4" },
};
FIXTURE_VARIANT_ADD(trusted, xfs) {
	.fs = { "xfs", "XATTR_TEST_DEV_XFS" },
};
FIXTURE_VARIANT_ADD(trusted, btrfs) {
	.fs = { "btrfs", "XATTR_TEST_DEV_BTRFS" },
	.lists_trusted_to_all = true,
};

static int switch_value(void)
{
	char buf[16] = "";
	int fd, n;

	fd = open(SWITCH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

FIXTURE_SETUP(trusted)
{
	int ret;

	ret = xt_setup_fs(&variant->fs, self->dir, sizeof(self->dir));
	if (ret == -ENOENT)
		SKIP(return, "no %s device: %s is not set", variant->fs.fstype,
		     variant->fs.dev_env);
	if (ret == -ENODEV)
		SKIP(return, "kernel without %s", variant->fs.fstype);
	ASSERT_EQ(0, ret);
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

/* The checks run as a namespace's root on the file it owns. */
static void userns_root_refused(const char *file, bool lists_trusted)
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
	XT_CHECK(setxattr(file, "user.ns", "v", 1, 0) == 0);
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
 * unprivileged virtiofsd runs: refused, and nothing of the host's changes.
 */
TEST_F(trusted, userns_root_refused)
{
	int userns;
	pid_t pid;

	if (switch_value() > 0)
		SKIP(return, "fs.xattr_trusted_userns is on: this test pins stock behaviour");
	userns = xt_userns_fd(0, XT_OWNER, 1);
	ASSERT_LE(0, userns);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_CHECK(xt_enter_userns(userns, 0, 0) == 0);
		userns_root_refused(self->file, variant->lists_trusted_to_all);
		_exit(0);
	}
	ASSERT_EQ(0, xt_wait(pid));
	check_host_entry(_metadata, self->file);
}

/*
 * A namespace that maps its root to the host's root (0 -> 0) has no
 * capability in the initial namespace either: still refused.
 */
TEST_F(trusted, userns_root_mapped_to_host_root_refused)
{
	int userns;
	pid_t pid;

	if (switch_value() > 0)
		SKIP(return, "fs.xattr_trusted_userns is on: this test pins stock behaviour");
	ASSERT_EQ(0, chown(self->file, 0, 0));
	userns = xt_userns_fd(0, 0, 65536);
	ASSERT_LE(0, userns);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_CHECK(xt_enter_userns(userns, 0, 0) == 0);
		userns_root_refused(self->file, variant->lists_trusted_to_all);
		_exit(0);
	}
	ASSERT_EQ(0, xt_wait(pid));
	check_host_entry(_metadata, self->file);
}

TEST_HARNESS_MAIN
