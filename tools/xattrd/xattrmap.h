/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xattrmap: virtiofsd's --xattrmap rules, parsed and applied.
 *
 * A mapping is a list of rules ":type:scope:key:prepend:" (the separator is
 * the first non-blank character of each rule), or the shorthand
 * ":map:key:prepend:". The first rule that matches decides; a name that no
 * rule matches is refused. See design/comparison.md and virtiofsd's
 * doc/xattr-mapping.md.
 */
#ifndef XATTRMAP_H
#define XATTRMAP_H

#include <stddef.h>

enum xmap_type { XMAP_PREFIX, XMAP_OK, XMAP_BAD, XMAP_UNSUPPORTED };

#define XMAP_CLIENT 1	/* guest names, for set/get/remove */
#define XMAP_SERVER 2	/* host names, for list */

struct xmap_rule {
	enum xmap_type type;
	int scope;		/* XMAP_CLIENT | XMAP_SERVER */
	char *key;
	char *prepend;
};

struct xmap {
	struct xmap_rule *rules;
	size_t nr;
};

/*
 * Parse rules into m. Returns 0, or -1 with a message naming the rule (from
 * 1) and the byte offset in err. Nothing is allocated on failure.
 */
int xmap_parse(const char *rules, struct xmap *m, char *err, size_t errlen);
void xmap_free(struct xmap *m);

/*
 * Client direction: the host name for a guest's name, into host. Returns 0,
 * or a negative errno for the guest: -EPERM (bad, or no rule matched),
 * -EOPNOTSUPP (unsupported), -ERANGE (too long).
 */
int xmap_to_host(const struct xmap *m, const char *guest, char *host, size_t len);

/*
 * Server direction: the guest name for a host name from listxattr, into
 * guest. Returns 1 when the guest sees it, 0 when it is hidden, -ERANGE.
 */
int xmap_to_guest(const struct xmap *m, const char *host, char *guest, size_t len);

#endif
