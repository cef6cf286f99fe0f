/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vhost_user.h: a vhost-user frontend with no VM (the part QEMU plays for a
 * vhost-user-fs-pci device): the handshake over the backend's unix socket,
 * one shared memfd as "guest memory", and split virtqueues in it.
 *
 * Written from the vhost-user protocol document (docs/interop/vhost-user.rst
 * of QEMU) and the virtio 1.1 specification, 2.6 "Split Virtqueues".
 */
#ifndef VHOST_USER_H
#define VHOST_USER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define VU_MAX_QUEUES	2
#define VU_QUEUE_SIZE	16	/* descriptors per ring, a power of 2 */
#define VU_BUF_SIZE	(64 * 1024) /* each queue's request and reply buffer */

struct vu_queue {
	unsigned int index;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t avail_idx;	/* next free slot in the available ring */
	uint16_t last_used;	/* next used entry to consume */
	int kick, call;		/* eventfds: we kick, the backend calls */
	char *out, *in;		/* driver->device and device->driver buffers */
};

struct vu_dev {
	int sock;		/* the vhost-user connection */
	int memfd;
	char *mem;		/* our mapping of the "guest memory" */
	size_t memsize;
	uint64_t features;	/* negotiated virtio features */
	unsigned int nqueues;
	struct vu_queue q[VU_MAX_QUEUES];
	int timeout_ms;		/* how long a request may take */
	char err[256];		/* what went wrong, for the caller's message */
};

/*
 * Connect the frontend over sock (already connected to the backend):
 * GET_FEATURES, SET_OWNER, SET_FEATURES (VIRTIO_F_VERSION_1), SET_MEM_TABLE
 * with a fresh memfd, then per queue SET_VRING_NUM/BASE/ADDR/CALL/KICK.
 * 0 on success; -1 with dev->err set.
 */
int vu_setup(struct vu_dev *dev, int sock, unsigned int nqueues);

/*
 * One request on queue qi: the iovecs are copied into one device-readable
 * buffer, followed (if inlen) by one device-writable buffer of inlen bytes.
 * Waits until the backend returns the chain; *written is what the device
 * reports it wrote. The reply is in dev->q[qi].in. 0, or -1 with dev->err.
 */
int vu_request(struct vu_dev *dev, unsigned int qi, const struct iovec *iov, int iovcnt,
	       size_t inlen, uint32_t *written);

/* Drop the connection and the memory (the backend sees the socket close). */
void vu_close(struct vu_dev *dev);

#endif
