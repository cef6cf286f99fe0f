// SPDX-License-Identifier: GPL-2.0
/*
 * A model-checking fuzzer, a concurrency test and fault tests for xattrs
 * in user namespaces (fs.xattr_trusted_userns and fs.xattr_user_special).
 *
 * fuzz: a dozen long-lived "actor" processes, each a kind of caller (the
 * initial namespace's root, owner and other user; namespace roots at
 * depths 1 to 4, a same-root nested namespace, siblings, a member without
 * capabilities, a root whose namespace does not map the files' owner, a
 * root that is the overflow uid, a uid like any other), carry out random
 * set/get/list/remove calls through every entry point (path, l*, f*, a
 * /proc/self/fd path as virtiofsd uses, io_uring) with random names
 * (valid, malformed, v2's "trusted<...>." spellings, every length up to
 * and past the limits, non-ASCII bytes, every namespace's chain), flags
 * and sizes, on every file type. The parent keeps a model of what is
 * stored, keyed by the stored name, and predicts each result: the errno,
 * the value, the list each caller must see. The initial namespace spells
 * every name as stored; a namespace spells "trusted." and what follows
 * its chain (Documentation/filesystems/xattr-userns.rst). After every
 * step the caller's list of the file must be exactly its view of the
 * model; every 64 steps every caller lists every file and
 * reads back every name. It takes XATTR_FUZZ_STEPS steps per filesystem
 * (default 1000) from the seed XATTR_FUZZ_SEED (default 1, so that every
 * run is the same gate; "random" takes one from the clock); the seed is
 * printed, and a failure prints the step to replay.
 *
 * concurrent: workers in different namespaces change and list the same
 * inodes at once, XATTR_FUZZ_STEPS operations each (at most 5000: races
 * show early or never), from the same seed; each must always see exactly
 * its own names, and of the others' trusted.* names only those of the
 * workers below it, and at the end the filesystem holds exactly the union
 * of what they kept.
 *
 * XATTR_FUZZ_SECONDS (default 30) bounds the time each of the two takes
 * per filesystem; a run that reaches it before its steps are done FAILS,
 * saying so: the gate is the whole sequence of steps, and a kernel that
 * got that much slower (a listing that keeps retrying, a lock that
 * stalls) is what such a run finds. 1000 steps take about 3 s in a
 * TCG-emulated guest, well under a second on KVM or bare metal.
 *
 * enospc, erofs: a set that fails for want of space leaves the old value
 * and every other entry intact; on a read-only remount, changes give
 * EROFS and nothing is lost.
 */
#include "xattr_util.h"
#include <stdarg.h>
#include <stdint.h>
#include <time.h>
#include <sys/statfs.h>
#include "../../kselftest_harness.h"

#define TRUSTED_SWITCH "/proc/sys/fs/xattr_trusted_userns"
#define USER_SWITCH "/proc/sys/fs/xattr_user_special"
#define NAME_MAX_X 255		/* XATTR_NAME_MAX */
#define SIZE_MAX_X 65536	/* XATTR_SIZE_MAX */
#define LIST_MAX_X 65536	/* XATTR_LIST_MAX */

/* ---- randomness: xorshift64*, replayable from the printed seed ---- */

static __u64 rng_state;

static __u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
	return rn(100) < percent;
}

/* ---- the callers ---- */

/* the owner of every file under test, uid and gid */
#define OWNER 1000

#define L1 "0 1000 1000\n"		/* root 1000 = the owner */
#define L2 "0 5 50\n100 0 1\n"		/* root = L1's 5; owner = its 100 */
#define L3 "0 7 10\n100 100 1\n"	/* root = L2's 7 */
#define L4 "0 2 3\n100 100 1\n"		/* root = L3's 2 */

struct actor {
	const char *label;
	int depth;
	const char *maps[4];
	uid_t uid;		/* 0: root of its namespace, else become uid */
	const char *prefix;	/* its chain, "<u1>...<uN>"; NULL: it has none */
	bool cap;		/* CAP_SYS_ADMIN, CAP_FOWNER... in its namespace */
	bool mapped;		/* the files' owner is mapped in its namespace */
	bool owner;		/* its fsuid is the files' owner */
};

/*
 * A namespace whose root is the overflow uid (kernel.overflowuid, read
 * when the fixture is set up): a uid like any other, and so a chain.
 */
static char nobody_map[64] = "0 65534 1\n1 1000 1\n";
static char nobody_prefix[16] = "<65534>";

static const struct actor actors[] = {
	{ "root", 0, {}, 0, "", true, true, false },
	{ "owner", 0, {}, OWNER, "", false, true, true },
	{ "other", 0, {}, 2000, "", false, true, false },
	{ "ns1", 1, { L1 }, 0, "<1000>", true, true, true },
	{ "ns1-member", 1, { L1 }, 5, "<1000>", false, true, false },
	{ "ns1-sibling", 1, { "0 1000 1\n" }, 0, "<1000>", true, true, true },
	{ "ns1001", 1, { "0 1001 1\n1 1000 1\n" }, 0, "<1001>", true, true, false },
	{ "ns-unmapped", 1, { "0 2000 1\n" }, 0, "<2000>", true, false, false },
	{ "ns2", 2, { L1, L2 }, 0, "<1000><5>", true, true, false },
	{ "ns2-sameroot", 2, { L1, "0 0 1000\n" }, 0, "<1000><0>", true, true, true },
	{ "ns3", 3, { L1, L2, L3 }, 0, "<1000><5><7>", true, true, false },
	{ "ns4", 4, { L1, L2, L3, L4 }, 0, "<1000><5><7><2>", true, true, false },
	{ "ns-nobody", 1, { nobody_map }, 0, nobody_prefix, true, true, false },
};

#define NR_ACTORS ARRAY_SIZE(actors)

static bool owner_or_cap(const struct actor *a)
{
	return a->owner || (a->cap && a->mapped);
}

/* ---- the files ---- */

struct fnode {
	const char *name;
	mode_t type;
};

/* "l" is a symlink to "r0"; the path calls and io_uring follow it */
static const struct fnode fnodes[] = {
	{ "r0", S_IFREG }, { "r1", S_IFREG }, { "d", S_IFDIR },
	{ "l", S_IFLNK }, { "c", S_IFCHR }, { "b", S_IFBLK },
	{ "p", S_IFIFO }, { "s", S_IFSOCK },
};

#define NR_NODES ARRAY_SIZE(fnodes)
#define NODE_SYMLINK 3
#define NODE_TARGET 0

/* ---- the operations, as the parent asks an actor ---- */

enum op { OP_SET, OP_GET, OP_LIST, OP_REMOVE };
static const char * const op_names[] = { "set", "get", "list", "remove" };

enum via {
	VIA_PATH,	/* setxattr(path): follows a symlink */
	VIA_LINK,	/* lsetxattr(path) */
	VIA_FD,		/* fsetxattr(open fd), regular files and directories */
	VIA_PROCFD,	/* setxattr("/proc/self/fd/N") of an O_PATH fd */
	VIA_URING,	/* IORING_OP_SETXATTR/GETXATTR (path, follows) */
	VIA_URING_FD,	/* IORING_OP_FSETXATTR/FGETXATTR */
	NR_VIA
};

static const char * const via_names[] = {
	"path", "l*", "f*", "procfd", "io_uring", "io_uring-fd",
};

#define NAME_BUF 320

struct request {
	int op, via, node, flags;
	char name[NAME_BUF];
	size_t size;		/* value size (set), buffer size (get, list) */
};

struct reply {
	long ret;
	int err;
};

/* One page of requests and replies, and the value/list buffers. */
struct chan {
	struct request req;
	struct reply rep;
	char in[SIZE_MAX_X + 16];
	char out[LIST_MAX_X + SIZE_MAX_X + 16];
};

static const char *node_path(const char *dir, int node, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, fnodes[node].name);
	return buf;
}

