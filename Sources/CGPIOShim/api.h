// Which libgpiod API <gpiod.h> declares, and what the two version files share.
//
// The test: libgpiod 1.x defines the preprocessor macro GPIOD_LINE_BULK_MAX_LINES (the size of
// its struct gpiod_line_bulk, in every 1.x release since 1.0); libgpiod 2.x removed line bulks
// and defines no macros at all apart from its include guard (its constants are enum members,
// which #if cannot see). So the macro's presence means v1. Each version's file then checks the
// other way with a _Static_assert on an enum constant only that version has, so a header that
// fooled the test fails the build with a clear message instead of miscompiling.
#ifndef ALARMD_CGPIOSHIM_API_H
#define ALARMD_CGPIOSHIM_API_H

#include <gpiod.h>

#include "CGPIOShim.h"

#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define ALARMD_GPIOD_API 1
#else
#define ALARMD_GPIOD_API 2
#endif

struct alarmd_gpio_chip {
    struct gpiod_chip *chip;
    char *name;
    char *label;
    unsigned int line_count;
};

/// Opens the chip at `path` (version-specific): 0 or -errno.
int alarmd_gpio_open_path(const char *path, alarmd_gpio_chip **out);

/// Whether `fd` has something to read now (poll with no timeout): 1, 0 or -errno.
int alarmd_gpio_fd_readable(int fd);

#endif
