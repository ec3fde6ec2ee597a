// The shim over libgpiod 1.x (Debian and Raspberry Pi OS bookworm): one lineevent descriptor per
// requested input line, no kernel debounce in this API.
#define _GNU_SOURCE  // strdup
#include "api.h"

#if ALARMD_GPIOD_API == 1

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES > 0, "<gpiod.h> is not libgpiod 1.x");

struct alarmd_gpio_line {
    struct gpiod_line *line;
};

const char *alarmd_gpio_library_version(void) {
    return gpiod_version_string();
}

static char *copy(const char *text) {
    return strdup(text ? text : "");
}

int alarmd_gpio_open_path(const char *path, alarmd_gpio_chip **out) {
    errno = 0;
    struct gpiod_chip *handle = gpiod_chip_open(path);
    if (!handle) return errno ? -errno : -ENODEV;
    alarmd_gpio_chip *chip = calloc(1, sizeof *chip);
    if (!chip) {
        gpiod_chip_close(handle);
        return -ENOMEM;
    }
    chip->chip = handle;
    chip->name = copy(gpiod_chip_name(handle));
    chip->label = copy(gpiod_chip_label(handle));
    chip->line_count = gpiod_chip_num_lines(handle);
    if (!chip->name || !chip->label) {
        alarmd_gpio_chip_close(chip);
        return -ENOMEM;
    }
    *out = chip;
    return 0;
}

int alarmd_gpio_chip_find_line(alarmd_gpio_chip *chip, const char *name) {
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip->chip, name);
    if (!line) return errno ? -errno : -ENOENT;
    return (int)gpiod_line_offset(line);
}

static int request(
    alarmd_gpio_chip *chip, unsigned int offset, const char *consumer, int type, int flags, int value,
    alarmd_gpio_line **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    if (offset >= chip->line_count) return -ENOENT;
    errno = 0;
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line) return errno ? -errno : -EINVAL;
    alarmd_gpio_line *result = calloc(1, sizeof *result);
    if (!result) return -ENOMEM;
    struct gpiod_line_request_config config = {.consumer = consumer, .request_type = type, .flags = flags};
    errno = 0;
    if (gpiod_line_request(line, &config, value) < 0) {
        int saved = errno ? errno : EIO;
        free(result);
        return -saved;
    }
    result->line = line;
    *out = result;
    return 0;
}

int alarmd_gpio_request_input(
    alarmd_gpio_chip *chip, unsigned int offset, const char *consumer, int bias, int active_low,
    uint32_t debounce_us, alarmd_gpio_line **out) {
    if (debounce_us != 0) return -EOPNOTSUPP;
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    switch (bias) {
    case ALARMD_GPIO_BIAS_AS_IS: break;
    case ALARMD_GPIO_BIAS_DISABLED: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
    case ALARMD_GPIO_BIAS_PULL_UP: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
    case ALARMD_GPIO_BIAS_PULL_DOWN: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
    default: return -EINVAL;
    }
    return request(chip, offset, consumer, GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES, flags, 0, out);
}

int alarmd_gpio_request_output(
    alarmd_gpio_chip *chip, unsigned int offset, const char *consumer, int active_low, int value,
    alarmd_gpio_line **out) {
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    return request(chip, offset, consumer, GPIOD_LINE_REQUEST_DIRECTION_OUTPUT, flags, value ? 1 : 0, out);
}

void alarmd_gpio_line_release(alarmd_gpio_line *line) {
    if (!line) return;
    gpiod_line_release(line->line);
    free(line);
}

int alarmd_gpio_line_event_fd(const alarmd_gpio_line *line) {
    int fd = gpiod_line_event_get_fd(line->line);
    return fd < 0 ? -EBADF : fd;
}

int alarmd_gpio_line_read_events(alarmd_gpio_line *line, struct alarmd_gpio_edge_event *events, size_t capacity) {
    enum { batch = 16 };
    int fd = gpiod_line_event_get_fd(line->line);
    if (fd < 0) return -EBADF;
    // gpiod_line_event_read_fd_multiple blocks when nothing is queued: look first.
    int readable = alarmd_gpio_fd_readable(fd);
    if (readable <= 0) return readable;
    struct gpiod_line_event read[batch];
    unsigned int wanted = capacity < batch ? (unsigned int)capacity : batch;
    errno = 0;
    int count = gpiod_line_event_read_fd_multiple(fd, read, wanted);
    if (count < 0) return errno ? -errno : -EIO;
    unsigned int offset = gpiod_line_offset(line->line);
    for (int i = 0; i < count; i++) {
        events[i].timestamp_ns = (uint64_t)read[i].ts.tv_sec * 1000000000u + (uint64_t)read[i].ts.tv_nsec;
        events[i].offset = offset;
        events[i].rising = read[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
    }
    return count;
}

int alarmd_gpio_line_get_value(alarmd_gpio_line *line) {
    errno = 0;
    int value = gpiod_line_get_value(line->line);
    return value < 0 ? (errno ? -errno : -EIO) : value;
}

int alarmd_gpio_line_set_value(alarmd_gpio_line *line, int value) {
    errno = 0;
    return gpiod_line_set_value(line->line, value ? 1 : 0) < 0 ? (errno ? -errno : -EIO) : 0;
}

#endif
