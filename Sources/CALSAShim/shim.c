#include "CALSAShim.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MESSAGE_CAPACITY = 512 };

/// The last ALSA message on this thread, or an empty string.
static _Thread_local char last_message[MESSAGE_CAPACITY];

static void keep_message(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file;
    (void)line;
    int used = snprintf(last_message, MESSAGE_CAPACITY, "%s: ", function ? function : "alsa");
    if (used < 0 || used >= MESSAGE_CAPACITY) used = 0;
    va_list arguments;
    va_start(arguments, fmt);
    int more = vsnprintf(last_message + used, (size_t)(MESSAGE_CAPACITY - used), fmt, arguments);
    va_end(arguments);
    if (more > 0) used += more;
    if (err != 0 && used < MESSAGE_CAPACITY) {
        snprintf(last_message + used, (size_t)(MESSAGE_CAPACITY - used), " (%s)", snd_strerror(err));
    }
}

int alarmd_alsa_route_errors(void) {
    return snd_lib_error_set_handler(keep_message);
}

size_t alarmd_alsa_take_message(char *buffer, size_t capacity) {
    if (capacity == 0 || last_message[0] == 0) return 0;
    size_t length = strnlen(last_message, MESSAGE_CAPACITY);
    if (length >= capacity) length = capacity - 1;
    memcpy(buffer, last_message, length);
    buffer[length] = 0;
    last_message[0] = 0;
    return length;
}
