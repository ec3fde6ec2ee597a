// Debian trixie's static Swift runtime and Foundation (swiftlang 6.0.3) were compiled against
// glibc 2.38 and refer to six of its new symbols. Linked against a bookworm (glibc 2.36) sysroot, these
// definitions stand in for them, so the program runs on Raspberry Pi OS and Debian bookworm.
// The C23 conversions differ from the older ones only in accepting "0b" binary prefixes, which
// nothing in the Swift runtime parses.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long __isoc23_strtol(const char *string, char **end, int base) {
    return strtol(string, end, base);
}

long long __isoc23_strtoll(const char *string, char **end, int base) {
    return strtoll(string, end, base);
}

unsigned long __isoc23_strtoul(const char *string, char **end, int base) {
    return strtoul(string, end, base);
}

int __isoc23_sscanf(const char *string, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int converted = vsscanf(string, format, arguments);
    va_end(arguments);
    return converted;
}

// BSD's strlcpy (in glibc from 2.38): copies at most size - 1 bytes, always terminates when
// size > 0, and returns the length of source.
size_t strlcpy(char *destination, const char *source, size_t size) {
    size_t length = strlen(source);
    if (size > 0) {
        size_t copied = length < size - 1 ? length : size - 1;
        memcpy(destination, source, copied);
        destination[copied] = '\0';
    }
    return length;
}

// BSD's strlcat (in glibc from 2.38): appends to a terminated string in a buffer of size bytes,
// always terminates when there is room, and returns the length it tried to make.
size_t strlcat(char *destination, const char *source, size_t size) {
    size_t used = strnlen(destination, size);
    if (used == size) return size + strlen(source);
    return used + strlcpy(destination + used, source, size - used);
}
