// One small C API over libgpiod 1.x (the v1 API: Debian and Raspberry Pi OS bookworm) and 2.x
// (the v2 API: trixie), chosen at compile time from <gpiod.h> (see shim.c). Swift sees only this
// header, never <gpiod.h>: the two versions' APIs share almost no names.
//
// Every function returning int returns >= 0 on success and -errno on failure. Handles are used
// from one thread at a time. A line handle must be released before the chip it came from is
// closed (libgpiod 1 owns its lines through the chip).
#ifndef ALARMD_CGPIOSHIM_H
#define ALARMD_CGPIOSHIM_H

#include <stddef.h>
#include <stdint.h>

/// An open GPIO chip (a /dev/gpiochipN character device).
typedef struct alarmd_gpio_chip alarmd_gpio_chip;
/// One requested line: an input with edge events, or an output.
typedef struct alarmd_gpio_line alarmd_gpio_line;

/// The libgpiod API this shim was compiled against: 1 or 2.
int alarmd_gpio_api_version(void);

/// The libgpiod version loaded at run time, e.g. "1.6.3" or "2.2.1".
const char *alarmd_gpio_library_version(void);

/// Internal bias of an input line.
enum alarmd_gpio_bias {
    ALARMD_GPIO_BIAS_AS_IS = 0,
    ALARMD_GPIO_BIAS_DISABLED = 1,
    ALARMD_GPIO_BIAS_PULL_UP = 2,
    ALARMD_GPIO_BIAS_PULL_DOWN = 3,
};

/// One edge of an input line, as the kernel reported it.
struct alarmd_gpio_edge_event {
    /// The kernel's timestamp of the edge, CLOCK_MONOTONIC, in nanoseconds.
    uint64_t timestamp_ns;
    /// The line's offset on its chip.
    uint32_t offset;
    /// 1 for a rising edge (inactive to active: active-low is applied), 0 for a falling one.
    int32_t rising;
};

/// Opens a chip given as a path ("/dev/gpiochip0": anything with a slash), a number ("0"), a
/// name ("gpiochip0") or a label ("pinctrl-bcm2711"), tried in that order. -ENOENT if there is
/// no such chip; -ENOTTY or -ENODEV if the path is not a GPIO chip.
int alarmd_gpio_chip_open(const char *chip, alarmd_gpio_chip **out);

/// Closes a chip. NULL is ignored.
void alarmd_gpio_chip_close(alarmd_gpio_chip *chip);

/// The chip's name ("gpiochip0"); valid until the chip is closed.
const char *alarmd_gpio_chip_name(const alarmd_gpio_chip *chip);

/// How many lines the chip has.
int alarmd_gpio_chip_line_count(const alarmd_gpio_chip *chip);

/// The offset of the line called `name`, or -ENOENT.
int alarmd_gpio_chip_find_line(alarmd_gpio_chip *chip, const char *name);

/// Requests line `offset` as an input reporting both edges, with `bias` (an alarmd_gpio_bias) and
/// active-low if `active_low` is nonzero. A nonzero `debounce_us` asks the kernel to debounce;
/// libgpiod 1 cannot and then returns -EOPNOTSUPP. -EBUSY if another consumer holds the line.
int alarmd_gpio_request_input(
    alarmd_gpio_chip *chip, unsigned int offset, const char *consumer, int bias, int active_low,
    uint32_t debounce_us, alarmd_gpio_line **out);

/// Requests line `offset` as a push-pull output driven to `value` (logical: active-low applied
/// if `active_low` is nonzero). -EBUSY if another consumer holds the line.
int alarmd_gpio_request_output(
    alarmd_gpio_chip *chip, unsigned int offset, const char *consumer, int active_low, int value,
    alarmd_gpio_line **out);

/// Releases a line (the kernel lets go of it). NULL is ignored.
void alarmd_gpio_line_release(alarmd_gpio_line *line);

/// The descriptor that becomes readable when an input line has edge events pending.
int alarmd_gpio_line_event_fd(const alarmd_gpio_line *line);

/// Reads up to `capacity` pending edge events without blocking: the count read, 0 if none is
/// pending, or -errno (-ENODEV once the chip is gone).
int alarmd_gpio_line_read_events(alarmd_gpio_line *line, struct alarmd_gpio_edge_event *events, size_t capacity);

/// The line's logical value (1 active, 0 inactive).
int alarmd_gpio_line_get_value(alarmd_gpio_line *line);

/// Sets an output line's logical value.
int alarmd_gpio_line_set_value(alarmd_gpio_line *line, int value);

/// Blocks until one of `count` descriptors (at most 16) has an event or CLOCK_MONOTONIC reaches
/// `deadline_ns` (never, if negative). Fills `revents` with each descriptor's poll(2) events and
/// returns how many have any (0 at the deadline). Interrupted calls are resumed.
int alarmd_gpio_wait(const int *fds, int count, int64_t deadline_ns, short *revents);

/// CLOCK_MONOTONIC now, in nanoseconds: the clock of GPIO edge timestamps.
int64_t alarmd_gpio_monotonic_ns(void);

/// CLOCK_BOOTTIME minus CLOCK_MONOTONIC now, in nanoseconds: how long the system has been
/// suspended since it booted.
int64_t alarmd_gpio_boottime_offset_ns(void);

#endif
