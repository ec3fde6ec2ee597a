// Signals delivered as a readable eventfd, with no libdispatch signal source (whose queue would
// start libdispatch's worker pool, and with it a timer that wakes the process every second).
#ifndef ALARMD_CLINUXSUPPORT_SIGNALS_H
#define ALARMD_CLINUXSUPPORT_SIGNALS_H

/// Installs a handler for each of `signals` (`count` of them) that makes the returned eventfd
/// readable (non-blocking, close-on-exec) and records the signal. Once per process; -EALREADY
/// after that. Returns the descriptor, or -errno.
int alarmd_signals_to_eventfd(const int *signals, int count);

/// Unblocks `signals` for the calling thread: a process started with them blocked (a child of a
/// thread that blocks them, as libdispatch's workers do) still has one thread they reach, and
/// the handler runs there. Returns 0 or -errno.
int alarmd_signals_unblock(const int *signals, int count);

/// The number of the signal last caught by the handler of alarmd_signals_to_eventfd; 0 if none.
int alarmd_signals_last(void);

#endif
