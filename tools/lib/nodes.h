/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nodes.h: make one node of each file type, as the C tools' test trees
 * need them (tools/compare, tools/xattr-archive, tools/xattr-containers).
 * The kselftests keep their own (xt_mknode() in xattr_util.h), so that
 * they stay self-contained in the kernel tree.
 */
#ifndef TOOLS_NODES_H
#define TOOLS_NODES_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

/* a node of a tool's test tree: its name there and its file type */
struct tl_node {
	const char *name;
	mode_t type;
};
#define TL_NR(table)	(sizeof(table) / sizeof((table)[0]))

/*
 * tl_mknode(path, type, perm): a node of type (S_IFREG, S_IFDIR, S_IFLNK
 * to "file", S_IFIFO, S_IFSOCK bound and closed, S_IFCHR 1:3 (/dev/null's
 * numbers), S_IFBLK 7:0 (a loop device's)) at path; the umask applies.
 * perm 0: 0666 for regular files and character devices, 0660 for block
 * devices, 0644 for FIFOs, 0755 for directories. Returns 0, or -1 with
 * errno.
 */
static inline int tl_mknode(const char *path, mode_t type, mode_t perm)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, ret = 0;

	switch (type) {
	case S_IFREG:
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, perm ?: 0666);
		ret = fd < 0 ? -1 : close(fd);
		break;
	case S_IFDIR:
		ret = mkdir(path, perm ?: 0755);
		break;
	case S_IFLNK:
		ret = symlink("file", path);
		break;
	case S_IFIFO:
		ret = mknod(path, S_IFIFO | (perm ?: 0644), 0);
		break;
	case S_IFCHR:
		ret = mknod(path, S_IFCHR | (perm ?: 0666), makedev(1, 3));
		break;
	case S_IFBLK:
		ret = mknod(path, S_IFBLK | (perm ?: 0660), makedev(7, 0));
		break;
	case S_IFSOCK:
		if (strlen(path) >= sizeof(sun.sun_path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(sun.sun_path, path, strlen(path) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ret = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sun, sizeof(sun));
		if (fd >= 0)
			close(fd);
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return ret;
}

#endif
