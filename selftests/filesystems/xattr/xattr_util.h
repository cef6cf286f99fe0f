/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the xattr selftests: a private mount of the filesystem
 * under test, the file types, user namespaces and credential switches.
 */
#ifndef XATTR_UTIL_H
#define XATTR_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../../kselftest.h"

#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP 0x00100000
#endif

/* Where each test mounts its filesystem, in a mount namespace of its own. */
#define XT_MNT "/tmp/xattr_test_mnt"

/* The uid and gid that own the test files, like a guest's root on the host. */
#define XT_OWNER 1000
/* A host user that owns nothing under test. */
#define XT_OTHER 2000

/*
 * The filesystems under test. tmpfs is mounted fresh; the others need a
 * formatted block device: the one an environment variable names (a test
 * runner that made one), or else a loop device on an image the tests make
 * themselves with mkfs (xt_dev()).
 */
struct xt_fs {
	const char *fstype;
	const char *dev_env;	/* NULL: no device (tmpfs) */
	const char *mkfs;	/* the command that formats an image */
	unsigned int img_mb;	/* the image's size */
	/*
	 * Stock btrfs_listxattr() lists every name, trusted.* included, to
	 * callers that getxattr() then refuses; "btrfs: do not list trusted.*
	 * xattrs to callers who may not read them" fixes it. The tests ask
	 * the kernel (xt_lists_trusted_to_all()) on such a filesystem, and
	 * require the fix where fs.xattr_trusted_userns exists.
	 */
	bool stock_lists_trusted;
};

/*
 * The filesystems every test runs on, as FIXTURE_VARIANT_ADD()s of a
 * fixture whose variant is { struct xt_fs fs; }.
 */
#define XT_FS_VARIANTS(fixture)						\
FIXTURE_VARIANT_ADD(fixture, tmpfs) {					\
	.fs = { .fstype = "tmpfs" },					\
};									\
FIXTURE_VARIANT_ADD(fixture, ext4) {					\
	.fs = { "ext4", "XATTR_TEST_DEV_EXT4", "mkfs.ext4 -q -F", 256 },	\
};									\
FIXTURE_VARIANT_ADD(fixture, xfs) {					\
	.fs = { "xfs", "XATTR_TEST_DEV_XFS", "mkfs.xfs -q -f", 320 },	\
};									\
FIXTURE_VARIANT_ADD(fixture, btrfs) {					\
	.fs = { "btrfs", "XATTR_TEST_DEV_BTRFS", "mkfs.btrfs -q -f", 256,	\
		.stock_lists_trusted = true },				\
};									\
FIXTURE_VARIANT_ADD(fixture, jfs) {					\
	.fs = { "jfs", "XATTR_TEST_DEV_JFS", "mkfs.jfs -q", 256 },	\
};									\
FIXTURE_VARIANT_ADD(fixture, f2fs) {					\
	.fs = { "f2fs", "XATTR_TEST_DEV_F2FS", "mkfs.f2fs -q -f", 256 },	\
}

/* The inode types; the first two are the ones user.* has always allowed. */
struct xt_node {
	const char *name;
	mode_t type;
};

static const struct xt_node xt_nodes[] = {
	{ "reg",     S_IFREG },
	{ "dir",     S_IFDIR },
	{ "symlink", S_IFLNK },
	{ "chr",     S_IFCHR },
	{ "blk",     S_IFBLK },
	{ "fifo",    S_IFIFO },
	{ "sock",    S_IFSOCK },
};

#define XT_NR_NODES ARRAY_SIZE(xt_nodes)

static inline bool xt_special(mode_t type)
{
	return type != S_IFREG && type != S_IFDIR;
}

/*
 * Every test needs root (euid 0): it mounts filesystems, attaches loop
 * devices, turns sysctls and takes on other users' identities. Anybody
 * else gets a SKIP with the reason, from each FIXTURE_SETUP() and TEST().
 */
#define XT_NEED_ROOT() do {						\
	if (geteuid())							\
		SKIP(return, "needs root (euid 0), runs as euid %u",	\
		     (unsigned int)geteuid());				\
} while (0)

/*
 * The images the tests make, one per filesystem, and their loop devices
 * live in a directory of this run's own, named after the test program's
 * main process (the one that runs the harness). Whichever test first needs
 * a filesystem makes its image, attaches it to a loop device and writes the
 * device's name into <fstype>.dev there, so that the tests after it (each
 * in a child process of its own) mount the same device. When the program
 * ends, however it ends but SIGKILL, its main process detaches the loop
 * devices and deletes the directory; the children it forks never do.
 */
