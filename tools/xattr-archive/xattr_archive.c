// SPDX-License-Identifier: GPL-2.0
/*
 * xattr_archive: round trips of xattrs on every file type through Debian's
 * archive and copy tools, as KTAP on standard output.
 *
 *   xattr_archive DIR	(DIR on ext4; the same DIR in both boots)
 *
 * Tools: GNU tar, bsdtar (libarchive), cp -a, rsync -aX, mksquashfs and
 * unsquashfs (also with -ignore-errors), run from /usr/bin. Each round
 * trip copies a fresh tree (file, dir, symlink, fifo, sock, chr 1:3,
 * blk 7:0, all owned by uid 1000) whose every node carries one xattr, and
 * checks, node by node, whether the copy has the node and the xattr with
 * its value.
 *
 * Cases:
 *   user.*     Patch A (fs.xattr_user_special): the owner (uid 1000) puts
 *              user.rt on every node; the round trip runs as the owner
 *              and, separately, as root.
 *   trusted.*  Patch B (fs.xattr_trusted_userns): uid 1000 inside its own
 *              user namespace (0 -> 1000, as `unshare -r` makes it) puts
 *              trusted.rt on every node and runs the round trip there.
 * Modes, the case's switch while the tools run: 0, 1, and 1>0 (packed with
 * the switch on, unpacked with it off: an archive of a patched host
 * restored on a stock one; not for cp and rsync, which copy in one step).
 * The source is always labelled with the switch on; a stock kernel, which
 * has no switch, runs mode "stock" with the expectations of mode 0. The
 * switches only go from 0 to 1, once per boot: a patched kernel runs in two
 * boots on one disk, first with both switches 1, then with both 0 (see
 * boot_steps()); make archive carries the disk from one to the other.
 *
 * Expected: a node comes back unless an unprivileged caller would have to
 * mknod a device, or the tool does not archive sockets (tar, bsdtar: pax
 * cannot); its xattr comes back when the kernel lets the tool read and
 * write it: user.* on files and directories always, on the other types
 * with the switch on; trusted.* in the namespace with the switch on.
 * Except that unsquashfs, without -ignore-errors, stops at the first xattr
 * it may not write: in mode 1>0 its one result is that it stopped (exit 1,
 * "FATAL ERROR: write_xattr"); the nodes it did not reach are not checked.
 * Checked (with the switch on) by root: user.rt's value; for trusted.*,
 * the trusted names and values the initial namespace sees on the copy
 * must be those of the source (whatever the spelling of a namespace's
 * names), and not none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../lib/ktap.h"
#include "../lib/nodes.h"
#include "../lib/nsutil.h"
#include "../lib/switches.h"

#define OWNER		1000

static const struct tl_node nodes[] = {
	{ "file", S_IFREG }, { "dir", S_IFDIR }, { "symlink", S_IFLNK },
	{ "fifo", S_IFIFO }, { "sock", S_IFSOCK }, { "chr", S_IFCHR },
	{ "blk", S_IFBLK },
};
#define NR_NODES	TL_NR(nodes)

enum actor { ROOT, OWNER_USER, NS_ROOT };
static const char *const actor_name[] = { "root", "owner", "userns root" };

struct tool {
	const char *name;
	const char *bin;		/* must exist */
	const char *pack[12];		/* NULL: one-step copy in unpack */
	const char *unpack[12];
	bool sockets;			/* archives sockets */
	bool aborts;			/* a refused setxattr stops the unpacking */
	bool needs_readable;		/* skips a node with a listed, unreadable xattr */
};

