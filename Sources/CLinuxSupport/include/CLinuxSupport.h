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

/// Creates a CLOCK_REALTIME timerfd armed for the absolute instant sec.nsec with
/// TFD_TIMER_CANCEL_ON_SET, so that it also reports any later setting of the wall clock.
/// Returns the descriptor, or -errno.
int alarmd_realtime_timer_create(int64_t sec, int64_t nsec);

/// Re-arms a timer from alarmd_realtime_timer_create for the absolute instant sec.nsec, with
/// TFD_TIMER_CANCEL_ON_SET. Returns 0 or -errno.
int alarmd_realtime_timer_set(int timer_fd, int64_t sec, int64_t nsec);

/// Blocks the calling thread until the timer from alarmd_realtime_timer_create expires, the wall
/// clock is set, or cancel_fd is readable, whichever comes first. Does not close either
/// descriptor. Returns an alarmd_wait_result, or -errno.
int alarmd_realtime_timer_wait(int timer_fd, int cancel_fd);

/// Creates a non-blocking, close-on-exec eventfd used to cancel a wait. Returns -errno on failure.
int alarmd_eventfd_create(void);

/// Makes an eventfd readable. Returns 0 or -errno.
int alarmd_eventfd_signal(int fd);

/// Reads an eventfd's count, so it is no longer readable. Returns 0, or -errno (-EAGAIN when it
/// was not readable).
int alarmd_eventfd_drain(int fd);

/// CLOCK_BOOTTIME in nanoseconds: monotonic, and it keeps counting while the system is suspended.
int64_t alarmd_boottime_nanoseconds(void);

/// Whether the kernel considers the system clock synchronised (adjtimex: not TIME_ERROR and
/// STA_UNSYNC clear), as NTP daemons such as systemd-timesyncd and chrony leave it: 1 or 0, or
/// -errno when the state cannot be read (glibc's adjtimex is the clock_adjtime system call, which
/// a seccomp filter may forbid).
int alarmd_clock_is_synchronized(void);

#endif