/* Carry out one request, as the actor. */
static void actor_do(const char *dir, struct chan *c)
{
	struct request *q = &c->req;
	char path[PATH_MAX], fdpath[64];
	const char *p = node_path(dir, q->node, path, sizeof(path));
	void *value = q->op == OP_SET ? (void *)c->in : (void *)c->out;
	int fd = -1;
	long ret;

	errno = 0;
	if (q->via == VIA_FD || q->via == VIA_URING_FD) {
		fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
			  (fnodes[q->node].type == S_IFDIR ? O_DIRECTORY : 0));
	} else if (q->via == VIA_PROCFD) {
		fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		p = fdpath;
	}
	if (q->via >= VIA_FD && q->via != VIA_URING && fd < 0) {
		c->rep.ret = -1;
		c->rep.err = 1000 + errno;	/* the harness itself failed */
		return;
	}
	if (q->via == VIA_URING || q->via == VIA_URING_FD) {
		int op = q->op == OP_SET ?
			(fd < 0 ? IORING_OP_SETXATTR : IORING_OP_FSETXATTR) :
			(fd < 0 ? IORING_OP_GETXATTR : IORING_OP_FGETXATTR);

		ret = xt_uring_xattr(op, fd, fd < 0 ? p : NULL, q->name, value,
				     q->size, q->flags);
		if (ret < 0) {
			errno = -ret;
			ret = -1;
		}
	} else {
		switch (q->op) {
		case OP_SET:
			ret = q->via == VIA_LINK ?
				lsetxattr(p, q->name, value, q->size, q->flags) :
			      q->via == VIA_FD ?
				fsetxattr(fd, q->name, value, q->size, q->flags) :
				setxattr(p, q->name, value, q->size, q->flags);
			break;
		case OP_GET:
			ret = q->via == VIA_LINK ?
				lgetxattr(p, q->name, value, q->size) :
			      q->via == VIA_FD ? fgetxattr(fd, q->name, value, q->size) :
				getxattr(p, q->name, value, q->size);
			break;
		case OP_LIST:
			ret = q->via == VIA_LINK ? llistxattr(p, value, q->size) :
			      q->via == VIA_FD ? flistxattr(fd, value, q->size) :
				listxattr(p, value, q->size);
			break;
		default:
			ret = q->via == VIA_LINK ? lremovexattr(p, q->name) :
			      q->via == VIA_FD ? fremovexattr(fd, q->name) :
				removexattr(p, q->name);
			break;
		}
	}
	c->rep.ret = ret;
	c->rep.err = ret < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
}

struct actor_proc {
	pid_t pid;
	int go, done;		/* pipes: request ready, reply ready */
	struct chan *chan;
};

/* Start an actor: enter its namespaces, become its user, serve requests. */
static int actor_start(const struct actor *a, const char *dir,
		       struct actor_proc *ap)
{
	int go[2], done[2];
	char c = 0;

