// SPDX-License-Identifier: GPL-2.0
/*
 * fuse_client.c: FUSE requests over virtqueues. See fuse_client.h.
 *
 * A virtio-fs request is one descriptor chain: the device-readable part
 * holds struct fuse_in_header and the operation's arguments, the
 * device-writable part receives struct fuse_out_header and the reply.
 * FORGET carries no reply and goes on the hiprio queue.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/fuse.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fuse_client.h"

#define HIPRIO_QUEUE	0
#define REQUEST_QUEUE	1

static void fatal(struct fc *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void fatal(struct fc *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->fatal(c, msg);
}

static const char *opname(uint32_t op)
{
	switch (op) {
	case FUSE_INIT: return "INIT";
	case FUSE_LOOKUP: return "LOOKUP";
	case FUSE_FORGET: return "FORGET";
	case FUSE_SETXATTR: return "SETXATTR";
	case FUSE_GETXATTR: return "GETXATTR";
	case FUSE_LISTXATTR: return "LISTXATTR";
	case FUSE_REMOVEXATTR: return "REMOVEXATTR";
	case FUSE_DESTROY: return "DESTROY";
	default: return "?";
	}
}

/*
 * One request: up to three argument pieces after the header; the reply's
 * payload (after fuse_out_header) is copied to reply, at most replysize
 * bytes, its length in *replylen. Returns the daemon's error (0 or -errno).
 */
static int fc_call(struct fc *c, uint32_t opcode, uint64_t nodeid,
		   const void *a1, size_t l1, const void *a2, size_t l2,
		   const void *a3, size_t l3, void *reply, size_t replysize,
		   size_t *replylen)
{
	struct fuse_in_header ih = {
		.opcode = opcode, .unique = ++c->unique, .nodeid = nodeid,
	};
	struct iovec iov[4] = {
		{ &ih, sizeof(ih) }, { (void *)a1, l1 }, { (void *)a2, l2 }, { (void *)a3, l3 },
	};
	bool noreply = opcode == FUSE_FORGET;
	struct fuse_out_header oh;
	uint32_t written;
	size_t len;

	ih.len = sizeof(ih) + l1 + l2 + l3;
	if (vu_request(&c->vu, noreply ? HIPRIO_QUEUE : REQUEST_QUEUE, iov, 4,
		       noreply ? 0 : sizeof(oh) + replysize, &written))
		fatal(c, "FUSE %s: %s", opname(opcode), c->vu.err);
	if (noreply)
		return 0;
	if (written < sizeof(oh))
		fatal(c, "FUSE %s: reply of %u bytes, shorter than its header",
		      opname(opcode), written);
	memcpy(&oh, c->vu.q[REQUEST_QUEUE].in, sizeof(oh));
	if (oh.unique != ih.unique || oh.len < sizeof(oh) || oh.len > written)
		fatal(c, "FUSE %s: bad reply header (unique %llu for %llu, len %u of %u)",
		      opname(opcode), (unsigned long long)oh.unique,
		      (unsigned long long)ih.unique, oh.len, written);
	if (oh.error > 0 || oh.error < -4095)
		fatal(c, "FUSE %s: reply error %d is not an errno", opname(opcode), oh.error);
	if (oh.error) {
		if (oh.len != sizeof(oh))
			fatal(c, "FUSE %s: error reply with a payload", opname(opcode));
		return oh.error;
	}
	/* vu_request() checked written <= sizeof(oh) + replysize */
	len = oh.len - sizeof(oh);
	if (len)
		memcpy(reply, c->vu.q[REQUEST_QUEUE].in + sizeof(oh), len);
	if (replylen)
		*replylen = len;
	return 0;
}

void fc_start(struct fc *c, int sock)
{
	struct fuse_init_in in = {
		.major = FUSE_KERNEL_VERSION, .minor = FUSE_KERNEL_MINOR_VERSION,
	};
	struct fuse_init_out out;
	size_t len;
	int ret;

	c->unique = 0;
	if (vu_setup(&c->vu, sock, 2))
		fatal(c, "vhost-user setup: %s", c->vu.err);
	ret = fc_call(c, FUSE_INIT, 0, &in, sizeof(in), NULL, 0, NULL, 0,
		      &out, sizeof(out), &len);
	if (ret)
		fatal(c, "FUSE INIT: %s", strerror(-ret));
	if (len < FUSE_COMPAT_22_INIT_OUT_SIZE || out.major != FUSE_KERNEL_VERSION)
		fatal(c, "FUSE INIT: the daemon answered version %u.%u (%zu bytes)",
		      out.major, out.minor, len);
	c->major = out.major;
	c->minor = out.minor;
}

int fc_lookup(struct fc *c, uint64_t parent, const char *name, uint64_t *nodeid,
	      uint32_t *mode)
{
	struct fuse_entry_out out;
	size_t len;
	int ret;

	ret = fc_call(c, FUSE_LOOKUP, parent, name, strlen(name) + 1, NULL, 0, NULL, 0,
		      &out, sizeof(out), &len);
	if (ret)
		return ret;
	if (len != sizeof(out) || !out.nodeid)
		fatal(c, "FUSE LOOKUP %s: reply of %zu bytes, node %llu", name, len,
		      (unsigned long long)out.nodeid);
	*nodeid = out.nodeid;
	*mode = out.attr.mode;
	return 0;
}

void fc_forget(struct fc *c, uint64_t nodeid, uint64_t nlookup)
{
	struct fuse_forget_in in = { .nlookup = nlookup };

	fc_call(c, FUSE_FORGET, nodeid, &in, sizeof(in), NULL, 0, NULL, 0, NULL, 0, NULL);
}

int fc_setxattr(struct fc *c, uint64_t node, const char *name, const void *value,
		size_t size, int flags)
{
	/* FUSE_SETXATTR_EXT was not negotiated: the 7.32 layout */
	struct fuse_setxattr_in in = { .size = size, .flags = flags };

	return fc_call(c, FUSE_SETXATTR, node, &in, FUSE_COMPAT_SETXATTR_IN_SIZE,
		       name, strlen(name) + 1, value, size, NULL, 0, NULL);
}

ssize_t fc_getxattr(struct fc *c, uint64_t node, const char *name, void *buf, size_t size)
{
	struct fuse_getxattr_in in = { .size = size };
	size_t len;
	int ret;

	ret = fc_call(c, FUSE_GETXATTR, node, &in, sizeof(in), name, strlen(name) + 1,
		      NULL, 0, buf, size, &len);
	return ret ? ret : (ssize_t)len;
}

ssize_t fc_listxattr(struct fc *c, uint64_t node, char *buf, size_t size)
{
	struct fuse_getxattr_in in = { .size = size };
	size_t len;
	int ret;

	ret = fc_call(c, FUSE_LISTXATTR, node, &in, sizeof(in), NULL, 0, NULL, 0,
		      buf, size, &len);
	if (ret)
		return ret;
	if (len && buf[len - 1])
		fatal(c, "FUSE LISTXATTR: the list does not end with a NUL");
	return len;
}

int fc_removexattr(struct fc *c, uint64_t node, const char *name)
{
	return fc_call(c, FUSE_REMOVEXATTR, node, name, strlen(name) + 1, NULL, 0,
		       NULL, 0, NULL, 0, NULL);
}

void fc_stop(struct fc *c)
{
	int ret = fc_call(c, FUSE_DESTROY, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL);

	if (ret)
		fatal(c, "FUSE DESTROY: %s", strerror(-ret));
	vu_close(&c->vu);
}
