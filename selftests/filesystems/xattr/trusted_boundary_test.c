// SPDX-License-Identifier: GPL-2.0
/*
 * trusted.* xattrs in user namespaces, at the edges of the feature:
 *
 * - with fs.xattr_trusted_userns at 0 every name behaves as on a stock
 *   kernel, whatever it looks like;
 * - the initial namespace sees and uses every name as stored, at either
 *   switch: with the switch at 1 it lists exactly what it lists at 0, and
 *   reads and removes every name under that spelling, names written while
 *   the switch was 0 (or by a stock kernel) included;
 * - a namespace that lists while the switch flips never sees a name
 *   outside its own chain;
 * - a filesystem mounted inside a namespace stores the namespace's names
 *   under its chain, so a host reader never takes them as its own;
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

#define SWITCH "/proc/sys/fs/xattr_trusted_userns"

FIXTURE(boundary) {
	char dir[256];
	char file[PATH_MAX];
	bool patched;
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
	XT_SETUP_FS(&variant->fs, self->dir);
	if (self->patched)
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
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

FIXTURE_TEARDOWN_PARENT(boundary)
{
	if (self->patched)
		xt_sysctl_set(SWITCH, 0);
}

#define NEED_SWITCH() do {						\
	if (!self->patched)						\
		SKIP(return, "kernel without " SWITCH);			\
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

		XT_CHECK(xt_enter_chain(maps, 1) == 0);
		fn(_metadata, arg);
		_exit(_metadata->exit_code);
	}
	return xt_wait(pid);
}

/*
 * Switch 0: every name is the filesystem's, spelt as stored, whatever
 * it looks like; a namespace has no trusted.* names; a name that begins
 * "trusted<" is no trusted.* name at all (on any kernel: no handler).
 */
static bool sw0_stock_btrfs;

static void sw0_ns_refused(struct __test_metadata *_metadata, const char *file)
{
	char names[4096];

	XT_CHECK_ERR(lsetxattr(file, "trusted.foo", "v", 1, 0), EPERM);
	XT_CHECK_ERR(lgetxattr(file, "trusted.<1000>x", NULL, 0), ENODATA);
	XT_CHECK(trusted_names(file, names, sizeof(names)) == 0);
	/* stock btrfs lists trusted.* to everybody */
	if (!sw0_stock_btrfs)
		ASSERT_STREQ("", names);
}

TEST_F(boundary, sw0_names_as_stored)
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

	sw0_stock_btrfs = self->lists_trusted;
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, sw0_ns_refused, self->file));

	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_EQ(0, lremovexattr(self->file, names[i]));
	ASSERT_EQ(0, trusted_names(self->file, got, sizeof(got)));
	ASSERT_STREQ("", got);
}

/*
 * Switch 1: the initial namespace lists, reads and removes every name as
 * stored, those written at 0 included; its listing is byte for byte the
 * one it had at 0, and a name it sets at 1 is listed under the same
 * spelling at 0. Only a canonical chain followed by a name is a
 * namespace's entry (<1000> sees its ".legacy" and "new"); the rest are
 * the initial namespace's own names. v2's spelling "trusted<1000>..."
 * is no name.
 */
static void ns_sees_legacy(struct __test_metadata *_metadata, const char *file)
{
	char names[4096];

	XT_CHECK(trusted_names(file, names, sizeof(names)) == 0);
	ASSERT_STREQ("trusted..legacy|trusted.new", names);
	XT_CHECK(value_is(file, "trusted..legacy", "l"));
	XT_CHECK(value_is(file, "trusted.new", "n"));
}

TEST_F(boundary, sw1_every_listed_name_reachable)
{
	/* stored at 0 */
	static const struct { const char *name, *value; } names[] = {
		{ "trusted.<abc>.x",		"a" },
		{ "trusted.<0001>.x",		"b" },
		{ "trusted.<1000>",		"c" },
		{ "trusted.<1000><abc",		"d" },
		{ "trusted.<4294967295>x",	"e" },
		{ "trusted.<>x",		"f" },
		{ "trusted.<1000>.legacy",	"l" },
		{ "trusted.plain",		"p" },
	};
	/* stored at 1 */
	static const struct { const char *name, *value; } names1[] = {
		{ "trusted.<1000>new",		"n" },
		{ "trusted.<01>y",		"y" },
		{ "trusted.<2000><0>z",		"z" },
	};
	static char list[XATTR_LIST_MAX], list0[XATTR_LIST_MAX];
	ssize_t len, len0, off;
	char got[4096];
	size_t i, listed = 0;

	NEED_SWITCH();
	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_EQ(0, lsetxattr(self->file, names[i].name, names[i].value,
				       1, XATTR_CREATE));
	len0 = llistxattr(self->file, list0, sizeof(list0));
	ASSERT_GT(len0, 0);
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));

	/* the listing of switch 0, byte for byte */
	len = llistxattr(self->file, list, sizeof(list));
	ASSERT_EQ(len0, len);
	ASSERT_EQ(len, llistxattr(self->file, NULL, 0));
	ASSERT_EQ(0, memcmp(list0, list, len));
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

	/* names set at 1 are spelt as stored, and so listed at 0 */
	for (i = 0; i < ARRAY_SIZE(names1); i++)
		ASSERT_EQ(0, lsetxattr(self->file, names1[i].name, names1[i].value,
				       1, XATTR_CREATE));
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, ns_sees_legacy, self->file));
	len = llistxattr(self->file, list, sizeof(list));
	ASSERT_GT(len, 0);
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
	len0 = llistxattr(self->file, list0, sizeof(list0));
	ASSERT_EQ(len, len0);
	ASSERT_EQ(0, memcmp(list0, list, len));
	for (i = 0; i < ARRAY_SIZE(names1); i++)
		ASSERT_TRUE(value_is(self->file, names1[i].name, names1[i].value));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));

	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_EQ(0, lremovexattr(self->file, names[i].name));
	for (i = 0; i < ARRAY_SIZE(names1); i++)
		ASSERT_EQ(0, lremovexattr(self->file, names1[i].name));
	ASSERT_EQ(0, trusted_names(self->file, got, sizeof(got)));
	ASSERT_STREQ("", got);
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
	ASSERT_EQ(0, trusted_names(self->file, got, sizeof(got)));
	ASSERT_STREQ("", got);
}