	ap->chan = mmap(NULL, sizeof(struct chan), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ap->chan == MAP_FAILED)
		return -errno;
	if (pipe2(go, O_CLOEXEC) || pipe2(done, O_CLOEXEC))
		return -errno;
	ap->pid = fork();
	if (ap->pid < 0)
		return -errno;
	if (ap->pid == 0) {
		close(go[1]);
		close(done[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (xt_enter_chain(a->maps, a->depth)) {
			fprintf(stderr, "# actor %s: cannot enter its namespaces: %s\n",
				a->label, strerror(errno));
			_exit(1);
		}
		if (a->uid && xt_become(a->uid, a->uid)) {
			fprintf(stderr, "# actor %s: cannot become uid %u\n",
				a->label, a->uid);
			_exit(1);
		}
		if (write(done[1], &c, 1) != 1)
			_exit(1);
		while (read(go[0], &c, 1) == 1) {
			actor_do(dir, ap->chan);
			if (write(done[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	ap->go = go[1];
	ap->done = done[0];
	/* the actor says when it is ready */
	if (read(ap->done, &c, 1) != 1) {
		fprintf(stderr, "# actor %s did not start\n", a->label);
		return -ECHILD;
	}
	return 0;
}

static int actor_call(struct actor_proc *ap)
{
	char c = 0;

	if (write(ap->go, &c, 1) != 1 || read(ap->done, &c, 1) != 1)
		return -ECHILD;
	return 0;
}

static void actor_stop(struct actor_proc *ap)
{
	if (ap->pid <= 0)
		return;
	close(ap->go);
	close(ap->done);
	xt_wait(ap->pid);
	munmap(ap->chan, sizeof(struct chan));
	ap->pid = 0;
}

/* ---- the model ---- */

struct entry {
	char *key;	/* the name as stored, as the initial namespace spells it */
	char *val;
	size_t len;
};

#define MAX_ENTRIES 48

struct model {
	struct entry e[NR_NODES][MAX_ENTRIES];
	int n[NR_NODES];
};

static struct entry *model_find(struct model *m, int node, const char *key)
{
	int i;

	for (i = 0; i < m->n[node]; i++)
		if (!strcmp(m->e[node][i].key, key))
			return &m->e[node][i];
	return NULL;
}

static void model_set(struct model *m, int node, const char *key,
		      const char *val, size_t len)
{
	struct entry *e = model_find(m, node, key);

	if (!e) {
		e = &m->e[node][m->n[node]++];
		e->key = strdup(key);
	} else {
		free(e->val);
	}
	e->val = malloc(len ? len : 1);
	memcpy(e->val, val, len);
	e->len = len;
}

static void model_remove(struct model *m, int node, const char *key)
{
	struct entry *e = model_find(m, node, key);

	free(e->key);
	free(e->val);
	*e = m->e[node][--m->n[node]];
}

static void model_free(struct model *m)
{
	unsigned int node;

	for (node = 0; node < NR_NODES; node++)
		while (m->n[node])
			model_remove(m, node, m->e[node][0].key);
}

/* What a name is, for a caller (see xattr_userns_name() in fs/xattr_userns.c). */
enum kind {
	K_USER,		/* user.* */
	K_SECURITY,	/* security.* */
	K_TRUSTED,	/* trusted.*, stored as key */
	K_OTHER,	/* no handler: EOPNOTSUPP, or a permission error */
	K_ERROR,	/* refused before anything else, with err */
	K_DENIED,	/* no chain, or no capability: EPERM, ENODATA to get */
};

struct name_class {
	enum kind kind;
	int err;		/* K_ERROR */
	bool copy;		/* K_ERROR when the name is copied in */
	bool empty;		/* nothing after the prefix: EINVAL once permitted */
	bool v2;		/* K_OTHER that begins "trusted<": v2's spelling */
	char key[NAME_BUF + 32];
};

/*
 * The length of the canonical chain at s, "<u1>...<uN>" (one or more
 * decimal uids up to 4294967294, no sign, no leading zero), when a name
 * follows it, of which the first character is not '<'; 0 when s begins
 * no such chain (see xattr_chain_len() in fs/xattr_userns.c).
 */
static size_t chain_len(const char *s)
{
	const char *p = s;

	while (*p == '<') {
		const char *d = ++p;
		unsigned long long v = 0;

		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (*p - '0');
			if (v > 4294967294ULL)
				return 0;
			p++;
		}
		if (p == d || *p != '>' || (*d == '0' && p - d > 1))
			return 0;
		p++;
	}
	return p != s && *p ? p - s : 0;
}

/*
 * What a namespace may write after "trusted.", and what it sees after
 * its chain: a name that does not begin with '<', or a descendant's
 * canonical chain and such a name.
 */
static bool ns_tail_ok(const char *tail)
{
	return *tail && (*tail != '<' || chain_len(tail));
}

/*
 * The initial namespace spells every trusted.* name as stored; a
 * namespace spells "trusted." and what follows its chain.
 */
static void classify(const struct actor *a, const char *name, struct name_class *nc)
{
	size_t len = strlen(name);
	const char *tail = name + 8;

	memset(nc, 0, sizeof(*nc));
	if (len == 0 || len > NAME_MAX_X) {
		nc->kind = K_ERROR;
		nc->err = ERANGE;
		nc->copy = true;
		return;
	}
	if (!strncmp(name, "user.", 5) || !strncmp(name, "security.", 9)) {
		nc->kind = name[0] == 'u' ? K_USER : K_SECURITY;
		nc->empty = name[name[0] == 'u' ? 5 : 9] == '\0';
		snprintf(nc->key, sizeof(nc->key), "%s", name);
		return;
	}
	if (strncmp(name, "trusted.", 8)) {
		/* "trusted<1000>.x" included: no trusted.* name */
		nc->kind = K_OTHER;
		nc->v2 = !strncmp(name, "trusted<", 8);
		return;
	}
	nc->kind = K_TRUSTED;
	if (!a->depth) {
		/* the initial namespace's: stored as spelt, "trusted.<..." too */
		nc->empty = *tail == '\0';
		snprintf(nc->key, sizeof(nc->key), "%s", name);
		return;
	}
	/*
	 * A caller who may not use trusted.* names here (its namespace has
	 * no chain, or it lacks CAP_SYS_ADMIN over the files) is refused
	 * whatever the name; only the others learn that a name is malformed
	 * or too long.
	 */
	if (!a->prefix || !a->cap || !a->mapped) {
		nc->kind = K_DENIED;
		return;
	}
	if (!ns_tail_ok(tail)) {
		/* "trusted.", "trusted.<01>x", "trusted.<1>" ... */
		nc->kind = K_ERROR;
		nc->err = EINVAL;
		return;
	}
	snprintf(nc->key, sizeof(nc->key), "trusted.%s%s", a->prefix, tail);
	if (strlen(nc->key) > NAME_MAX_X) {
		nc->kind = K_ERROR;
		nc->err = ERANGE;
	}
}

/* The name the caller sees for a stored key, or NULL if it sees none. */
static const char *view_of(const struct actor *a, int node, const char *key,
			   bool lists_trusted_to_all, char *buf, size_t len)
{
	mode_t type = fnodes[node].type;
	size_t plen;

	if (!strncmp(key, "user.", 5))
		return type == S_IFREG || type == S_IFDIR || owner_or_cap(a) ?
			key : NULL;
	if (strncmp(key, "trusted.", 8))
		return key;
	if (!a->depth)
		return a->cap || lists_trusted_to_all ? key : NULL;
	if (!a->prefix || !a->cap || !a->mapped)
		return NULL;
	plen = strlen(a->prefix);
	if (strncmp(key + 8, a->prefix, plen) || !ns_tail_ok(key + 8 + plen))
		return NULL;
	snprintf(buf, len, "trusted.%s", key + 8 + plen);
	return buf;
}

/*
 * The result a call must have: err (0 for success). A successful set may
 * instead be refused by the filesystem for want of room (ENOSPC, E2BIG),
 * and a name without a handler may meet a permission check first.
 */
struct expect {
	int err;
	bool room;		/* ENOSPC or E2BIG are fine too (set) */
	bool loose;		/* K_OTHER: EOPNOTSUPP, EACCES or EPERM */
	bool perm;		/* v2's spelling: EACCES or EPERM are fine too */
};

static int permission(const struct actor *a, int node, const struct name_class *nc,
		      bool write)
{
	mode_t type = fnodes[node].type;
	int refused = write ? -EPERM : -ENODATA;

	switch (nc->kind) {
	case K_SECURITY:
		/* no LSM: commoncap wants CAP_SYS_ADMIN over the superblock */
		return write && !(a->cap && !a->depth) ? -EPERM : 0;
	case K_TRUSTED:
		if (!a->depth)
			return a->cap ? 0 : refused;
		return a->cap && a->mapped ? 0 : refused;
	case K_USER:
		if (type != S_IFREG && type != S_IFDIR)
			return owner_or_cap(a) ? 0 : refused;
		if (write && !a->owner && !(a->cap && a->mapped))
			return -EACCES;
		return 0;
	default:
		return 0;
	}
}

static struct expect expect_of(const struct actor *a, int node, int op, int flags,
			       size_t size, const struct name_class *nc,
			       const struct model *m)
{
	struct expect x = {};
	const struct entry *e;
	int err;

	/* the system call copies the name, then the value, then translates */
	if (nc->kind == K_ERROR && nc->copy) {
		x.err = nc->err;
		return x;
	}
	if (op == OP_SET && size > SIZE_MAX_X) {
		x.err = E2BIG;
		return x;
	}
	if (nc->kind == K_ERROR) {
		x.err = nc->err;
		return x;
	}
	if (nc->kind == K_DENIED) {
		x.err = op == OP_GET ? ENODATA : EPERM;
		return x;
	}
	if (nc->kind == K_OTHER && nc->v2) {
		/*
		 * "trusted<...": no trusted.* name, and the VFS does not
		 * look at it (v2 gave EINVAL, or took it for a chain). The
		 * file's mode decides, then the missing handler: on a
		 * regular file or a directory (0644, 0755) a write is EACCES
		 * but for the owner and CAP_DAC_OVERRIDE over it; a read is
		 * open to all. Other types are writable by all (0666, a
		 * symlink's 0777), unless something else (a device cgroup)
		 * refuses first.
		 */
		mode_t type = fnodes[node].type;

		x.err = EOPNOTSUPP;
		if (type == S_IFREG || type == S_IFDIR) {
			if (op != OP_GET && !owner_or_cap(a))
				x.err = EACCES;
		} else {
			x.perm = true;
		}
		return x;
	}
	if (nc->kind == K_OTHER) {
		x.loose = true;
		x.err = EOPNOTSUPP;
		return x;
	}
	err = -permission(a, node, nc, op != OP_GET);
	if (err) {
		x.err = err;
		return x;
	}
	if (nc->empty) {
		x.err = EINVAL;
		return x;
	}
	e = model_find((struct model *)m, node, nc->key);
	switch (op) {
	case OP_SET:
		/* a filesystem may look for room before it looks for the name */
		x.room = true;
		if ((flags & XATTR_CREATE) && e)
			x.err = EEXIST;
		else if ((flags & XATTR_REPLACE) && !e)
			x.err = ENODATA;
		break;
	case OP_GET:
		if (!e)
			x.err = ENODATA;
		else if (size && size < e->len)
			x.err = ERANGE;
		break;
	case OP_REMOVE:
		if (!e)
			x.err = ENODATA;
		break;
	}
	return x;
}

/* ---- names, values ---- */

static const char * const malformed[] = {
	/* v2's spelling of chains, good or bad: no trusted.* name now */
	"trusted<", "trusted<>", "trusted<01>.x", "trusted<+1>.x", "trusted<-1>.x",
	"trusted<4294967295>.x", "trusted<1", "trusted<1>", "trusted<1>.",
	"trusted<1>x", "trusted<a>.b", "trusted<1><>.x", "trusted< 1>.x",
	"trusted<00>.x", "trusted<1>>.x", "trusted<99999999999999999999>.x",
	"trusted<0>.", "trusted<<1>>.x", "trusted<1>.<2>.x",
	"trusted<1000><5>.<7>.x", "trusted<0>.<", "trusted<1000>.a",
	"trusted<1000><5>.label",
	/*
	 * "trusted." and no canonical chain and name: EINVAL in a namespace,
	 * the initial namespace's ordinary names (under <1000> some of them)
	 */
	"trusted.", "trusted.<", "trusted.<>x", "trusted.<01>x", "trusted.<00>x",
	"trusted.<+1>x", "trusted.<-1>x", "trusted.<4294967295>x",
	"trusted.<99999999999999999999>x", "trusted.<1", "trusted.<1>",
	"trusted.<0>", "trusted.<1><", "trusted.<a>b", "trusted.<1><>x",
	"trusted.< 1>x", "trusted.<<1>>x", "trusted.<1000>", "trusted.<1000><01>x",
	"trusted.<1000><5>", "trusted.<1000><abc", "trusted.<1000x>.y",
	/* a canonical chain and an odd name: valid */
	"trusted.<1000>.x", "trusted.<1>>x", "trusted.<1>.<2>.x",
	"trusted.<1000><5>.<7>.x", "trusted.<0>.", "trusted.<4294967294>x",
	/* other prefixes, and none */
	"user.", "security.", "trusted", "user", "t", "tr", "trustedx.y",
	"system.x", "foo.bar", ".", "<1>.x",
};

/* short suffixes that recur, so that names meet again */
static const char * const pool[] = {
	"a", "b", "label", "x.y", "overlay.opaque", "selinux", "<1>", "9",
	"\xc3\xa9t\xc3\xa9", "\xff\xfe", "..", "a<b>c", ".", "0",
};

static void rand_bytes(char *s, size_t n, bool ascii)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyz0123456789._-<>";
	size_t i;

	for (i = 0; i < n; i++) {
		if (!ascii && chance(10))
			s[i] = (char)(0x80 + rn(0x80));
		else
			s[i] = alpha[rn(sizeof(alpha) - 1)];
	}
	s[n] = '\0';
}

static void rand_suffix(char *s, size_t max)
{
	size_t n;

	if (chance(60)) {
		snprintf(s, max, "%s", pool[rn(ARRAY_SIZE(pool))]);
		return;
	}
	n = chance(80) ? 1 + rn(16) : 1 + rn(max - 1);
	if (n >= max)
		n = max - 1;
	rand_bytes(s, n, false);
}

/*
 * A descendant's chain as the actor spells it: another actor's chain
 * below its own (for the initial namespace, any namespace's chain).
 */
static const char *rand_chain(const struct actor *a, char *buf, size_t len)
{
	const struct actor *b = &actors[rn(NR_ACTORS)];
	const char *mine = a->prefix ? a->prefix : "";
	size_t plen = strlen(mine);

	if (chance(20)) {
		snprintf(buf, len, "<%u>", chance(50) ? rn(3000) :
			 (unsigned int)(4294967294U - rn(2)));
		return buf;
	}
	if (b->prefix && strlen(b->prefix) > plen && !strncmp(b->prefix, mine, plen))
		snprintf(buf, len, "%s", b->prefix + plen);
	else
		snprintf(buf, len, "<%u>", rn(8));
	return buf;
}

/* A name of exactly n bytes (n from 1 to 300), from one of the prefixes. */
static void exact_length_name(const struct actor *a, char *name, size_t n)
{
	static const char * const heads[] = { "user.", "trusted.", "security." };
	char chain[64];
	char head[96];
	size_t h;

	if (chance(30))
		snprintf(head, sizeof(head), "trusted.%s", rand_chain(a, chain, sizeof(chain)));
	else
		snprintf(head, sizeof(head), "%s", heads[rn(3)]);
	h = strlen(head);
	if (n <= h) {
		/* shorter than the prefix: a cut of it */
		memcpy(name, head, n);
		name[n] = '\0';
		return;
	}
	memcpy(name, head, h);
	rand_bytes(name + h, n - h, true);
}

static void rand_name(const struct actor *a, char *name, size_t len)
{
	char sfx[64], chain[64];
	unsigned int r = rn(100);

	rand_suffix(sfx, 64);
	if (r < 28) {
		snprintf(name, len, "user.%s", sfx);
	} else if (r < 58) {
		snprintf(name, len, "trusted.%s", sfx);
	} else if (r < 73) {
		/* a descendant's name; now and then as v2 spelt it */
		rand_chain(a, chain, sizeof(chain));
		if (chance(15))
			snprintf(name, len, "trusted%s.%s", chain, sfx);
		else
			snprintf(name, len, "trusted.%s%s", chain, sfx);
	} else if (r < 77) {
		snprintf(name, len, "security.%s", sfx);
	} else if (r < 85) {
		snprintf(name, len, "%s", malformed[rn(ARRAY_SIZE(malformed))]);
	} else if (r < 90) {
		/* short names, shorter than any prefix */
		rand_bytes(name, 1 + rn(8), false);
	} else if (r < 96) {
		/*
		 * just fitting once stored for this caller, and just not: a
		 * namespace's "trusted.x" is stored with its chain
		 */
		size_t limit = NAME_MAX_X - (a->depth && a->prefix ? strlen(a->prefix) : 0);

		exact_length_name(a, name, limit - 1 + rn(3));
		if (chance(50))
			memcpy(name, "trusted.", 8);
	} else {
		exact_length_name(a, name, 1 + rn(300));
	}
}

static size_t rand_size(void)
{
	unsigned int r = rn(100);

	if (r < 10)
		return 0;
	if (r < 60)
		return 1 + rn(16);
	if (r < 85)
		return 17 + rn(240);
	if (r < 95)
		return 257 + rn(3840);
	if (r < 99)
		return chance(30) ? SIZE_MAX_X : 4097 + rn(SIZE_MAX_X - 4096);
	return SIZE_MAX_X + 1;
}

static void escape(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char c = *s;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[o++] = c;
		else
			o += snprintf(out + o, len - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

/* ---- the checks ---- */

struct fuzz {
	const char *fstype;
	const char *dir;
	bool lists_trusted_to_all;
	struct actor_proc ap[NR_ACTORS];
	struct model m;
	unsigned long long seed;
	unsigned long step;
	unsigned long ok, refused, room, checked;
	char msg[1024];
};

static int fail(struct fuzz *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* The names in a list, NUL-separated, must be exactly the expected set. */
static bool list_matches(const char *list, ssize_t len, char **want, int nwant,
			 char *why, size_t whylen)
{
	bool seen[MAX_ENTRIES] = {};
	char esc[NAME_BUF * 4];
	ssize_t off;
	int i, count = 0;

	if (len > 0 && list[len - 1] != '\0') {
		snprintf(why, whylen, "list does not end in NUL");
		return false;
	}
	for (off = 0; off < len; off += strlen(list + off) + 1) {
		for (i = 0; i < nwant; i++)
			if (!seen[i] && !strcmp(list + off, want[i]))
				break;
		if (i == nwant) {
			escape(list + off, esc, sizeof(esc));
			snprintf(why, whylen, "unexpected name \"%s\"", esc);
			return false;
		}
		seen[i] = true;
		count++;
	}
	for (i = 0; i < nwant; i++)
		if (!seen[i]) {
			escape(want[i], esc, sizeof(esc));
			snprintf(why, whylen, "missing name \"%s\"", esc);
			return false;
		}
	return count == nwant;
}

static int call(struct fuzz *f, int actor)
{
	if (actor_call(&f->ap[actor]))
		return fail(f, "actor %s died", actors[actor].label);
	if (f->ap[actor].chan->rep.err >= 1000)
		return fail(f, "actor %s: cannot open the file: %s", actors[actor].label,
			    strerror(f->ap[actor].chan->rep.err - 1000));
	return 0;
}

/*
 * The actor lists the node (through llistxattr, or a path that follows
 * the symlink to its target): probe, exact buffer, one byte short; the
 * names are exactly its view of the model. With values, it also reads
 * each of them back.
 */
static int check_node(struct fuzz *f, int actor, int node, bool values)
{
	const struct actor *a = &actors[actor];
	struct chan *c = f->ap[actor].chan;
	char *want[MAX_ENTRIES], vbuf[NAME_BUF + 32], why[NAME_BUF * 4 + 64];
	int i, nwant = 0;
	size_t total = 0;
	ssize_t len;

	for (i = 0; i < f->m.n[node]; i++) {
		const char *v = view_of(a, node, f->m.e[node][i].key,
					f->lists_trusted_to_all, vbuf, sizeof(vbuf));

		if (v) {
			want[nwant++] = strdup(v);
			total += strlen(v) + 1;
		}
	}
	c->req = (struct request){ .op = OP_LIST, .via = VIA_LINK, .node = node };
	c->req.size = 0;
	if (call(f, actor))
		goto out;
	len = c->rep.ret;
	if (len != (ssize_t)total) {
		fail(f, "%s: llistxattr(%s) size probe %zd (errno %d), model says %zu",
		     a->label, fnodes[node].name, len, c->rep.err, total);
		goto out;
	}
	c->req.size = total;
	if (call(f, actor))
		goto out;
	len = c->rep.ret;
	if (len != (ssize_t)total ||
	    !list_matches(c->out, len, want, nwant, why, sizeof(why))) {
		fail(f, "%s: llistxattr(%s) = %zd (errno %d), model %zu bytes: %s",
		     a->label, fnodes[node].name, len, c->rep.err, total,
		     len == (ssize_t)total ? why : "length differs");
		goto out;
	}
	if (total) {
		c->req.size = total - 1;
		if (call(f, actor))
			goto out;
		if (c->rep.ret != -1 || c->rep.err != ERANGE) {
			fail(f, "%s: llistxattr(%s) with a buffer one byte short: %ld (errno %d)",
			     a->label, fnodes[node].name, c->rep.ret, c->rep.err);
			goto out;
		}
	}
	f->checked++;
	for (i = 0; values && i < nwant; i++) {
		struct name_class nc;
		const struct entry *e;
		bool btrfs_quirk;

		classify(a, want[i], &nc);
		e = model_find(&f->m, node, nc.key);
		/* btrfs lists trusted names to all; getxattr refuses them */
		btrfs_quirk = !a->depth && !a->cap && !strncmp(want[i], "trusted", 7);
		c->req = (struct request){ .op = OP_GET, .via = VIA_LINK, .node = node,
					   .size = SIZE_MAX_X };
		snprintf(c->req.name, sizeof(c->req.name), "%s", want[i]);
		if (call(f, actor))
			goto out;
		if (btrfs_quirk ? (c->rep.ret != -1 || c->rep.err != ENODATA) :
		    (!e || c->rep.ret != (long)e->len || memcmp(c->out, e->val, e->len))) {
			escape(want[i], why, sizeof(why));
			fail(f, "%s: lgetxattr(%s, \"%s\") = %ld (errno %d), model %zd bytes%s",
			     a->label, fnodes[node].name, why, c->rep.ret, c->rep.err,
			     e ? (ssize_t)e->len : -1, c->rep.ret >= 0 ? " (value differs?)" : "");
			goto out;
		}
	}
	for (i = 0; i < nwant; i++)
		free(want[i]);
	return 0;
out:
	for (i = 0; i < nwant; i++)
		free(want[i]);
	return -1;
}

static int audit(struct fuzz *f)
{
	unsigned int a, node;

	for (a = 0; a < NR_ACTORS; a++)
		for (node = 0; node < NR_NODES; node++)
			if (check_node(f, a, node, true))
				return -1;
	return 0;
}

static const int set_flags[] = { 0, 0, XATTR_CREATE, XATTR_REPLACE };
static const size_t get_sizes[] = { 0, SIZE_MAX_X, 1, 16, 300, SIZE_MAX_X + 10 };

/* One random step: pick, predict, call, compare, apply, check. */
static int fuzz_step(struct fuzz *f)
{
	int actor = rn(NR_ACTORS), node = rn(NR_NODES), target;
	const struct actor *a = &actors[actor];
	struct chan *c = f->ap[actor].chan;
	struct request *q = &c->req;
	struct name_class nc;
	struct expect x;
	char esc[NAME_BUF * 4], what[NAME_BUF * 4 + 128];
	unsigned int r = rn(100);
	int op, i;

	op = r < 40 ? OP_SET : r < 65 ? OP_GET : r < 80 ? OP_LIST : OP_REMOVE;
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->node = node;
	q->via = rn(NR_VIA);
	/* f* needs a file it can open; io_uring has no list or remove */
	if ((q->via == VIA_FD || q->via == VIA_URING_FD) &&
	    fnodes[node].type != S_IFREG && fnodes[node].type != S_IFDIR)
		q->via = VIA_PROCFD;
	if ((q->via == VIA_URING || q->via == VIA_URING_FD) &&
	    (op == OP_LIST || op == OP_REMOVE))
		q->via = VIA_PATH;
	/* the path calls and io_uring follow the symlink */
	target = (node == NODE_SYMLINK && (q->via == VIA_PATH || q->via == VIA_URING)) ?
		NODE_TARGET : node;
	/* names recur: often one the model holds, as this caller spells it */
	if (op != OP_LIST && f->m.n[target] && chance(35)) {
		char vbuf[NAME_BUF + 32];
		const char *v = view_of(a, target,
					f->m.e[target][rn(f->m.n[target])].key,
					false, vbuf, sizeof(vbuf));

		if (v)
			snprintf(q->name, sizeof(q->name), "%s", v);
		else
			rand_name(a, q->name, sizeof(q->name));
	} else {
		rand_name(a, q->name, sizeof(q->name));
	}
	if (op == OP_SET) {
		q->flags = set_flags[rn(ARRAY_SIZE(set_flags))];
		q->size = rand_size();
		/* a full file takes removals, not more names */
		if (f->m.n[target] >= MAX_ENTRIES - 1)
			q->size = SIZE_MAX_X + 1;
		for (i = 0; i < (int)q->size && i < SIZE_MAX_X; i++)
			c->in[i] = (char)rnd();
	} else if (op == OP_GET) {
		q->size = get_sizes[rn(ARRAY_SIZE(get_sizes))];
	}
	f->step++;

	if (op == OP_LIST) {
		/* the call itself: probe and read, then the exact check */
		q->size = chance(50) ? 0 : LIST_MAX_X;
		q->via = q->via == VIA_PROCFD || q->via == VIA_FD ? q->via : VIA_LINK;
		if (call(f, actor))
			return -1;
		if (c->rep.ret < 0)
			return fail(f, "%s: listxattr(%s) via %s failed: errno %d", a->label,
				    fnodes[node].name, via_names[q->via], c->rep.err);
		f->ok++;
		return check_node(f, actor, node, false);
	}

	classify(a, q->name, &nc);
	x = expect_of(a, target, op, q->flags, q->size, &nc, &f->m);
	if (call(f, actor))
		return -1;
	escape(q->name, esc, sizeof(esc));
	snprintf(what, sizeof(what), "step %lu: %s %s(%s, \"%s\", size %zu, flags %d) via %s",
		 f->step, a->label, op_names[op], fnodes[node].name, esc, q->size,
		 q->flags, via_names[q->via]);
	if (c->rep.ret < 0) {
		bool fine = c->rep.err == x.err ||
			(x.room && (c->rep.err == ENOSPC || c->rep.err == E2BIG)) ||
			(x.loose && (c->rep.err == EACCES || c->rep.err == EPERM ||
				     c->rep.err == ENODATA || c->rep.err == EINVAL)) ||
			(x.perm && (c->rep.err == EACCES || c->rep.err == EPERM));

		if (!fine)
			return fail(f, "%s: errno %d (%s), expected %s%s", what,
				    c->rep.err, strerror(c->rep.err),
				    x.err ? strerror(x.err) : "success",
				    x.room ? " or no room" : "");
		if (c->rep.err == x.err)
			f->refused++;
		else
			f->room++;
	} else {
		if (x.err)
			return fail(f, "%s: succeeded (%ld), expected %s", what,
				    c->rep.ret, strerror(x.err));
		f->ok++;
		switch (op) {
		case OP_SET:
			model_set(&f->m, target, nc.key, c->in, q->size);
			break;
		case OP_REMOVE:
			model_remove(&f->m, target, nc.key);
			break;
		case OP_GET: {
			const struct entry *e = model_find(&f->m, target, nc.key);

			if (c->rep.ret != (long)e->len ||
			    (q->size && memcmp(c->out, e->val, e->len)))
				return fail(f, "%s: returned %ld bytes, model holds %zu%s",
					    what, c->rep.ret, e->len,
					    c->rep.ret == (long)e->len ? " (value differs)" : "");
			break;
		}
		}
	}
	/*
	 * The caller's own list of the file is exactly its view; after a set
	 * the filesystem had no room for, every value is still what it was.
	 */
	if (check_node(f, actor, target, x.room && c->rep.ret < 0)) {
		char m[sizeof(f->msg)];

		snprintf(m, sizeof(m), "%s", f->msg);
		return fail(f, "after %s: %s", what, m);
	}
	return 0;
}

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double env_seconds(const char *var, double dflt)
{
	const char *s = getenv(var);

	return s && *s ? atof(s) : dflt;
}

/* The work and its bound (see the top of this file). */
#define FUZZ_STEPS_DEFAULT	1000
#define FUZZ_SEED_DEFAULT	1
#define FUZZ_SECONDS_DEFAULT	30
#define CONC_OPS_MAX		5000

static unsigned long fuzz_steps(void)
{
	const char *s = getenv("XATTR_FUZZ_STEPS");
	unsigned long n = s && *s ? strtoul(s, NULL, 0) : FUZZ_STEPS_DEFAULT;

	return n ? n : FUZZ_STEPS_DEFAULT;
}

static double fuzz_seconds(void)
{
	double t = env_seconds("XATTR_FUZZ_SECONDS", FUZZ_SECONDS_DEFAULT);

	return t > 0 ? t : FUZZ_SECONDS_DEFAULT;
}

/* ---- the fixture: one filesystem, both switches on ---- */

FIXTURE(xfuzz) {
	char dir[256];
};

FIXTURE_VARIANT(xfuzz) {
	struct xt_fs fs;
};

XT_FS_VARIANTS(xfuzz);

FIXTURE_SETUP(xfuzz)
{
	char path[PATH_MAX];
	unsigned int i;
	int ret;

	XT_NEED_ROOT();
	/* the model is of both switches at 1, which a boot sets once */
	if (!xt_switch(TRUSTED_SWITCH) || !xt_switch(USER_SWITCH))
		SKIP(return, "the switches are not 1 in this boot (%s)",
		     xt_sysctl_get(TRUSTED_SWITCH) < 0 ? "a kernel without them" :
		     "boot with them at 1");
	/* the ns-nobody actor's root */
	ret = xt_sysctl_get("/proc/sys/kernel/overflowuid");
	ASSERT_LT(1, ret) {
		TH_LOG("kernel.overflowuid: %d", ret);
	}
	snprintf(nobody_map, sizeof(nobody_map), "0 %d 1\n1 %d 1\n", ret, OWNER);
	snprintf(nobody_prefix, sizeof(nobody_prefix), "<%d>", ret);
	XT_SETUP_FS(&variant->fs, self->dir);
	ASSERT_EQ(0, chown(self->dir, OWNER, OWNER));
	for (i = 0; i < NR_NODES; i++) {
		node_path(self->dir, i, path, sizeof(path));
		if (fnodes[i].type == S_IFLNK) {
			ASSERT_EQ(0, symlink(fnodes[NODE_TARGET].name, path));
			ASSERT_EQ(0, lchown(path, OWNER, OWNER));
		} else {
			ASSERT_EQ(0, xt_mknode(path, fnodes[i].type, OWNER, OWNER));
		}
	}
}

FIXTURE_TEARDOWN(xfuzz)
{
}

static unsigned long long fuzz_seed(void)
{
	const char *s = getenv("XATTR_FUZZ_SEED");

	if (!s || !*s)
		return FUZZ_SEED_DEFAULT;
	if (!strcmp(s, "random"))
		return (unsigned long long)time(NULL) * 1000003ULL + getpid();
	return strtoull(s, NULL, 0);
}

/*
 * The fuzzer: XATTR_FUZZ_STEPS steps on this filesystem from the seed
 * XATTR_FUZZ_SEED (the same seed and steps replay a run), within
 * XATTR_FUZZ_SECONDS.
 */
TEST_F_TIMEOUT(xfuzz, fuzz, 7200)
{
	static struct fuzz f;
	double budget = fuzz_seconds(), start, now;
	unsigned long steps = fuzz_steps();
	bool out_of_time = false;
	unsigned int i;
	int ret = 0;

	memset(&f, 0, sizeof(f));
	f.fstype = variant->fs.fstype;
	f.dir = self->dir;
	/* the fuzzer runs on patched kernels, where btrfs is fixed */
	f.lists_trusted_to_all = false;
	f.seed = fuzz_seed();
	/* one seed per filesystem, derived from the printed one */
	rng_state = f.seed ^ (0x9e3779b97f4a7c15ULL * (strlen(f.fstype) + f.fstype[0]));
	if (!rng_state)
		rng_state = 1;
	TH_LOG("%s: seed %llu, %lu steps, within %.0f s", f.fstype, f.seed, steps, budget);
	TH_LOG("replay: XATTR_FUZZ_SEED=%llu XATTR_FUZZ_STEPS=%lu", f.seed, steps);
	for (i = 0; i < NR_ACTORS; i++)
		ASSERT_EQ(0, actor_start(&actors[i], self->dir, &f.ap[i]));
	start = seconds_now();
	do {
		if (f.step % 5000 == 0 && f.step)
			fprintf(stderr, "#   %s: %lu steps, %.0f s\n", f.fstype, f.step,
				seconds_now() - start);
		ret = fuzz_step(&f);
		if (!ret && f.step % 64 == 0)
			ret = audit(&f);
		now = seconds_now();
		out_of_time = now - start >= budget;
	} while (!ret && f.step < steps && !out_of_time);
	if (!ret)
		ret = audit(&f);
	/* the last started first: later actors hold copies of earlier pipes */
	for (i = NR_ACTORS; i-- > 0;)
		actor_stop(&f.ap[i]);
	TH_LOG("%s: %lu steps in %.1f s: %lu done, %lu refused, %lu no room, %lu lists checked",
	       f.fstype, f.step, now - start, f.ok, f.refused, f.room, f.checked);
	if (ret)
		TH_LOG("FINDING (seed %llu): %s", f.seed, f.msg);
	model_free(&f.m);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(steps, f.step) {
		TH_LOG("%s: time bound of %.0f s reached after %lu of %lu steps",
		       f.fstype, budget, f.step, steps);
		TH_LOG("not the whole gate: a slower kernel or machine (XATTR_FUZZ_SECONDS)");
	}
}

/* ---- concurrency ---- */

/* The workers: each uses only its own names, trusted and user. */
static const int workers[] = { 0, 3, 6, 8, 9, 10, 11 };
#define NR_WORKERS ARRAY_SIZE(workers)
#define WORKER_NAMES 6
#define CONC_NODES 3	/* r0, r1, d */

/* Worker w's k-th name as it spells it */
static void worker_name(int w, int k, char *buf, size_t len)
{
	if (k % 2)
		snprintf(buf, len, "user.w%d.%d", w, k);
	else
		snprintf(buf, len, "trusted.w%d.%d", w, k);
}

/*
 * Is s the name of a worker whose namespace is below worker w's, as w
 * spells it: "trusted." and that worker's chain below w's, then its name?
 */
static bool descendant_name(int w, const char *s)
{
	const char *mine = actors[workers[w]].prefix;
	size_t plen = strlen(mine);
	unsigned int d;

	if (strncmp(s, "trusted.", 8))
		return false;
	for (d = 0; d < NR_WORKERS; d++) {
		const char *theirs = actors[workers[d]].prefix;
		size_t rlen = strlen(theirs) - plen;
		int ww, kk, n = 0;

		if (strlen(theirs) <= plen || strncmp(theirs, mine, plen) ||
		    strncmp(s + 8, theirs + plen, rlen))
			continue;
		if (sscanf(s + 8 + rlen, "w%d.%d%n", &ww, &kk, &n) == 2 &&
		    !s[8 + rlen + n] && ww == (int)d && kk >= 0 &&
		    kk < WORKER_NAMES && kk % 2 == 0)
			return true;
	}
	return false;
}

/* A worker's status when the time bound came before its last operation */
#define WORKER_OUT_OF_TIME 2

/*
 * A worker: random sets and removes of its own names on the shared files,
 * and lists that must always show exactly its own names among the names
 * it can see from its namespace; of the rest, its descendants' names only
 * (what the workers below it write). Exits with 0, or prints what went
 * wrong. Reports what it kept through the pipe.
 */
static int worker_run(const char *dir, int w, unsigned long long seed,
		      unsigned long nops, double budget, unsigned long *ops)
{
	const struct actor *a = &actors[workers[w]];
	bool have[CONC_NODES][WORKER_NAMES] = {};
	char vals[CONC_NODES][WORKER_NAMES][8];
	char path[PATH_MAX], name[64], list[LIST_MAX_X], val[16];
	double start = seconds_now();
	int node, k;

	rng_state = seed ^ (w + 1) * 0x2545f4914f6cdd1dULL;
	if (xt_enter_chain(a->maps, a->depth))
		return fprintf(stderr, "# worker %s: no namespace\n", a->label), 1;
	for (; *ops < nops; (*ops)++) {
		if (seconds_now() - start >= budget)
			return fprintf(stderr, "# worker %s: time bound reached: %lu of %lu\n",
				       a->label, *ops, nops), WORKER_OUT_OF_TIME;
		node = rn(CONC_NODES);
		k = rn(WORKER_NAMES);
		node_path(dir, node, path, sizeof(path));
		worker_name(w, k, name, sizeof(name));
		if (chance(60)) {
			snprintf(val, sizeof(val), "%07x", (unsigned int)rn(1u << 28));
			if (setxattr(path, name, val, 8, 0)) {
				/* no room (ext4's 1k blocks): nothing changed */
				if (errno == ENOSPC)
					continue;
				return fprintf(stderr, "# worker %s: set %s: %s\n", a->label,
					       name, strerror(errno)), 1;
			}
			memcpy(vals[node][k], val, 8);
			have[node][k] = true;
		} else {
			if (removexattr(path, name) ? errno != ENODATA || have[node][k] :
			    !have[node][k])
				return fprintf(stderr, "# worker %s: remove %s: %s, had it: %d\n",
					       a->label, name, strerror(errno), have[node][k]), 1;
			have[node][k] = false;
		}
		if (chance(50)) {
			ssize_t len = listxattr(path, list, sizeof(list)), off;
			int mine = 0, want = 0;

			if (len < 0)
				return fprintf(stderr, "# worker %s: list: %s\n", a->label,
					       strerror(errno)), 1;
			if (len && list[len - 1])
				return fprintf(stderr, "# worker %s: torn list\n", a->label), 1;
			for (off = 0; off < len; off += strlen(list + off) + 1) {
				char *s = list + off;
				int ww, kk;

				/* a name of this worker's own, or of a descendant */
				if (sscanf(s, "trusted.w%d.%d", &ww, &kk) == 2 ||
				    sscanf(s, "user.w%d.%d", &ww, &kk) == 2) {
					if (!strncmp(s, "user.", 5) && ww != w)
						continue;	/* others' user.*: shared */
					if (ww != w || kk < 0 || kk >= WORKER_NAMES ||
					    !have[node][kk])
						return fprintf(stderr, "# worker %s: sees %s\n",
							       a->label, s), 1;
					mine++;
				} else if (!strncmp(s, "trusted", 7) &&
					   !descendant_name(w, s)) {
					return fprintf(stderr, "# worker %s: sees %s\n",
						       a->label, s), 1;
				}
			}
			for (k = 0; k < WORKER_NAMES; k++)
				want += have[node][k];
			if (mine != want)
				return fprintf(stderr, "# worker %s: lists %d own names, has %d\n",
					       a->label, mine, want), 1;
		}
	}
	/* read back everything kept */
	for (node = 0; node < CONC_NODES; node++) {
		node_path(dir, node, path, sizeof(path));
		for (k = 0; k < WORKER_NAMES; k++) {
			ssize_t n;

			worker_name(w, k, name, sizeof(name));
			n = getxattr(path, name, val, sizeof(val));
			if (have[node][k] ? n != 8 || memcmp(val, vals[node][k], 8) :
			    n != -1 || errno != ENODATA)
				return fprintf(stderr, "# worker %s: %s on %s: %zd, kept: %d\n",
					       a->label, name, fnodes[node].name, n,
					       have[node][k]), 1;
		}
	}
	return 0;
}

/*
 * Workers in seven namespaces (the initial one, depths 1 to 4, a same-root
 * nested one and another root) change and list the same three inodes at
 * once. Each sees exactly its own names throughout; afterwards the
 * initial namespace finds exactly what the workers kept, and nothing else.
 */
TEST_F_TIMEOUT(xfuzz, concurrent, 3600)
{
	/* races show early or never */
	unsigned long nops = fuzz_steps() > CONC_OPS_MAX ? CONC_OPS_MAX : fuzz_steps();
	double budget = fuzz_seconds(), start = seconds_now();
	unsigned long long seed = fuzz_seed();
	unsigned long *ops = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pids[NR_WORKERS];
	char path[PATH_MAX], list[LIST_MAX_X], name[64];
	unsigned long total = 0;
	unsigned int w, node;
	int k;

	ASSERT_NE(MAP_FAILED, ops);
	TH_LOG("%s: seed %llu, %zu workers, %lu operations each, within %.0f s",
	       variant->fs.fstype, seed, NR_WORKERS, nops, budget);
	for (w = 0; w < NR_WORKERS; w++) {
		pids[w] = fork();
		ASSERT_LE(0, pids[w]);
		if (pids[w] == 0)
			_exit(worker_run(self->dir, w, seed, nops, budget, &ops[w]));
	}
	for (w = 0; w < NR_WORKERS; w++) {
		int status = xt_wait(pids[w]);

		EXPECT_EQ(0, status) {
			if (status == WORKER_OUT_OF_TIME)
				TH_LOG("worker %s: time bound reached (XATTR_FUZZ_SECONDS=%.0f)",
				       actors[workers[w]].label, budget);
			else
				TH_LOG("worker %s failed", actors[workers[w]].label);
		}
		total += ops[w];
	}
	TH_LOG("%s: %lu operations in %.1f s", variant->fs.fstype, total,
	       seconds_now() - start);
	/* from the initial namespace: only the workers' names, each readable */
	for (node = 0; node < CONC_NODES; node++) {
		ssize_t len, off;

		node_path(self->dir, node, path, sizeof(path));
		len = listxattr(path, list, sizeof(list));
		ASSERT_LE(0, len);
		for (off = 0; off < len; off += strlen(list + off) + 1) {
			const char *s = list + off;
			int found = 0;

			for (w = 0; w < NR_WORKERS && !found; w++) {
				const struct actor *a = &actors[workers[w]];

				for (k = 0; k < WORKER_NAMES && !found; k++) {
					char key[128];

					worker_name(w, k, name, sizeof(name));
					if (k % 2)
						snprintf(key, sizeof(key), "%s", name);
					else
						snprintf(key, sizeof(key), "trusted.%s%s",
							 a->prefix, name + 8);
					found = !strcmp(key, s);
				}
			}
			EXPECT_TRUE(found) {
				TH_LOG("%s: stray name %s", fnodes[node].name, s);
			}
			EXPECT_EQ(8, getxattr(path, s, name, sizeof(name)));
		}
	}
	munmap(ops, 4096);
}

/* ---- faults ---- */

/* Fill the filesystem's free space with one preallocated file. */
static int fill_fs(const char *dir, char *path, size_t len)
{
	struct statfs st;
	off_t chunk;
	int fd;

	snprintf(path, len, "%s/filler", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &st))
		return -errno;
	/* big pieces first, then smaller ones until nothing fits */
	for (chunk = (off_t)st.f_bavail * st.f_bsize; chunk >= 4096; chunk /= 2) {
		struct stat sb;

		while (!fstat(fd, &sb) && !fallocate(fd, 0, sb.st_size, chunk))
			;
		if (errno != ENOSPC && errno != EFBIG)
			break;
	}
	close(fd);
	return 0;
}

/*
 * tmpfs keeps xattrs in memory, but charges them (simple_xattr_space())
 * to the space it keeps per inode, nr_inodes x 1 KiB for the whole
 * mount, which inodes draw on too: remount with room for TMPFS_ROOM_INODES
 * more inodes, so that a few dozen KiB of xattrs exhaust it.
 */
#define TMPFS_ROOM_INODES 64
static int limit_tmpfs(void)
{
	struct statfs st;
	char opts[64];

	if (statfs(XT_MNT, &st))
		return -errno;
	/* f_files - f_ffree: the KiB in use, inodes and xattrs */
	snprintf(opts, sizeof(opts), "nr_inodes=%llu",
		 (unsigned long long)(st.f_files - st.f_ffree + TMPFS_ROOM_INODES));
	if (mount(NULL, XT_MNT, NULL, MS_REMOUNT, opts))
		return -errno;
	return 0;
}

/*
 * No room: with the filesystem's space taken (ext4, xfs, btrfs: a file
 * fills the disk; tmpfs: its per-inode space is cut down), a namespace
 * keeps adding and growing its entries until the filesystem refuses, which
 * it must do. The refusals are ENOSPC or E2BIG, and afterwards every entry
 * that was set holds its last value; a replace that failed left the old
 * value.
 */
TEST_F_TIMEOUT(xfuzz, enospc, 600)
{
	static const char * const l1[] = { L1 };
	char file[PATH_MAX], filler[PATH_MAX];
	pid_t pid;
	int ret;

	snprintf(file, sizeof(file), "%s/r0", self->dir);
	if (variant->fs.dev_env) {
		ASSERT_EQ(0, fill_fs(self->dir, filler, sizeof(filler)));
	} else {
		ret = limit_tmpfs();
		if (ret)
			SKIP(return, "%s: no way to limit its xattr space (remount nr_inodes: %s)",
			     variant->fs.fstype, strerror(-ret));
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		static char big[SIZE_MAX_X], back[SIZE_MAX_X];
		char name[64];
		size_t sizes[200];
		int i, n, refused = 0;

		XT_EQ(0, xt_enter_chain(l1, 1));
		memset(big, 'k', sizeof(big));
		XT_EQ(0, setxattr(file, "trusted.keep", "old", 3, XATTR_CREATE));
		for (n = 0; n < 200 && refused < 3; n++) {
			snprintf(name, sizeof(name), n % 2 ? "trusted.fill%d" : "user.fill%d", n);
			sizes[n] = 512 << (n % 8);
			if (sizes[n] > SIZE_MAX_X)
				sizes[n] = SIZE_MAX_X;
			big[0] = (char)n;
			if (!setxattr(file, name, big, sizes[n], 0))
				continue;
			XT_CHECK(errno == ENOSPC || errno == E2BIG);
			sizes[n] = 0;
			refused++;
			/* the replace that does not fit leaves the old value */
			errno = 0;
			if (setxattr(file, "trusted.keep", big, SIZE_MAX_X, XATTR_REPLACE))
				XT_CHECK(errno == ENOSPC || errno == E2BIG);
			else
				XT_EQ(0, setxattr(file, "trusted.keep", "old", 3,
						  XATTR_REPLACE));
		}
		/* every filesystem under test has a limit, and it was reached */
		XT_CHECK(refused > 0);
		XT_EQ(3, getxattr(file, "trusted.keep", back, sizeof(back)));
		XT_CHECK(!memcmp(back, "old", 3));
		for (i = 0; i < n; i++) {
			ssize_t got;

			snprintf(name, sizeof(name), i % 2 ? "trusted.fill%d" : "user.fill%d", i);
			got = getxattr(file, name, back, sizeof(back));
			if (!sizes[i]) {
				XT_CHECK(got == -1 && errno == ENODATA);
				continue;
			}
			XT_EQ((ssize_t)sizes[i], got);
			XT_CHECK(back[0] == (char)i && back[got - 1] == 'k');
		}
		fprintf(stderr, "# %d entries tried, %d refused\n", n, refused);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	ASSERT_EQ(3, getxattr(file, "trusted.<1000>keep", NULL, 0));
	if (variant->fs.dev_env)
		ASSERT_EQ(0, unlink(filler));
}

/*
 * Read-only: after a read-only remount, set and remove give EROFS to the
 * initial namespace and to a namespace, get and list still work, and after
 * the read-write remount everything is as it was.
 */
TEST_F(xfuzz, erofs)
{
	static const char * const l1[] = { L1 };
	char file[PATH_MAX];
	pid_t pid;

	snprintf(file, sizeof(file), "%s/r0", self->dir);
	ASSERT_EQ(0, setxattr(file, "trusted.host", "h", 1, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		XT_EQ(0, xt_enter_chain(l1, 1));
		XT_EQ(0, setxattr(file, "trusted.ns", "n", 1, 0));
		XT_EQ(0, setxattr(file, "user.u", "u", 1, 0));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, xt_wait(pid));
	ASSERT_EQ(0, mount(NULL, XT_MNT, NULL, MS_REMOUNT | MS_RDONLY, NULL));
	errno = 0;
	EXPECT_EQ(-1, setxattr(file, "trusted.host", "x", 1, 0));
	EXPECT_EQ(EROFS, errno);
	errno = 0;
	EXPECT_EQ(-1, removexattr(file, "trusted.<1000>ns"));
	EXPECT_EQ(EROFS, errno);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char buf[64];
		ssize_t len;

		XT_EQ(0, xt_enter_chain(l1, 1));
		XT_CHECK_ERR(setxattr(file, "trusted.ns", "x", 1, 0), EROFS);
		XT_CHECK_ERR(setxattr(file, "trusted.new", "x", 1, 0), EROFS);
		XT_CHECK_ERR(removexattr(file, "trusted.ns"), EROFS);
		XT_CHECK_ERR(removexattr(file, "user.u"), EROFS);
		XT_CHECK(getxattr(file, "trusted.ns", buf, sizeof(buf)) == 1 && buf[0] == 'n');
		len = listxattr(file, buf, sizeof(buf));
		XT_EQ((ssize_t)(sizeof("trusted.ns") + sizeof("user.u")), len);
		_exit(_metadata->exit_code);
	}
	EXPECT_EQ(0, xt_wait(pid));
	ASSERT_EQ(0, mount(NULL, XT_MNT, NULL, MS_REMOUNT, NULL));
	ASSERT_EQ(1, getxattr(file, "trusted.host", NULL, 0));
	ASSERT_EQ(1, getxattr(file, "trusted.<1000>ns", NULL, 0));
	ASSERT_EQ(1, getxattr(file, "user.u", NULL, 0));
	errno = 0;
	ASSERT_EQ(-1, getxattr(file, "trusted.<1000>new", NULL, 0));
	ASSERT_EQ(ENODATA, errno);
}

TEST_HARNESS_MAIN
