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

/// Resolves `name` in alsa-lib's configuration the way snd_ctl_open (`kind` "ctl") or
/// snd_pcm_open ("pcm") does before opening anything: the part before the first ':' must name a
/// definition under `kind` (`hw`, `plughw`, `default`, or one from an asoundrc), and the rest must
/// be arguments that definition takes (`hw:CARD=Headphones`, not `hw:CARD=Headphones,DEV=0` for
/// a control). Touches no card, so it answers the same on a machine without sound hardware.
///
/// Returns 1 when the name resolves; 0 when its definition exists but cannot be evaluated on this
/// machine (`default`, or `sysdefault:CARD=X`, with no such card); -ENOENT when no definition of
/// that name exists (a bare card id such as `Headphones`); -EINVAL or another -errno when the
/// definition refuses the arguments (alsa-lib's message is then this thread's, see above).
int alarmd_alsa_resolve_name(const char *kind, const char *name);

#endif
