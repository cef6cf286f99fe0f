// SPDX-License-Identifier: GPL-2.0
/*
 * The switches fs.xattr_user_special and fs.xattr_trusted_userns go from 0
 * to 1 once per boot and never back. This program takes that one step,
 * under load: it must run last in a boot that starts with both at 0 (the
 * Makefile lists it last; run_kselftest.sh keeps that order), and then
 * leaves both at 1. In a boot that set them on its command line it checks
 * that they stay 1. Since a switch cannot be cleared, the step is only
 * taken with XATTR_TEST_SET_SWITCHES=1 in the environment (a test VM that
 * is thrown away afterwards); it SKIPs otherwise.
 *
 * transition_under_load: on every filesystem at hand at once (tmpfs, and
 * ext4, xfs, btrfs, jfs and f2fs when a device or mkfs is there), callers
 * in user namespaces list, read and write while the switches go from 0 to
 * 1. Every call follows one setting: a namespace never sees a name outside
 * its chain, a non-owner never sees the user.* names of a FIFO, and once a
 * call succeeded because of a switch, no later one fails as at 0. Every
 * caller must have met both settings, or the test proved nothing. A kernel
 * that hangs a caller is what the kernel's hung-task detector and the
 * test's timeout find. While fs.xattr_trusted_userns is set, the namespace
 * root listing a FIFO of uid 2000 through two overlayfs over the tmpfs runs
 * alone on a CPU at real-time priority. The upper overlayfs decides on each
 * trusted.* name in turn, as the caller, and spends most of the listing on
 * a thousand of them before it meets the host's: a listing that began at 0
 * and had the filesystem decide at 1 shows them.
 *
 * root_load: the same filesystems loaded by root alone, on any kernel,
 * with no switch involved.
 */
#include "xattr_util.h"
#include <sched.h>
#include <time.h>
#include "../../kselftest_harness.h"

#define XST_DIR "/tmp/xattr_switch"
#define XST_LOAD_SECONDS 1.5	/* before the first switch, and after each */
#define XST_PAD 1000		/* tmpfs: trusted.* names listed before the others */
#define XST_OVL XST_DIR "/ovl"	/* an overlayfs with the tmpfs as its lower layer, */
#define XST_OVL2 XST_DIR "/ovl2"	/* and one over that */

