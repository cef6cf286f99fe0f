// SPDX-License-Identifier: GPL-2.0
/*
 * xattr_bench: cost of the xattr syscalls, per call, on the running kernel.
 *
 *   xattr_bench FSTYPE=DIR...   one directory per filesystem (tmpfs, ext4);
 *                               xfs and btrfs are mounted from the disks
 *                               $XATTR_TEST_DEV_XFS, $XATTR_TEST_DEV_BTRFS
 *                               (initramfs/init exports them) when given
 *
 * Prints first the clock it measures with:
 *   BENCH-CLOCK|getres_ns|step_ns|iter
 * clock_getres(CLOCK_MONOTONIC), the smallest step seen between two
 * successive readings (a jiffies clocksource steps by a whole tick), and
 * the calls per run of most figures; scripts/report/bench.awk refuses figures
 * whose runs are not long against the step. Then one line per measurement:
 *   BENCH|fs|case|op|min|median|max|calls per run
 * in nanoseconds of the guest clock per call, over REPEAT runs. Booted with
 * QEMU's -icount shift=0,sleep=off, the guest clock advances one nanosecond
 * per executed instruction, so these are guest instructions per call (min
 * == max shows it). Without icount they are wall-clock nanoseconds, with
 * their spread. Long lists run fewer calls per run (iter_for()).
 *
 * Every case a stock kernel has is measured in two passes (see
 * bench_pass()). On a patched kernel (it has the fs.xattr_* switches) the
 * first runs with both switches 0, under the same case names as on stock,
 * the second with both switches 1, its case names ending in ", switches
 * 1", followed by the cases a stock kernel lacks; on stock the second
 * pass is the baseline of the switch-1 figures, its case names ending in
 * ", second pass". Each change of the switches is printed as it was read
 * back:
 *   BENCH-SWITCHES|user_special|trusted_userns
 *
 * The wall-clock boots (xattrns.bench=wall on the kernel command line, or
 * XATTR_BENCH_MODE=wall) measure the lists of 16, 128 and 1024 names and
 * depths 1 and 3 only, and then a tree walk by 1 and 2 threads, as
 * `find | xargs -P N getfattr -d` does it:
 *   BENCH-TREE|fs|case|threads|files|min|median|max
 * in wall-clock nanoseconds per file.
 *
 *   xattr_bench --loop OP DEPTH NAMES ITER DIR
 * is make profile's guest: ITER calls of OP (get, set, list, probe) by the
 * root of a namespace DEPTH levels down (0: root of the initial one) on a
 * file in DIR, nothing measured: the host counts the kernel's instructions
 * (tools/kprof). get and set use the caller's trusted.bench (stored under
 * its chain), list and probe a file of NAMES mixed names. Prints
 *   LOOP|OP|DEPTH|NAMES|ITER
 * when done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "../lib/nsutil.h"

#define ITER	400
#define REPEAT	5
#define OWNER	1000
#define MAXNAMES 4096
#define DEPTHS	8
#define TREE_FILES 10000
#define TREE_NAMES 16

static const char *fsname;
static char listbuf[65536];
static bool wall, patched;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The smallest non-zero difference between two successive readings of the
 * clock, over a few hundred pairs (at most about a second on a 4 ms tick).
 */
