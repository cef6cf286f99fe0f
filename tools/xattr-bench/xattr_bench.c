// SPDX-License-Identifier: GPL-2.0
/*
 * xattr_bench: cost of the xattr syscalls, per call, on the running kernel.
 *
 *   xattr_bench DIR...     one directory per filesystem (tmpfs, ext4)
 *
 * Prints first the clock it measures with:
 *   BENCH-CLOCK|getres_ns|step_ns|iter
 * clock_getres(CLOCK_MONOTONIC), the smallest step seen between two
 * successive readings (a jiffies clocksource steps by a whole tick), and
 * the calls per run; scripts/bench.awk refuses figures whose runs are not
 * long against the step. Then one line per measurement:
 *   BENCH|fs|case|op|min|median|max
 * in nanoseconds of the guest clock per call, over REPEAT runs of ITER
 * calls each. Booted with QEMU's -icount shift=0,sleep=off, the guest clock
 * advances one nanosecond per executed instruction, so these are guest
 * instructions per call, the same on every run (min == max shows it).
 * Without icount they are wall-clock nanoseconds, with their spread.
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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static const char *fsname;
static char listbuf[65536];

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
	uint64_t per[REPEAT];
	int r, i;

	for (i = 0; i < 20; i++)	/* warm caches */
		fn(o);
	for (r = 0; r < REPEAT; r++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < ITER; i++)
			fn(o);
		per[r] = (now_ns() - t0) / ITER;
	}
	qsort(per, REPEAT, sizeof(per[0]), cmp_u64);
	printf("BENCH|%s|%s|%s|%llu|%llu|%llu\n", fsname, kase, opname,
	       (unsigned long long)per[0], (unsigned long long)per[REPEAT / 2],
	       (unsigned long long)per[REPEAT - 1]);
	fflush(stdout);
}

/* get, set (replace), list, remove + set of one name on one file. */
static void measure_ops(const char *kase, const char *file, const char *name)
{
	struct op o = { file, name, 0 };

	if (setxattr(file, name, "value-of-16bytes", 16, 0)) {
		fprintf(stderr, "xattr_bench: %s: %s on %s: %s\n", kase, name, file,
			strerror(errno));
		return;
	}
	measure(kase, "get", op_get, &o);
	measure(kase, "set", op_set, &o);
	measure(kase, "list", op_list, &o);
	measure(kase, "list probe", op_probe, &o);
	measure(kase, "remove+set", op_remove_set, &o);
}

/* The chain of namespaces of the selftests: root 1000, then 1005, 1012. */
static const char * const chain[] = {
	"0 1000 1000\n", "0 5 50\n100 0 1\n", "0 7 10\n100 100 1\n",
};

/* Run fn(arg) as the root of a namespace depth levels down, in a child. */
static void in_namespace(int depth, void (*fn)(const char *), const char *arg)
{
	pid_t pid = fork();
	int i;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (i = 0; i < depth; i++)
			if (ns_enter(chain[i]))
				die("user namespace");
		fn(arg);
		_exit(0);
	}
	if (ns_wait(pid))
		die("namespace child");
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
 * scripts/bench.awk checks every figure against the last such line.
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

static char dir[256];

static char cur_file[300];

static void case_trusted_ns(const char *kase)
{
	measure_ops(kase, cur_file, "trusted.bench");
}

/* List the names visible to the caller, for the listing cases. */
static void case_list_ns(const char *kase)
{
	struct op o = { cur_file, NULL, 0 };

	measure(kase, "list", op_list, &o);
	measure(kase, "list probe", op_probe, &o);
}

/*
 * Name i of a file's list: half user.*, a quarter the initial namespace's
 * trusted.*, an eighth each of namespace <1000>'s and namespace
 * <1000><5>'s entries. stored: as the filesystem keeps them
 * ("trusted.<1000>name0003", what any kernel stores and lists with
 * fs.xattr_trusted_userns=0); else as the initial namespace spells them
 * with the switch 1 ("trusted<1000>.name0003", the same length).
 */