#define XT_IMG_DIR_FMT "/tmp/xattr_selftests.%d"

static pid_t xt_main_pid;
static char xt_img_dir[64];

/* A linux_dirent64, for getdents64(2) in a signal handler. */
struct xt_dirent64 {
	__u64 d_ino;
	__s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * Detach the loop device a <fstype>.dev file names (when it is still
 * mounted, LOOP_CLR_FD makes the kernel detach it at its last close).
 * Async-signal-safe.
 */
static void xt_detach_dev_file(int dirfd, const char *name)
{
	char dev[64];
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, dev, sizeof(dev) - 1);
	close(fd);
	if (n <= 0)
		return;
	dev[n] = '\0';
	dev[strcspn(dev, "\n")] = '\0';
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	ioctl(fd, LOOP_CLR_FD, 0);
	close(fd);
}

/*
 * In the main process only: detach the loop devices of this run and delete
 * its images and their directory. Async-signal-safe (no stdio, no malloc),
 * so that the signal handlers below may call it.
 */
static void xt_cleanup_images(void)
{
	static char buf[4096];
	int dirfd, pass, left = 1;
	long n, off;

	if (getpid() != xt_main_pid)
		return;
	dirfd = open(xt_img_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return;
	/* the loop devices first, then every file, again while any is left */
	for (pass = 0; pass < 8 && left; pass++) {
		left = 0;
		lseek(dirfd, 0, SEEK_SET);
		while ((n = syscall(__NR_getdents64, dirfd, buf, sizeof(buf))) > 0) {
			for (off = 0; off < n;) {
				struct xt_dirent64 *d = (void *)(buf + off);
				size_t len = strlen(d->d_name);

				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
					continue;
				left = 1;
				if (pass == 0 && len > 4 && !strcmp(d->d_name + len - 4, ".dev"))
					xt_detach_dev_file(dirfd, d->d_name);
				if (pass > 0)
					unlinkat(dirfd, d->d_name, 0);
			}
		}
	}
	close(dirfd);
	rmdir(xt_img_dir);
}

static void xt_cleanup_signal(int sig)
{
	xt_cleanup_images();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Before the harness runs: note the main process, and clean up at its exit
 * and when a runner's timeout (SIGTERM), a terminal (SIGINT, SIGHUP) ends
 * it. The children inherit the handlers, which only restore the default
 * action and die of the signal there, as they would have.
 */
static void __attribute__((constructor)) xt_images_init(void)
{
	struct sigaction sa = { .sa_handler = xt_cleanup_signal };

	xt_main_pid = getpid();
	snprintf(xt_img_dir, sizeof(xt_img_dir), XT_IMG_DIR_FMT, (int)xt_main_pid);
	atexit(xt_cleanup_images);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * Attach the image at @img to a free loop device, whose name goes to @dev;
 * it detaches itself at its last close. Returns the device, open: close it
 * once the device is mounted (the mount then holds it, and its unmount
 * detaches it), or a negative errno (-ENXIO: the kernel has no loop
 * devices).
 */
static inline int xt_loop_attach(const char *img, char *dev, size_t len,
				 bool ro)
{
	struct loop_info64 info = { .lo_flags = LO_FLAGS_AUTOCLEAR };
	int ctl, nr, img_fd, loop_fd = -1, ret = -EBUSY, tries;

	if (access("/dev/loop-control", F_OK))
		return -ENXIO;
	img_fd = open(img, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (img_fd < 0)
		return -errno;
	for (tries = 0; tries < 16 && ret == -EBUSY; tries++) {
		ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
		nr = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
		if (ctl >= 0)
			close(ctl);
		if (nr < 0) {
			ret = -errno;
			break;
		}
		snprintf(dev, len, "/dev/loop%d", nr);
		loop_fd = open(dev, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (loop_fd < 0) {
			ret = -errno;
			break;
		}
		ret = ioctl(loop_fd, LOOP_SET_FD, img_fd) ? -errno : 0;
		/* autoclear only now: this descriptor holds the device */
		if (!ret && ioctl(loop_fd, LOOP_SET_STATUS64, &info)) {
			ret = -errno;
			ioctl(loop_fd, LOOP_CLR_FD, 0);
		}
		if (ret) {
			close(loop_fd);
			loop_fd = -1;
		}
	}
	close(img_fd);
	return ret ?: loop_fd;
}

/*
 * A loop device, in @dev, on an image of @mb MiB made with @mkfs in this
 * run's image directory (see above) under @name, made by the first test
 * that asks for it; later tests of the run (in other processes) get the
 * same device. 0, or a negative errno: -ENOPKG when @mkfs is not
 * installed, -ENXIO when the kernel has no loop devices.
 */
static inline int xt_loop_image(const char *name, const char *mkfs,
				unsigned int mb, char *dev, size_t len)
{
	char img[PATH_MAX], tmp[PATH_MAX], cmd[2 * PATH_MAX];
	int ctl, nr, img_fd, loop_fd, ret, tries;
	FILE *f;

	snprintf(img, sizeof(img), "%s/%s.dev", xt_img_dir, name);
	f = fopen(img, "re");
	if (f) {
		bool got = fgets(dev, len, f);

		fclose(f);
		dev[strcspn(dev, "\n")] = '\0';
		if (got && *dev)
			return 0;
	}
	snprintf(cmd, sizeof(cmd), "command -v %.*s >/dev/null 2>&1",
		 (int)strcspn(mkfs, " "), mkfs);
	if (system(cmd))
		return -ENOPKG;
	if (access("/dev/loop-control", F_OK))
		return -ENXIO;
	if (mkdir(xt_img_dir, 0700) && errno != EEXIST)
		return -errno;
	snprintf(img, sizeof(img), "%s/%s.img", xt_img_dir, name);
	img_fd = open(img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (img_fd < 0)
		return -errno;
	ret = -EIO;
	if (ftruncate(img_fd, (off_t)mb << 20)) {
		ret = -errno;
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>&1", mkfs, img);
	if (system(cmd))
		goto out;
	/* another program may take the free device first: try again */
	for (tries = 0; tries < 16; tries++) {
		ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
		if (ctl < 0)
			goto fail;
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		close(ctl);
		if (nr < 0)
			goto fail;
		snprintf(dev, len, "/dev/loop%d", nr);
		loop_fd = open(dev, O_RDWR | O_CLOEXEC);
		if (loop_fd < 0)
			goto fail;
		ret = ioctl(loop_fd, LOOP_SET_FD, img_fd);
		close(loop_fd);
		if (!ret)
			break;
		if (errno != EBUSY)
			goto fail;
	}
	if (ret)
		goto fail;
	/* written under another name first: a reader sees all of it or none */
	snprintf(tmp, sizeof(tmp), "%s/%s.dev.tmp", xt_img_dir, name);
	snprintf(img, sizeof(img), "%s/%s.dev", xt_img_dir, name);
	f = fopen(tmp, "we");
	ret = f ? 0 : -1;
	if (f && fprintf(f, "%s\n", dev) < 0)
		ret = -1;
	if (f && fclose(f))
		ret = -1;
	if (!ret && rename(tmp, img))
		ret = -1;
	if (ret) {
		ret = -errno;
		loop_fd = open(dev, O_RDWR | O_CLOEXEC);
		if (loop_fd >= 0) {
			ioctl(loop_fd, LOOP_CLR_FD, 0);
			close(loop_fd);
		}
	}
	goto out;
fail:
	ret = -errno;
out:
	close(img_fd);
	return ret;
}

/*
 * The block device of the filesystem under test: $<dev_env> when set, or a
 * loop device on an image made with fs->mkfs (xt_loop_image()). NULL when
 * neither can be had: errno is ENOPKG when fs->mkfs is not installed,
 * ENXIO when the kernel has no loop devices.
 */
static inline const char *xt_dev(const struct xt_fs *fs)
{
	/*
	 * This process's device: xt_remount() comes back for it after
	 * xt_setup_fs() put a tmpfs over /tmp, where the run's image directory
	 * can no longer be seen (asking xt_loop_image() again would make a
	 * fresh image, and the test would meet an empty filesystem).
	 */
	static char dev[64], dev_fstype[16];
	const char *env = getenv(fs->dev_env);
	int ret;

	if (env && *env)
		return env;
	if (*dev && !strcmp(dev_fstype, fs->fstype))
		return dev;
	ret = xt_loop_image(fs->fstype, fs->mkfs, fs->img_mb, dev, sizeof(dev));
	if (ret) {
		*dev = '\0';
		errno = -ret;
		return NULL;
	}
	snprintf(dev_fstype, sizeof(dev_fstype), "%s", fs->fstype);
	return dev;
}

/*
 * Mount the filesystem under test at XT_MNT in a new private mount
 * namespace, over a tmpfs of its own on /tmp (whatever a test makes under
 * /tmp goes with the namespace), and make a fresh directory for this test
 * in it. Returns 0, or a negative errno; -ENOPKG means "no device for this
 * filesystem, and no mkfs to make one", -ENXIO "no loop devices to make
 * one" and -ENODEV "the kernel does not know this filesystem". Any other
 * errno, a device that a variable names but that does not exist (ENOENT)
 * included, is an error.
 */
static inline int xt_setup_fs(const struct xt_fs *fs, char *dir, size_t len)
{
	const char *dev = "none";

	if (fs->dev_env) {
		dev = xt_dev(fs);
		if (!dev)
			return -errno;
	}
	if (unshare(CLONE_NEWNS))
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777"))
		return -errno;
	if (mkdir(XT_MNT, 0755) && errno != EEXIST)
		return -errno;
	if (mount(dev, XT_MNT, fs->fstype, 0, NULL))
		return -errno;
	if (snprintf(dir, len, "%s/t.XXXXXX", XT_MNT) >= (int)len)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	if (chmod(dir, 0755))
		return -errno;
	return 0;
}

/* Does /proc/filesystems list fstype (the kernel has it, built in or loaded)? */
static inline bool xt_kernel_has_fs(const char *fstype)
{
	char line[128], *name;
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "re");

	if (!f)
		return true;	/* cannot tell: let the mount's errno stand */
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		name = strchr(line, '\t');
		found = name && !strcmp(name + 1, fstype);
	}
	fclose(f);
	return found;
}

/*
 * xt_setup_fs() in a FIXTURE_SETUP(), into dir (an array): SKIP with the
 * reason when this machine cannot have the filesystem (no device, no loop,
 * a kernel without it: ENODEV while /proc/filesystems does not list it),
 * fail on any other error.
 */
#define XT_SETUP_FS(fs, dir) do {					\
	int __ret;							\
									\
	XT_NEED_ROOT();							\
	__ret = xt_setup_fs(fs, dir, sizeof(dir));			\
	if (__ret == -ENOPKG)						\
		SKIP(return, "no %s device: set %s, or install %.*s",	\
		     (fs)->fstype, (fs)->dev_env,			\
		     (int)strcspn((fs)->mkfs, " "), (fs)->mkfs);	\
	if (__ret == -ENXIO)						\
		SKIP(return, "no %s device: set %s, or load loop (%s)",	\
		     (fs)->fstype, (fs)->dev_env, "CONFIG_BLK_DEV_LOOP"); \
	if (__ret == -ENODEV && !xt_kernel_has_fs((fs)->fstype))	\
		SKIP(return, "kernel without %s", (fs)->fstype);	\
	ASSERT_EQ(0, __ret) {						\
		TH_LOG("setting up %s: %s", (fs)->fstype, strerror(-__ret)); \
	}								\
} while (0)

/* Remount the filesystem under test, to prove what is on disk. */
static inline int xt_remount(const struct xt_fs *fs)
{
	const char *dev = fs->dev_env ? xt_dev(fs) : "none";

	if (umount2(XT_MNT, 0))
		return -errno;
	if (mount(dev, XT_MNT, fs->fstype, 0, NULL))
		return -errno;
	return 0;
}

/* Create one node of the given type at path, owned by uid:gid. */
static inline int xt_mknode(const char *path, mode_t type, uid_t uid, gid_t gid)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, ret = 0;

	switch (type) {
	case S_IFREG:
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		close(fd);
		break;
	case S_IFDIR:
		ret = mkdir(path, 0755);
		break;
	case S_IFLNK:
		ret = symlink("reg", path);
		break;
	case S_IFCHR:
		/* like /dev/null: anybody may write the device */
		ret = mknod(path, S_IFCHR | 0666, makedev(1, 3));
		break;
	case S_IFBLK:
		ret = mknod(path, S_IFBLK | 0666, makedev(7, 0));
		break;
	case S_IFIFO:
		ret = mknod(path, S_IFIFO | 0666, 0);
		break;
	case S_IFSOCK:
		if (strlen(path) >= sizeof(sun.sun_path))
			return -ENAMETOOLONG;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		ret = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
		close(fd);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return -errno;
	if (lchown(path, uid, gid))
		return -errno;
	if (type == S_IFCHR || type == S_IFBLK || type == S_IFIFO || type == S_IFSOCK)
		if (chmod(path, 0666))
			return -errno;
	return 0;
}

/* Make every node type in dir, named as in xt_nodes[]. */
static inline int xt_mknodes(const char *dir, uid_t uid, gid_t gid)
{
	char path[PATH_MAX];
	size_t i;
	int ret;

	for (i = 0; i < XT_NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, xt_nodes[i].name);
		ret = xt_mknode(path, xt_nodes[i].type, uid, gid);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * devtmpfs's device nodes are the kernel's, some lent to users (login(1)
 * gives the console user its tty). xt_devtmpfs_node() mounts the kernel's
 * devtmpfs on dir, in a private mount namespace of the caller, and makes
 * a character device there, owned by uid, its path in node (an array).
 * Returns 0, or a negative errno; -ENODEV means "a kernel without
 * devtmpfs". xt_devtmpfs_release() removes the node and unmounts.
 */
static inline int xt_devtmpfs_node(const char *dir, char *node, size_t len,
				   uid_t uid)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if (mount("devtmpfs", dir, "devtmpfs", 0, NULL))
		return -errno;
	if (snprintf(node, len, "%s/xattr_test_tty.%d", dir,
		     (int)getpid()) >= (int)len)
		return -ENAMETOOLONG;
	return xt_mknode(node, S_IFCHR, uid, uid);
}

static inline int xt_devtmpfs_release(const char *dir, const char *node)
{
	if (unlink(node))
		return -errno;
	if (umount(dir))
		return -errno;
	return 0;
}

/*
 * xt_devtmpfs_node() in a TEST(), into node (an array): SKIP when the
 * kernel has no devtmpfs, fail on any other error.
 */
#define XT_DEVTMPFS_NODE(dir, node, uid) do {				\
	int __ret;							\
									\
	XT_NEED_ROOT();							\
	__ret = xt_devtmpfs_node(dir, node, sizeof(node), uid);		\
	if (__ret == -ENODEV)						\
		SKIP(return, "kernel without devtmpfs (CONFIG_DEVTMPFS)"); \
	ASSERT_EQ(0, __ret) {						\
		TH_LOG("devtmpfs node in %s: %s", dir, strerror(-__ret)); \
	}								\
} while (0)

/* Does a listxattr() result hold this name? */
static inline bool xt_list_has(const char *list, ssize_t len, const char *name)
{
	ssize_t off;

	for (off = 0; off < len; off += strlen(list + off) + 1)
		if (!strcmp(list + off, name))
			return true;
	return false;
}

/* Does a listxattr() result hold any name starting with prefix? */
static inline bool xt_list_has_prefix(const char *list, ssize_t len, const char *prefix)
{
	ssize_t off;

	for (off = 0; off < len; off += strlen(list + off) + 1)
		if (!strncmp(list + off, prefix, strlen(prefix)))
			return true;
	return false;
}

static inline int xt_write_file(const char *path, const char *buf)
{
	ssize_t len = strlen(buf);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) != len) {
		int err = errno ? -errno : -EIO;

		close(fd);
		return err;
	}
	return close(fd) ? -errno : 0;
}

static inline int xt_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * A user namespace whose ids 0..range-1 map to hostid..hostid+range-1 of
 * the caller's namespace, as an fd for setns(). Its creator is the caller,
 * so a caller that is root over its own namespace can enter it.
 */
static inline int xt_userns_fd_map(const char *map)
{
	int ready[2], done[2], fd = -EPERM;
	char path[64], c;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	if (pipe2(done, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(ready[0]);
		close(done[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		/* tell the parent, then wait until it has opened the namespace */
		if (write(ready[1], "u", 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(done[0]);
	if (read(ready[0], &c, 1) != 1)
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	if (xt_write_file(path, map))
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	if (xt_write_file(path, map))
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
out:
	close(ready[0]);
	close(done[1]);
	xt_wait(pid);
	return fd;
}

/* The same, for a single mapping line. */
static inline int xt_userns_fd(unsigned long nsid, unsigned long hostid,
			       unsigned long range)
{
	char map[64];

	snprintf(map, sizeof(map), "%lu %lu %lu", nsid, hostid, range);
	return xt_userns_fd_map(map);
}

/*
 * Attach an idmapped copy of the mount at src to dst (which must exist),
 * with the idmapping of the user namespace userns_fd.
 */
static inline int xt_idmapped_mount(const char *src, const char *dst, int userns_fd)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_IDMAP,
		.userns_fd = userns_fd,
	};
	int fd, ret = 0;

	fd = syscall(__NR_open_tree, -EBADF, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(__NR_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) ||
	    syscall(__NR_move_mount, fd, "", -EBADF, dst, MOVE_MOUNT_F_EMPTY_PATH))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * xt_idmapped_mount() in a test: a filesystem without FS_ALLOW_IDMAP
 * (jfs, for one) refuses MOUNT_ATTR_IDMAP with EINVAL, which is a skip;
 * any other failure fails the test. Closes userns_fd either way.
 */
#define XT_IDMAPPED_MOUNT(src, dst, userns_fd, fstype) do {		\
	int __fd = (userns_fd);						\
	int __ret = xt_idmapped_mount(src, dst, __fd);			\
									\
	close(__fd);							\
	if (__ret == -EINVAL)						\
		SKIP(return, "%s has no idmapped mounts", fstype);	\
	ASSERT_EQ(0, __ret);						\
} while (0)

/* Become uid:gid, with no supplementary groups, keeping nothing else. */
static inline int xt_become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL))
		return -errno;
	if (setresgid(gid, gid, gid))
		return -errno;
	if (setresuid(uid, uid, uid))
		return -errno;
	/* stay ptrace-able and let /proc/self be ours (see setresuid(2)) */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

/* Become uid:gid with exactly one effective capability, cap. */
static inline int xt_become_with_cap(uid_t uid, gid_t gid, int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	if (xt_become(uid, gid))
		return -errno;
	data[cap / 32].effective = 1u << (cap % 32);
	data[cap / 32].permitted = 1u << (cap % 32);
	if (syscall(__NR_capset, &hdr, data))
		return -errno;
	return 0;
}

/*
 * The switches of the two series. They go from 0 to 1 once per boot and
 * never back: the tests do not change them (but xattr_switch_test, which a
 * run takes last), they check the behaviour of the setting this boot has.
 * A kernel without a switch behaves as with it at 0.
 */
#define XT_SW_USER	"/proc/sys/fs/xattr_user_special"
#define XT_SW_TRUSTED	"/proc/sys/fs/xattr_trusted_userns"

/*
 * A sysctl's value: the number, or -1 when the file does not exist (a
 * kernel without it).
 */
static inline int xt_sysctl_get(const char *path)
{
	char buf[16] = "";
	int fd, n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

static inline int xt_sysctl_set(const char *path, int value)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d\n", value);
	return xt_write_file(path, buf);
}

/* A switch as this boot has it: 1, or 0 (also without the switch). */
static inline int xt_switch(const char *path)
{
	return xt_sysctl_get(path) == 1;
}

/* Enter the user namespace userns_fd and become its uid:gid there. */
static inline int xt_enter_userns(int userns_fd, uid_t uid, gid_t gid)
{
	if (setns(userns_fd, CLONE_NEWUSER))
		return -errno;
	return xt_become(uid, gid);
}

/*
 * Enter a chain of new user namespaces, one per map (uid and gid maps
 * alike), each created and mapped by the root of the level above, and
 * become root of the last. Returns 0 or a negative errno.
 */
static inline int xt_enter_chain(const char * const *maps, int depth)
{
	int i, fd, ret;

	for (i = 0; i < depth; i++) {
		fd = xt_userns_fd_map(maps[i]);
		if (fd < 0)
			return fd;
		ret = xt_enter_userns(fd, 0, 0);
		close(fd);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether this kernel sets up an io_uring for us (it may be off or limited). */
static inline bool xt_have_uring(void)
{
	struct io_uring_params p = {};
	int ring = syscall(__NR_io_uring_setup, 1, &p);

	if (ring < 0)
		return false;
	close(ring);
	return p.features & IORING_FEAT_SINGLE_MMAP;
}

/*
 * An io_uring of one entry, for one xattr operation at a time. (The
 * io_uring of 6.12 has SETXATTR, GETXATTR, FSETXATTR and FGETXATTR, and no
 * listxattr or removexattr.)
 */
struct xt_ring {
	int fd;
	struct io_uring_params p;
	void *rings;		/* the SQ and CQ rings, one mapping */
	size_t rings_size;
	struct io_uring_sqe *sqes;
};

/* Set up the ring: 0, or -errno (io_uring off or limited: -ENOSYS, -EPERM). */
static inline int xt_ring_open(struct xt_ring *r)
{
	size_t sqsz, cqsz;

	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, 1, &r->p);
	if (r->fd < 0)
		return -errno;
	sqsz = r->p.sq_off.array + r->p.sq_entries * sizeof(__u32);
	cqsz = r->p.cq_off.cqes + r->p.cq_entries * sizeof(struct io_uring_cqe);
	r->rings_size = sqsz > cqsz ? sqsz : cqsz;
	/* kernels since 5.4 map both rings at once */
	r->rings = mmap(NULL, r->rings_size, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(*r->sqes),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (r->rings == MAP_FAILED || r->sqes == MAP_FAILED ||
	    !(r->p.features & IORING_FEAT_SINGLE_MMAP)) {
		if (r->rings != MAP_FAILED)
			munmap(r->rings, r->rings_size);
		if (r->sqes != MAP_FAILED)
			munmap(r->sqes, r->p.sq_entries * sizeof(*r->sqes));
		close(r->fd);
		return -ENOMEM;
	}
	return 0;
}

static inline void xt_ring_close(struct xt_ring *r)
{
	munmap(r->sqes, r->p.sq_entries * sizeof(*r->sqes));
	munmap(r->rings, r->rings_size);
	close(r->fd);
}

/*
 * One xattr operation through the ring: op is IORING_OP_SETXATTR,
 * _GETXATTR (path), _FSETXATTR or _FGETXATTR (fd). Returns the CQE's
 * result, or -errno when io_uring_enter() itself failed.
 */
static inline long xt_ring_xattr(struct xt_ring *r, int op, int fd,
				 const char *path, const char *name,
				 void *value, size_t len, int flags)
{
	char *rings = r->rings;
	unsigned int *sq_tail = (unsigned int *)(rings + r->p.sq_off.tail);
	unsigned int sq_mask = *(unsigned int *)(rings + r->p.sq_off.ring_mask);
	unsigned int *cq_head = (unsigned int *)(rings + r->p.cq_off.head);
	unsigned int *cq_tail = (unsigned int *)(rings + r->p.cq_off.tail);
	unsigned int cq_mask = *(unsigned int *)(rings + r->p.cq_off.ring_mask);
	unsigned int tail = *sq_tail, idx = tail & sq_mask, head;
	struct io_uring_sqe *sqe = &r->sqes[idx];
	struct io_uring_cqe *cqe;
	long res;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->fd = fd;
	sqe->addr = (unsigned long)name;
	sqe->addr2 = (unsigned long)value;
	sqe->addr3 = (unsigned long)path;
	sqe->len = len;
	sqe->xattr_flags = flags;
	((unsigned int *)(rings + r->p.sq_off.array))[idx] = idx;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	head = *cq_head;
	if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE))
		return -EIO;	/* no completion: not what io_uring_enter() said */
	cqe = (struct io_uring_cqe *)(rings + r->p.cq_off.cqes) + (head & cq_mask);
	res = cqe->res;
	__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/*
 * One xattr operation through a fresh io_uring (see xt_ring_xattr()), or
 * -errno when io_uring itself is not available.
 */
static inline long xt_uring_xattr(int op, int fd, const char *path,
				  const char *name, void *value, size_t len,
				  int flags)
{
	struct xt_ring r;
	long res = xt_ring_open(&r);

	if (res)
		return res;
	res = xt_ring_xattr(&r, op, fd, path, name, value, len, flags);
	xt_ring_close(&r);
	return res;
}

/*
 * Children of a test (forked to switch credentials) report through the
 * kselftest harness, as the Landlock selftests do: they check with
 * ASSERT_*() and EXPECT_*() (XT_CHECK below is ASSERT_TRUE() that also
 * logs the condition and errno) and end with _exit(_metadata->exit_code);
 * the parent asserts that the child's status is 0 (xt_wait()). A failed
 * check in a child of a TEST_F() marks the shared _metadata failed; in a
 * child of a TEST() it ends the child with SIGABRT. Either way the test
 * fails, and no exit status of a child encodes a line or a verdict.
 * Every function that checks takes the test's _metadata.
 */
#define XT_CHECK(cond) do {						\
	bool __xt_ok = (cond);						\
	int __xt_errno = errno;						\
	ASSERT_TRUE(__xt_ok) {						\
		TH_LOG("%s failed (errno %d: %s)", #cond, __xt_errno,	\
		       strerror(__xt_errno));				\
	}								\
} while (0)

/*
 * XT_EQ(expected, seen): ASSERT_EQ(), which prints both values, and the
 * errno when they differ.
 */
#define XT_EQ(expected, seen) do {					\
	ASSERT_EQ(expected, seen) {					\
		TH_LOG("errno %d: %s", errno, strerror(errno));	\
	}								\
} while (0)

/* XT_STREQ(expected, seen): the strings, printed when they differ */
#define XT_STREQ(expected, seen) ASSERT_STREQ(expected, seen)

/*
 * XT_MEMEQ(expected, buf, len): the @len bytes at @buf are the first @len
 * of the string @expected; both printed when not.
 */
#define XT_MEMEQ(expected, buf, len) do {				\
	size_t __xt_len = (len);					\
	ASSERT_TRUE(strlen(expected) >= __xt_len &&			\
		    !memcmp(expected, buf, __xt_len)) {			\
		TH_LOG("expected \"%.*s\", seen \"%.*s\"",		\
		       (int)__xt_len, (char *)(expected), (int)__xt_len, \
		       (char *)(buf));					\
	}								\
} while (0)

/*
 * The one status a child exits with on purpose other than its
 * _metadata->exit_code: the test cannot run here (an overlayfs its
 * namespace may not mount); it logs why, and the parent SKIPs the test.
 * The harness's own KSFT_SKIP, which no check in a child exits with.
 */
#define XT_CHILD_SKIP KSFT_SKIP

/*
 * Wait for a child that mounts an overlayfs in a user namespace: SKIP when
 * it exited with XT_CHILD_SKIP (the namespace may not mount overlayfs on
 * this filesystem here), fail on any other status but 0.
 */
#define XT_WAIT_OVL_CHILD(pid, fstype) do {				\
	int __status = xt_wait(pid);					\
									\
	if (__status == XT_CHILD_SKIP)					\
		SKIP(return, "overlayfs cannot be mounted in a user namespace on %s", \
		     fstype);						\
	ASSERT_EQ(0, __status);						\
} while (0)