/*
 * A namespace lists, reads and writes in a loop while the initial
 * namespace flips the switch: every call follows one reading of it, so
 * the namespace sees its own name or none, never the host's (one of them
 * looks like a chain) or a sibling's.
 */
#define FLIP_SECONDS 2

static void flip_ns_lister(struct __test_metadata *_metadata, const char *file)
{
	static char list[XATTR_LIST_MAX];
	struct timespec end, now;
	long with = 0, without = 0;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += FLIP_SECONDS;
	do {
		ssize_t len = llistxattr(file, list, sizeof(list)), off;
		bool mine = false;
		char buf[16];
		ssize_t n;

		XT_CHECK(len >= 0);
		for (off = 0; off < len; off += strlen(list + off) + 1) {
			if (strncmp(list + off, "trusted", 7))
				continue;
			ASSERT_STREQ("trusted.mine", list + off) {
				TH_LOG("a foreign name was listed");
			}
			mine = true;
		}
		mine ? with++ : without++;
		n = lgetxattr(file, "trusted.mine", buf, sizeof(buf));
		XT_CHECK((n == 1 && buf[0] == 'm') || (n < 0 && errno == ENODATA));
		/*
		 * the sibling's name is out of reach: this spelling is a
		 * child's name of its own (stored trusted.<1000><2000>s),
		 * that nobody set, at either switch
		 */
		n = lgetxattr(file, "trusted.<2000>s", buf, sizeof(buf));
		XT_CHECK(n < 0 && errno == ENODATA);
		/* and v2's spelling is no name */
		n = lgetxattr(file, "trusted<2000>.s", buf, sizeof(buf));
		XT_CHECK(n < 0 && errno == EOPNOTSUPP);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	TH_LOG("%ld listings with the switch at 1, %ld at 0", with, without);
	/* both states were met, or the test proved nothing */
	XT_CHECK(with && without);
}

static void set_mine(struct __test_metadata *_metadata, const char *file)
{
	XT_CHECK(lsetxattr(file, "trusted.mine", "m", 1, 0) == 0);
}

TEST_F(boundary, flip_never_leaks)
{
	struct timespec end, now;
	int i = 0, status = -1;
	pid_t lister, r;

	NEED_SWITCH();
	/* with one CPU the lister never runs while the switch changes */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: the switch cannot change in the middle of a call");
	/* the host's names, two of them no chain though they look like one */
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.host", "h", 1, 0));
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.<1000x>.legacy", "l", 1, 0));
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.<10000>y", "y", 1, 0));
	/* under the namespace's chain, but nothing it can spell */
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.<1000>", "c", 1, 0));
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.<1000><01>x", "x", 1, 0));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, set_mine, self->file));
	/* a sibling namespace's entry */
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.<2000>s", "s", 1, 0));

	lister = fork();
	ASSERT_LE(0, lister);
	if (lister == 0)
		_exit(in_userns(_metadata, XT_OWNER, flip_ns_lister, self->file));
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += FLIP_SECONDS + 30;
	do {
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, ++i & 1));
		r = waitpid(lister, &status, WNOHANG);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (r == 0 && now.tv_sec < end.tv_sec);
	if (r == 0) {
		kill(lister, SIGKILL);
		waitpid(lister, &status, 0);
	}
	TH_LOG("%d flips", i);
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	ASSERT_TRUE(value_is(self->file, "trusted.<1000>mine", "m"));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * Flips during longer operations. A flipper process of the initial
 * namespace writes the switch 0, 1, 0, ... as fast as it can while a
 * namespace works; it counts its writes in shared memory, so that the
 * namespace can tell which of its calls a flip landed in the middle of
 * (the count changed while the call ran). Each loop is a fixed number of
 * calls within FLIP_BOUND seconds: a loop that reaches the bound first
 * fails, saying so. With one CPU nothing can land in the middle of a
 * call: these tests SKIP there, as flip_never_leaks does.
 */
#define FLIP_BOUND 20

struct flipper {
	unsigned long flips;	/* writes of the switch so far */
	int stop;		/* set by the test: the flipper ends */
};

static double flip_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Start a flipper; it ends when told to, or after 2 * FLIP_BOUND seconds. */
static pid_t flipper_start(struct flipper *fl)
{
	pid_t pid = fork();

	if (pid == 0) {
		double end = flip_now() + 2 * FLIP_BOUND;
		int fd = open(SWITCH, O_WRONLY | O_CLOEXEC);
		unsigned long i;

		/* never outlive the test, which puts the switch back */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0 || getppid() == 1)
			_exit(1);
		for (i = 0; !__atomic_load_n(&fl->stop, __ATOMIC_ACQUIRE); i++) {
			if (pwrite(fd, i & 1 ? "0\n" : "1\n", 2, 0) != 2)
				_exit(1);
			__atomic_store_n(&fl->flips, i + 1, __ATOMIC_RELEASE);
			if (!(i & 255) && flip_now() > end)
				break;
		}
		_exit(0);
	}
	return pid;
}

