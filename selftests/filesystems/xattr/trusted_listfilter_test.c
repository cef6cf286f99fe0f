// SPDX-License-Identifier: GPL-2.0
/*
 * The trusted.* list filters of the filesystems the other tests do not
 * mount: gfs2 (lock_nolock) and ocfs2 (a local mount), and the read-only
 * erofs and squashfs, whose images are made from a directory that holds
 * the names (as their tools make them anywhere, a host included). Each
 * holds a file with the host's trusted.host, namespace <1000>'s
 * trusted.<1000>mine (as stored) and user.u:
 *
 * - an unprivileged caller of the initial namespace lists no trusted.*
 *   name (gfs2 used to list them all: "gfs2: do not list trusted.* xattrs
 *   to callers who may not read them");
 * - root lists every name as stored, and reads it;
 * - a member of namespace <1000> without CAP_SYS_ADMIN lists no trusted.*
 *   name, at either setting of fs.xattr_trusted_userns;
 * - the root of namespace <1000> lists and reads trusted.mine, and nothing
 *   else of trusted.*, with the switch at 1; none with it at 0.
 *
 * A variant whose filesystem the kernel lacks, or whose tool is not
 * installed, SKIPs saying which.
 */
#include "xattr_util.h"
#include "../../kselftest_harness.h"

#define LF_MNT "/tmp/xattr_lf_mnt"
#define LF_SRC "/tmp/xattr_lf_src"

struct lf_fs {
	const char *fstype;
	const char *mkfs;	/* "%s" is the image (and LF_SRC, for images) */
	bool image;		/* read-only: made from LF_SRC */
	const char *opts;	/* mount options */
	bool stock_lists_trusted;	/* to everybody, without the series */
	bool lock_order;	/* lockdep reports the filesystem's own order */
};

FIXTURE(lf) {
	char file[PATH_MAX];
	int sw;
	bool patched;
	bool lists_trusted;	/* to callers who may not read them */
};

FIXTURE_VARIANT(lf) {
	struct lf_fs fs;
};

FIXTURE_VARIANT_ADD(lf, gfs2) {
	.fs = { "gfs2", "mkfs.gfs2 -O -q -p lock_nolock -j 1 %s", false, NULL, true },
};

FIXTURE_VARIANT_ADD(lf, ocfs2) {
	.fs = { "ocfs2", "mkfs.ocfs2 -q -M local -N 1 %s", false, NULL, false,
		true },
};

FIXTURE_VARIANT_ADD(lf, erofs) {
	.fs = { "erofs", "mkfs.erofs --quiet %s " LF_SRC, true, NULL },
};

FIXTURE_VARIANT_ADD(lf, squashfs) {
	.fs = { "squashfs", "mksquashfs " LF_SRC " %s -quiet -noappend -xattrs", true,
		NULL },
};

/* The names every variant's file carries. */
static int lf_names(const char *f)
{
	if (setxattr(f, "trusted.host", "h", 1, 0) ||
	    setxattr(f, "trusted.<1000>mine", "m", 1, 0) ||
	    setxattr(f, "user.u", "u", 1, 0))
		return -errno;
	return 0;
}

/* Make the image or the filesystem, attach it to a loop device, mount it. */
static int lf_make(const struct lf_fs *fs, char *file, size_t len)
{
	char cmd[PATH_MAX * 2], img[PATH_MAX], src[PATH_MAX], dev[64];
	int ret, fd, loop;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777") ||
	    mkdir(LF_MNT, 0755))
		return -errno;
	snprintf(cmd, sizeof(cmd), "command -v %.*s >/dev/null 2>&1",
		 (int)strcspn(fs->mkfs, " "), fs->mkfs);
	if (system(cmd))
		return -ENOPKG;
	if (access("/dev/loop-control", F_OK))
		return -ENXIO;
	snprintf(img, sizeof(img), "/tmp/lf.%s.img", fs->fstype);
	if (fs->image) {
		if (mkdir(LF_SRC, 0755))
			return -errno;
		snprintf(src, sizeof(src), LF_SRC "/f");
		ret = xt_mknode(src, S_IFREG, XT_OWNER, XT_OWNER) ?: lf_names(src);
		if (ret)
			return ret;
	} else {
		fd = open(img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		ret = ftruncate(fd, 256 << 20) ? -errno : 0;
		close(fd);
		if (ret)
			return ret;
	}
	snprintf(cmd, sizeof(cmd), fs->mkfs, img);
	strcat(cmd, " </dev/null >/dev/null 2>&1");
	if (system(cmd))
		return -EIO;
	loop = xt_loop_attach(img, dev, sizeof(dev), fs->image);
	if (loop < 0)
		return loop;
	ret = mount(dev, LF_MNT, fs->fstype, fs->image ? MS_RDONLY : 0, fs->opts);
	ret = ret ? -errno : 0;
	close(loop);
	if (ret)
		return ret == -ENODEV && !xt_kernel_has_fs(fs->fstype) ? -ENODEV : ret;
	snprintf(file, len, LF_MNT "/f");
	if (!fs->image)
		return xt_mknode(file, S_IFREG, XT_OWNER, XT_OWNER) ?: lf_names(file);
	return 0;
}

