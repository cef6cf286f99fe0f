/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nsutil.h: user namespace helpers shared by tools/xattrd, tools/vhostfs
 * and tools/xattr-bench (the kselftests keep their own, in xattr_util.h,
 * so that they stay self-contained in the kernel tree).
 */
#ifndef NSUTIL_H
#define NSUTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static inline int ns_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* Wait for pid: its exit status, 128 + signal, or -1. */
static inline int ns_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * A new user namespace with map as its uid and gid map, as an fd for
 * setns(): a child unshares, we (root of the parent) write the maps, as
 * newuidmap would for an unprivileged daemon. -1 on failure.
 */
static inline int ns_userns_fd(const char *map)
{
	int ready[2], done[2], fd = -1;
	char path[64], c;
	pid_t pid;

	if (pipe(ready))
		return -1;
	if (pipe(done)) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(done[1]);
		if (unshare(CLONE_NEWUSER) || write(ready[1], "u", 1) != 1 ||
		    read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(done[0]);
	if (pid > 0 && read(ready[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		if (!ns_write_str(path, map)) {
			snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
			if (!ns_write_str(path, map)) {
				snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
				fd = open(path, O_RDONLY | O_CLOEXEC);
			}
		}
	}
	close(ready[0]);
	close(done[1]);
	if (pid > 0)
		ns_wait(pid);
	return fd;
}

/* Become uid:uid with no supplementary groups, and stay dumpable. */
static inline int ns_become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

/* Enter a new user namespace with map, as its uid 0. */
static inline int ns_enter(const char *map)
{
	int fd = ns_userns_fd(map);

	if (fd < 0)
		return -1;
	if (setns(fd, CLONE_NEWUSER) || ns_become(0)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * As an unprivileged process: a new user namespace whose uid 0 and gid 0
 * are our own uid and gid, the one mapping such a process may write
 * (what `unshare -r` does). We are its root, with every capability in it.
 */
static inline int ns_unshare_self(void)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", uid);
	if (ns_write_str("/proc/self/setgroups", "deny") ||
	    ns_write_str("/proc/self/uid_map", map))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", gid);
	return ns_write_str("/proc/self/gid_map", map) ? -1 : 0;
}

#endif
