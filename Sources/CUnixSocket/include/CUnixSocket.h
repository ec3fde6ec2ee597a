// Unix stream sockets for the control socket, used by its server and by every client: what Swift's
// Glibc module lacks (accept4 and struct ucred need _GNU_SOURCE) or makes awkward (sockaddr_un is
// a fixed C array).
#ifndef ALARMD_CUNIXSOCKET_H
#define ALARMD_CUNIXSOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

#endif