static const struct xt_fs xst_fs[] = {
	{ .fstype = "tmpfs" },
	{ "ext4", "XATTR_TEST_DEV_EXT4", "mkfs.ext4 -q -F", 256 },
	{ "xfs", "XATTR_TEST_DEV_XFS", "mkfs.xfs -q -f", 320 },
	{ "btrfs", "XATTR_TEST_DEV_BTRFS", "mkfs.btrfs -q -f", 256 },
	{ "jfs", "XATTR_TEST_DEV_JFS", "mkfs.jfs -q", 256 },
	{ "f2fs", "XATTR_TEST_DEV_F2FS", "mkfs.f2fs -q -f", 256 },
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the callers share with the test: when to stop. */
struct xst_shared {
	int stop;	/* __atomic_*() */
};

enum xst_role {
	NS_LISTER,	/* root of namespace <1000>: its names, nobody else's */
	NONOWNER,	/* uid 2000: no user.* name of the FIFO */
	OWNER_WRITER,	/* uid 1000: user.* on the FIFO, once allowed always */
	NS_WRITER,	/* namespace <1000>: trusted.* set, once allowed always */
	NS_URING,	/* namespace <1000>: the same through io_uring */
	NS_SPECIAL,	/* namespace <1000>: no name of a FIFO of uid 2000 */
};

static const char * const xst_roles[] = {
	"ns_lister", "nonowner", "owner_writer", "ns_writer", "ns_uring",
	"ns_special",
};

#define XST_NR_ROLES ARRAY_SIZE(xst_roles)

static int xst_become(enum xst_role r)
{
	int userns;

	switch (r) {
	case NONOWNER:
		return xt_become(XT_OTHER, XT_OTHER);
	case OWNER_WRITER:
		return xt_become(XT_OWNER, XT_OWNER);
	default:
		userns = xt_userns_fd(0, XT_OWNER, 1);
		return userns < 0 ? userns : xt_enter_userns(userns, 0, 0);
	}
}

/*
 * One caller on the files of one filesystem until told to stop: counts
 * the calls that followed each setting ([0]: as at 0, [1]: as at 1).
 */
static void xst_caller(struct __test_metadata *_metadata, struct xst_shared *sh,
		       enum xst_role r, const char *dir)
{
	static char list[XATTR_LIST_MAX];
	char f[PATH_MAX], fifo[PATH_MAX], fifo2[PATH_MAX], buf[16];
	unsigned long seen[2] = { 0, 0 }, across = 0;
	bool before, viewed;
	struct xt_ring ring;
	bool on = false;
	ssize_t len, plen, off;
	int ret;

	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	/* on tmpfs, through the overlayfs over the overlayfs over it */
	snprintf(fifo2, sizeof(fifo2), "%s/fifo2",
		 strcmp(dir, XST_DIR "/tmpfs") ? dir : XST_OVL2);
	XT_EQ(0, xst_become(r));
	if (r == NS_URING && (!xt_have_uring() || xt_ring_open(&ring)))
		r = NS_WRITER;	/* as close as this kernel lets us get */
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		switch (r) {
		case NS_LISTER:
			len = llistxattr(f, list, sizeof(list));
			XT_CHECK(len >= 0);
			on = false;
			for (off = 0; off < len; off += strlen(list + off) + 1) {
				const char *n = list + off;

				if (strncmp(n, "trusted", 7))
					continue;
				/* its own: the root's and its fellow callers' */
				ASSERT_TRUE(!strcmp(n, "trusted.mine") ||
					    !strcmp(n, "trusted.w") ||
					    !strcmp(n, "trusted.u")) {
					TH_LOG("a foreign name was listed: %s", n);
				}
				on = true;
			}
			ret = lgetxattr(f, "trusted.mine", buf, sizeof(buf));
			XT_CHECK(ret == 1 || (ret < 0 && errno == ENODATA));
			XT_CHECK_ERR(lgetxattr(f, "trusted.host", buf, sizeof(buf)),
				     ENODATA);
			/* the stored spelling is a child's name nobody set */
			XT_CHECK_ERR(lgetxattr(f, "trusted.<1000>mine", buf,
					       sizeof(buf)), ENODATA);
			break;
		case NS_SPECIAL:
			/*
			 * Not its owner, and uid 2000 is not mapped in its
			 * namespace: no user.* name at 1, no trusted.* name at
			 * either setting.
			 */
			before = xt_switch(XT_SW_TRUSTED);
			viewed = xt_switch(XT_SW_USER);
			plen = llistxattr(fifo2, NULL, 0);
			len = llistxattr(fifo2, list, sizeof(list));
			XT_CHECK(len >= 0);
			/*
			 * A listing that leaves names out probes exactly (a
			 * stock overlayfs probe counts what it then filters)
			 */
			if (viewed)
				XT_EQ(len, plen);
			for (off = 0; off < len; off += strlen(list + off) + 1) {
				const char *n = list + off;

				ASSERT_TRUE(strncmp(n, "trusted", 7) &&
					    strncmp(n, "user", 4)) {
					TH_LOG("a FIFO it does not own listed %s", n);
				}
			}
			on = xt_switch(XT_SW_TRUSTED);
			across += !before && on;
			break;
		case NONOWNER:
			len = llistxattr(fifo, list, sizeof(list));
			XT_CHECK(len >= 0);
			ASSERT_FALSE(xt_list_has(list, len, "user.x")) {
				TH_LOG("the owner's user.* name was listed");
			}
			/* it may not read it at either setting */
			XT_CHECK_ERR(lgetxattr(fifo, "user.x", buf, sizeof(buf)),
				     ENODATA);
			on = xt_switch(XT_SW_USER);
			break;
		case OWNER_WRITER:
			ret = lsetxattr(fifo, "user.x", "x", 1, 0) ? errno : 0;
			ASSERT_TRUE(ret == 0 || (!on && ret == EPERM)) {
				TH_LOG("user.x: errno %d after %s", ret,
				       on ? "a success" : "refusals");
			}
			on = !ret;
			break;
		case NS_WRITER:
			ret = lsetxattr(f, "trusted.w", "w", 1, 0) ? errno : 0;
			ASSERT_TRUE(ret == 0 || (!on && ret == EPERM)) {
				TH_LOG("trusted.w: errno %d after %s", ret,
				       on ? "a success" : "refusals");
			}
			on = !ret;
			break;
		case NS_URING:
			ret = xt_ring_xattr(&ring, IORING_OP_SETXATTR, -1, f,
					    "trusted.u", (void *)"u", 1, 0);
			ASSERT_TRUE(ret == 0 || (!on && ret == -EPERM)) {
				TH_LOG("io_uring trusted.u: %d after %s", ret,
				       on ? "a success" : "refusals");
			}
			on = !ret;
			break;
		}
		if (_metadata->exit_code)
			break;
		seen[on]++;
	}
	TH_LOG("%s on %s: %lu calls as at 0, %lu as at 1%s", xst_roles[r], dir,
	       seen[0], seen[1], across ? " (one across the step)" : "");
	/* both settings were met, or this caller proved nothing */
	XT_CHECK(seen[0] && seen[1]);
	/* and the one at real-time priority was listing when the step came */
	if (r == NS_SPECIAL && !strcmp(dir, XST_DIR "/tmpfs"))
		XT_CHECK(across);
}