static uint64_t clock_step_ns(void)
{
	uint64_t best = UINT64_MAX, t0, t1, start = now_ns();
	int i;

	for (i = 0; i < 200 && now_ns() - start < 1000000000ull; i++) {
		t0 = now_ns();
		while ((t1 = now_ns()) == t0)
			;
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	fprintf(stderr, "xattr_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

struct op {
	const char *file;
	const char *name;
	size_t listsize;	/* op_list's buffer: the size probe's answer */
	int iter;		/* calls per run; 0: ITER */
};

static void op_get(struct op *o)
{
	char v[64];

	if (getxattr(o->file, o->name, v, sizeof(v)) < 0)
		die("getxattr");
}

static void op_set(struct op *o)
{
	if (setxattr(o->file, o->name, "value-of-16bytes", 16, XATTR_REPLACE))
		die("setxattr");
}

/*
 * A listing with a buffer of the size the probe gave, as getfattr and
 * virtiofsd's callers ask for it: a 64 KiB buffer would make every call
 * an order-4 page allocation in the kernel (kvmalloc() of the size asked),
 * whose cost follows the page allocator's state, not the xattr code. The
 * probe is made once, in measure()'s warm-up.
 */
static void op_list(struct op *o)
{
	if (!o->listsize) {
		ssize_t n = listxattr(o->file, NULL, 0);

		if (n <= 0)
			die("listxattr (size probe)");
		o->listsize = n;
	}
	if (listxattr(o->file, listbuf, o->listsize) < 0)
		die("listxattr");
}

/*
 * The same listing with a 64 KiB buffer: for the breakdown of a listing
 * that reads the names into a buffer of its own (its size follows the
 * caller's), against op_list().
 */
static void op_list_big(struct op *o)
{
	if (listxattr(o->file, listbuf, sizeof(listbuf)) < 0)
		die("listxattr (64 KiB)");
}

/* the size probe, listxattr(size 0), that callers issue before listing */
static void op_probe(struct op *o)
{
	if (listxattr(o->file, NULL, 0) < 0)
		die("listxattr probe");
}

static void op_remove_set(struct op *o)
{
	if (removexattr(o->file, o->name))
		die("removexattr");
	if (setxattr(o->file, o->name, "value-of-16bytes", 16, XATTR_CREATE))
		die("setxattr");
}

static void measure(const char *kase, const char *opname, void (*fn)(struct op *),
		    struct op *o)
{
	int iter = o->iter ? o->iter : ITER, fd;
	uint64_t per[REPEAT];
	int r, i;

	/*
	 * Each case starts from a filesystem with nothing to write back: a
	 * disk filesystem's costs follow its state (btrfs's get costs more
	 * with a transaction open), which background work (a periodic
	 * commit) would otherwise change at different points on each kernel.
	 */
	fd = open(o->file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
	for (i = 0; i < 20; i++)	/* warm caches */
		fn(o);
	for (r = 0; r < REPEAT; r++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < iter; i++)
			fn(o);
		per[r] = (now_ns() - t0) / iter;
	}
	qsort(per, REPEAT, sizeof(per[0]), cmp_u64);
	printf("BENCH|%s|%s|%s|%llu|%llu|%llu|%d\n", fsname, kase, opname,
	       (unsigned long long)per[0], (unsigned long long)per[REPEAT / 2],
	       (unsigned long long)per[REPEAT - 1], iter);
	fflush(stdout);
}

#define OPS_ALL		0x1f
#define OPS_GET_SET	0x03

/* get, set (replace), list, list probe, remove + set of one name. */
static void measure_ops(const char *kase, const char *file, const char *name,
			unsigned int ops)
{
	struct op o = { file, name, 0, 0 };

	if (setxattr(file, name, "value-of-16bytes", 16, 0)) {
		fprintf(stderr, "xattr_bench: %s: %s on %s: %s\n", kase, name, file,
			strerror(errno));
		exit(1);
	}
	if (ops & 0x01)
		measure(kase, "get", op_get, &o);
	if (ops & 0x02)
		measure(kase, "set", op_set, &o);
	if (ops & 0x04)
		measure(kase, "list", op_list, &o);
	if (ops & 0x08)
		measure(kase, "list probe", op_probe, &o);
	if (ops & 0x10)
		measure(kase, "remove+set", op_remove_set, &o);
}

/*
 * The chain of namespaces, one map per level: the root of level 1 is host
 * uid 1000, that of level 2 its uid 5, of level 3 its uid 7, of levels 4 to
 * 8 their parent's uid 1; uid 100 of every level below the first is the
 * first level's root, the files' owner (so that each level's root has
 * CAP_SYS_ADMIN over them). The first three are the selftests'.
 */
static const char * const chain[DEPTHS] = {
	"0 1000 1000\n", "0 5 50\n100 0 1\n", "0 7 10\n100 100 1\n",
	"0 1 9\n100 100 1\n", "0 1 8\n100 100 1\n", "0 1 7\n100 100 1\n",
	"0 1 6\n100 100 1\n", "0 1 5\n100 100 1\n",
};
/* what each level adds to the chain of stored names */
static const char * const chain_uid[DEPTHS] = {
	"<1000>", "<5>", "<7>", "<1>", "<1>", "<1>", "<1>", "<1>",
};

/* The stored chain of a namespace depth levels down: "<1000><5>..." */
static void chain_of(char *buf, size_t len, int depth)
{
	int i;

	buf[0] = 0;
	for (i = 0; i < depth; i++)
		strncat(buf, chain_uid[i], len - strlen(buf) - 1);
}

/*
 * Run fn(arg) in a child, as the root of a namespace depth levels down, or
 * (uid != 0) as that uid of it, with no capabilities.
 */
static void in_namespace_as(int depth, uid_t uid, void (*fn)(const char *),
			    const char *arg)
{
	pid_t pid = fork();
	int i;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (i = 0; i < depth; i++)
			if (ns_enter(chain[i]))
				die("user namespace");
		if (uid && ns_become(uid))
			die("setresuid in the namespace");
		/*
		 * Let the work that making the namespaces left behind (their
		 * helper processes' exit, RCU callbacks) run before measuring:
		 * a get measured right after entering 6 or 7 levels once cost
		 * about 1900 instructions a call more, in all of its 5 runs.
		 * Idle time is free under -icount sleep=off.
		 */
		usleep(100000);
		fn(arg);
		_exit(0);
	}
	if (ns_wait(pid))
		die("namespace child");
}

static void in_namespace(int depth, void (*fn)(const char *), const char *arg)
{
	in_namespace_as(depth, 0, fn, arg);
}

static void make_file(const char *path, mode_t type)
{
	if (type == S_IFREG) {
		int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		if (fd < 0)
			die(path);
		close(fd);
	} else if (mknod(path, type | 0666, makedev(1, 3))) {
		die(path);
	}
	if (chown(path, OWNER, OWNER))
		die(path);
}

/*
 * Set fs.xattr_user_special and fs.xattr_trusted_userns (patched kernel
 * only), read them back and say what they are:
 *   BENCH-SWITCHES|user_special|trusted_userns
 * scripts/report/bench.awk checks every figure against the last such line.
 */
static void set_switches(int user_special, int trusted_userns)
{
	static const char * const path[2] = {
		"/proc/sys/fs/xattr_user_special", "/proc/sys/fs/xattr_trusted_userns",
	};
	int want[2] = { user_special, trusted_userns }, got[2], i;
	char buf[16];

	for (i = 0; i < 2; i++) {
		int fd;
		ssize_t n;

		if (ns_write_str(path[i], want[i] ? "1\n" : "0\n"))
			die(path[i]);
		fd = open(path[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(path[i]);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			die(path[i]);
		buf[n] = 0;
		got[i] = atoi(buf);
	}
	printf("BENCH-SWITCHES|%d|%d\n", got[0], got[1]);
	if (got[0] != want[0] || got[1] != want[1]) {
		fprintf(stderr, "xattr_bench: switches read back %d %d, want %d %d\n",
			got[0], got[1], want[0], want[1]);
		exit(1);
	}
}

/*
 * Name i of a file's mixed list: half user.*, a quarter the initial
 * namespace's trusted.*, an eighth each of the namespace's and of its
 * child <5>'s entries, as stored, under the namespace's chain: with the
 * chain "<1000>", "trusted.<1000>n0003" and "trusted.<1000><5>n0007". Short
 * names, so that 4096 of them fit a listing (XATTR_LIST_MAX, 64 KiB).
 */
static void name_of(char *name, size_t len, int i, const char *chain)
{
	if (i % 2 == 0)
		snprintf(name, len, "user.n%04d", i);
	else if (i % 4 == 1)
		snprintf(name, len, "trusted.n%04d", i);
	else if (i % 8 == 3)
		snprintf(name, len, "trusted.%sn%04d", chain, i);
	else
		snprintf(name, len, "trusted.%s<5>n%04d", chain, i);
}

/* What a caller sees of such a list. */
enum view {
	VIEW_STORED,	/* the initial namespace's root: every name as stored */
	VIEW_NS,	/* the namespace's root, switch 1: user.*, its own, its child's */
	VIEW_USER,	/* a caller who may see no trusted.* name */
};

/* Name i as a caller of view v sees it; false when it does not. */
static bool seen_as(char *name, size_t len, int i, const char *chain, enum view v)
{
	if (i % 2 == 0 || v == VIEW_STORED) {
		name_of(name, len, i, chain);
		return true;
	}
	if (v == VIEW_USER || i % 4 == 1)
		return false;
	if (i % 8 == 3)
		snprintf(name, len, "trusted.n%04d", i);
	else
		snprintf(name, len, "trusted.<5>n%04d", i);
	return true;
}

/*
 * What a caller who may not read trusted.* names sees of a list: its
 * user.* names; but stock btrfs lists every name to every caller (the
 * series' btrfs patch asks xattr_may_list_trusted(), as the others do).
 */
static enum view view_no_trusted(void)
{
	return !patched && !strcmp(fsname, "btrfs") ? VIEW_STORED : VIEW_USER;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/*
 * The caller's listing of file must be exactly what view v shows of the n
 * names of name_of() (in any order): the lists measured on stock, at
 * switch 0 and at switch 1 are then the same stored names, and each
 * caller sees what the ABI says.
 */
static void check_names(const char *file, int n, const char *chain, enum view v)
{
	static char want[MAXNAMES][48];
	static char *got[2 * MAXNAMES], *exp[MAXNAMES];
	ssize_t len = listxattr(file, listbuf, sizeof(listbuf));
	char *p;
	int i, k = 0, m = 0;

	if (len < 0)
		die("listxattr (check)");
	for (p = listbuf; p < listbuf + len && k < 2 * MAXNAMES; p += strlen(p) + 1)
		got[k++] = p;
	for (i = 0; i < n; i++)
		if (seen_as(want[m], sizeof(want[m]), i, chain, v)) {
			exp[m] = want[m];
			m++;
		}
	qsort(got, k, sizeof(got[0]), cmp_str);
	qsort(exp, m, sizeof(exp[0]), cmp_str);
	for (i = 0; i < m && i < k; i++)
		if (strcmp(got[i], exp[i]))
			break;
	if (k != m || i != m) {
		fprintf(stderr, "xattr_bench: %s: %s: %d names listed, want %d (view %d)%s%s%s%s\n",
			fsname, file, k, m, v,
			i < m && i < k ? "; first difference: " : "",
			i < m && i < k ? got[i] : "", i < m && i < k ? " for " : "",
			i < m && i < k ? exp[i] : "");
		exit(1);
	}
}

/* Fewer calls per run for long lists (the instruction counts need few). */
static int iter_for(int n)
{
	return n >= 4096 ? 25 : n >= 1024 ? 100 : ITER;
}

/*
 * A file holding n names under the chain (see name_of()), set as stored
 * by root in the initial namespace, as on any kernel at either switch;
 * check_names() proves that root lists exactly them.
 */
static int fill_names(const char *file, int n, const char *chain)
{
	char name[64];
	int i;

	for (i = 0; i < n; i++) {
		name_of(name, sizeof(name), i, chain);
		if (setxattr(file, name, "v", 1, 0))
			return -1;
	}
	check_names(file, n, chain, VIEW_STORED);
	return 0;
}

/* What the callers in a namespace child measure: set before fork(). */
static struct {
	char file[300];
	int n;
	char chain[128];
	enum view view;
	bool big;	/* also the listing with a 64 KiB buffer */
} ns_list;

static void case_list_ns(const char *kase)
{
	struct op o = { ns_list.file, NULL, 0, iter_for(ns_list.n) };

	check_names(ns_list.file, ns_list.n, ns_list.chain, ns_list.view);
	measure(kase, "list", op_list, &o);
	measure(kase, "list probe", op_probe, &o);
	if (ns_list.big)
		measure(kase, "list, 64 KiB buffer", op_list_big, &o);
}

static char cur_file[300];

static void case_trusted_ns(const char *kase)
{
	measure_ops(kase, cur_file, "trusted.bench", OPS_ALL);
}

static void case_user_ns(const char *kase)
{
	measure_ops(kase, cur_file, "user.bench", OPS_GET_SET);
}

/*
 * One pass over the cases a stock kernel has, then (on with the switches
 * 1) the new ones. Pass 1: stock, and patched with the switches 0, in the
 * same paths ("p1/..."). Pass 2: patched with the switches 1, and stock
 * again as its baseline ("p2/...": paths of the same length), the stock
 * cases in the same order on both kernels, before any new case, so that
 * each filesystem has been through the same calls when they are measured
 * (ext4's set costs a fifth less in the second pass than in the first, on
 * either kernel). The case names of pass 2 end in ", switches 1" on the
 * patched kernel and in ", second pass" on stock.
 *
 * Each list of n names is listed by root, by the root of a namespace one
 * level down (on stock, and at switch 0, it sees no trusted.* name; at
 * switch 1 its own and its child's) and by uid 1 of that namespace, who
 * has no capabilities and sees no trusted.* name on either kernel.
 */
static void bench_pass(const char *base, int pass, bool on)
{
	static const int all_sizes[] = { 16, 64, 128, 256, 1024, 4096 };
	static const int wall_sizes[] = { 16, 128, 1024 };
	static const int all_depths[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const int wall_depths[] = { 1, 3 };
	const int *sizes = wall ? wall_sizes : all_sizes;
	const int *depths = wall ? wall_depths : all_depths;
	int nsizes = wall ? 3 : 6, ndepths = wall ? 2 : DEPTHS;
	const char *sfx = pass == 1 ? "" : on ? ", switches 1" : ", second pass";
	char dir[256], file[300], kase[128], c1[128], cd[128], name[160];
	int i, d;

	snprintf(dir, sizeof(dir), "%s/p%d", base, pass);
	mkdir(dir, 0755);
	if (chown(dir, OWNER, OWNER))
		die(dir);

	snprintf(file, sizeof(file), "%s/reg", dir);
	make_file(file, S_IFREG);
	snprintf(kase, sizeof(kase), "user.* regular file%s", sfx);
	measure_ops(kase, file, "user.bench", OPS_ALL);
	snprintf(kase, sizeof(kase), "trusted.* initial namespace%s", sfx);
	measure_ops(kase, file, "trusted.bench", OPS_ALL);

	chain_of(c1, sizeof(c1), 1);
	for (i = 0; i < nsizes; i++) {
		int n = sizes[i];
		struct op o = { file, NULL, 0, iter_for(n) };

		snprintf(file, sizeof(file), "%s/names%d", dir, n);
		make_file(file, S_IFREG);
		if (fill_names(file, n, c1)) {
			fprintf(stderr, "xattr_bench: %s: %d names do not fit: %s\n",
				fsname, n, strerror(errno));
			continue;
		}
		snprintf(kase, sizeof(kase), "list %d names, root%s", n, sfx);
		measure(kase, "list", op_list, &o);
		measure(kase, "list probe", op_probe, &o);
		if (pass == 2)
			measure(kase, "list, 64 KiB buffer", op_list_big, &o);

		snprintf(ns_list.file, sizeof(ns_list.file), "%s", file);
		ns_list.n = n;
		snprintf(ns_list.chain, sizeof(ns_list.chain), "%s", c1);
		ns_list.view = on ? VIEW_NS : view_no_trusted();
		ns_list.big = pass == 2;
		snprintf(kase, sizeof(kase), "list %d names, depth 1%s", n, sfx);
		in_namespace(1, case_list_ns, kase);
		ns_list.view = view_no_trusted();
		ns_list.big = false;
		snprintf(kase, sizeof(kase), "list %d names, depth 1 non-root%s", n, sfx);
		in_namespace_as(1, 1, case_list_ns, kase);
	}
	if (pass == 1)
		return;

	/*
	 * trusted.* at depth 1 to 8: a namespace's get, set, list of its
	 * trusted.bench (file names as long as "reg": the path walk costs the
	 * same as in the initial namespace's case they are compared with),
	 * root's get and set of the same stored name, at depths 1 and 3 the
	 * namespace's get and set of user.bench on the same file (on stock
	 * too), and a list of 128 names under the depth's chain, by root and by
	 * the namespace.
	 */
	for (d = 0; d < ndepths; d++) {
		int depth = depths[d];
		struct op o = { file, NULL, 0, 0 };

		chain_of(cd, sizeof(cd), depth);
		snprintf(cur_file, sizeof(cur_file), "%s/ns%d", dir, depth);
		make_file(cur_file, S_IFREG);
		if (on) {
			snprintf(kase, sizeof(kase), "trusted.* depth %d, switches 1", depth);
			in_namespace(depth, case_trusted_ns, kase);
		}
		snprintf(kase, sizeof(kase), "trusted.* depth %d, stored name as root%s", depth, sfx);
		snprintf(name, sizeof(name), "trusted.%sbench", cd);
		measure_ops(kase, cur_file, name, OPS_GET_SET);
		/* what the namespace itself costs, on either kernel: its user.* */
		if (depth == 1 || depth == 3) {
			snprintf(kase, sizeof(kase), "user.* depth %d%s", depth, sfx);
			in_namespace(depth, case_user_ns, kase);
		}

		snprintf(file, sizeof(file), "%s/deep%d", dir, depth);
		make_file(file, S_IFREG);
		if (fill_names(file, 128, cd)) {
			fprintf(stderr, "xattr_bench: %s: 128 names of depth %d do not fit: %s\n",
				fsname, depth, strerror(errno));
			continue;
		}
		snprintf(kase, sizeof(kase), "list 128 names of depth %d, root%s", depth, sfx);
		measure(kase, "list", op_list, &o);
		measure(kase, "list probe", op_probe, &o);
		if (on) {
			snprintf(ns_list.file, sizeof(ns_list.file), "%s", file);
			ns_list.n = 128;
			snprintf(ns_list.chain, sizeof(ns_list.chain), "%s", cd);
			ns_list.view = VIEW_NS;
			ns_list.big = false;
			snprintf(kase, sizeof(kase), "list 128 names of depth %d, depth %d, switches 1",
				 depth, depth);
			in_namespace(depth, case_list_ns, kase);
		}
	}
	if (!on)
		return;
	snprintf(file, sizeof(file), "%s/chr", dir);
	make_file(file, S_IFCHR);
	measure_ops("user.* device node, switches 1", file, "user.bench", OPS_ALL);
}

/*
 * The tree walk of the wall-clock boots: TREE_FILES files of TREE_NAMES
 * mixed names each, listed (size probe, then the listing) and every name
 * read, as `find | xargs -P N getfattr -d`, a relabel or `tar --xattrs`
 * does, by N threads that share the files out, by root and by the root of
 * a namespace one level down (a container's). Wall-clock nanoseconds per
 * file of the whole walk, the fewest, the median and the most of REPEAT.
 */
static char tree_dir[300];
static int tree_threads;

static void *tree_worker(void *arg)
{
	long t = (long)arg;
	char path[400], names[4096], v[256];
	int f;

	for (f = t; f < TREE_FILES; f += tree_threads) {
		ssize_t n, len;
		char *p;

		snprintf(path, sizeof(path), "%s/f%05d", tree_dir, f);
		n = listxattr(path, NULL, 0);
		if (n < 0 || n > (ssize_t)sizeof(names))
			die("tree: listxattr probe");
		len = listxattr(path, names, sizeof(names));
		if (len < 0)
			die("tree: listxattr");
		/*
		 * as getfattr -d: a name listed but not readable (stock btrfs
		 * lists trusted.* to everybody) is skipped
		 */
		for (p = names; p < names + len; p += strlen(p) + 1)
			if (getxattr(path, p, v, sizeof(v)) < 0 &&
			    errno != ENODATA)
				die("tree: getxattr");
	}
	return NULL;
}

static void case_tree(const char *kase)
{
	pthread_t th[2];
	uint64_t per[REPEAT];
	int threads, r;
	long t;

	for (threads = 1; threads <= 2; threads++) {
		tree_threads = threads;
		tree_worker(0);	/* warm */
		for (r = 0; r < REPEAT; r++) {
			uint64_t t0 = now_ns();

			for (t = 0; t < threads; t++)
				if (pthread_create(&th[t], NULL, tree_worker, (void *)t))
					die("pthread_create");
			for (t = 0; t < threads; t++)
				pthread_join(th[t], NULL);
			per[r] = (now_ns() - t0) / TREE_FILES;
		}
		qsort(per, REPEAT, sizeof(per[0]), cmp_u64);
		printf("BENCH-TREE|%s|%s|%d|%d|%llu|%llu|%llu\n", fsname, kase, threads,
		       TREE_FILES, (unsigned long long)per[0],
		       (unsigned long long)per[REPEAT / 2],
		       (unsigned long long)per[REPEAT - 1]);
		fflush(stdout);
	}
}

static void bench_tree(const char *base, bool on)
{
	const char *sfx = on ? ", switches 1" : ", second pass";
	char file[400], c1[16], kase[96];
	int f;

	chain_of(c1, sizeof(c1), 1);
	snprintf(tree_dir, sizeof(tree_dir), "%s/tree", base);
	mkdir(tree_dir, 0755);
	if (chown(tree_dir, OWNER, OWNER))
		die(tree_dir);
	for (f = 0; f < TREE_FILES; f++) {
		snprintf(file, sizeof(file), "%s/f%05d", tree_dir, f);
		make_file(file, S_IFREG);
		if (fill_names(file, TREE_NAMES, c1))
			die("tree: setxattr");
	}
	snprintf(kase, sizeof(kase), "tree walk, root%s", sfx);
	case_tree(kase);
	snprintf(kase, sizeof(kase), "tree walk, depth 1%s", sfx);
	in_namespace(1, case_tree, kase);
}

/* The filesystems to measure: FSTYPE=DIR arguments and the test disks */
static struct bench_target {
	const char *fstype;
	const char *dir;
} targets[8];
static int ntargets;

/*
 * Stock: the stock cases twice. Patched: the same with both switches 0
 * (which must cost what stock's first pass costs), then everything with
 * both switches 1. The switches only go from 0 to 1, once per boot: every
 * filesystem's first pass comes before the switch, every second pass after.
 */
static void bench_all(void)
{
	int pass, i;

	if (patched)
		set_switches(0, 0);
	for (pass = 1; pass <= 2; pass++) {
		bool on = patched && pass == 2;

		if (on)
			set_switches(1, 1);
		for (i = 0; i < ntargets; i++) {
			fsname = targets[i].fstype;
			bench_pass(targets[i].dir, pass, on);
			if (pass == 2 && wall)
				bench_tree(targets[i].dir, on);
		}
	}
}

/* xattrns.bench=wall on the kernel command line (or XATTR_BENCH_MODE=wall) */
static bool wall_mode(void)
{
	const char *env = getenv("XATTR_BENCH_MODE");
	char buf[4096];
	ssize_t n;
	int fd;

	if (env)
		return !strcmp(env, "wall");
	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, "xattrns.bench=wall") != NULL;
}

/* Mount the disk $env as fstype (the guest's test disks), to bench it. */
static void add_disk(const char *fstype, const char *env)
{
	const char *dev = getenv(env);
	char *dir;

	if (!dev || !*dev)
		return;
	if (asprintf(&dir, "/mnt/bench-%s", fstype) < 0)
		die("asprintf");
	mkdir(dir, 0755);
	if (mount(dev, dir, fstype, 0, NULL)) {
		fprintf(stderr, "xattr_bench: mount %s (%s) on %s: %s\n", dev, fstype, dir,
			strerror(errno));
		exit(1);
	}
	targets[ntargets].fstype = fstype;
	targets[ntargets++].dir = dir;
}

/* --loop: what the namespace child runs */
static struct {
	void (*fn)(struct op *);
	struct op o;
	int iter;
} loop;

static void loop_run(const char *unused)
{
	int i;

	(void)unused;
	for (i = 0; i < loop.iter; i++)
		loop.fn(&loop.o);
}

static int loop_main(int argc, char **argv)
{
	static char file[300], name[160], chain_d[128];
	int depth, names, i;

	if (argc != 7) {
		fprintf(stderr, "usage: xattr_bench --loop get|set|list|probe DEPTH NAMES ITER DIR\n");
		return 2;
	}
	depth = atoi(argv[3]);
	names = atoi(argv[4]);
	loop.iter = atoi(argv[5]);
	if (depth < 0 || depth > DEPTHS || names < 1 || names > MAXNAMES || loop.iter < 1) {
		fprintf(stderr, "xattr_bench --loop: DEPTH 0 to %d, NAMES 1 to %d, ITER > 0\n",
			DEPTHS, MAXNAMES);
		return 2;
	}
	if (!strcmp(argv[2], "get"))
		loop.fn = op_get;
	else if (!strcmp(argv[2], "set"))
		loop.fn = op_set;
	else if (!strcmp(argv[2], "list"))
		loop.fn = op_list;
	else if (!strcmp(argv[2], "probe"))
		loop.fn = op_probe;
	else {
		fprintf(stderr, "xattr_bench --loop: no operation '%s'\n", argv[2]);
		return 2;
	}
	fsname = "loop";
	snprintf(file, sizeof(file), "%s/loop", argv[6]);
	make_file(file, S_IFREG);
	chain_of(chain_d, sizeof(chain_d), depth);
	if (loop.fn == op_get || loop.fn == op_set) {
		/* stored as root spells it; the caller spells it trusted.bench */
		snprintf(name, sizeof(name), "trusted.%sbench", chain_d);
		if (setxattr(file, name, "value-of-16bytes", 16, 0))
			die("setxattr");
		loop.o.name = "trusted.bench";
	} else {
		chain_of(chain_d, sizeof(chain_d), 1);
		for (i = 0; i < names; i++) {
			name_of(name, sizeof(name), i, chain_d);
			if (setxattr(file, name, "v", 1, 0))
				die("setxattr");
		}
	}
	loop.o.file = file;
	if (depth)
		in_namespace(depth, loop_run, NULL);
	else
		loop_run(NULL);
	printf("LOOP|%s|%d|%d|%d\n", argv[2], depth, names, loop.iter);
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec res;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--loop"))
		return loop_main(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: xattr_bench FSTYPE=DIR...\n");
		return 2;
	}
	wall = wall_mode();
	patched = access("/proc/sys/fs/xattr_trusted_userns", F_OK) == 0;
	if (clock_getres(CLOCK_MONOTONIC, &res))
		die("clock_getres");
	printf("BENCH-CLOCK|%llu|%llu|%d\n",
	       (unsigned long long)res.tv_sec * 1000000000ull + res.tv_nsec,
	       (unsigned long long)clock_step_ns(), ITER);
	if (argc - 1 > (int)(sizeof(targets) / sizeof(targets[0])) - 2) {
		fprintf(stderr, "xattr_bench: too many filesystems\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "xattr_bench: %s: want FSTYPE=DIR\n", argv[i]);
			return 2;
		}
		*eq = 0;
		targets[ntargets].fstype = argv[i];
		targets[ntargets++].dir = eq + 1;
	}
	add_disk("xfs", "XATTR_TEST_DEV_XFS");
	add_disk("btrfs", "XATTR_TEST_DEV_BTRFS");
	bench_all();
	for (i = 0; i < ntargets; i++)
		if (!strncmp(targets[i].dir, "/mnt/bench-", 11) && umount(targets[i].dir))
			fprintf(stderr, "xattr_bench: umount %s: %s\n", targets[i].dir,
				strerror(errno));
	return 0;
}