static void name_of(char *name, size_t len, int i, bool stored)
{
	const char *chain = i % 8 == 3 ? "<1000>" : "<1000><5>";

	if (i % 2 == 0)
		snprintf(name, len, "user.name%04d", i);
	else if (i % 4 == 1)
		snprintf(name, len, "trusted.name%04d", i);
	else if (stored)
		snprintf(name, len, "trusted.%sname%04d", chain, i);
	else
		snprintf(name, len, "trusted%s.name%04d", chain, i);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/*
 * The caller's listing of file must be exactly the n names of name_of(),
 * in the given spelling (in any order): the lists measured on stock, at
 * switch 0 and at switch 1 are then the same stored names.
 */
static void check_names(const char *file, int n, bool stored)
{
	static char want[1024][64];
	static char *got[2048], *exp[1024];
	ssize_t len = listxattr(file, listbuf, sizeof(listbuf));
	char *p;
	int i, k = 0;

	if (len < 0)
		die("listxattr (check)");
	for (p = listbuf; p < listbuf + len && k < 2048; p += strlen(p) + 1)
		got[k++] = p;
	for (i = 0; i < n; i++) {
		name_of(want[i], sizeof(want[i]), i, stored);
		exp[i] = want[i];
	}
	qsort(got, k, sizeof(got[0]), cmp_str);
	qsort(exp, n, sizeof(exp[0]), cmp_str);
	for (i = 0; i < n && i < k; i++)
		if (strcmp(got[i], exp[i]))
			break;
	if (k != n || i != n) {
		fprintf(stderr, "xattr_bench: %s: %s: %d names listed, want %d %s names%s%s\n",
			fsname, file, k, n, stored ? "stored" : "translated",
			i < n && i < k ? "; first difference: " : "",
			i < n && i < k ? got[i] : "");
		exit(1);
	}
}

/*
 * A file holding n names (see name_of()). On stock and with the switches
 * 0 they are set as stored, as a stock kernel (or root with the switch 0)
 * writes them; with fs.xattr_trusted_userns=1 the namespaces' entries are
 * set as the initial namespace spells them ("trusted<1000>.name0003"),
 * which stores the same name. check_names() proves it: the listing at the
 * switch's setting, and at switch 1 also the stored names seen with the
 * switch 0 for a moment, must be exactly the expected names.
 */
static int fill_names(const char *file, int n, bool on)
{
	char name[64];
	int i;

	for (i = 0; i < n; i++) {
		name_of(name, sizeof(name), i, !on);
		if (setxattr(file, name, "v", 1, 0))
			return -1;
	}
	check_names(file, n, !on);
	if (on) {
		set_switches(1, 0);
		check_names(file, n, true);
		set_switches(1, 1);
	}
	return 0;
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
 */
static void bench_pass(const char *base, int pass, bool on)
{
	static const int sizes[] = { 16, 128, 1024 };
	const char *sfx = pass == 1 ? "" : on ? ", switches 1" : ", second pass";
	bool filled[3] = { false, false, false };
	char file[300], kase[96];
	size_t i;

	snprintf(dir, sizeof(dir), "%s/p%d", base, pass);
	mkdir(dir, 0755);
	if (chown(dir, OWNER, OWNER))
		die(dir);

	snprintf(file, sizeof(file), "%s/reg", dir);
	make_file(file, S_IFREG);
	snprintf(kase, sizeof(kase), "user.* regular file%s", sfx);
	measure_ops(kase, file, "user.bench");
	snprintf(kase, sizeof(kase), "trusted.* initial namespace%s", sfx);
	measure_ops(kase, file, "trusted.bench");

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct op o = { file, NULL };

		snprintf(file, sizeof(file), "%s/names%d", dir, sizes[i]);
		make_file(file, S_IFREG);
		if (fill_names(file, sizes[i], on)) {
			fprintf(stderr, "xattr_bench: %s: %d names do not fit: %s\n",
				fsname, sizes[i], strerror(errno));
			continue;
		}
		filled[i] = true;
		snprintf(kase, sizeof(kase), "list %d names, root%s", sizes[i], sfx);
		measure(kase, "list", op_list, &o);
		measure(kase, "list probe", op_probe, &o);
	}
	if (!on)
		return;

	snprintf(file, sizeof(file), "%s/chr", dir);
	make_file(file, S_IFCHR);
	measure_ops("user.* device node, switches 1", file, "user.bench");
	/*
	 * Names as long as "reg": the path walk costs the same as in the
	 * initial namespace's case these are compared with.
	 */
	snprintf(cur_file, sizeof(cur_file), "%s/ns1", dir);
	make_file(cur_file, S_IFREG);
	in_namespace(1, case_trusted_ns, "trusted.* depth 1, switches 1");
	snprintf(cur_file, sizeof(cur_file), "%s/ns3", dir);
	make_file(cur_file, S_IFREG);
	in_namespace(3, case_trusted_ns, "trusted.* depth 3, switches 1");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (!filled[i])
			continue;
		snprintf(cur_file, sizeof(cur_file), "%s/names%d", dir, sizes[i]);
		snprintf(kase, sizeof(kase), "list %d names, depth 1, switches 1", sizes[i]);
		in_namespace(1, case_list_ns, kase);
	}
}

/*
 * Stock: the stock cases twice. Patched: the same with both switches 0
 * (which must cost what stock's first pass costs), then everything with
 * both switches 1.
 */
static void bench_fs(const char *base, bool patched)
{
	if (!patched) {
		bench_pass(base, 1, false);
		bench_pass(base, 2, false);
		return;
	}
	set_switches(0, 0);
	bench_pass(base, 1, false);
	set_switches(1, 1);
	bench_pass(base, 2, true);
	set_switches(0, 0);
}

int main(int argc, char **argv)
{
	bool patched = access("/proc/sys/fs/xattr_trusted_userns", F_OK) == 0;
	struct timespec res;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: xattr_bench FSTYPE=DIR...\n");
		return 2;
	}
	if (clock_getres(CLOCK_MONOTONIC, &res))
		die("clock_getres");
	printf("BENCH-CLOCK|%llu|%llu|%d\n",
	       (unsigned long long)res.tv_sec * 1000000000ull + res.tv_nsec,
	       (unsigned long long)clock_step_ns(), ITER);
	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "xattr_bench: %s: want FSTYPE=DIR\n", argv[i]);
			return 2;
		}
		*eq = 0;
		fsname = argv[i];
		bench_fs(eq + 1, patched);
	}
	return 0;
}
