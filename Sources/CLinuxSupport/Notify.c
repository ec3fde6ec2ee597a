#include "CLinuxSupportNotify.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/// Fills `sockaddr` for `address`; returns the address length to pass to the kernel, or -EINVAL.
static int make_address(const char *address, struct sockaddr_un *sockaddr) {
    size_t length = strlen(address);
    memset(sockaddr, 0, sizeof(*sockaddr));
    sockaddr->sun_family = AF_UNIX;
    if (address[0] == '@') {
        // Abstract: sun_path starts with NUL and the name is exactly the following bytes, with no
        // terminator counted: "@x" and "@x\0" would be two different sockets.
        if (length < 2 || length > sizeof(sockaddr->sun_path)) return -EINVAL;
        memcpy(sockaddr->sun_path + 1, address + 1, length - 1);
        return (int)(offsetof(struct sockaddr_un, sun_path) + length);
    }
    if (address[0] != '/' || length >= sizeof(sockaddr->sun_path)) return -EINVAL;
    memcpy(sockaddr->sun_path, address, length);
    return (int)(offsetof(struct sockaddr_un, sun_path) + length + 1);
}

int alarmd_notify_send(const char *address, const void *message, size_t length) {
    struct sockaddr_un sockaddr;
    int address_length = make_address(address, &sockaddr);
    if (address_length < 0) return address_length;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    ssize_t sent;
    do {
        sent = sendto(fd, message, length, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sockaddr, (socklen_t)address_length);
    } while (sent < 0 && errno == EINTR);
    int result = sent < 0 ? -errno : ((size_t)sent == length ? 0 : -EMSGSIZE);
    close(fd);
    return result;
}
