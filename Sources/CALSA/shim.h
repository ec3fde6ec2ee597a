#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// What Swift cannot write itself: ALSA's error handler is variadic, so it lives here in C.
// alsa-lib prints every SNDERR/SYSERR to stderr unless a handler is installed. This one formats
// the message into a buffer of the calling thread instead; ALSA reports on the thread of the call
// that failed, so the Swift code that made that call collects it with alarmd_alsa_take_message.

enum { ALARMD_ALSA_MESSAGE_CAPACITY = 512 };

/// The last ALSA message on this thread, or an empty string. (A function-local static: Swift
/// emits a header's static inline functions, but not a file-scope static they refer to.)
static inline char *alarmd_alsa_message(void) {
    static _Thread_local char message[ALARMD_ALSA_MESSAGE_CAPACITY];
    return message;
}

static inline void alarmd_alsa_error_handler(const char *file, int line, const char *function,
                                             int err, const char *fmt, ...) {
    (void)file;
    (void)line;
    char *message = alarmd_alsa_message();
    size_t capacity = ALARMD_ALSA_MESSAGE_CAPACITY;
    int used = snprintf(message, capacity, "%s: ", function ? function : "alsa");
    if (used < 0 || (size_t)used >= capacity) used = 0;
    va_list arguments;
    va_start(arguments, fmt);
    int more = vsnprintf(message + used, capacity - (size_t)used, fmt, arguments);
    va_end(arguments);
    if (more > 0) used += more;
    if (err != 0 && (size_t)used < capacity) {
        snprintf(message + used, capacity - (size_t)used, " (%s)", snd_strerror(err));
    }
}

/// Routes ALSA's messages (process-wide) to alarmd_alsa_error_handler. Returns 0 or -errno.
static inline int alarmd_alsa_route_errors(void) {
    return snd_lib_error_set_handler(alarmd_alsa_error_handler);
}

/// Copies this thread's last ALSA message into buffer (NUL-terminated, truncated to capacity) and
/// clears it. Returns the copied length; 0 when there was none.
static inline size_t alarmd_alsa_take_message(char *buffer, size_t capacity) {
    char *message = alarmd_alsa_message();
    if (capacity == 0 || message[0] == 0) return 0;
    size_t length = strnlen(message, ALARMD_ALSA_MESSAGE_CAPACITY);
    if (length >= capacity) length = capacity - 1;
    memcpy(buffer, message, length);
    buffer[length] = 0;
    message[0] = 0;
    return length;
}
