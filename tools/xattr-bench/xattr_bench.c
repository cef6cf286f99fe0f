// SPDX-License-Identifier: GPL-2.0
/*
 * xattr_bench: cost of the xattr syscalls, per call, on the running kernel.
 *
 *   xattr_bench DIR...     one directory per filesystem (tmpfs, ext4)
 *
 * Prints one line per measurement:
 *   BENCH|fs|case|op|min|median|max
 * in nanoseconds of the guest clock per call, over REPEAT runs of ITER
 * calls each. Booted with QEMU's -icount shift=0,sleep=off, the guest clock
 * advances one nanosecond per executed instruction, so these are guest
 * instructions per call, the same on every run (min == max shows it).
 * Without icount they are wall-clock nanoseconds, with their spread.
 *
 * Cases the running kernel lacks (no fs.xattr_* switch) are not printed.
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
static bool patched_kernel;
static char listbuf[65536];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
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

static void op_list(struct op *o)
{
	if (listxattr(o->file, listbuf, sizeof(listbuf)) < 0)
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
	struct op o = { file, name };

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

static char dir[256];

static char cur_file[300];

static void case_trusted_ns(const char *kase)
{
	measure_ops(kase, cur_file, "trusted.bench");
}

/* List the names visible to the caller, for the listing cases. */
static void case_list_ns(const char *kase)
{
	struct op o = { cur_file, NULL };

	measure(kase, "list", op_list, &o);
}

/*
 * A file holding n names: half user.*, a quarter the initial namespace's
 * trusted.*, an eighth each of two namespaces' entries (stored names, which
 * a stock kernel keeps as plain trusted names).
 */
static int fill_names(const char *file, int n)
{
	char name[64];
	int i;

	for (i = 0; i < n; i++) {
		if (i % 2 == 0)
			snprintf(name, sizeof(name), "user.name%04d", i);
		else if (i % 4 == 1)
			snprintf(name, sizeof(name), "trusted.name%04d", i);
		else if (i % 8 == 3)
			snprintf(name, sizeof(name), "trusted.<1000>.name%04d", i);
		else
			snprintf(name, sizeof(name), "trusted.<1000><5>.name%04d", i);
		/* the patched kernel reserves the stored spelling: use the host's */
		if (!strncmp(name, "trusted.<", 9) && patched_kernel)
			memmove(name + 7, name + 8, strlen(name + 8) + 1);
		if (setxattr(file, name, "v", 1, 0))
			return -1;
	}
	return 0;
}

static void bench_fs(const char *base, bool patched)
{
	static const int sizes[] = { 16, 128, 1024 };
	char file[300], kase[64];
	size_t i;

	snprintf(dir, sizeof(dir), "%s/bench", base);
	mkdir(dir, 0755);
	if (chown(dir, OWNER, OWNER))
		die(dir);

	snprintf(file, sizeof(file), "%s/reg", dir);
	make_file(file, S_IFREG);
	measure_ops("user.* regular file", file, "user.bench");
	measure_ops("trusted.* initial namespace", file, "trusted.bench");

	if (patched) {
		snprintf(file, sizeof(file), "%s/chr", dir);
		make_file(file, S_IFCHR);
		ns_write_str("/proc/sys/fs/xattr_user_special", "1\n");
		measure_ops("user.* device node (switch on)", file, "user.bench");
		ns_write_str("/proc/sys/fs/xattr_user_special", "0\n");

		ns_write_str("/proc/sys/fs/xattr_trusted_userns", "1\n");
		/*
		 * Names as long as "reg": the path walk costs the same as in
		 * the initial namespace's case these are compared with.
		 */
		snprintf(cur_file, sizeof(cur_file), "%s/ns1", dir);
		make_file(cur_file, S_IFREG);
		in_namespace(1, case_trusted_ns, "trusted.* depth 1");
		snprintf(cur_file, sizeof(cur_file), "%s/ns3", dir);
		make_file(cur_file, S_IFREG);
		in_namespace(3, case_trusted_ns, "trusted.* depth 3");
	}

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct op o = { file, NULL };

		snprintf(file, sizeof(file), "%s/names%d", dir, sizes[i]);
		make_file(file, S_IFREG);
		if (fill_names(file, sizes[i])) {
			fprintf(stderr, "xattr_bench: %s: %d names do not fit: %s\n",
				fsname, sizes[i], strerror(errno));
			continue;
		}
		snprintf(kase, sizeof(kase), "list %d names, root", sizes[i]);
		measure(kase, "list", op_list, &o);
		measure(kase, "list probe", op_probe, &o);
		if (patched) {
			snprintf(kase, sizeof(kase), "list %d names, depth 1", sizes[i]);
			snprintf(cur_file, sizeof(cur_file), "%s", file);
			in_namespace(1, case_list_ns, kase);
		}
	}
	if (patched)
		ns_write_str("/proc/sys/fs/xattr_trusted_userns", "0\n");
}

int main(int argc, char **argv)
{
	bool patched = access("/proc/sys/fs/xattr_trusted_userns", F_OK) == 0;
	int i;

	patched_kernel = patched;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: xattr_bench FSTYPE=DIR...\n");
		return 2;
	}
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