/* argv words: "@S" the source, "@D" the destination, "@A" the archive */
static const struct tool tools[] = {
	{ "tar", "/usr/bin/tar",
	  { "/usr/bin/tar", "--xattrs", "--xattrs-include=*", "-cf", "@A", "-C", "@S", ".", NULL },
	  { "/usr/bin/tar", "--xattrs", "--xattrs-include=*", "-xpf", "@A", "-C", "@D", NULL },
	  false },
	{ "bsdtar", "/usr/bin/bsdtar",
	  { "/usr/bin/bsdtar", "--xattrs", "-cf", "@A", "-C", "@S", ".", NULL },
	  { "/usr/bin/bsdtar", "--xattrs", "-xpf", "@A", "-C", "@D", NULL },
	  false },
	{ "cp -a", "/usr/bin/cp",
	  { NULL },
	  { "/usr/bin/cp", "-a", "@S/.", "@D/", NULL },
	  true },
	/* rsync 3.2: "get_xattr_data: lgetxattr(...) failed: No data available", exit 23 */
	{ "rsync -aX", "/usr/bin/rsync",
	  { NULL },
	  { "/usr/bin/rsync", "-aX", "@S/", "@D/", NULL },
	  true, false, true },
	/* unsquashfs 4.5: "FATAL ERROR: write_xattr: failed to write xattr" */
	{ "squashfs", "/usr/bin/mksquashfs",
	  { "/usr/bin/mksquashfs", "@S", "@A", "-xattrs", "-noappend", "-no-progress",
	    "-quiet", NULL },
	  { "/usr/bin/unsquashfs", "-xattrs", "-f", "-d", "@D", "@A", NULL },
	  true, true },
	{ "squashfs -ignore-errors", "/usr/bin/unsquashfs",
	  { "/usr/bin/mksquashfs", "@S", "@A", "-xattrs", "-noappend", "-no-progress",
	    "-quiet", NULL },
	  { "/usr/bin/unsquashfs", "-xattrs", "-ignore-errors", "-f", "-d", "@D", "@A", NULL },
	  true },
};
#define NR_TOOLS	(sizeof(tools) / sizeof(tools[0]))

struct mode {
	const char *name;
	int pack, unpack;	/* the switch, or -1: a stock kernel */
};

static const struct mode patched_modes[] = {
	{ "switch 0", 0, 0 }, { "switch 1", 1, 1 }, { "switch 1>0", 1, 0 },
};
static const struct mode stock_modes[] = { { "stock", -1, -1 } };

struct scase {
	const char *name;
	const char *xattr;
	const char *sw;
	enum actor writer;
	enum actor actors[2];
	int nactors;
};

static const struct scase cases[] = {
	{ "user.*", "user.rt", SW_USER, OWNER_USER, { OWNER_USER, ROOT }, 2 },
	{ "trusted.*", "trusted.rt", SW_TRUSTED, NS_ROOT, { NS_ROOT }, 1 },
};

static void set_switch(const char *sw, int val)
{
	if (val >= 0 && ns_write_str(sw, val ? "1\n" : "0\n"))
		ktap_bail("cannot write %s", sw);
}

/*
 * Become actor in this (child) process: the owner is uid 1000 with no
 * groups; the namespace root is the owner in a user namespace of its own
 * mapping 0 to 1000, as `unshare -r` makes it.
 */
static int become(enum actor who)
{
	char map[32];

	if (who == ROOT)
		return 0;
	if (ns_become(OWNER))
		return -1;
	if (who == OWNER_USER)
		return 0;
	if (unshare(CLONE_NEWUSER))
		return -1;
	snprintf(map, sizeof(map), "0 %d 1\n", OWNER);
	if (ns_write_str("/proc/self/uid_map", map) ||
	    ns_write_str("/proc/self/setgroups", "deny") ||
	    ns_write_str("/proc/self/gid_map", map))
		return -1;
	return 0;
}

