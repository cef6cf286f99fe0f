// SPDX-License-Identifier: GPL-2.0
/*
 * vhost_user.c: the frontend side of the vhost-user protocol and of split
 * virtqueues, enough to drive a vhost-user-fs backend (virtiofsd) without a
 * VM. See vhost_user.h.
 *
 * Memory: one memfd, mapped here and handed to the backend as a single
 * region. "Guest physical" addresses (what descriptors carry) are offsets
 * in the memfd plus GPA_BASE; ring addresses in SET_VRING_ADDR are in our
 * own address space (the spec's "user addresses"), which the backend
 * translates through the region's userspace_addr.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vhost_user.h"

/* Message types (vhost-user.rst, "Front-end message types") */
enum {
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
};

#define VHOST_USER_VERSION	0x1	/* flags bits 0-1 */
#define VHOST_USER_FLAG_REPLY	0x4	/* flags bit 2 */

struct vu_msg_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;		/* of the payload that follows */
};

struct vu_region {
	uint64_t guest_addr;
	uint64_t size;
	uint64_t user_addr;
	uint64_t mmap_offset;
};

struct vu_mem_table {
	uint32_t nregions;
	uint32_t padding;
	struct vu_region regions[1];
};

struct vu_vring_state {
	uint32_t index;
	uint32_t num;
};

struct vu_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc;
	uint64_t used;
	uint64_t avail;
	uint64_t log;
};

#define GPA_BASE	0x100000000ULL	/* where our memory sits in "guest" space */
#define PAGE		4096
/* per queue: one page each for the descriptors, the available and the used ring */
#define RING_PAGES	3

static int fail(struct vu_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct vu_dev *dev, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dev->err, sizeof(dev->err), fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

static uint64_t gpa(struct vu_dev *dev, const void *p)
{
	return GPA_BASE + (uint64_t)((const char *)p - dev->mem);
}

/* Send one message with its payload and at most one file descriptor. */
static int vu_send(struct vu_dev *dev, uint32_t request, const void *payload,
		   uint32_t size, int fd)
{
	struct vu_msg_hdr hdr = { request, VHOST_USER_VERSION, size };
	struct iovec iov[2] = {
		{ &hdr, sizeof(hdr) }, { (void *)payload, size },
	};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = size ? 2 : 1 };
	struct cmsghdr *cmsg;
	ssize_t n;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	do
		n = sendmsg(dev->sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)(sizeof(hdr) + size))
		return fail(dev, "vhost-user message %u: %s", request,
			    n < 0 ? strerror(errno) : "short write");
	return 0;
}

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (errno = ECONNRESET, -1);
		p += n;
		len -= n;
	}
	return 0;
}

/* A request that the backend answers with a u64 (GET_FEATURES). */
static int vu_get_u64(struct vu_dev *dev, uint32_t request, uint64_t *val)
{
	struct vu_msg_hdr hdr;

	if (vu_send(dev, request, NULL, 0, -1))
		return -1;
	if (read_full(dev->sock, &hdr, sizeof(hdr)))
		return fail(dev, "vhost-user reply to %u: %s", request, strerror(errno));
	if (hdr.request != request || !(hdr.flags & VHOST_USER_FLAG_REPLY) ||
	    (hdr.flags & 0x3) != VHOST_USER_VERSION || hdr.size != sizeof(*val)) {
		errno = EPROTO;
		return fail(dev, "vhost-user reply to %u: request %u, flags %#x, size %u",
			    request, hdr.request, hdr.flags, hdr.size);
	}
	if (read_full(dev->sock, val, sizeof(*val)))
		return fail(dev, "vhost-user reply to %u: %s", request, strerror(errno));
	*val = le64toh(*val);
	return 0;
}

static int vu_set_u64(struct vu_dev *dev, uint32_t request, uint64_t val, int fd)
{
	val = htole64(val);
	return vu_send(dev, request, &val, sizeof(val), fd);
}