/* Stop it; its status (0: it flipped until told to stop). */
static int flipper_stop(struct flipper *fl, pid_t pid)
{
	__atomic_store_n(&fl->stop, 1, __ATOMIC_RELEASE);
	return xt_wait(pid);
}

static unsigned long flips_now(struct flipper *fl)
{
	return __atomic_load_n(&fl->flips, __ATOMIC_ACQUIRE);
}

#define NEED_TWO_CPUS() do {						\
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)				\
		SKIP(return, "one CPU: the switch cannot change in the middle of a call"); \
} while (0)

/*
 * Copy-up while the switch flips. A namespace (root 1000) mounts an
 * overlayfs (userxattr) over a lower directory whose files carry its own
 * trusted.* names (trusted.<1000>mine, and its child's
 * trusted.<1000><5>kid), the initial namespace's (trusted.host) and a
 * sibling namespace's (trusted.<1001>sib), and copies up every file
 * (chmod, or a write) while the switch flips.
 *
 * Each copy-up reads the switch afresh at each call it makes: the listing,
 * then a get and a set per name. So a copy-up either carries the
 * namespace's names (all of its calls at 1), or leaves some or all of them
 * behind (a listing at 0 shows the namespace none; a get at 0 is
 * ENODATA, which copy-up skips), or fails cleanly: EPERM (a set on the
 * upper file at 0) or ERANGE (the listing grew between its size probe at
 * 0 and its read at 1), the file not copied up. What the upper layer
 * stores, as root sees it afterwards, is never a name outside the
 * namespace's chain, and every value is the lower file's.
 */
#define FLIP_COPY_FILES 128

struct flip_ovl {
	char lower[512], upper[512], work[512], merged[512];
	struct flipper fl;
	int err[FLIP_COPY_FILES];	/* 0, or the errno of the copy-up */
	int done;			/* copy-ups tried */
	unsigned long overlapped;	/* copy-ups a flip landed in */
};

static void ns_flip_copy_up(struct __test_metadata *_metadata, const char *arg)
{
	struct flip_ovl *o = (void *)arg;
	char opts[2048 + 64], path[600];
	double end;
	int i;

	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s,userxattr",
		 o->lower, o->upper, o->work);
	XT_CHECK(unshare(CLONE_NEWNS) == 0);
	if (mount("overlay", o->merged, "overlay", 0, opts)) {
		TH_LOG("overlay: %s", strerror(errno));
		_exit(xt_ovl_unsupported(errno) ? XT_CHILD_SKIP : 1);
	}
	end = flip_now() + FLIP_BOUND;
	for (i = 0; i < FLIP_COPY_FILES && flip_now() < end; i++) {
		unsigned long before;
		int fd, err = 0;

		snprintf(path, sizeof(path), "%s/f%03d", o->merged, i);
		before = flips_now(&o->fl);
		if (i % 2) {
			if (chmod(path, 0640))
				err = errno;
		} else {
			fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
			if (fd < 0)
				err = errno;
			else if (write(fd, "w", 1) != 1)
				err = errno;
			if (fd >= 0)
				close(fd);
		}
		if (flips_now(&o->fl) != before)
			o->overlapped++;
		o->err[i] = err;
		o->done++;
	}
}

static const struct { const char *name, *value; } flip_lower_names[] = {
	{ "trusted.<1000>mine",		"m" },	/* the namespace's */
	{ "trusted.<1000><5>kid",	"k" },	/* its child's */
	{ "trusted.host",		"h" },	/* the initial namespace's */
	{ "trusted.<1001>sib",		"s" },	/* a sibling's */
	{ "user.u",			"u" },
};