/* Run argv (with @S, @D, @A replaced) as who, its output to log: its status. */
static int run_as(enum actor who, const char *const *argv, const char *src,
		  const char *dst, const char *arch, const char *log)
{
	char *args[16], words[16][600];
	int i, fd;
	pid_t pid;

	for (i = 0; argv[i]; i++) {
		const char *w = argv[i];

		if (w[0] == '@')
			snprintf(words[i], sizeof(words[i]), "%s%s",
				 w[1] == 'S' ? src : w[1] == 'D' ? dst : arch, w + 2);
		else
			snprintf(words[i], sizeof(words[i]), "%s", w);
		args[i] = words[i];
	}
	args[i] = NULL;
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		ktap_bail("%s", log);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ktap_bail("fork");
	if (pid == 0) {
		if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		if (become(who)) {
			dprintf(2, "cannot become %s: %s\n", actor_name[who], strerror(errno));
			_exit(126);
		}
		if (chdir("/"))
			_exit(126);
		execv(args[0], args);
		dprintf(2, "exec %s: %s\n", args[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	return ns_wait(pid);
}

/* lsetxattr on every node of dir as who: how many were set. */
static int label_tree(enum actor who, const char *dir, const char *xattr)
{
	int pipefd[2], n = 0;
	char c;
	pid_t pid;

	if (pipe(pipefd))
		ktap_bail("pipe");
	pid = fork();
	if (pid < 0)
		ktap_bail("fork");
	if (pid == 0) {
		char path[800], val[32];
		size_t i;

		close(pipefd[0]);
		if (become(who))
			_exit(1);
		for (i = 0; i < NR_NODES; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, nodes[i].name);
			snprintf(val, sizeof(val), "v-%s", nodes[i].name);
			if (!lsetxattr(path, xattr, val, strlen(val), 0) &&
			    write(pipefd[1], "1", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(pipefd[1]);
	while (read(pipefd[0], &c, 1) == 1)
		n++;
	close(pipefd[0]);
	if (ns_wait(pid))
		ktap_bail("labelling %s as %s failed", dir, actor_name[who]);
	return n;
}

static void mknode(const char *dir, const struct tl_node *nd)
{
	char path[800];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, nd->name);
	if (tl_mknode(path, nd->type, nd->type == S_IFREG ? 0644 : 0))
		ktap_bail("%s", path);
	if (nd->type == S_IFREG) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "content\n", 8) != 8 || close(fd))
			ktap_bail("%s", path);
	}
	if (lchown(path, OWNER, OWNER))
		ktap_bail("%s", path);
}

static void mkdir_owned(const char *path, uid_t uid)
{
	if (mkdir(path, 0755) || chown(path, uid, uid))
		ktap_bail("%s", path);
}

/* The trusted* names and values root sees on path, as one string. */
static void trusted_view(const char *path, char *out, size_t len)
{
	char list[4096], val[256];
	ssize_t n = llistxattr(path, list, sizeof(list)), off, v;

	out[0] = 0;
	for (off = 0; n > 0 && off < n; off += strlen(list + off) + 1) {
		if (strncmp(list + off, "trusted", 7))
			continue;
		v = lgetxattr(path, list + off, val, sizeof(val) - 1);
		val[v > 0 ? v : 0] = 0;
		snprintf(out + strlen(out), len - strlen(out), "%s=%s;", list + off, val);
	}
}

static bool special(const struct tl_node *nd)
{
	return nd->type != S_IFREG && nd->type != S_IFDIR;
}

/*
 * Is the node copied? Not a device by an unprivileged caller, nor a socket
 * by a tool that does not archive them. Nor, by rsync, a special file that
 * was labelled with user.* while the switch was on and is copied with it
 * off: listxattr names the entry (as on a stock kernel, which lists every
 * name it finds on the disk), lgetxattr refuses it with ENODATA, and rsync
 * drops the node and exits 23. Switch 0 keeps stock's behaviour here.
 */
static bool node_kept(const struct tool *t, const struct scase *c, const struct mode *m,
		      enum actor who, const struct tl_node *nd, const char **why)
{
	if ((nd->type == S_IFCHR || nd->type == S_IFBLK) && who != ROOT) {
		*why = "no device nodes without privilege";
		return false;
	}
	if (nd->type == S_IFSOCK && !t->sockets) {
		*why = "the tool does not archive sockets";
		return false;
	}
	if (t->needs_readable && c->writer == OWNER_USER && m->unpack == 0 && special(nd)) {
		*why = "user.* listed, unreadable with the switch off (as on stock)";
		return false;
	}
	return true;
}

static bool xattr_kept(const struct scase *c, const struct mode *m, const struct tl_node *nd)
{
	if (m->pack != 1 || m->unpack != 1)	/* 0, 1>0, stock */
		return c->writer == OWNER_USER && !special(nd);
	return true;
}

/*
 * Does the tool stop at an xattr it may not write? Only when it unpacks,
 * with the switch off, an archive packed with it on.
 */
static bool abort_expected(const struct tool *t, const struct mode *m)
{
	return t->aborts && m->pack == 1 && m->unpack == 0;
}

/* The results a round trip reports: one per node, or the abort. */
static int nr_results(const struct tool *t, const struct mode *m)
{
	return abort_expected(t, m) ? 1 : NR_NODES;
}

static bool log_has(const char *log, const char *what)
{
	char line[512];
	FILE *f = fopen(log, "re");
	bool found = false;

	if (!f)
		ktap_bail("%s", log);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static void show_log(const char *log)
{
	char line[300];
	FILE *f = fopen(log, "re");
	int n = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n++ < 6)
		printf("#   %s%s", line, strchr(line, '\n') ? "" : "\n");
	fclose(f);
}

/* A round trip's directory on the (carried) disk, and what it records */
struct rt {
	char dir[600], src[700], dst[700], arch[700], log[700], what[200];
	uid_t uid;
};

static void rt_init(struct rt *r, const char *base, const struct scase *c,
		    const struct mode *m, const struct tool *t, enum actor who)
{
	snprintf(r->dir, sizeof(r->dir), "%s/%s-%s-%s-%s", base,
		 c->name[0] == 'u' ? "user" : "trusted",
		 m->name + (m->pack >= 0 ? 7 : 0), t->name, actor_name[who]);
	for (char *p = r->dir + strlen(base); *p; p++)
		if (*p == ' ' || *p == '>')
			*p = '_';
	snprintf(r->src, sizeof(r->src), "%s/src", r->dir);
	snprintf(r->dst, sizeof(r->dst), "%s/dst", r->dir);
	snprintf(r->arch, sizeof(r->arch), "%s/archive", r->dir);
	snprintf(r->log, sizeof(r->log), "%s/log", r->dir);
	snprintf(r->what, sizeof(r->what), "%s, %s, %s, %s", t->name, c->name,
		 actor_name[who], m->name);
	r->uid = who == ROOT ? 0 : OWNER;
}

/* a number the round trip records in its directory for a later boot */
static void rt_put(const struct rt *r, const char *key, int val)
{
	char path[800];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->dir, key);
	f = fopen(path, "we");
	if (!f || fprintf(f, "%d\n", val) < 0 || fclose(f))
		ktap_bail("%s", path);
}

static int rt_get(const struct rt *r, const char *key)
{
	char path[800];
	int val = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->dir, key);
	f = fopen(path, "re");
	if (!f || fscanf(f, "%d", &val) != 1)
		ktap_bail("%s: not recorded (did the boot at switch 1 run first?)", path);
	fclose(f);
	return val;
}

