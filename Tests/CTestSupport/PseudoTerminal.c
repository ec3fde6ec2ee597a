#define _GNU_SOURCE
#include "CTestSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

int alarmd_terminal_set_size(int fd, int rows, int columns) {
    struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)columns};
    return ioctl(fd, TIOCSWINSZ, &size) == 0 ? 0 : -errno;
}

int alarmd_pseudo_terminal_open(int *controller, int *terminal) {
    int control = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (control < 0) return -errno;
    char name[128];
    if (grantpt(control) != 0 || unlockpt(control) != 0 || ptsname_r(control, name, sizeof name) != 0) {
        int saved_errno = errno;
        close(control);
        return -saved_errno;
    }
    int program_side = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (program_side < 0) {
        int saved_errno = errno;
        close(control);
        return -saved_errno;
    }
    *controller = control;
    *terminal = program_side;
    return 0;
}