FIXTURE_SETUP(lf)
{
	int ret;

	XT_NEED_ROOT();
	/*
	 * ocfs2 takes ip_alloc_sem before its journal in ->setattr() and after
	 * it when it sets an xattr in the inode: a chown and a setxattr, as
	 * root on any kernel, make lockdep report it, and a lockdep that has
	 * reported once checks nothing more in that boot.
	 */
	if (variant->fs.lock_order && !access("/proc/lockdep", F_OK))
		SKIP(return, "%s: lockdep reports its own setattr/setxattr lock order",
		     variant->fs.fstype);
	self->patched = xt_sysctl_get(XT_SW_TRUSTED) >= 0;
	self->sw = xt_switch(XT_SW_TRUSTED);
	ret = lf_make(&variant->fs, self->file, sizeof(self->file));
	if (ret == -ENOPKG)
		SKIP(return, "%.*s is not installed", (int)strcspn(variant->fs.mkfs, " "),
		     variant->fs.mkfs);
	if (ret == -ENXIO)
		SKIP(return, "no loop devices (CONFIG_BLK_DEV_LOOP)");
	if (ret == -ENODEV)
		SKIP(return, "kernel without %s", variant->fs.fstype);
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", variant->fs.fstype, strerror(-ret));
	if (variant->fs.stock_lists_trusted) {
		int lists = xt_lists_trusted_to_all(LF_MNT);

		ASSERT_LE(0, lists);
		self->lists_trusted = lists;
		/* "gfs2: do not list trusted.* xattrs to callers who may not read them" */
		if (self->patched)
			ASSERT_FALSE(self->lists_trusted);
	}
}

/* Stock gfs2 shows every caller every trusted.* name: nothing to test */
#define LF_NEED_FILTER() do {						\
	if (self->lists_trusted)					\
		SKIP(return, "this %s lists trusted.* to everybody (without the fix)", \
		     variant->fs.fstype);					\
} while (0)

FIXTURE_TEARDOWN(lf)
{
	umount2(LF_MNT, MNT_DETACH);
}

/* The trusted* names of @file's listing, sorted, "a|b|c"; the probe agrees. */
static void lf_trusted(struct __test_metadata *_metadata, const char *file,
		       char *out, size_t outlen)
{
	char list[4096], *names[32];
	ssize_t len = listxattr(file, list, sizeof(list)), off;
	size_t n = 0, i, j, used = 0;

	XT_CHECK(len >= 0);
	XT_EQ(len, listxattr(file, NULL, 0));
	for (off = 0; off < len; off += strlen(list + off) + 1)
		if (!strncmp(list + off, "trusted", 7) && n < 32)
			names[n++] = list + off;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	out[0] = '\0';
	for (i = 0; i < n; i++)
		used += snprintf(out + used, outlen - used, "%s%s", i ? "|" : "",
				 names[i]);
}

#define IN_CHILD(...) do {						\
	pid_t __pid = fork();						\
	ASSERT_LE(0, __pid);						\
	if (__pid == 0) {						\
		__VA_ARGS__;						\
		_exit(_metadata->exit_code);				\
	}								\
	ASSERT_EQ(0, xt_wait(__pid));					\
} while (0)

TEST_F(lf, root_lists_and_reads_as_stored)
{
	char names[4096], buf[8];

	lf_trusted(_metadata, self->file, names, sizeof(names));
	ASSERT_STREQ("trusted.<1000>mine|trusted.host", names);
	ASSERT_EQ(1, getxattr(self->file, "trusted.<1000>mine", buf, sizeof(buf)));
	ASSERT_EQ(1, getxattr(self->file, "trusted.host", buf, sizeof(buf)));
	ASSERT_EQ(1, getxattr(self->file, "user.u", buf, sizeof(buf)));
}

TEST_F(lf, unprivileged_lists_no_trusted)
{
	LF_NEED_FILTER();
	IN_CHILD({
		char names[4096];

		XT_EQ(0, xt_become(XT_OTHER, XT_OTHER));
		lf_trusted(_metadata, self->file, names, sizeof(names));
		ASSERT_STREQ("", names);
		XT_CHECK_ERR(getxattr(self->file, "trusted.host", NULL, 0), ENODATA);
	});
}

TEST_F(lf, userns_member_lists_no_trusted)
{
	LF_NEED_FILTER();
	IN_CHILD({
		char names[4096];
		int userns = xt_userns_fd(0, XT_OWNER, 1000);

		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct caps[2];

		XT_CHECK(userns >= 0);
		/* its root first, so that becoming uid 5 drops the capabilities */
		XT_EQ(0, xt_enter_userns(userns, 0, 0));
		XT_EQ(0, xt_become(5, 5));
		XT_EQ(0, syscall(__NR_capget, &hdr, caps));
		XT_EQ(0, caps[0].effective | caps[1].effective);
		lf_trusted(_metadata, self->file, names, sizeof(names));
		ASSERT_STREQ("", names);
	});
}

TEST_F(lf, userns_root_lists_its_names)
{
	int sw = self->sw;

	LF_NEED_FILTER();
	IN_CHILD({
		char names[4096], buf[8];
		int userns = xt_userns_fd(0, XT_OWNER, 1000);

		XT_CHECK(userns >= 0);
		XT_EQ(0, xt_enter_userns(userns, 0, 0));
		lf_trusted(_metadata, self->file, names, sizeof(names));
		if (sw) {
			ASSERT_STREQ("trusted.mine", names);
			XT_EQ(1, getxattr(self->file, "trusted.mine", buf,
					  sizeof(buf)));
		} else {
			ASSERT_STREQ("", names);
			XT_CHECK_ERR(getxattr(self->file, "trusted.mine", buf,
					      sizeof(buf)), ENODATA);
		}
		XT_CHECK_ERR(getxattr(self->file, "trusted.host", buf, sizeof(buf)),
			     ENODATA);
	});
}

TEST_HARNESS_MAIN
