/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare.h: the comparison of design/comparison.md, defined once: the
 * designs of the 2021 discussion (the mapping rules, the daemon's identity,
 * the switch), the shared tree of node types, the guest's relabel and the
 * attacks (a) to (e), and the lines that report them. Two tools run it,
 * each issuing the guest's calls its own way (struct cmp_backend):
 *
 *   tools/xattrd    the syscalls virtiofsd makes, in a daemon process of
 *                   its own (the fast model)
 *   tools/vhostfs   FUSE requests through the unmodified virtiofsd (the
 *                   referee)
 *
 * What they print, for scripts/report/compare.awk and scripts/report/clients.awk (TAG is
 * the backend's: "" for xattrd, "V" for vhostfs):
 *
 *   TAGDESIGN|id|title       a design starts
 *   TAGCELL|id|row|value     one measured cell; "ERROR: ..." when the
 *                            measurement itself broke (no verdict)
 *   TAGTIME|id|ms            the design's run, from its tree to its
 *                            daemon's exit
 */
#ifndef COMPARE_H
#define COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CMP_DAEMON_UID	1000	/* the unprivileged daemon's uid on the host */
#define CMP_ATTACKER_UID 2000	/* another unprivileged host user */
/* the unprivileged daemon's user namespace: uid_map and gid_map */
#define CMP_DAEMON_MAP	"0 1000 1\n1 100000 65536\n"
#define CMP_LABEL	"security.selinux"	/* what the guest relabels */
#define CMP_SECRET	"trusted.host.secret"	/* the host's own entry */

struct cmp_design {
	const char *id;		/* the lines' design id */
	const char *title;	/* the table's column */
	const char *rules;	/* virtiofsd's -o xattrmap */
	const char *prefix;	/* what the rules prepend to the label's name */
	const char *sysctl;	/* the switch to turn on, or NULL */
	bool patched;		/* measured on the patched kernel */
	bool userns;		/* the daemon: uid 0 of a user namespace */
	bool sys_admin;		/* it keeps CAP_SYS_ADMIN (-o modcaps=+sys_admin) */
};

extern const struct cmp_design cmp_designs[];
extern const size_t cmp_nr_designs;

/* The shared tree: the node types the guest relabels, and the attacks' device. */
struct cmp_node {
	const char *name;	/* its name in the design's directory */
	mode_t type;		/* S_IFREG, ... */
	bool relabel;		/* the guest labels it (devnull: root's, for (a)) */
};

#define CMP_NR_NODES	8
extern const struct cmp_node cmp_nodes[CMP_NR_NODES];
const struct cmp_node *cmp_node(const char *name);

struct cmp_run {
	const struct cmp_backend *be;
	const struct cmp_design *d;
	char dir[512];		/* the design's tree on the host */
	void *priv;		/* the backend's daemon */
	int userns;		/* its user namespace (an fd), -1: real root */
};

/* The guest's calls. */
enum cmp_op { CMP_SET, CMP_GET, CMP_LIST, CMP_REMOVE };

/*
 * A way to issue the guest's calls. The calls take guest names and return
 * what the guest would see: >= 0 (a length where there is one), or -errno.
 * A daemon that cannot be reached at all is no answer: cmp_fatal().
 */
struct cmp_backend {
	const char *tool;	/* for messages */
	const char *tag;	/* the lines' prefix: "" or "V" */
	/* before the first design: 0, or -1 (or exit) when the tool cannot run, said why */
	int (*ready)(const char *base);
	/* the daemon of r->d sharing r->dir (setting r->userns), and its end */
	void (*start)(struct cmp_run *r);
	void (*stop)(struct cmp_run *r);
	/*
	 * One guest call on node n: CMP_SET name to value, CMP_GET name (the
	 * value into buf), CMP_LIST (the names into buf, each NUL-terminated),
	 * CMP_REMOVE name.
	 */
	ssize_t (*call)(struct cmp_run *r, enum cmp_op op, const struct cmp_node *n,
			const char *name, const char *value, char *buf, size_t len);
	/* the fatal path: stop the daemon that runs, if any, and say what it logged */
	void (*abort)(void);
};

/*
 * Run every design this kernel carries (the patched one: those with
 * .patched), each on a fresh tree under base. 0, or 1 when a cell holds no
 * measurement or a design could not run.
 */
int cmp_compare(const struct cmp_backend *be, const char *base, void *priv);

/* The errno's name as the tables spell it ("ok" for 0). */
const char *cmp_errname(int err);

/* Turn off a switch cmp_compare() turned on (the fatal paths). */

/* "tool: message", the daemon stopped, the switch off, exit 1. */
void cmp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * The by-hand commands: OP [NAME [VALUE]] FILE... (set NAME VALUE, get NAME,
 * remove NAME, list). Sets *op, and *name and *value (NULL when OP takes
 * none), and returns the index of the first FILE, or -1 when the arguments
 * do not fit (the usage printed, with file for FILE).
 */
int cmp_op_args(const char *tool, const char *file, int argc, char **argv,
		enum cmp_op *op, const char **name, const char **value);

#endif
