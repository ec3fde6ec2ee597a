// What does not depend on the libgpiod version: finding a chip, waiting, the clocks.
#define _GNU_SOURCE
#include "api.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int alarmd_gpio_api_version(void) {
    return ALARMD_GPIOD_API;
}

static int is_number(const char *text) {
    if (*text == '\0') return 0;
    for (; *text; text++) {
        if (*text < '0' || *text > '9') return 0;
    }
    return 1;
}

/// Opens every /dev/gpiochip* in turn and keeps the one labelled `label`.
static int open_by_label(const char *label, alarmd_gpio_chip **out) {
    DIR *dev = opendir("/dev");
    if (!dev) return -errno;
    int result = -ENOENT;
    struct dirent *entry;
    while ((entry = readdir(dev)) != NULL) {
        if (strncmp(entry->d_name, "gpiochip", 8) != 0) continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/%s", entry->d_name);
        alarmd_gpio_chip *chip = NULL;
        int opened = alarmd_gpio_open_path(path, &chip);
        if (opened < 0) {
            // A chip we may not open might be the one: say so rather than "no such chip".
            if (opened == -EACCES || opened == -EPERM) result = opened;
            continue;
        }
        if (strcmp(chip->label, label) == 0) {
            *out = chip;
            result = 0;
            break;
        }
        alarmd_gpio_chip_close(chip);
    }
    closedir(dev);
    return result;
}

int alarmd_gpio_chip_open(const char *chip, alarmd_gpio_chip **out) {
    if (!chip || !out) return -EINVAL;
    *out = NULL;
    char path[300];
    if (strchr(chip, '/')) return alarmd_gpio_open_path(chip, out);
    if (is_number(chip)) {
        snprintf(path, sizeof path, "/dev/gpiochip%s", chip);
        return alarmd_gpio_open_path(path, out);
    }
    if (strlen(chip) > 200) return -ENAMETOOLONG;
    snprintf(path, sizeof path, "/dev/%s", chip);
    int result = alarmd_gpio_open_path(path, out);
    if (result != -ENOENT) return result;
    return open_by_label(chip, out);
}

void alarmd_gpio_chip_close(alarmd_gpio_chip *chip) {
    if (!chip) return;
    if (chip->chip) gpiod_chip_close(chip->chip);
    free(chip->name);
    free(chip->label);
    free(chip);
}

const char *alarmd_gpio_chip_name(const alarmd_gpio_chip *chip) {
    return chip->name;
}

int alarmd_gpio_chip_line_count(const alarmd_gpio_chip *chip) {
    return (int)chip->line_count;
}

int alarmd_gpio_fd_readable(int fd) {
    struct pollfd entry = {.fd = fd, .events = POLLIN};
    for (;;) {
        int ready = poll(&entry, 1, 0);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return -errno;
        if (ready == 0) return 0;
        if (entry.revents & POLLIN) return 1;
        // POLLERR, POLLHUP: the chip went away under the line.
        return -ENODEV;
    }
}

int64_t alarmd_gpio_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int64_t boottime_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int64_t alarmd_gpio_boottime_offset_ns(void) {
    // Bracket the BOOTTIME reading with two MONOTONIC ones; the midpoint is within a few
    // hundred nanoseconds, unless the thread was preempted in between (then it errs by that).
    int64_t before = alarmd_gpio_monotonic_ns();
    int64_t boot = boottime_ns();
    int64_t after = alarmd_gpio_monotonic_ns();
    int64_t offset = boot - (before + (after - before) / 2);
    // Never negative in truth; with no suspend yet, reading noise could make it so.
    return offset > 0 ? offset : 0;
}

int alarmd_gpio_wait(const int *fds, int count, int64_t deadline_ns, short *revents) {
    enum { capacity = 16 };
    if (count < 0 || count > capacity || (count > 0 && (!fds || !revents))) return -EINVAL;
    struct pollfd entries[capacity];
    for (int i = 0; i < count; i++) {
        entries[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        revents[i] = 0;
    }
    for (;;) {
        struct timespec remaining, *timeout = NULL;
        if (deadline_ns >= 0) {
            // The deadline is absolute, so waking early or late never accumulates drift.
            int64_t left = deadline_ns - alarmd_gpio_monotonic_ns();
            if (left <= 0) return 0;
            remaining.tv_sec = (time_t)(left / 1000000000);
            remaining.tv_nsec = (long)(left % 1000000000);
            timeout = &remaining;
        }
        int ready = ppoll(entries, (nfds_t)count, timeout, NULL);
        if (ready < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (ready == 0) continue;  // the deadline check above ends it
        for (int i = 0; i < count; i++) revents[i] = entries[i].revents;
        return ready;
    }
}
