// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c: the designs, the tree, the relabel and the attacks of
 * design/comparison.md, for tools/xattrd and tools/vhostfs (compare.h).
 *
 * Per design: a fresh tree under base/<id> (one node of each type, owned by
 * the daemon's host uid, a regular file the host's root gave its own
 * trusted.host.secret, and devnull, a character device 1:3 of root's, mode
 * 0666), the design's switch on (for good: a switch goes from 0 to 1 once
 * per boot, so the patched guest boots with both on), its daemon started;
 * the guest relabels
 * every node through the daemon, reads each label back, lists it and
 * removes one; then the attacks run against the same tree, each judged by
 * what it changed (the label as the guest reads it, the host's secret), not
 * by what its call returned. A cell whose measurement broke (an attacker
 * that could not take its identity, a label the daemon could not read back)
 * reads "ERROR: ...", never a verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "../lib/nodes.h"
#include "../lib/nsutil.h"

#define MAP_LABEL(prefix)	":map:" CMP_LABEL ":" prefix ":"
#define SWITCH_USER_SPECIAL	"/proc/sys/fs/xattr_user_special"
#define SWITCH_TRUSTED_USERNS	"/proc/sys/fs/xattr_trusted_userns"

const struct cmp_design cmp_designs[] = {
	{ .id = "stock", .title = "1. stock, user.* mapping, unprivileged",
	  .rules = MAP_LABEL("user.virtiofs."), .prefix = "user.virtiofs.",
	  .userns = true },
	{ .id = "goyal", .title = "2. Goyal: user.* on special files",
	  .rules = MAP_LABEL("user.virtiofs."), .prefix = "user.virtiofs.",
	  .sysctl = SWITCH_USER_SPECIAL, .patched = true, .userns = true },
	{ .id = "schaufler", .title = "3. Schaufler: trusted.* mapping, privileged",
	  .rules = MAP_LABEL("trusted.virtiofs."), .prefix = "trusted.virtiofs.",
	  .sys_admin = true },
	{ .id = "szeredi", .title = "4. Szeredi/Biederman: trusted.* in a user namespace",
	  .rules = MAP_LABEL("trusted.virtiofs."), .prefix = "trusted.virtiofs.",
	  .sysctl = SWITCH_TRUSTED_USERNS, .patched = true, .userns = true,
	  .sys_admin = true },
};
const size_t cmp_nr_designs = sizeof(cmp_designs) / sizeof(cmp_designs[0]);

const struct cmp_node cmp_nodes[CMP_NR_NODES] = {
	{ "file", S_IFREG, true }, { "dir", S_IFDIR, true },
	{ "symlink", S_IFLNK, true }, { "chr", S_IFCHR, true },
	{ "blk", S_IFBLK, true }, { "fifo", S_IFIFO, true },
	{ "sock", S_IFSOCK, true }, { "devnull", S_IFCHR, false },
};

#define SECRET_VALUE	"s3cret"
/* a child's exit status when the measurement broke (errno values stay below) */
#define HARNESS_ERROR	255

static const struct cmp_backend *cur_be;	/* for the fatal path */
static int measurement_errors;			/* ERROR cells */

const struct cmp_node *cmp_node(const char *name)
{
	size_t i;

	for (i = 0; i < CMP_NR_NODES; i++)
		if (!strcmp(cmp_nodes[i].name, name))
			return &cmp_nodes[i];
	cmp_fatal("no node %s in the tree", name);
}

const char *cmp_errname(int err)
{
	switch (err) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENODATA: return "ENODATA";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case EEXIST: return "EEXIST";
	default: return strerrorname_np(err) ? strerrorname_np(err) : "error";
	}
}

void cmp_fatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", cur_be ? cur_be->tool : "compare");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (cur_be && cur_be->abort)
		cur_be->abort();
	exit(1);
}

int cmp_op_args(const char *tool, const char *file, int argc, char **argv,
		enum cmp_op *op, const char **name, const char **value)
{
	const char *word = argc > 0 ? argv[0] : "";