/* The source tree, labelled by the case's writer (with the switch on). */
static void rt_prepare(const struct rt *r, const struct scase *c)
{
	size_t i;

	mkdir_owned(r->dir, r->uid);
	mkdir_owned(r->src, OWNER);
	mkdir_owned(r->dst, r->uid);
	for (i = 0; i < NR_NODES; i++)
		mknode(r->src, &nodes[i]);
	rt_put(r, "labelled", label_tree(c->writer, r->src, c->xattr));
	rt_put(r, "pack.rc", 0);
}

static void rt_pack(const struct rt *r, const struct tool *t, enum actor who)
{
	if (t->pack[0])
		rt_put(r, "pack.rc", run_as(who, t->pack, r->src, r->dst, r->arch, r->log));
}

static void rt_unpack(const struct rt *r, const struct tool *t, enum actor who)
{
	rt_put(r, "unpack.rc", run_as(who, t->unpack, r->src, r->dst, r->arch, r->log));
}

/* What the copy holds, checked by root with the switches on where there are any. */
static void rt_check(const struct rt *r, const struct scase *c, const struct mode *m,
		     const struct tool *t, enum actor who)
{
	int labelled = rt_get(r, "labelled"), rc_pack = rt_get(r, "pack.rc");
	int rc_unpack = rt_get(r, "unpack.rc");
	char path[800], want[256], got[256], view_src[1024], view_dst[1024];
	const char *what = r->what;
	size_t i;

	printf("# %s: source labelled on %d of %zu nodes; pack exit %d, unpack exit %d\n",
	       what, labelled, NR_NODES, rc_pack, rc_unpack);
	if (rc_pack >= 126 || rc_unpack >= 126) {
		show_log(r->log);
		ktap_bail("%s: the tool could not be run", what);
	}
	if (rc_pack || rc_unpack)
		show_log(r->log);
	if (abort_expected(t, m)) {
		ktap_result(rc_unpack == 1 && log_has(r->log, "FATAL ERROR: write_xattr"),
		       "%s: stops at the first xattr it may not write (exit %d)", what, rc_unpack);
		return;
	}

	for (i = 0; i < NR_NODES; i++) {
		const struct tl_node *nd = &nodes[i];
		const char *why = "";
		bool want_node = node_kept(t, c, m, who, nd, &why), want_xattr, have_xattr;
		struct stat st;
		bool have_node;
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", r->dst, nd->name);
		have_node = !lstat(path, &st) && (st.st_mode & S_IFMT) == nd->type;
		/* the name says what is expected; a failure says what happened */
		if (!want_node || !have_node) {
			ktap_result(want_node == have_node, "%s, %s: %s%s%s", what, nd->name,
			       want_node ? "node copied" : "node not copied",
			       *why ? ": " : "", why);
			if (want_node != have_node)
				printf("# the node was%s copied\n", have_node ? "" : " not");
			continue;
		}
		want_xattr = xattr_kept(c, m, nd);
		if (c->writer == OWNER_USER) {
			snprintf(want, sizeof(want), "v-%s", nd->name);
			n = lgetxattr(path, c->xattr, got, sizeof(got) - 1);
			got[n > 0 ? n : 0] = 0;
			have_xattr = n >= 0 && !strcmp(got, want);
		} else {
			char spath[800];

			snprintf(spath, sizeof(spath), "%s/%s", r->src, nd->name);
			trusted_view(spath, view_src, sizeof(view_src));
			trusted_view(path, view_dst, sizeof(view_dst));
			have_xattr = *view_src && !strcmp(view_src, view_dst);
		}
		ktap_result(want_xattr == have_xattr, "%s, %s: %s %s", what, nd->name, c->xattr,
		       want_xattr ? "kept" : "not kept");
		if (want_xattr != have_xattr)
			printf("# %s was%s kept\n", c->xattr, have_xattr ? "" : " not");
	}
}