static int setup_queue(struct vu_dev *dev, unsigned int i)
{
	struct vu_queue *q = &dev->q[i];
	char *ring = dev->mem + i * RING_PAGES * PAGE;
	struct vu_vring_state num = { htole32(i), htole32(VU_QUEUE_SIZE) };
	struct vu_vring_state base = { htole32(i), 0 };
	struct vu_vring_addr addr = { .index = htole32(i) };

	q->index = i;
	/* 2.6: descriptors 16-byte aligned, available 2, used 4: pages are */
	q->desc = (struct vring_desc *)ring;
	q->avail = (struct vring_avail *)(ring + PAGE);
	q->used = (struct vring_used *)(ring + 2 * PAGE);
	q->out = dev->mem + VU_MAX_QUEUES * RING_PAGES * PAGE + 2 * i * VU_BUF_SIZE;
	q->in = q->out + VU_BUF_SIZE;
	q->avail_idx = q->last_used = 0;
	q->kick = eventfd(0, EFD_CLOEXEC);
	q->call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->kick < 0 || q->call < 0)
		return fail(dev, "eventfd: %s", strerror(errno));
	addr.desc = htole64((uintptr_t)q->desc);
	addr.used = htole64((uintptr_t)q->used);
	addr.avail = htole64((uintptr_t)q->avail);
	if (vu_send(dev, VHOST_USER_SET_VRING_NUM, &num, sizeof(num), -1) ||
	    vu_send(dev, VHOST_USER_SET_VRING_BASE, &base, sizeof(base), -1) ||
	    vu_send(dev, VHOST_USER_SET_VRING_ADDR, &addr, sizeof(addr), -1) ||
	    vu_set_u64(dev, VHOST_USER_SET_VRING_CALL, i, q->call) ||
	    /* the kick starts the ring (no VHOST_USER_F_PROTOCOL_FEATURES: enabled) */
	    vu_set_u64(dev, VHOST_USER_SET_VRING_KICK, i, q->kick))
		return -1;
	return 0;
}

int vu_setup(struct vu_dev *dev, int sock, unsigned int nqueues)
{
	struct vu_mem_table table = { .nregions = htole32(1) };
	uint64_t features;
	unsigned int i;

	memset(dev, 0, sizeof(*dev));
	dev->sock = sock;
	dev->memfd = -1;
	dev->timeout_ms = 30000;
	for (i = 0; i < VU_MAX_QUEUES; i++)
		dev->q[i].kick = dev->q[i].call = -1;
	if (nqueues > VU_MAX_QUEUES) {
		errno = EINVAL;
		return fail(dev, "at most %d queues", VU_MAX_QUEUES);
	}
	dev->nqueues = nqueues;
	dev->memsize = VU_MAX_QUEUES * (RING_PAGES * PAGE + 2 * VU_BUF_SIZE);
	dev->memfd = memfd_create("vhostfs-guest-memory", MFD_CLOEXEC);
	if (dev->memfd < 0 || ftruncate(dev->memfd, dev->memsize))
		return fail(dev, "guest memory: %s", strerror(errno));
	dev->mem = mmap(NULL, dev->memsize, PROT_READ | PROT_WRITE, MAP_SHARED, dev->memfd, 0);
	if (dev->mem == MAP_FAILED) {
		dev->mem = NULL;
		return fail(dev, "mmap guest memory: %s", strerror(errno));
	}

	if (vu_get_u64(dev, VHOST_USER_GET_FEATURES, &features))
		return -1;
	if (!(features & (1ULL << VIRTIO_F_VERSION_1))) {
		errno = EPROTO;
		return fail(dev, "the backend does not offer VIRTIO_F_VERSION_1 (features %#llx)",
			    (unsigned long long)features);
	}
	/* only VERSION_1: no protocol features, no event index, no indirect */
	dev->features = 1ULL << VIRTIO_F_VERSION_1;
	table.regions[0].guest_addr = htole64(GPA_BASE);
	table.regions[0].size = htole64(dev->memsize);
	table.regions[0].user_addr = htole64((uintptr_t)dev->mem);
	table.regions[0].mmap_offset = 0;
	if (vu_send(dev, VHOST_USER_SET_OWNER, NULL, 0, -1) ||
	    vu_set_u64(dev, VHOST_USER_SET_FEATURES, dev->features, -1) ||
	    vu_send(dev, VHOST_USER_SET_MEM_TABLE, &table, sizeof(table), dev->memfd))
		return -1;
	for (i = 0; i < nqueues; i++)
		if (setup_queue(dev, i))
			return -1;
	return 0;
}

