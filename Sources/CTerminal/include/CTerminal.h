// The simulator's terminal: raw mode, and its restoration from a signal handler, which must be
// written in C (only async-signal-safe calls there: tcsetattr, write, sigaction, raise).
#ifndef ALARMD_CTERMINAL_H
#define ALARMD_CTERMINAL_H

/// Saves the settings of the terminal on input_fd and switches it to raw-ish mode: no echo, no
/// canonical line editing, no signals from keys (Ctrl-C arrives as byte 3), no flow control, no
/// CR-to-NL translation; output processing stays on, so "\n" still starts a new line. If
/// output_fd >= 0 it also switches output_fd to the alternate screen and hides the cursor.
///
/// Then installs signal handlers that restore the terminal first. SIGTERM, SIGHUP, SIGQUIT and
/// SIGINT are then re-raised with their default action (the process dies of the signal). SIGABRT
/// and the crash signals SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE go on to their previous
/// disposition (Swift's backtracer): re-raised, or for a real fault by returning to the faulting
/// instruction. A signal ignored on entry stays ignored. alarmd_terminal_restore puts back every
/// previous disposition.
/// Registers alarmd_terminal_restore with atexit once, so exit() restores too.
///
/// One terminal at a time per process. Returns 0, -ENOTTY if input_fd is not a terminal, -EBUSY if
/// a terminal is already raw, or another -errno.
int alarmd_terminal_enter(int input_fd, int output_fd);

/// Restores the terminal saved by alarmd_terminal_enter (settings, main screen, visible cursor)
/// and the previous signal dispositions. Does nothing if nothing is raw. Safe to call repeatedly
/// and from any thread.
void alarmd_terminal_restore(void);

/// The size of the terminal on fd, in character cells. Returns 0, or -errno (-ENOTTY if fd is not
/// a terminal).
int alarmd_terminal_size(int fd, int *rows, int *columns);

#endif
