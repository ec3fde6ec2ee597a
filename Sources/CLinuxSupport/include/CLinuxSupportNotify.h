// systemd's notification protocol (sd_notify) without libsystemd: datagrams on an AF_UNIX socket.
// struct sockaddr_un and abstract addresses (a leading NUL, a length that counts the name only)
// are awkward from Swift, so the addressing is done here.
#ifndef ALARMD_CLINUXSUPPORT_NOTIFY_H
#define ALARMD_CLINUXSUPPORT_NOTIFY_H

#include <stddef.h>

/// Sends `message` (`length` bytes) as one datagram to the AF_UNIX SOCK_DGRAM socket at
/// `address`: an absolute path, or an abstract name written with a leading '@' as NOTIFY_SOCKET
/// writes it. Like sd_notify, it opens a socket for the call and closes it again, so a manager
/// that re-created its socket (systemctl daemon-reexec) is still reached. Never blocks (a full
/// queue is -EAGAIN) and never raises SIGPIPE; retries EINTR. Returns 0, or -errno (-EINVAL for an
/// address that is neither, or too long).
int alarmd_notify_send(const char *address, const void *message, size_t length);

#endif