TEST_F_TIMEOUT(boundary, flip_during_copy_up, 4 * FLIP_BOUND)
{
	struct flip_ovl *o;
	int carried = 0, partly = 0, none = 0, eperm = 0, erange = 0;
	int i, status;
	size_t k;
	pid_t flipper;

	NEED_SWITCH();
	NEED_TWO_CPUS();
	o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, o);
	snprintf(o->lower, sizeof(o->lower), "%s/lower", self->dir);
	snprintf(o->upper, sizeof(o->upper), "%s/upper", self->dir);
	snprintf(o->work, sizeof(o->work), "%s/work", self->dir);
	snprintf(o->merged, sizeof(o->merged), "%s/merged", self->dir);
	ASSERT_EQ(0, xt_mknode(o->lower, S_IFDIR, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, xt_mknode(o->upper, S_IFDIR, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, xt_mknode(o->work, S_IFDIR, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, xt_mknode(o->merged, S_IFDIR, XT_OWNER, XT_OWNER));
	for (i = 0; i < FLIP_COPY_FILES; i++) {
		char f[600];

		snprintf(f, sizeof(f), "%s/f%03d", o->lower, i);
		ASSERT_EQ(0, xt_mknode(f, S_IFREG, XT_OWNER, XT_OWNER));
		for (k = 0; k < ARRAY_SIZE(flip_lower_names); k++)
			ASSERT_EQ(0, lsetxattr(f, flip_lower_names[k].name,
					       flip_lower_names[k].value, 1, 0));
	}

	flipper = flipper_start(&o->fl);
	ASSERT_LE(0, flipper);
	status = in_userns(_metadata, XT_OWNER, ns_flip_copy_up, (const char *)o);
	ASSERT_EQ(0, flipper_stop(&o->fl, flipper));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	if (status == XT_CHILD_SKIP)
		SKIP(return, "overlayfs cannot be mounted in a user namespace on %s",
		     variant->fs.fstype);
	ASSERT_EQ(0, status);
	TH_LOG("%d copy-ups, %lu flips, %lu copy-ups with a flip in the middle",
	       o->done, o->fl.flips, o->overlapped);
	ASSERT_EQ(FLIP_COPY_FILES, o->done) {
		TH_LOG("time bound reached: %d of %d copy-ups in %d s", o->done,
		       FLIP_COPY_FILES, FLIP_BOUND);
	}

	for (i = 0; i < FLIP_COPY_FILES; i++) {
		static char list[XATTR_LIST_MAX];
		char up[600], low[600];
		int mine = 0;
		ssize_t len, off;
		struct stat st;

		snprintf(up, sizeof(up), "%s/f%03d", o->upper, i);
		snprintf(low, sizeof(low), "%s/f%03d", o->lower, i);
		/* the lower file keeps everything */
		for (k = 0; k < ARRAY_SIZE(flip_lower_names); k++)
			ASSERT_TRUE(value_is(low, flip_lower_names[k].name,
					     flip_lower_names[k].value));
		if (o->err[i]) {
			ASSERT_TRUE(o->err[i] == EPERM || o->err[i] == ERANGE) {
				TH_LOG("f%03d: copy-up failed: %s", i, strerror(o->err[i]));
			}
			if (o->err[i] == EPERM)
				eperm++;
			else
				erange++;
			/* failed cleanly: nothing on the upper layer */
			ASSERT_EQ(-1, lstat(up, &st));
			ASSERT_EQ(ENOENT, errno);
			continue;
		}
		len = llistxattr(up, list, sizeof(list));
		ASSERT_LE(0, len);
		for (off = 0; off < len; off += strlen(list + off) + 1) {
			const char *n = list + off;

			if (strncmp(n, "trusted", 7))
				continue;
			/* only the namespace's names, with the lower file's values */
			ASSERT_TRUE(!strcmp(n, "trusted.<1000>mine") ||
				    !strcmp(n, "trusted.<1000><5>kid")) {
				TH_LOG("f%03d: upper layer holds %s", i, n);
			}
			ASSERT_TRUE(value_is(up, n, n[14] == 'm' ? "m" : "k"));
			mine++;
		}
		/* copy-up carries user.* as always */
		ASSERT_TRUE(value_is(up, "user.u", "u"));
		if (mine == 2)
			carried++;
		else if (mine)
			partly++;
		else
			none++;
	}
	TH_LOG("copied up with the namespace's names: %d, some dropped: %d, all dropped: %d",
	       carried, partly, none);
	TH_LOG("copy-ups failed: %d with EPERM, %d with ERANGE", eperm, erange);
	/* else the flips never met a copy-up, and the test proved nothing */
	ASSERT_LT(0UL, o->overlapped);
	munmap(o, sizeof(*o));
}

/*
 * io_uring while the switch flips. Root stored trusted.x = "host", the
 * namespace (root 1000) its own trusted.x = "mine" (trusted.<1000>x). The
 * namespace gets trusted.x through IORING_OP_GETXATTR and _FGETXATTR and
 * sets it to "mine" through _SETXATTR and _FSETXATTR, in turn, with one
 * ring, while the switch flips: every get gives "mine" (at 1) or ENODATA
 * (at 0), never "host"; every set succeeds (at 1) or fails with EPERM (at
 * 0), and lands under the namespace's chain: root's trusted.x is never
 * changed. (6.12's io_uring has no listxattr opcode: listings racing with
 * the switch are flip_never_leaks'.)
 */
#define FLIP_URING_OPS 2000

struct flip_uring {
	char file[PATH_MAX];
	struct flipper fl;
	unsigned long done, overlapped;
	unsigned long got, got_enodata, set, set_eperm;
};

static void ns_flip_uring(struct __test_metadata *_metadata, const char *arg)
{
	static const int ops[] = {
		IORING_OP_GETXATTR, IORING_OP_FGETXATTR,
		IORING_OP_SETXATTR, IORING_OP_FSETXATTR,
	};
	struct flip_uring *u = (void *)arg;
	char mine[] = "mine";
	struct xt_ring ring;
	double end;
	int fd, i;

	fd = open(u->file, O_RDONLY | O_CLOEXEC);
	XT_CHECK(fd >= 0);
	XT_CHECK(xt_ring_open(&ring) == 0);
	end = flip_now() + FLIP_BOUND;
	for (i = 0; i < FLIP_URING_OPS && flip_now() < end; i++) {
		int op = ops[i % ARRAY_SIZE(ops)];
		bool by_fd = op == IORING_OP_FGETXATTR || op == IORING_OP_FSETXATTR;
		unsigned long before = flips_now(&u->fl);
		char buf[16] = "";
		long res;

		if (op == IORING_OP_GETXATTR || op == IORING_OP_FGETXATTR)
			res = xt_ring_xattr(&ring, op, by_fd ? fd : -1,
					    by_fd ? NULL : u->file, "trusted.x",
					    buf, sizeof(buf), 0);
		else
			res = xt_ring_xattr(&ring, op, by_fd ? fd : -1,
					    by_fd ? NULL : u->file, "trusted.x",
					    mine, 4, 0);
		if (flips_now(&u->fl) != before)
			u->overlapped++;
		u->done++;
		if (op == IORING_OP_GETXATTR || op == IORING_OP_FGETXATTR) {
			ASSERT_TRUE(res == -ENODATA || (res == 4 && !memcmp(buf, "mine", 4))) {
				TH_LOG("op %d: get gave %ld \"%.*s\"", i, res,
				       res > 0 ? (int)res : 0, buf);
			}
			if (res < 0)
				u->got_enodata++;
			else
				u->got++;
		} else {
			ASSERT_TRUE(res == 0 || res == -EPERM) {
				TH_LOG("op %d: set gave %ld", i, res);
			}
			if (res < 0)
				u->set_eperm++;
			else
				u->set++;
		}
	}
	xt_ring_close(&ring);
	close(fd);
}

static void set_mine_x(struct __test_metadata *_metadata, const char *file)
{
	XT_CHECK(lsetxattr(file, "trusted.x", "mine", 4, 0) == 0);
}

TEST_F_TIMEOUT(boundary, flip_during_io_uring, 4 * FLIP_BOUND)
{
	struct flip_uring *u;
	char names[4096];
	pid_t flipper;
	int status;

	NEED_SWITCH();
	NEED_TWO_CPUS();
	if (!xt_have_uring())
		SKIP(return, "io_uring not available (CONFIG_IO_URING, io_uring_disabled)");
	u = mmap(NULL, sizeof(*u), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, u);
	snprintf(u->file, sizeof(u->file), "%s", self->file);
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.x", "host", 4, 0));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, set_mine_x, self->file));

	flipper = flipper_start(&u->fl);
	ASSERT_LE(0, flipper);
	status = in_userns(_metadata, XT_OWNER, ns_flip_uring, (const char *)u);
	ASSERT_EQ(0, flipper_stop(&u->fl, flipper));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	ASSERT_EQ(0, status);
	TH_LOG("%lu io_uring calls, %lu flips, %lu calls with a flip in the middle",
	       u->done, u->fl.flips, u->overlapped);
	TH_LOG("gets: %lu \"mine\", %lu ENODATA; sets: %lu done, %lu EPERM",
	       u->got, u->got_enodata, u->set, u->set_eperm);
	ASSERT_EQ(FLIP_URING_OPS, u->done) {
		TH_LOG("time bound reached: %lu of %d calls in %d s", u->done,
		       FLIP_URING_OPS, FLIP_BOUND);
	}
	/* root's name never changed; the namespace's sets landed under <1000> */
	ASSERT_TRUE(value_is(self->file, "trusted.x", "host"));
	ASSERT_TRUE(value_is(self->file, "trusted.<1000>x", "mine"));
	ASSERT_EQ(0, trusted_names(self->file, names, sizeof(names)));
	ASSERT_STREQ("trusted.<1000>x|trusted.x", names);
	/* both states were met, or the test proved nothing */
	ASSERT_TRUE(u->got && u->got_enodata);
	ASSERT_LT(0UL, u->overlapped);
	munmap(u, sizeof(*u));
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
		XT_CHECK(xt_enter_chain(maps, 1) == 0);
		XT_CHECK(unshare(CLONE_NEWNS) == 0);
		XT_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
		fn(_metadata, arg);
		/* ready (or failed): the parent looks, then lets us go */
		c = 0;
		XT_CHECK(write(ready[1], &c, 1) == 1);
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

/* In the namespace: a tmpfs of its own, and trusted.* names on it. */
static void ns_tmpfs_names(struct __test_metadata *_metadata, const char *unused)
{
	XT_CHECK(mount("tmpfs", NS_TMPFS, "tmpfs", 0, "mode=0755") == 0);
	XT_CHECK(mkdir(NS_TMPFS "/low1", 0755) == 0);
	XT_CHECK(mkdir(NS_TMPFS "/low1/d", 0755) == 0);
	XT_CHECK(mkdir(NS_TMPFS "/low1/ctl", 0755) == 0);
	XT_CHECK(lsetxattr(NS_TMPFS "/low1/d", "trusted.overlay.opaque", "y", 1, 0) == 0);
	XT_CHECK(lsetxattr(NS_TMPFS "/low1/d", "trusted.foo", "f", 1, 0) == 0);
	/* the namespace uses its names as it spelt them */
	XT_CHECK(value_is(NS_TMPFS "/low1/d", "trusted.overlay.opaque", "y"));
}

/*
 * A tmpfs mounted inside a namespace: the namespace's trusted.* names are
 * stored under its chain, as on any other filesystem. A host process that
 * reads them through /proc/PID/root sees trusted.<1000>... at either
 * switch, and a host
 * overlayfs that uses the tmpfs as a layer does not take the namespace's
 * trusted.overlay.opaque as its own (the control: the same name written by
 * the host is honoured).
 */
/*
 * Tests that need no filesystem under test: a mount namespace of their own
 * with a tmpfs on /tmp, and the switch put back whatever happened.
 */
FIXTURE(nsmount) {
	bool patched;
};

FIXTURE_SETUP(nsmount)
{
	XT_NEED_ROOT();
	self->patched = xt_sysctl_get(SWITCH) >= 0;
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("tmpfs", "/tmp", "tmpfs", 0, NULL));
	if (self->patched)
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
}

FIXTURE_TEARDOWN_PARENT(nsmount)
{
	if (self->patched)
		xt_sysctl_set(SWITCH, 0);
}

TEST_F(nsmount, tmpfs_in_userns_keeps_chain)
{
	char d[PATH_MAX], names[4096], opts[PATH_MAX * 2 + 64];
	char merged[] = "/tmp/xattr_boundary_merged";
	char low2[] = "/tmp/xattr_boundary_low2";
	int hold, mntns;
	struct stat st;
	pid_t pid;

	if (!self->patched)
		SKIP(return, "kernel without " SWITCH);
	ASSERT_EQ(0, mkdir(NS_TMPFS, 0755));
	ASSERT_EQ(0, chown(NS_TMPFS, XT_OWNER, XT_OWNER));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));

	pid = ns_mounter(_metadata, ns_tmpfs_names, NULL, &hold);
	ASSERT_LT(0, pid);
	snprintf(d, sizeof(d), "/proc/%d/root" NS_TMPFS "/low1/d", pid);
	ASSERT_EQ(0, trusted_names(d, names, sizeof(names)));
	ASSERT_STREQ("trusted.<1000>foo|trusted.<1000>overlay.opaque", names);
	ASSERT_EQ(-1, lgetxattr(d, "trusted.overlay.opaque", NULL, 0));
	ASSERT_EQ(ENODATA, errno);
	ASSERT_EQ(-1, lgetxattr(d, "trusted.foo", NULL, 0));
	ASSERT_EQ(ENODATA, errno);
	ASSERT_TRUE(value_is(d, "trusted.<1000>overlay.opaque", "y"));
	/* the same names with the switch off: the host sees them as stored */
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
	ASSERT_EQ(0, trusted_names(d, names, sizeof(names)));
	ASSERT_STREQ("trusted.<1000>foo|trusted.<1000>overlay.opaque", names);
	ASSERT_TRUE(value_is(d, "trusted.<1000>foo", "f"));
	/* the control: a name the host writes is the host's */
	snprintf(d, sizeof(d), "/proc/%d/root" NS_TMPFS "/low1/ctl", pid);
	ASSERT_EQ(0, lsetxattr(d, "trusted.overlay.opaque", "y", 1, 0));

	/* a host overlayfs, in the namespace's mount namespace */
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
	for (int on = 0; on <= 1; on++) {
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, on));
		snprintf(opts, sizeof(opts), "lowerdir=%s/low1:%s", NS_TMPFS, low2);
		ASSERT_EQ(0, mount("overlay", merged, "overlay", MS_RDONLY, opts))
			TH_LOG("overlay: %s", strerror(errno));
		/* the namespace's name is no opaque marker for the host */
		EXPECT_EQ(0, stat("/tmp/xattr_boundary_merged/d/hidden", &st));
		/* the host's own is */
		EXPECT_EQ(-1, stat("/tmp/xattr_boundary_merged/ctl/hidden", &st));
		ASSERT_EQ(0, umount(merged));
	}
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
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
	struct kernfs_cgroups cgs;
};