/* Wait for the backend to call (or for the connection to drop). */
static int wait_call(struct vu_dev *dev, struct vu_queue *q)
{
	struct pollfd pfd[2] = {
		{ .fd = q->call, .events = POLLIN },
		{ .fd = dev->sock, .events = POLLIN },
	};
	uint64_t cnt;
	int n;

	n = poll(pfd, 2, dev->timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : fail(dev, "poll: %s", strerror(errno));
	if (n == 0) {
		errno = ETIMEDOUT;
		return fail(dev, "queue %u: no answer from the backend in %d ms",
			    q->index, dev->timeout_ms);
	}
	if (pfd[1].revents) {
		/* the backend never sends on the socket unasked: it went away */
		errno = ECONNRESET;
		return fail(dev, "queue %u: the backend closed the connection", q->index);
	}
	if (read(q->call, &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
		return fail(dev, "read call eventfd: %s", strerror(errno));
	return 0;
}

int vu_request(struct vu_dev *dev, unsigned int qi, const struct iovec *iov, int iovcnt,
	       size_t inlen, uint32_t *written)
{
	struct vu_queue *q = &dev->q[qi];
	size_t outlen = 0;
	uint64_t one = 1;
	uint16_t head = 0, slot, used;
	int i;

	if (qi >= dev->nqueues || inlen > VU_BUF_SIZE) {
		errno = EINVAL;
		return fail(dev, "bad request (queue %u, reply size %zu)", qi, inlen);
	}
	for (i = 0; i < iovcnt; i++) {
		if (outlen + iov[i].iov_len > VU_BUF_SIZE) {
			errno = E2BIG;
			return fail(dev, "request larger than %d bytes", VU_BUF_SIZE);
		}
		memcpy(q->out + outlen, iov[i].iov_base, iov[i].iov_len);
		outlen += iov[i].iov_len;
	}
	memset(q->in, 0, inlen);

	/* one request at a time: the chain is always descriptors 0 (and 1) */
	q->desc[0].addr = htole64(gpa(dev, q->out));
	q->desc[0].len = htole32(outlen);
	q->desc[0].flags = htole16(inlen ? VRING_DESC_F_NEXT : 0);
	q->desc[0].next = htole16(1);
	q->desc[1].addr = htole64(gpa(dev, q->in));
	q->desc[1].len = htole32(inlen);
	q->desc[1].flags = htole16(VRING_DESC_F_WRITE);
	q->desc[1].next = 0;

	slot = q->avail_idx % VU_QUEUE_SIZE;
	q->avail->ring[slot] = htole16(head);
	/* 2.6.13: the ring entry and the descriptors before the index */
	__atomic_store_n(&q->avail->idx, htole16(++q->avail_idx), __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (write(q->kick, &one, sizeof(one)) != sizeof(one))
		return fail(dev, "kick queue %u: %s", qi, strerror(errno));

	for (;;) {
		used = le16toh(__atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE));
		if (used != q->last_used)
			break;
		if (wait_call(dev, q))
			return -1;
	}
	slot = q->last_used++ % VU_QUEUE_SIZE;
	if (le32toh(q->used->ring[slot].id) != head) {
		errno = EPROTO;
		return fail(dev, "queue %u: the backend returned descriptor %u, not %u",
			    qi, le32toh(q->used->ring[slot].id), head);
	}
	*written = le32toh(q->used->ring[slot].len);
	if (*written > inlen) {
		errno = EPROTO;
		return fail(dev, "queue %u: the backend wrote %u bytes into %zu",
			    qi, *written, inlen);
	}
	return 0;
}

void vu_close(struct vu_dev *dev)
{
	unsigned int i;

	if (dev->sock >= 0)
		close(dev->sock);
	dev->sock = -1;
	for (i = 0; i < VU_MAX_QUEUES; i++) {
		if (dev->q[i].kick >= 0)
			close(dev->q[i].kick);
		if (dev->q[i].call >= 0)
			close(dev->q[i].call);
		dev->q[i].kick = dev->q[i].call = -1;
	}
	if (dev->mem)
		munmap(dev->mem, dev->memsize);
	dev->mem = NULL;
	if (dev->memfd >= 0)
		close(dev->memfd);
	dev->memfd = -1;
}