	*name = NULL;
	*value = NULL;
	if (!strcmp(word, "set") && argc >= 4) {
		*op = CMP_SET;
		*name = argv[1];
		*value = argv[2];
		return 3;
	}
	if ((!strcmp(word, "get") || !strcmp(word, "remove")) && argc >= 3) {
		*op = strcmp(word, "get") ? CMP_REMOVE : CMP_GET;
		*name = argv[1];
		return 2;
	}
	if (!strcmp(word, "list") && argc >= 2) {
		*op = CMP_LIST;
		return 1;
	}
	fprintf(stderr, "%s: usage: set NAME VALUE %s... | get NAME %s... | list %s... |"
		" remove NAME %s...\n", tool, file, file, file, file);
	return -1;
}

static void cell(struct cmp_run *r, const char *row, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cell(struct cmp_run *r, const char *row, const char *fmt, ...)
{
	va_list ap;

	printf("%sCELL|%s|%s|", r->be->tag, r->d->id, row);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* A cell for a measurement that broke: no verdict. */
static void error_cell(struct cmp_run *r, const char *row, const char *why)
{
	cell(r, row, "ERROR: %s", why);
	measurement_errors++;
}

/* The guest's calls through the backend. */
static int guest_set(struct cmp_run *r, const struct cmp_node *n, const char *name,
		     const char *value)
{
	return r->be->call(r, CMP_SET, n, name, value, NULL, 0);
}

static ssize_t guest_get(struct cmp_run *r, const struct cmp_node *n, const char *name,
			 char *buf, size_t len)
{
	return r->be->call(r, CMP_GET, n, name, NULL, buf, len);
}

/* ---- the tree ---- */

static int mknode(const char *path, mode_t type, uid_t uid)
{
	if (tl_mknode(path, type, 0) || lchown(path, uid, uid))
		return -1;
	if (type == S_IFREG && chmod(path, 0666))	/* a shared, writable file */
		return -1;
	return 0;
}

static void make_tree(struct cmp_run *r)
{
	uid_t owner = r->d->userns ? CMP_DAEMON_UID : 0;
	char path[600];
	size_t i;

	if (mkdir(r->dir, 0755) || chown(r->dir, owner, owner))
		cmp_fatal("%s: %s", r->dir, strerror(errno));
	for (i = 0; i < CMP_NR_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s", r->dir, cmp_nodes[i].name);
		if (mknode(path, cmp_nodes[i].type, cmp_nodes[i].relabel ? owner : 0))
			cmp_fatal("%s: %s", path, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/file", r->dir);
	if (lsetxattr(path, CMP_SECRET, SECRET_VALUE, strlen(SECRET_VALUE), 0))
		cmp_fatal("the host's secret on %s: %s", path, strerror(errno));
}

/*
 * Every host name on the file but the secret, space-separated, as the
 * host's root lists them; how many.
 */
static int host_names(struct cmp_run *r, char *out, size_t len)
{
	char path[600], list[4096];
	ssize_t n, off;
	int count = 0;

	snprintf(path, sizeof(path), "%s/file", r->dir);
	n = llistxattr(path, list, sizeof(list));
	if (n < 0)
		cmp_fatal("the host cannot list %s: %s", path, strerror(errno));
	out[0] = 0;
	for (off = 0; off < n; off += strlen(list + off) + 1) {
		if (!strcmp(list + off, CMP_SECRET))
			continue;
		if (*out)
			strncat(out, " ", len - strlen(out) - 1);
		strncat(out, list + off, len - strlen(out) - 1);
		count++;
	}
	return count;
}

/* ---- the guest's relabel ---- */

static const char *label_for(const char *node)
{
	static char label[64];

	snprintf(label, sizeof(label), "system_u:object_r:%s_t:s0", node);
	return label;
}

/* Does the guest's listxattr show name? 1, 0, or a negative errno. */
static int guest_lists(struct cmp_run *r, const struct cmp_node *n, const char *name)
{
	char list[4096];
	ssize_t len, off;

	len = r->be->call(r, CMP_LIST, n, NULL, NULL, list, sizeof(list));
	if (len < 0)
		return len;
	for (off = 0; off < len; off += strlen(list + off) + 1)
		if (!strcmp(list + off, name))
			return 1;
	return 0;
}

/* The guest relabels every node, reads each back, lists, removes one. */
static void run_relabel(struct cmp_run *r)
{
	char buf[256], row[64];
	size_t i;
	int ret;

	for (i = 0; i < CMP_NR_NODES; i++) {
		const struct cmp_node *n = &cmp_nodes[i];
		const char *label = label_for(n->name);
		ssize_t len;

		if (!n->relabel)
			continue;
		ret = guest_set(r, n, CMP_LABEL, label);
		snprintf(row, sizeof(row), "set %s", n->name);
		cell(r, row, "%s", cmp_errname(-ret));
		len = guest_get(r, n, CMP_LABEL, buf, sizeof(buf));
		snprintf(row, sizeof(row), "get %s", n->name);
		if (len < 0)
			cell(r, row, "%s", cmp_errname(-len));
		else
			cell(r, row, "%s", (size_t)len == strlen(label) &&
			     !memcmp(buf, label, len) ? "ok" : "wrong value");
		ret = guest_lists(r, n, CMP_LABEL);
		snprintf(row, sizeof(row), "list %s", n->name);
		cell(r, row, "%s", ret < 0 ? cmp_errname(-ret) : ret ? "listed" : "absent");
	}
	ret = r->be->call(r, CMP_REMOVE, cmp_node("symlink"), CMP_LABEL, NULL, NULL, 0);
	cell(r, "remove symlink", "%s", cmp_errname(-ret));
}

/* ---- the attacks ---- */

/*
 * The file's label as the guest reads it through the daemon, into buf (""
 * if it has none). 0, or -1 when the daemon could not read it (any error
 * but ENODATA): then there is nothing to judge an attack by.
 */
static int guest_label(struct cmp_run *r, char *buf, size_t len)
{
	ssize_t n = guest_get(r, cmp_node("file"), CMP_LABEL, buf, len - 1);

	buf[n > 0 ? n : 0] = 0;
	if (n < 0 && n != -ENODATA) {
		fprintf(stderr, "%s: %s: the guest cannot read its label back: %s\n",
			r->be->tool, r->d->id, strerror(-n));
		return -1;
	}
	return 0;
}

/*
 * Who attacks, from outside the daemon. HOST_USER: host uid 2000.
 * NESTED_SAME_ROOT: the root of a namespace nested in the daemon's own,
 * mapping 0 to 0 (the same root kuid); for the privileged daemon, nested in
 * the initial namespace. SAME_UID: a process of the daemon's host uid;
 * SAME_UID_USERNS: the same, as the root of a user namespace it made itself
 * (unshare -r), not the daemon's.
 */
enum who { HOST_USER, NESTED_SAME_ROOT, SAME_UID, SAME_UID_USERNS };

static int take_identity(struct cmp_run *r, enum who who)
{
	switch (who) {
	case HOST_USER:
		return ns_become(CMP_ATTACKER_UID);
	case NESTED_SAME_ROOT:
		if (r->userns >= 0 && (setns(r->userns, CLONE_NEWUSER) || ns_become(0)))
			return -1;
		return ns_enter("0 0 1\n1 1 1000\n");
	case SAME_UID:
	case SAME_UID_USERNS:
		if (ns_become(CMP_DAEMON_UID))
			return -1;
		return who == SAME_UID_USERNS ? ns_unshare_self() : 0;
	}
	return -1;
}

/*
 * lsetxattr(path, name, value) in a child, as who: its result (an errno
 * value, 0 for success), or -1 when the child could not take the identity
 * (or died): no result.
 */
static int attack_as(struct cmp_run *r, enum who who, const char *path,
		     const char *name, const char *value)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		cmp_fatal("fork: %s", strerror(errno));
	if (pid == 0) {
		if (take_identity(r, who)) {
			fprintf(stderr, "%s: %s: the attacker cannot take its identity (%d): %s\n",
				r->be->tool, r->d->id, who, strerror(errno));
			_exit(HARNESS_ERROR);
		}
		_exit(lsetxattr(path, name, value, strlen(value), 0) ? errno : 0);
	}
	status = ns_wait(pid);
	return status < 0 || status >= 128 ? -1 : status;
}

/*
 * The verdict of an attack that must not change the guest's label: from the
 * attacker's result and the label before and after, or an ERROR cell.
 */
static void label_attack(struct cmp_run *r, const char *row, const char *errrow,
			 enum who who, const char *path, const char *name,
			 const char *value)
{
	char before[256], after[256];
	int rb, ra, ret;

	rb = guest_label(r, before, sizeof(before));
	ret = attack_as(r, who, path, name, value);
	ra = guest_label(r, after, sizeof(after));
	if (ret < 0) {
		error_cell(r, row, "the attacker could not take its identity");
		error_cell(r, errrow, "no result");
	} else if (rb || ra) {
		error_cell(r, row, "the daemon could not read its label back");
		cell(r, errrow, "%s", cmp_errname(ret));
	} else {
		cell(r, row, "%s", strcmp(before, after) ? "BREACH" : "stopped");
		cell(r, errrow, "%s", cmp_errname(ret));
	}
}

/* (d): the guest reads and overwrites the host's own trusted.* entry. */
static void guest_attack(struct cmp_run *r, const char *path)
{
	const struct cmp_node *file = cmp_node("file");
	char buf[256], v[256];
	ssize_t n;
	int ret;

	n = guest_get(r, file, CMP_SECRET, buf, sizeof(buf));
	cell(r, "(d) guest reads host trusted.*", "%s", n < 0 ? "stopped" : "BREACH");
	cell(r, "(d) read errno", "%s", cmp_errname(n < 0 ? -n : 0));

	ret = guest_set(r, file, CMP_SECRET, "pwned");
	errno = 0;
	n = lgetxattr(path, CMP_SECRET, v, sizeof(v) - 1);
	v[n > 0 ? n : 0] = 0;
	/* the secret gone (ENODATA) is as much a breach as a new value */
	if (n < 0 && errno != ENODATA)
		error_cell(r, "(d) guest overwrites host trusted.*",
			   "the host cannot read its entry back");
	else
		cell(r, "(d) guest overwrites host trusted.*", "%s",
		     strcmp(v, SECRET_VALUE) ? "BREACH" : "stopped");
	cell(r, "(d) write errno", "%s", cmp_errname(-ret));
}

/*
 * host_label: the daemon's own (host) name of the label; host_spelling: how
 * a host user names it, the one name the host's root lists on the file
 * after the relabel besides its secret (the kernel's spelling, whatever it
 * stores), or NULL when the listing holds more than one: no name to attack
 * under.
 */
static void run_attacks(struct cmp_run *r, const char *host_label, const char *host_spelling)
{
	char path[600], devnull[600];
	int ret;

	snprintf(path, sizeof(path), "%s/file", r->dir);
	snprintf(devnull, sizeof(devnull), "%s/devnull", r->dir);

	if (!host_spelling) {
		error_cell(r, "(a) host user tags root's device node",
			   "the host lists more than one name for the label");
		error_cell(r, "(a) errno", "no result");
		error_cell(r, "(b) host user changes the guest's label",
			   "the host lists more than one name for the label");
		error_cell(r, "(b) errno", "no result");
	} else {
		/* (a) a non-owner attaches an xattr to a root-owned device it can write */
		ret = attack_as(r, HOST_USER, devnull, host_spelling, "junk");
		if (ret < 0) {
			error_cell(r, "(a) host user tags root's device node",
				   "the attacker could not take its identity");
			error_cell(r, "(a) errno", "no result");
		} else {
			cell(r, "(a) host user tags root's device node", "%s",
			     ret ? "stopped" : "BREACH");
			cell(r, "(a) errno", "%s", cmp_errname(ret));
		}
		/* (b) another host user who can write the shared file relabels it */
		label_attack(r, "(b) host user changes the guest's label", "(b) errno",
			     HOST_USER, path, host_spelling, "unconfined_u:object_r:forged_t:s0");
	}

	/* (c) a namespace nested in the daemon's, same root kuid, forges it */
	label_attack(r, "(c) nested same-root namespace forges the label", "(c) errno",
		     NESTED_SAME_ROOT, path, host_label, "unconfined_u:object_r:nested_t:s0");

	guest_attack(r, path);

	/*
	 * (e) another process of the daemon's host uid rewrites the label
	 * under the daemon's own name: plainly for user.*, which needs only
	 * the file's ownership or write access; for trusted.* as the root of
	 * a user namespace of its own whose root is that uid (unshare -r),
	 * the one way an unprivileged process gets near trusted.*
	 */
	label_attack(r, "(e) another process of the daemon's uid rewrites the guest's label",
		     "(e) errno", strncmp(host_label, "trusted.", 8) ? SAME_UID : SAME_UID_USERNS,
		     path, host_label, "unconfined_u:object_r:sameuid_t:s0");
}

/* ---- a design ---- */

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void run_design(struct cmp_run *r, const char *base)
{
	const struct cmp_design *d = r->d;
	char host_label[256], names[1024];
	struct timespec t0;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(r->dir, sizeof(r->dir), "%s/%s", base, d->id);
	make_tree(r);
	if (d->sysctl && ns_write_str(d->sysctl, "1\n"))
		cmp_fatal("cannot turn on %s", d->sysctl);

	cell(r, "rules", "`%s`", d->rules);
	cell(r, "daemon", "%s", d->userns ?
	     "uid 0 of a user namespace (uid_map `0 1000 1`, `1 100000 65536`)" :
	     "real root (CAP_SYS_ADMIN)");
	cell(r, "switch", "%s", d->sysctl ? strrchr(d->sysctl, '/') + 1 : "-");

	r->be->start(r);
	run_relabel(r);
	n = host_names(r, names, sizeof(names));
	cell(r, "host sees on file", "`%s`", *names ? names : "(nothing)");
	/*
	 * A host user names the label as the host lists it; with nothing
	 * listed (no label stored), by the daemon's own name.
	 */
	snprintf(host_label, sizeof(host_label), "%s%s", d->prefix, CMP_LABEL);
	run_attacks(r, host_label, n > 1 ? NULL : n == 1 ? names : host_label);
	host_names(r, names, sizeof(names));
	cell(r, "host sees on file after the attacks", "`%s`", *names ? names : "(nothing)");
	r->be->stop(r);

	printf("%sTIME|%s|%ld\n", r->be->tag, d->id, ms_since(&t0));
	fprintf(stderr, "%s: design %s: %ld ms\n", r->be->tool, d->id, ms_since(&t0));
}

int cmp_compare(const struct cmp_backend *be, const char *base, void *priv)
{
	bool patched = access(SWITCH_TRUSTED_USERNS, F_OK) == 0;
	size_t i;

	cur_be = be;
	if (be->ready && be->ready(base))
		return 1;
	for (i = 0; i < cmp_nr_designs; i++) {
		struct cmp_run r = { .be = be, .d = &cmp_designs[i], .priv = priv,
				     .userns = -1 };

		if (r.d->patched != patched)
			continue;
		fprintf(stderr, "%s: design %s\n", be->tool, r.d->title);
		printf("%sDESIGN|%s|%s\n", be->tag, r.d->id, r.d->title);
		run_design(&r, base);
	}
	if (measurement_errors) {
		fprintf(stderr, "%s: %d cell(s) hold no measurement (ERROR)\n", be->tool,
			measurement_errors);
		return 1;
	}
	return 0;
}
