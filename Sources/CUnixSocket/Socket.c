#define _GNU_SOURCE
#include "CUnixSocket.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int make_address(const char *path, struct sockaddr_un *address, socklen_t *length) {
    size_t count = strlen(path);
    if (count == 0) return -EINVAL;
    if (count >= sizeof address->sun_path) return -ENAMETOOLONG;
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path, path, count + 1);
    *length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + count + 1);
    return 0;
}

int alarmd_unix_bind(const char *path) {
    struct sockaddr_un address;
    socklen_t length;
    int invalid = make_address(path, &address, &length);
    if (invalid) return invalid;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (bind(fd, (struct sockaddr *)&address, length) < 0) {
        int saved = errno;
        close(fd);
        return -saved;
    }
    return fd;
}

int alarmd_unix_accept(int listen_fd) {
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) return fd;
        if (errno != EINTR) return -errno;
    }
}

static int set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return -errno;
    return 0;
}

int alarmd_unix_connect(const char *path) {
    struct sockaddr_un address;
    socklen_t length;
    int invalid = make_address(path, &address, &length);
    if (invalid) return invalid;
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return -errno;
        if (connect(fd, (struct sockaddr *)&address, length) == 0) {
            int failed = set_nonblocking(fd);
            if (failed) {
                close(fd);
                return failed;
            }
            return fd;
        }
        int saved = errno;
        close(fd);
        // An interrupted connect leaves the socket in an unspecified state: start over.
        if (saved != EINTR) return -saved;
    }
}

int alarmd_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) < 0) return -errno;
    *pid = (int32_t)credentials.pid;
    *uid = (uint32_t)credentials.uid;
    *gid = (uint32_t)credentials.gid;
    return 0;
}

ssize_t alarmd_socket_send(int fd, const void *bytes, size_t count) {
    for (;;) {
        ssize_t sent = send(fd, bytes, count, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent >= 0) return sent;
        if (errno != EINTR) return -errno;
    }
}

ssize_t alarmd_socket_receive(int fd, void *buffer, size_t capacity) {
    for (;;) {
        ssize_t received = recv(fd, buffer, capacity, MSG_DONTWAIT);
        if (received >= 0) return received;
        if (errno != EINTR) return -errno;
    }
}