/*
 * Which round trips a boot runs, and which of their steps. The switches go
 * from 0 to 1 once per boot, so a patched kernel takes two boots on the
 * same disk: the first, at 1, labels every source, runs mode "switch 1"
 * and packs mode "switch 1>0"; the second, at 0, packs and unpacks mode
 * "switch 0", unpacks "switch 1>0", then sets the switches and checks both.
 * A stock kernel runs its one mode in one boot.
 */
static bool in_boot(const struct mode *m, int sw)
{
	return sw < 0 || m->unpack == sw;
}

static void boot_steps(const char *base, const struct mode *m, const struct tool *t,
		       const struct scase *c, enum actor who, int sw, int step)
{
	struct rt r;

	rt_init(&r, base, c, m, t, who);
	switch (step) {
	case 0:		/* at the boot's switch */
		if (sw != 0)
			rt_prepare(&r, c);
		if (m->pack == sw)
			rt_pack(&r, t, who);
		if (in_boot(m, sw))
			rt_unpack(&r, t, who);
		if (sw != 0 && in_boot(m, sw))
			rt_check(&r, c, m, t, who);
		break;
	case 1:		/* the boot at 0, once its switches are set */
		if (sw == 0 && in_boot(m, sw))
			rt_check(&r, c, m, t, who);
		break;
	}
}

int main(int argc, char **argv)
{
	int sw = sw_boot(), ai, plan = 0, step;
	const struct mode *modes = sw >= 0 ? patched_modes : stock_modes;
	size_t nmodes = sw >= 0 ? 3 : 1, ci, mi, ti;

	if (argc != 2) {
		fprintf(stderr, "usage: xattr_archive DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (ci = 0; ci < 2; ci++)
		for (mi = 0; mi < nmodes; mi++)
			for (ti = 0; ti < NR_TOOLS; ti++)
				if ((tools[ti].pack[0] || modes[mi].pack == modes[mi].unpack) &&
				    in_boot(&modes[mi], sw))
					plan += cases[ci].nactors *
						nr_results(&tools[ti], &modes[mi]);
	printf("TAP version 13\n1..%d\n", plan);
	printf("# kernel %s\n", sw < 0 ? "stock (no switches)" : sw ?
	       "patched, switches 1: labels every source, mode switch 1, packs switch 1>0" :
	       "patched, switches 0: modes switch 0 and (unpacking) switch 1>0");
	for (ti = 0; ti < NR_TOOLS; ti++)
		if (access(tools[ti].bin, X_OK))
			ktap_bail("%s: no %s", tools[ti].name, tools[ti].bin);
	for (step = 0; step < 2; step++) {
		if (step == 1 && sw == 0) {
			/* what is on disk is read with the switches on */
			set_switch(SW_USER, 1);
			set_switch(SW_TRUSTED, 1);
		}
		for (ci = 0; ci < 2; ci++)
			for (mi = 0; mi < nmodes; mi++)
				for (ti = 0; ti < NR_TOOLS; ti++) {
					if (!tools[ti].pack[0] &&
					    modes[mi].pack != modes[mi].unpack)
						continue;
					for (ai = 0; ai < cases[ci].nactors; ai++)
						boot_steps(argv[1], &modes[mi], &tools[ti],
							   &cases[ci], cases[ci].actors[ai],
							   sw, step);
				}
	}
	printf("# %d tests\n", ktap_count);
	return ktap_count == plan ? 0 : 1;
}