/*
 * An overlayfs mount error that means "not here": EINVAL (a layer's
 * filesystem lacks what overlayfs needs), EPERM (a namespace may not mount
 * it), EOPNOTSUPP. Any other errno is a failure, not a skip.
 */
static inline bool xt_ovl_unsupported(int err)
{
	return err == EINVAL || err == EPERM || err == EOPNOTSUPP;
}

/* An xattr call that must fail with exactly err; what it did, if not. */
#define XT_CHECK_ERR(call, err) do {					\
	long long __xt_ret;						\
	int __xt_errno;							\
									\
	errno = 0;							\
	__xt_ret = (call);						\
	__xt_errno = errno;						\
	ASSERT_TRUE(__xt_ret == -1 && __xt_errno == (err)) {		\
		TH_LOG("%s returned %lld, errno %d (%s); expected errno %d (%s)", \
		       #call, __xt_ret, __xt_errno, strerror(__xt_errno), \
		       (err), strerror(err));				\
	}								\
} while (0)

/*
 * Does this kernel's filesystem at dir list trusted.* names to a caller who
 * may not read them (stock btrfs does; "btrfs: do not list trusted.* xattrs
 * to callers who may not read them" fixes it, and can come on its own)?
 * 1 or 0, or a negative errno. Asked by a child as an unprivileged uid.
 */
static inline int xt_lists_trusted_to_all(const char *dir)
{
	char probe[PATH_MAX], list[256];
	int status, ret;
	pid_t pid;

	snprintf(probe, sizeof(probe), "%s/.xt_lists_trusted", dir);
	ret = xt_mknode(probe, S_IFREG, 0, 0);
	if (ret)
		return ret;
	if (chmod(probe, 0644) || setxattr(probe, "trusted.xt_probe", "p", 1, 0)) {
		ret = -errno;
		unlink(probe);
		return ret;
	}
	pid = fork();
	if (pid == 0) {
		ssize_t len;

		if (xt_become(65534, 65534))
			_exit(2);
		len = listxattr(probe, list, sizeof(list));
		if (len < 0)
			_exit(2);
		_exit(xt_list_has(list, len, "trusted.xt_probe") ? 1 : 0);
	}
	status = pid < 0 ? -errno : xt_wait(pid);
	unlink(probe);
	if (status < 0)
		return status;
	return status == 2 ? -EIO : status;
}

#endif /* XATTR_UTIL_H */