/* Mount @fs at XST_DIR/<fstype> and make its files; 0, or why not. */
static int xst_mount(struct __test_metadata *_metadata, const struct xt_fs *fs,
		     char *dir, size_t len)
{
	const char *dev = "none";
	char path[PATH_MAX], name[32];
	int ret, i;

	if (fs->dev_env) {
		dev = xt_dev(fs);
		if (!dev)
			return -errno;
	}
	snprintf(dir, len, XST_DIR "/%s", fs->fstype);
	if (mkdir(dir, 0755))
		return -errno;
	if (mount(dev, dir, fs->fstype, 0, NULL)) {
		ret = -errno;
		return ret == -ENODEV && xt_kernel_has_fs(fs->fstype) ? -EIO : ret;
	}
	/* fresh files: an earlier test of this run may have left its own */
	snprintf(path, sizeof(path), "%s/f", dir);
	ASSERT_TRUE(!unlink(path) || errno == ENOENT);
	ASSERT_EQ(0, xt_mknode(path, S_IFREG, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, lsetxattr(path, "trusted.host", "h", 1, 0));
	/* the namespace <1000>'s name, as a kernel without the switch stores it */
	ASSERT_EQ(0, lsetxattr(path, "trusted.<1000>mine", "m", 1, 0));
	ASSERT_EQ(0, lsetxattr(path, "user.u", "u", 1, 0));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ASSERT_TRUE(!unlink(path) || errno == ENOENT);
	ASSERT_EQ(0, xt_mknode(path, S_IFIFO, XT_OWNER, XT_OWNER));
	snprintf(path, sizeof(path), "%s/fifo2", dir);
	ASSERT_TRUE(!unlink(path) || errno == ENOENT);
	ASSERT_EQ(0, xt_mknode(path, S_IFIFO, XT_OTHER, XT_OTHER));
	ASSERT_EQ(0, lsetxattr(path, "trusted.host", "h", 1, 0));
	ASSERT_EQ(0, lsetxattr(path, "trusted.<1000>mine", "m", 1, 0));
	/*
	 * tmpfs lists in name order: these come first, and an overlayfs over
	 * it leaves each out in turn ("-" sorts before "<" and "h")
	 */
	for (i = 0; !fs->dev_env && i < XST_PAD; i++) {
		snprintf(path, sizeof(path), "%s/fifo2", dir);
		snprintf(name, sizeof(name), "trusted.-xst%04d", i);
		ASSERT_EQ(0, lsetxattr(path, name, "p", 1, 0));
	}
	return 0;
}

static void xst_wait_s(double s)
{
	double end = now_s() + s;

	while (now_s() < end)
		usleep(10000);
}

/*
 * @on: run @pid alone on the second CPU of this task's set, real-time, and
 * this task on the first, until called with !@on. The one listing it is
 * in when the switch is set then began at 0.
 */
static void xst_rt_lister(struct __test_metadata *_metadata, pid_t pid, bool on)
{
	static cpu_set_t all;
	struct sched_param sp = { .sched_priority = on };
	cpu_set_t cpu;
	int c, n = 0;

	if (on)
		ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	for (c = 0; on && c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &all))
			continue;
		CPU_ZERO(&cpu);
		CPU_SET(c, &cpu);
		ASSERT_EQ(0, sched_setaffinity(n ? pid : 0, sizeof(cpu), &cpu));
		if (++n == 2)
			break;
	}
	ASSERT_TRUE(!on || n == 2);
	ASSERT_EQ(0, sched_setscheduler(pid, on ? SCHED_FIFO : SCHED_OTHER, &sp));
	if (on) {
		/* it runs by now; let it be deep in a listing */
		usleep(20000);
		return;
	}
	ASSERT_EQ(0, sched_setaffinity(pid, sizeof(all), &all));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
}

FIXTURE(xattr_switch) {
};

FIXTURE_SETUP(xattr_switch)
{
}

FIXTURE_TEARDOWN(xattr_switch)
{
}

