#include "CALSAShim.h"

#include <alsa/asoundlib.h>
#include <errno.h>
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

int alarmd_alsa_resolve_name(const char *kind, const char *name) {
    snd_config_t *top = NULL;
    // A counted reference to the configuration: another thread's snd_pcm_open may replace the
    // global one meanwhile (it re-reads changed files), and this copy stays valid until unref.
    int err = snd_config_update_ref(&top);
    if (err < 0) return err;
    snd_config_t *expanded = NULL;
    err = snd_config_search_definition(top, kind, name, &expanded);
    if (err >= 0) {
        snd_config_delete(expanded);
        snd_config_unref(top);
        return 1;
    }
    // The lookup failed: find out whether the definition is missing, or exists and failed on its
    // arguments or on evaluating its defaults. The key is the part before ':', as alsa-lib takes it.
    const char *arguments = strchr(name, ':');
    size_t key_length = arguments ? (size_t)(arguments - name) : strlen(name);
    char key[256];
    if (key_length == 0 || key_length >= sizeof key) {
        snd_config_unref(top);
        return -ENOENT;
    }
    memcpy(key, name, key_length);
    key[key_length] = 0;
    snd_config_t *node = NULL;
    int found = strchr(key, '.') ? snd_config_search(top, key, &node) : snd_config_searchv(top, &node, kind, key, NULL);
    snd_config_unref(top);
    if (found < 0) return -ENOENT;
    // Without arguments, or with ones naming a card this machine lacks (ENODEV: "sysdefault:CARD=X"
    // evaluates the card), the spelling is right and only the machine differs. alsa-lib reports
    // an argument the definition does not take ("DEV" of a control) as ENOENT.
    if (!arguments || err == -ENODEV) return 0;
    return err == -ENOENT ? -EINVAL : err;
}
