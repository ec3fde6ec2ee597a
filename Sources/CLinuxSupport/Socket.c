#define _GNU_SOURCE
#include "CLinuxSupportSocket.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

int alarmd_path_kind(const char *path, uint64_t *device, uint64_t *inode) {
    struct stat status;
    if (lstat(path, &status) < 0) return errno == ENOENT ? ALARMD_PATH_MISSING : -errno;
    if (!S_ISSOCK(status.st_mode)) return ALARMD_PATH_OTHER;
    *device = (uint64_t)status.st_dev;
    *inode = (uint64_t)status.st_ino;
    return ALARMD_PATH_SOCKET;
}

// getpwuid_r and friends say ERANGE when the buffer is too small: grow it up to 1 MiB.
enum { initial_buffer = 4096, largest_buffer = 1 << 20 };

// One reentrant lookup (getpwuid_r, getgrnam_r) into `buffer`; returns its error number.
typedef int (*reentrant_lookup)(void *context, char *buffer, size_t size);

// Runs `lookup` with a buffer grown until it fits. Returns the buffer (the caller frees it; the
// entry found points into it) and stores the lookup's error number, or ENOMEM, in `failed`.
static char *lookup_with_growing_buffer(reentrant_lookup lookup, void *context, int *failed) {
    size_t size = initial_buffer;
    char *buffer = NULL;
    for (;;) {
        char *grown = realloc(buffer, size);
        if (!grown) {
            free(buffer);
            *failed = ENOMEM;
            return NULL;
        }
        buffer = grown;
        *failed = lookup(context, buffer, size);
        if (*failed != ERANGE || size >= largest_buffer) return buffer;
        size *= 2;
    }
}

struct user_lookup {
    uid_t uid;
    struct passwd entry;
    struct passwd *found;
};

static int look_up_user(void *context, char *buffer, size_t size) {
    struct user_lookup *lookup = context;
    return getpwuid_r(lookup->uid, &lookup->entry, buffer, size, &lookup->found);
}

struct group_lookup {
    const char *name;
    struct group entry;
    struct group *found;
};

static int look_up_group(void *context, char *buffer, size_t size) {
    struct group_lookup *lookup = context;
    return getgrnam_r(lookup->name, &lookup->entry, buffer, size, &lookup->found);
}

int alarmd_user_in_group(uint32_t uid, uint32_t gid) {
    struct user_lookup user = {.uid = (uid_t)uid, .found = NULL};
    int failed;
    char *buffer = lookup_with_growing_buffer(look_up_user, &user, &failed);
    if (failed || !user.found) {
        free(buffer);
        return failed ? -failed : -ENOENT;
    }
    struct passwd entry = user.entry;
    if ((uint32_t)entry.pw_gid == gid) {
        free(buffer);
        return 1;
    }
    int count = 32;
    gid_t *groups = NULL;
    int member = 0;
    for (;;) {
        gid_t *grown = realloc(groups, (size_t)count * sizeof *groups);
        if (!grown) {
            member = -ENOMEM;
            break;
        }
        groups = grown;
        int capacity = count;
        if (getgrouplist(entry.pw_name, entry.pw_gid, groups, &count) >= 0) {
            for (int i = 0; i < count; i++) {
                if ((uint32_t)groups[i] == gid) member = 1;
            }
            break;
        }
        // count now holds the number needed; guard against a library that does not set it.
        if (count <= capacity) count = capacity * 2;
        if (count > 65536) {
            member = -E2BIG;
            break;
        }
    }
    free(groups);
    free(buffer);
    return member;
}

int alarmd_group_id(const char *name, uint32_t *gid) {
    struct group_lookup group = {.name = name, .found = NULL};
    int failed;
    char *buffer = lookup_with_growing_buffer(look_up_group, &group, &failed);
    if (!failed && group.found) *gid = (uint32_t)group.entry.gr_gid;
    free(buffer);
    if (failed) return -failed;
    return group.found ? 0 : -ENOENT;
}
