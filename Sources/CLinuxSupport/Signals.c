#define _GNU_SOURCE
#include "CLinuxSupport.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static volatile sig_atomic_t signal_descriptor = -1;
static volatile sig_atomic_t last_signal = 0;

// Only async-signal-safe calls here: write(2) on an eventfd never blocks once it is non-blocking.
static void note_signal(int number) {
    int saved = errno;
    last_signal = number;
    uint64_t one = 1;
    if (write(signal_descriptor, &one, sizeof one) < 0) {
        // A full counter is still readable: nothing is lost.
    }
    errno = saved;
}

int alarmd_signals_to_eventfd(const int *signals, int count) {
    if (signal_descriptor >= 0) return -EALREADY;
    int descriptor = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (descriptor < 0) return -errno;
    signal_descriptor = descriptor;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = note_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < count; i++) {
        if (sigaction(signals[i], &action, NULL) < 0) return -errno;
    }
    return descriptor;
}

int alarmd_signals_unblock(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    return -pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int alarmd_signals_last(void) {
    return last_signal;
}
