// Unix stream sockets for the control socket: what Swift's Glibc module lacks (accept4, struct
// ucred and SO_PEERCRED, MSG_NOSIGNAL, getgrouplist need _GNU_SOURCE or are awkward from Swift:
// sockaddr_un is a fixed C array).
#ifndef ALARMD_CLINUXSUPPORT_SOCKET_H
#define ALARMD_CLINUXSUPPORT_SOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// What is at a path, for removing a stale socket but nothing else.
enum alarmd_path_kind {
    ALARMD_PATH_MISSING = 0,
    ALARMD_PATH_SOCKET = 1,
    ALARMD_PATH_OTHER = 2,
};

/// Creates a non-blocking, close-on-exec Unix stream socket bound to path (not yet listening, so
/// nobody can connect while the caller sets the file's mode and group). Returns the descriptor,
/// or -errno (-ENAMETOOLONG for a path longer than sun_path allows, -EADDRINUSE if path exists).
int alarmd_unix_bind(const char *path);

/// Accepts one connection as a non-blocking, close-on-exec descriptor. Retries EINTR. Returns the
/// descriptor, or -errno (-EAGAIN when nobody is waiting).
int alarmd_unix_accept(int listen_fd);

/// Connects a new close-on-exec Unix stream socket to path and then makes it non-blocking.
/// Returns the descriptor, or -errno (-ENOENT: no socket; -ECONNREFUSED: nobody listens;
/// -EACCES: the file's mode or group keeps the caller out).
int alarmd_unix_connect(const char *path);

/// The peer's credentials as the kernel recorded them at connect time (SO_PEERCRED): the
/// effective uid and gid of the connecting thread, and its process id. Returns 0 or -errno.
int alarmd_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid);

/// Sends up to count bytes without blocking and without SIGPIPE (MSG_DONTWAIT | MSG_NOSIGNAL).
/// Retries EINTR. Returns the number sent, or -errno (-EAGAIN when the socket buffer is full,
/// -EPIPE when the peer is gone).
ssize_t alarmd_socket_send(int fd, const void *bytes, size_t count);

/// Receives up to capacity bytes without blocking. Retries EINTR. Returns the number received
/// (0 at end of stream), or -errno (-EAGAIN when nothing is waiting).
ssize_t alarmd_socket_receive(int fd, void *buffer, size_t capacity);

/// What is at path (lstat, so a symbolic link is ALARMD_PATH_OTHER). On ALARMD_PATH_SOCKET the
/// device and inode are stored, so a caller can later remove the file only if it is still its
/// own. Returns an alarmd_path_kind, or -errno for anything but ENOENT.
int alarmd_path_kind(const char *path, uint64_t *device, uint64_t *inode);

/// Whether the user uid belongs to the group gid in the account database: its primary group or
/// a supplementary one (getpwuid_r + getgrouplist). Returns 1 or 0, -ENOENT for an unknown uid,
/// or another -errno.
int alarmd_user_in_group(uint32_t uid, uint32_t gid);

/// The id of the group called name (getgrnam_r). Returns 0, -ENOENT if there is no such group,
/// or another -errno.
int alarmd_group_id(const char *name, uint32_t *gid);

#endif