FIXTURE_SETUP(kernfs)
{
	XT_NEED_ROOT();
	self->patched = xt_sysctl_get(SWITCH) >= 0;
	self->cgs.n = 0;
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("tmpfs", "/tmp", "tmpfs", 0, NULL));
	ASSERT_EQ(0, mkdir(KERNFS_MNT, 0755));
	if (self->patched)
		ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
}

FIXTURE_TEARDOWN_PARENT(kernfs)
{
	pid_t pid;
	int i;

	if (self->patched)
		xt_sysctl_set(SWITCH, 0);
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

	XT_CHECK(lsetxattr(cg, "trusted.delegate", "1", 1, 0) == 0);
	XT_CHECK(value_is(cg, "trusted.delegate", "1"));
	/*
	 * kernfs counts a namespace's names like user.* ones, at most 128 a
	 * node: no unbounded pile of xattrs on a global object
	 */
	for (i = 1; i < 128; i++) {
		snprintf(name, sizeof(name), "trusted.n%d", i);
		XT_CHECK(lsetxattr(cg, name, "v", 1, 0) == 0);
	}
	XT_CHECK_ERR(lsetxattr(cg, "trusted.one_more", "v", 1, 0), ENOSPC);
	XT_CHECK(lremovexattr(cg, "trusted.n1") == 0);
	XT_CHECK(lsetxattr(cg, "trusted.one_more", "v", 1, 0) == 0);
}