/*
 * The same filesystems under load by root alone, on any kernel and at
 * either setting: set, get, list and remove of trusted.* and user.* names
 * of one file, four callers at once. Every call succeeds or meets a
 * fellow caller's removal (ENODATA), and every caller finishes: a task
 * that hangs is what the test's timeout and the kernel's hung-task
 * detector report. (v3 hung once on jfs in a longer run; this load on a
 * stock kernel tells a filesystem's own hang from the series'.)
 */
static void xst_root_caller(struct __test_metadata *_metadata,
			    struct xst_shared *sh, int who, const char *dir)
{
	static const char * const names[] = {
		"trusted.a", "trusted.b", "user.a", "user.b",
	};
	static char list[XATTR_LIST_MAX];
	unsigned long calls = 0;
	char f[PATH_MAX], buf[16];
	const char *n;
	int ret;

	snprintf(f, sizeof(f), "%s/f", dir);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED) && !_metadata->exit_code) {
		n = names[(calls + who) % ARRAY_SIZE(names)];
		switch ((calls + who) % 4) {
		case 0:
			XT_EQ(0, lsetxattr(f, n, "v", 1, 0));
			break;
		case 1:
			ret = lgetxattr(f, n, buf, sizeof(buf));
			XT_CHECK(ret == 1 || (ret < 0 && errno == ENODATA));
			break;
		case 2:
			XT_CHECK(llistxattr(f, list, sizeof(list)) >= 0);
			break;
		case 3:
			ret = lremovexattr(f, n);
			XT_CHECK(ret == 0 || errno == ENODATA);
			break;
		}
		calls++;
	}
	TH_LOG("root caller %d on %s: %lu calls", who, dir, calls);
}

TEST_F_TIMEOUT(xattr_switch, root_load, 120)
{
	char dirs[ARRAY_SIZE(xst_fs)][64];
	pid_t pids[ARRAY_SIZE(xst_fs) * 4];
	struct xst_shared *sh;
	int n = 0, nfs = 0, ret, failed = 0, who;
	size_t i;

	XT_NEED_ROOT();
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777"));
	ASSERT_EQ(0, mkdir(XST_DIR, 0755));
	for (i = 0; i < ARRAY_SIZE(xst_fs); i++) {
		ret = xst_mount(_metadata, &xst_fs[i], dirs[nfs], sizeof(dirs[0]));
		if (ret) {
			TH_LOG("%s: not under load (%s)", xst_fs[i].fstype,
			       strerror(-ret));
			ASSERT_TRUE(ret == -ENOPKG || ret == -ENXIO || ret == -ENODEV);
			continue;
		}
		nfs++;
	}
	ASSERT_LT(0, nfs);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	sh->stop = 0;
	for (i = 0; i < (size_t)nfs; i++) {
		for (who = 0; who < 4; who++) {
			pids[n] = fork();
			ASSERT_LE(0, pids[n]);
			if (pids[n] == 0) {
				xst_root_caller(_metadata, sh, who, dirs[i]);
				_exit(_metadata->exit_code);
			}
			n++;
		}
	}
	xst_wait_s(3 * XST_LOAD_SECONDS);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < (size_t)n; i++)
		if (xt_wait(pids[i]))
			failed++;
	ASSERT_EQ(0, failed);
	for (i = 0; i < (size_t)nfs; i++)
		ASSERT_EQ(0, umount(dirs[i]));
}

