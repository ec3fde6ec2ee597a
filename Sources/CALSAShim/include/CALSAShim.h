// ALSA's error messages, kept off stderr and handed to the Swift code that made the failing call.
//
// alsa-lib prints every SNDERR/SYSERR to stderr unless a handler is installed; its handler type is
// variadic, which Swift cannot implement, so the handler is C (shim.c). It formats each message
// into a buffer of the calling thread: ALSA reports on the thread of the call that failed, so
// that thread collects it with alarmd_alsa_take_message.
//
// The handler and its buffer are defined once, in shim.c. (They used to be static inline in a
// header: every Swift module importing it got its own copy, and whichever module installed its
// copy last received every message, while the others read their own empty buffers.)
#ifndef ALARMD_CALSASHIM_H
#define ALARMD_CALSASHIM_H

#include <stddef.h>

/// Routes ALSA's messages, process-wide, to this shim's handler. Idempotent. Returns 0 or -errno.
int alarmd_alsa_route_errors(void);

/// Copies this thread's last ALSA message into buffer (NUL-terminated, truncated to capacity)
/// and clears it. Returns the copied length; 0 when ALSA said nothing since the last call.
size_t alarmd_alsa_take_message(char *buffer, size_t capacity);

#endif
