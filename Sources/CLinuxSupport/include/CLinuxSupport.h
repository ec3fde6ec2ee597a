// Linux interfaces that Swift's Glibc module does not export (it is built without _GNU_SOURCE,
// so sys/timerfd.h and sys/eventfd.h are missing there).
#ifndef ALARMD_CLINUXSUPPORT_H
#define ALARMD_CLINUXSUPPORT_H

#include <stdint.h>

/// How alarmd_wait_realtime returned.
enum alarmd_wait_result {
    ALARMD_WAIT_DEADLINE = 0,     ///< CLOCK_REALTIME reached the deadline.
    ALARMD_WAIT_CLOCK_SET = 1,    ///< CLOCK_REALTIME was set (a jump) before the deadline.
    ALARMD_WAIT_CANCELLED = 2,    ///< cancel_fd became readable.
};

/// Blocks the calling thread until the wall clock reaches the absolute instant sec.nsec
/// (CLOCK_REALTIME), until the wall clock is set by anyone (timerfd with
/// TFD_TIMER_CANCEL_ON_SET), or until cancel_fd is readable, whichever comes first.
/// Returns an alarmd_wait_result, or -errno if the timer could not be created or armed.
int alarmd_wait_realtime(int64_t sec, int64_t nsec, int cancel_fd);

/// Creates a non-blocking, close-on-exec eventfd used to cancel a wait. Returns -errno on failure.
int alarmd_eventfd_create(void);

/// Makes an eventfd readable. Returns 0 or -errno.
int alarmd_eventfd_signal(int fd);

/// CLOCK_BOOTTIME in nanoseconds: monotonic, and it keeps counting while the system is suspended.
int64_t alarmd_boottime_nanoseconds(void);

/// Whether the kernel considers the system clock synchronised (adjtimex: not TIME_ERROR and
/// STA_UNSYNC clear), as NTP daemons such as systemd-timesyncd and chrony leave it.
int alarmd_clock_is_synchronized(void);

#endif