TEST_F_TIMEOUT(xattr_switch, transition_under_load, 120)
{
	char dirs[ARRAY_SIZE(xst_fs)][64];
	pid_t pids[ARRAY_SIZE(xst_fs) * XST_NR_ROLES];
	struct xst_shared *sh;
	int n = 0, nfs = 0, ret, failed = 0;
	size_t i, r;

	XT_NEED_ROOT();
	if (xt_sysctl_get(XT_SW_USER) < 0 || xt_sysctl_get(XT_SW_TRUSTED) < 0)
		SKIP(return, "kernel without fs.xattr_user_special and fs.xattr_trusted_userns");
	if (xt_switch(XT_SW_USER) || xt_switch(XT_SW_TRUSTED))
		SKIP(return, "a switch was set at boot: the step needs a boot at 0");
	if (!getenv("XATTR_TEST_SET_SWITCHES") ||
	    strcmp(getenv("XATTR_TEST_SET_SWITCHES"), "1"))
		SKIP(return, "sets the switches for good: XATTR_TEST_SET_SWITCHES=1");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: no call runs while a switch changes");
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777"));
	ASSERT_EQ(0, mkdir(XST_DIR, 0755));
	for (i = 0; i < ARRAY_SIZE(xst_fs); i++) {
		ret = xst_mount(_metadata, &xst_fs[i], dirs[nfs], sizeof(dirs[0]));
		if (ret) {
			/* the others stand: this one is not here */
			TH_LOG("%s: not under load (%s)", xst_fs[i].fstype,
			       strerror(-ret));
			ASSERT_TRUE(ret == -ENOPKG || ret == -ENXIO || ret == -ENODEV);
			continue;
		}
		nfs++;
	}
	ASSERT_LT(0, nfs);
	ASSERT_EQ(0, mkdir(XST_OVL, 0755));
	ASSERT_EQ(0, mkdir(XST_DIR "/empty", 0755));
	ASSERT_EQ(0, mount("overlay", XST_OVL, "overlay", 0,
			   "lowerdir=" XST_DIR "/tmpfs:" XST_DIR "/empty")) {
		TH_LOG("overlayfs: %s", strerror(errno));
	}
	ASSERT_EQ(0, mkdir(XST_OVL2, 0755));
	ASSERT_EQ(0, mount("overlay", XST_OVL2, "overlay", 0,
			   "lowerdir=" XST_OVL ":" XST_DIR "/empty")) {
		TH_LOG("overlayfs over overlayfs: %s", strerror(errno));
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	sh->stop = 0;
	for (i = 0; i < (size_t)nfs; i++) {
		for (r = 0; r < XST_NR_ROLES; r++) {
			pids[n] = fork();
			ASSERT_LE(0, pids[n]);
			if (pids[n] == 0) {
				xst_caller(_metadata, sh, r, dirs[i]);
				_exit(_metadata->exit_code);
			}
			n++;
		}
	}
	xst_wait_s(XST_LOAD_SECONDS);
	ASSERT_EQ(0, xt_sysctl_set(XT_SW_USER, 1));
	xst_wait_s(XST_LOAD_SECONDS);
	/* tmpfs (mounted first, always there): its FIFO lister, alone on a CPU */
	ASSERT_EQ(0, strcmp(dirs[0], XST_DIR "/tmpfs"));
	xst_rt_lister(_metadata, pids[0 * XST_NR_ROLES + NS_SPECIAL], true);
	ASSERT_EQ(0, xt_sysctl_set(XT_SW_TRUSTED, 1));
	xst_rt_lister(_metadata, pids[0 * XST_NR_ROLES + NS_SPECIAL], false);
	xst_wait_s(XST_LOAD_SECONDS);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < (size_t)n; i++)
		if (xt_wait(pids[i]))
			failed++;
	ASSERT_EQ(0, failed);
	/* and what a caller below saw stored, the host sees as stored */
	for (i = 0; i < (size_t)nfs; i++) {
		char f[PATH_MAX], buf[8];

		snprintf(f, sizeof(f), "%s/f", dirs[i]);
		ASSERT_EQ(1, lgetxattr(f, "trusted.<1000>w", buf, sizeof(buf)));
		ASSERT_EQ(1, lgetxattr(f, "trusted.<1000>mine", buf, sizeof(buf)));
		ASSERT_EQ(1, lgetxattr(f, "trusted.host", buf, sizeof(buf)));
		snprintf(f, sizeof(f), "%s/fifo", dirs[i]);
		ASSERT_EQ(1, lgetxattr(f, "user.x", buf, sizeof(buf)));
		snprintf(f, sizeof(f), "%s/fifo2", dirs[i]);
		ASSERT_EQ(1, lgetxattr(f, "trusted.host", buf, sizeof(buf)));
		ASSERT_EQ(1, lgetxattr(f, "trusted.<1000>mine", buf, sizeof(buf)));
	}
}

/*
 * Once 1, a switch stays 1: 0 is refused with EINVAL, 1 may be written
 * again. In a boot that started at 0, transition_under_load set them.
 */
TEST_F(xattr_switch, one_way)
{
	static const char * const sws[] = { XT_SW_USER, XT_SW_TRUSTED };
	size_t i;

	XT_NEED_ROOT();
	for (i = 0; i < ARRAY_SIZE(sws); i++) {
		if (xt_sysctl_get(sws[i]) < 0)
			SKIP(return, "kernel without %s", sws[i]);
		if (!xt_switch(sws[i]))
			SKIP(return, "%s is 0: this boot did not take the step (one CPU?)",
			     sws[i]);
		ASSERT_EQ(-EINVAL, xt_sysctl_set(sws[i], 0));
		ASSERT_EQ(1, xt_sysctl_get(sws[i]));
		ASSERT_EQ(0, xt_sysctl_set(sws[i], 1));
		ASSERT_EQ(-EINVAL, xt_write_file(sws[i], "2\n"));
		ASSERT_EQ(1, xt_sysctl_get(sws[i]));
	}
}

TEST_HARNESS_MAIN
