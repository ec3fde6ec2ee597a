// The shim over libgpiod 2.x (Debian and Raspberry Pi OS trixie): one line request per line,
// kernel debounce, event timestamps on CLOCK_MONOTONIC.
#define _GNU_SOURCE  // strdup
#include "api.h"

#if ALARMD_GPIOD_API == 2

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GPIOD_LINE_CLOCK_MONOTONIC > 0, "<gpiod.h> is not libgpiod 2.x");

struct alarmd_gpio_line {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
    unsigned int offset;
};

enum { event_batch = 16 };

const char *alarmd_gpio_library_version(void) {
    return gpiod_api_version();
}

static int failure(void) {
    return errno ? -errno : -EIO;
}

int alarmd_gpio_open_path(const char *path, alarmd_gpio_chip **out) {
    errno = 0;
    struct gpiod_chip *handle = gpiod_chip_open(path);
    if (!handle) return errno ? -errno : -ENODEV;
    struct gpiod_chip_info *info = gpiod_chip_get_info(handle);
    if (!info) {
        int result = failure();
        gpiod_chip_close(handle);
        return result;
    }
    alarmd_gpio_chip *chip = calloc(1, sizeof *chip);
    if (chip) {
        chip->chip = handle;
        chip->name = strdup(gpiod_chip_info_get_name(info));
        chip->label = strdup(gpiod_chip_info_get_label(info));
        chip->line_count = (unsigned int)gpiod_chip_info_get_num_lines(info);
    }
    gpiod_chip_info_free(info);
    if (!chip) {
        gpiod_chip_close(handle);
        return -ENOMEM;
    }
    if (!chip->name || !chip->label) {
        alarmd_gpio_chip_close(chip);
        return -ENOMEM;
    }
    *out = chip;
    return 0;
}

int alarmd_gpio_chip_find_line(alarmd_gpio_chip *chip, const char *name) {
    errno = 0;
    int offset = gpiod_chip_get_line_offset_from_name(chip->chip, name);
    return offset < 0 ? (errno ? -errno : -ENOENT) : offset;
}

/// Requests one line with `settings`; frees nothing it was given.
static int request(
    alarmd_gpio_chip *chip, unsigned int offset, const char *consumer, struct gpiod_line_settings *settings,
    int with_events, alarmd_gpio_line **out) {
    if (offset >= chip->line_count) return -ENOENT;
    struct gpiod_line_config *lines = gpiod_line_config_new();
    struct gpiod_request_config *config = gpiod_request_config_new();
    alarmd_gpio_line *line = calloc(1, sizeof *line);
    int result = 0;
    if (!lines || !config || !line) {
        result = -ENOMEM;
        goto done;
    }
    if (gpiod_line_config_add_line_settings(lines, &offset, 1, settings) < 0) {
        result = failure();
        goto done;
    }
    gpiod_request_config_set_consumer(config, consumer);
    if (with_events) {
        line->buffer = gpiod_edge_event_buffer_new(event_batch);
        if (!line->buffer) {
            result = -ENOMEM;
            goto done;
        }
    }
    errno = 0;
    line->request = gpiod_chip_request_lines(chip->chip, config, lines);
    if (!line->request) {
        result = failure();
        goto done;
    }
    line->offset = offset;
    *out = line;
    line = NULL;
done:
    if (line) {
        if (line->buffer) gpiod_edge_event_buffer_free(line->buffer);
        free(line);
    }
    gpiod_request_config_free(config);
    gpiod_line_config_free(lines);
    return result;
}

int alarmd_gpio_request_input(
    alarmd_gpio_chip *chip, unsigned int offset, const char *consumer, int bias, int active_low,
    uint32_t debounce_us, alarmd_gpio_line **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    enum gpiod_line_bias value;
    switch (bias) {
    case ALARMD_GPIO_BIAS_AS_IS: value = GPIOD_LINE_BIAS_AS_IS; break;
    case ALARMD_GPIO_BIAS_DISABLED: value = GPIOD_LINE_BIAS_DISABLED; break;
    case ALARMD_GPIO_BIAS_PULL_UP: value = GPIOD_LINE_BIAS_PULL_UP; break;
    case ALARMD_GPIO_BIAS_PULL_DOWN: value = GPIOD_LINE_BIAS_PULL_DOWN; break;
    default: return -EINVAL;
    }
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) return -ENOMEM;
    int result = 0;
    if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) < 0
        || gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH) < 0
        || gpiod_line_settings_set_bias(settings, value) < 0
        // The uAPI offers MONOTONIC, REALTIME and HTE, not BOOTTIME; the Swift side converts.
        || gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC) < 0) {
        result = failure();
    } else {
        gpiod_line_settings_set_active_low(settings, active_low != 0);
        gpiod_line_settings_set_debounce_period_us(settings, debounce_us);
        result = request(chip, offset, consumer, settings, 1, out);
    }
    gpiod_line_settings_free(settings);
    return result;
}

int alarmd_gpio_request_output(
    alarmd_gpio_chip *chip, unsigned int offset, const char *consumer, int active_low, int value,
    alarmd_gpio_line **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) return -ENOMEM;
    int result = 0;
    if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) < 0
        || gpiod_line_settings_set_output_value(
               settings, value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE) < 0) {
        result = failure();
    } else {
        gpiod_line_settings_set_active_low(settings, active_low != 0);
        result = request(chip, offset, consumer, settings, 0, out);
    }
    gpiod_line_settings_free(settings);
    return result;
}

void alarmd_gpio_line_release(alarmd_gpio_line *line) {
    if (!line) return;
    gpiod_line_request_release(line->request);
    if (line->buffer) gpiod_edge_event_buffer_free(line->buffer);
    free(line);
}

int alarmd_gpio_line_event_fd(const alarmd_gpio_line *line) {
    return line->buffer ? gpiod_line_request_get_fd(line->request) : -EBADF;
}

int alarmd_gpio_line_read_events(alarmd_gpio_line *line, struct alarmd_gpio_edge_event *events, size_t capacity) {
    if (!line->buffer) return -EBADF;
    // gpiod_line_request_read_edge_events blocks when nothing is queued: look first.
    int readable = alarmd_gpio_fd_readable(gpiod_line_request_get_fd(line->request));
    if (readable <= 0) return readable;
    size_t wanted = capacity < event_batch ? capacity : event_batch;
    errno = 0;
    int count = gpiod_line_request_read_edge_events(line->request, line->buffer, wanted);
    if (count < 0) return failure();
    for (int i = 0; i < count; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->buffer, (unsigned long)i);
        events[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
        events[i].offset = gpiod_edge_event_get_line_offset(event);
        events[i].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
    }
    return count;
}

int alarmd_gpio_line_get_value(alarmd_gpio_line *line) {
    errno = 0;
    enum gpiod_line_value value = gpiod_line_request_get_value(line->request, line->offset);
    if (value == GPIOD_LINE_VALUE_ERROR) return failure();
    return value == GPIOD_LINE_VALUE_ACTIVE;
}

int alarmd_gpio_line_set_value(alarmd_gpio_line *line, int value) {
    errno = 0;
    int result = gpiod_line_request_set_value(
        line->request, line->offset, value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
    return result < 0 ? failure() : 0;
}

#endif
