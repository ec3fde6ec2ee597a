// What the tests need from C and the products do not: connecting as another user, and a
// pseudo-terminal to stand in for the simulator's terminal.
#ifndef ALARMD_CTESTSUPPORT_H
#define ALARMD_CTESTSUPPORT_H

#include <stdint.h>

/// Like alarmd_unix_connect, but connects from a private thread whose effective uid and gid (and
/// only supplementary group) are uid and gid, so the server's SO_PEERCRED sees that user. Only
/// that thread's credentials change (raw setresuid/setresgid/setgroups system calls, which act on
/// the calling thread alone); the thread ends right after. Needs CAP_SETUID and CAP_SETGID
/// (root): -EPERM otherwise.
int alarmd_unix_connect_as(const char *path, uint32_t uid, uint32_t gid);

/// Sets the size the terminal on fd reports (what a terminal emulator does on a resize).
/// Returns 0 or -errno.
int alarmd_terminal_set_size(int fd, int rows, int columns);

/// Opens a new pseudo-terminal pair (Swift's Glibc module lacks posix_openpt): the controlling
/// side, which a terminal emulator reads and writes, and the terminal a program sees. Both
/// close-on-exec, neither becomes the controlling terminal. Returns 0 or -errno.
int alarmd_pseudo_terminal_open(int *controller, int *terminal);

#endif
