#define _GNU_SOURCE
#include "CLinuxSupport.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

int alarmd_realtime_timer_set(int timer, int64_t sec, int64_t nsec) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)sec;
    spec.it_value.tv_nsec = (long)nsec;
    // An it_value of zero would disarm the timer: a deadline at the epoch is already past anyway.
    if (spec.it_value.tv_sec <= 0 && spec.it_value.tv_nsec <= 0) spec.it_value.tv_nsec = 1;
    return timerfd_settime(timer, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL) < 0 ? -errno : 0;
}

int alarmd_realtime_timer_create(int64_t sec, int64_t nsec) {
    int timer = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    if (timer < 0) return -errno;
    int result = alarmd_realtime_timer_set(timer, sec, nsec);
    if (result < 0) {
        close(timer);
        return result;
    }
    return timer;
}

int alarmd_realtime_timer_wait(int timer, int cancel_fd) {
    struct pollfd fds[2] = {
        {.fd = timer, .events = POLLIN},
        {.fd = cancel_fd, .events = POLLIN},
    };
    for (;;) {
        int ready = poll(fds, cancel_fd >= 0 ? 2 : 1, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (cancel_fd >= 0 && (fds[1].revents & POLLIN)) return ALARMD_WAIT_CANCELLED;
        if (fds[0].revents & POLLIN) {
            uint64_t expirations;
            // The kernel reports a clock set as ECANCELED from read(2).
            if (read(timer, &expirations, sizeof expirations) < 0) {
                if (errno == ECANCELED) return ALARMD_WAIT_CLOCK_SET;
                if (errno == EAGAIN || errno == EINTR) continue;
                return -errno;
            }
            return ALARMD_WAIT_DEADLINE;
        }
    }
}

int alarmd_eventfd_create(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

int alarmd_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) < 0 ? -errno : 0;
}

int alarmd_eventfd_drain(int fd) {
    uint64_t count;
    return read(fd, &count, sizeof count) < 0 ? -errno : 0;
}

int64_t alarmd_boottime_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int alarmd_clock_is_synchronized(void) {
    struct timex status = {0};
    int state = adjtimex(&status);
    if (state < 0) return -errno;
    return state != TIME_ERROR && !(status.status & STA_UNSYNC);
}