TEST_F(kernfs, cgroup2_delegate_keeps_chain)
{
	char cg[PATH_MAX];

	if (!self->patched)
		SKIP(return, "kernel without " SWITCH);
	KERNFS_CGROUP2();
	kernfs_cgroup(_metadata, &self->cgs, "delegate", XT_OWNER, cg, sizeof(cg));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
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
 * a cgroup: at switch 0 and at switch 1 they all succeed, as on a stock
 * kernel, where the test runs at "switch 0".
 */
TEST_F(kernfs, root_chain_names_unlimited)
{
	static char value[1024];
	char cg[PATH_MAX], name[64], tag[8];
	int on, i;

	KERNFS_CGROUP2();
	memset(value, 'r', sizeof(value));
	for (on = 0; on <= (self->patched ? 1 : 0); on++) {
		if (self->patched)
			ASSERT_EQ(0, xt_sysctl_set(SWITCH, on));
		snprintf(tag, sizeof(tag), "root%d", on);
		kernfs_cgroup(_metadata, &self->cgs, tag, 0, cg, sizeof(cg));
		for (i = 0; i <= KERNFS_MAX_NAMES; i++) {
			snprintf(name, sizeof(name), "trusted.<1000>n%03d", i);
			ASSERT_EQ(0, lsetxattr(cg, name, value, sizeof(value), XATTR_CREATE))
				TH_LOG("switch %d: %s: %s", on, name, strerror(errno));
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
		XT_CHECK(lsetxattr(cg, name, "v", 1, XATTR_CREATE) == 0);
	}
	XT_CHECK_ERR(lsetxattr(cg, "trusted.n128", "v", 1, XATTR_CREATE), ENOSPC);
	XT_CHECK_ERR(lsetxattr(cg, "trusted.n128", "v", 1, 0), ENOSPC);
	XT_CHECK_ERR(lgetxattr(cg, "trusted.n128", NULL, 0), ENODATA);
	XT_CHECK_ERR(lsetxattr(cg, "trusted.<5>child", "v", 1, 0), ENOSPC);
	XT_CHECK(count_names(_metadata, cg, "trusted.") == KERNFS_MAX_NAMES);
	for (i = 0; i < KERNFS_MAX_NAMES; i++) {
		snprintf(name, sizeof(name), "user.u%03d", i);
		XT_CHECK(lsetxattr(cg, name, "v", 1, XATTR_CREATE) == 0);
	}
	XT_CHECK_ERR(lsetxattr(cg, "user.u128", "v", 1, XATTR_CREATE), ENOSPC);
	XT_CHECK(count_names(_metadata, cg, "user.") == KERNFS_MAX_NAMES);
	/* a replace with both counts at the limit: the same for both */
	errno = 0;
	terr = lsetxattr(cg, "trusted.n000", "w", 1, XATTR_REPLACE) ? errno : 0;
	errno = 0;
	uerr = lsetxattr(cg, "user.u000", "w", 1, XATTR_REPLACE) ? errno : 0;
	XT_CHECK(terr == uerr);
	if (terr != uerr)
		TH_LOG("replace at the limit: trusted.* errno %d, user.* errno %d",
		       terr, uerr);
	/* room for one again */
	XT_CHECK(lremovexattr(cg, "trusted.n000") == 0);
	XT_CHECK(lsetxattr(cg, "trusted.n128", "v", 1, XATTR_CREATE) == 0);
	XT_CHECK(value_is(cg, "trusted.n128", "v"));
	XT_CHECK_ERR(lsetxattr(cg, "trusted.n000", "v", 1, XATTR_CREATE), ENOSPC);
	XT_CHECK(lremovexattr(cg, "trusted.n001") == 0);
	XT_CHECK(lsetxattr(cg, "trusted.<5>child", "c", 1, XATTR_CREATE) == 0);
	XT_CHECK(value_is(cg, "trusted.<5>child", "c"));
	XT_CHECK(count_names(_metadata, cg, "trusted.") == KERNFS_MAX_NAMES);
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
	XT_CHECK(lsetxattr(cg, "trusted.big0", big, sizeof(big), XATTR_CREATE) == 0);
	XT_CHECK(lsetxattr(cg, "trusted.big1", big,
			   KERNFS_MAX_BYTES - sizeof(big), XATTR_CREATE) == 0);
	XT_CHECK_ERR(lsetxattr(cg, "trusted.small", "s", 1, XATTR_CREATE), ENOSPC);
	XT_CHECK_ERR(lgetxattr(cg, "trusted.small", NULL, 0), ENODATA);
	XT_CHECK(lsetxattr(cg, "user.big0", big, sizeof(big), XATTR_CREATE) == 0);
	XT_CHECK(lsetxattr(cg, "user.big1", big,
			   KERNFS_MAX_BYTES - sizeof(big), XATTR_CREATE) == 0);
	XT_CHECK_ERR(lsetxattr(cg, "user.small", "s", 1, XATTR_CREATE), ENOSPC);
	errno = 0;
	terr = lsetxattr(cg, "trusted.big1", "x", 1, XATTR_REPLACE) ? errno : 0;
	errno = 0;
	uerr = lsetxattr(cg, "user.big1", "x", 1, XATTR_REPLACE) ? errno : 0;
	XT_CHECK(terr == uerr);
	if (terr != uerr)
		TH_LOG("replace at the limit: trusted.* errno %d, user.* errno %d",
		       terr, uerr);
	XT_CHECK(lremovexattr(cg, "trusted.big1") == 0);
	XT_CHECK(lsetxattr(cg, "trusted.small", "s", 1, XATTR_CREATE) == 0);
	XT_CHECK(value_is(cg, "trusted.small", "s"));
	XT_CHECK(lgetxattr(cg, "trusted.big0", NULL, 0) == (ssize_t)sizeof(big));
}

TEST_F(kernfs, ns_names_limited_on_cgroup)
{
	char cg[PATH_MAX], cgbig[PATH_MAX], name[64];
	int i;

	if (!self->patched)
		SKIP(return, "kernel without " SWITCH);
	KERNFS_CGROUP2();
	kernfs_cgroup(_metadata, &self->cgs, "ns", XT_OWNER, cg, sizeof(cg));
	kernfs_cgroup(_metadata, &self->cgs, "nsbig", XT_OWNER, cgbig, sizeof(cgbig));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
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

	if (!self->patched)
		SKIP(return, "kernel without " SWITCH);
	if (mount("sysfs", KERNFS_MNT, "sysfs", 0, NULL))
		SKIP(return, "cannot mount sysfs at " KERNFS_MNT ": %s", strerror(errno));
	ASSERT_EQ(0, lstat(node, &st));
	ASSERT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(0U, st.st_uid);
	ASSERT_EQ(0U, st.st_gid);
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
	/* uid_map and gid_map "0 0 1", written by real root */
	ASSERT_EQ(0, in_userns(_metadata, 0, ns_sysfs_refused, node));
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, ns_sysfs_unprivileged, node));
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 0));
	ASSERT_EQ(0, in_userns(_metadata, 0, ns_sysfs_stock, node));
	ASSERT_EQ(0, in_userns(_metadata, XT_OWNER, ns_sysfs_unprivileged, node));
}

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
	XT_CHECK(mount("tmpfs", o->upper, "tmpfs", 0, "mode=0755") == 0);
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
	XT_CHECK(trusted_names(f, names, sizeof(names)) == 0);
	ASSERT_STREQ("trusted.mine", names) {
		TH_LOG("the namespace's view through the overlay");
	}
	/* copy it up */
	XT_CHECK(chmod(f, 0640) == 0);
	snprintf(f, sizeof(f), "%s/f", up);
	XT_CHECK(trusted_names(f, names, sizeof(names)) == 0);
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
	int userns, hold, status;
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
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
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
	/* the host's view through the mount: <2000> is <1000> there */
	ASSERT_STREQ("trusted.<1000>mine|trusted.host", names);

	pid = ns_mounter(_metadata, ns_overlay_copy_up, (const char *)&o, &hold);
	ASSERT_LT(0, pid);
	close(hold);
	status = xt_wait(pid);
	if (status == XT_CHILD_SKIP)
		SKIP(return, "overlayfs cannot be mounted in a user namespace over %s",
		     variant->fs.fstype);
	ASSERT_EQ(0, status);
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

	XT_CHECK(lsetxattr(file, "trusted.mine", "m", 1, 0) == 0);
	len = llistxattr(file, NULL, 0);
	XT_CHECK(len == (ssize_t)sizeof("trusted.mine"));
	XT_CHECK(llistxattr(file, list, sizeof(list)) == len);
	XT_CHECK(!strcmp(list, "trusted.mine"));
	XT_CHECK_ERR(llistxattr(file, list, len - 1), ERANGE);
}

