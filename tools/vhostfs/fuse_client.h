/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuse_client.h: FUSE requests the way the guest's virtiofs driver sends
 * them, over a vhost-user connection (queue 0: hiprio, for FORGET; queue
 * 1: requests). Written from linux/fuse.h and the virtio-fs device section
 * of the virtio specification (5.11).
 *
 * Every call returns what the daemon answered: >= 0 on success (a length
 * where there is one), -errno for its error. A transport or protocol
 * failure (the daemon died, a malformed reply) is not an answer: it calls
 * fc->fatal, which must not return.
 */
#ifndef FUSE_CLIENT_H
#define FUSE_CLIENT_H

#include <stdint.h>
#include <sys/types.h>

#include "vhost_user.h"

#define FC_ROOT_ID	1	/* the shared directory's node (FUSE_ROOT_ID) */

struct fc {
	struct vu_dev vu;
	uint64_t unique;
	uint32_t major, minor;		/* what the daemon answered to INIT */
	void (*fatal)(struct fc *c, const char *msg) __attribute__((noreturn));
};

/* Set up vhost-user on sock, then FUSE_INIT. */
void fc_start(struct fc *c, int sock);
/* LOOKUP name in parent: the node id, and its mode in *mode. */
int fc_lookup(struct fc *c, uint64_t parent, const char *name, uint64_t *nodeid,
	      uint32_t *mode);
void fc_forget(struct fc *c, uint64_t nodeid, uint64_t nlookup);
int fc_setxattr(struct fc *c, uint64_t node, const char *name, const void *value,
		size_t size, int flags);
ssize_t fc_getxattr(struct fc *c, uint64_t node, const char *name, void *buf, size_t size);
ssize_t fc_listxattr(struct fc *c, uint64_t node, char *buf, size_t size);
int fc_removexattr(struct fc *c, uint64_t node, const char *name);
/* DESTROY, then drop the connection (the daemon exits). */
void fc_stop(struct fc *c);

#endif