TEST_F(boundary, userns_list_ignores_foreign_bulk)
{
	char name[XATTR_NAME_MAX + 1];
	size_t total = 0;
	int i;

	NEED_SWITCH();
	ASSERT_EQ(0, xt_sysctl_set(SWITCH, 1));
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

	XT_CHECK(trusted_names(file, names, sizeof(names)) == 0);
	ASSERT_STREQ("", names) {
		TH_LOG("listed to uid %d", getuid());
	}
}

TEST_F(boundary, unprivileged_list_has_no_trusted)
{
	int on, status;
	pid_t pid;

	if (self->lists_trusted)
		SKIP(return, "this btrfs lists trusted.* to everybody (without the fix)");
	ASSERT_EQ(0, lsetxattr(self->file, "trusted.host", "h", 1, 0));
	ASSERT_EQ(0, lsetxattr(self->file, "user.u", "u", 1, 0));
	for (on = 0; on <= (self->patched ? 1 : 0); on++) {
		if (self->patched)
			ASSERT_EQ(0, xt_sysctl_set(SWITCH, on));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			XT_CHECK(xt_become(XT_OTHER, XT_OTHER) == 0);
			lists_no_trusted(_metadata, self->file);
			_exit(_metadata->exit_code);
		}
		status = xt_wait(pid);
		ASSERT_EQ(0, status);
	}
}

TEST_HARNESS_MAIN
