import Glibc

/// Writes all of `text` to `descriptor` at once, unbuffered, across short writes and interruptions;
/// gives up silently on any other error (a closed terminal or pipe).
public func writeAll(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 {
            if written < 0 && errno == EINTR { continue }
            return
        }
        offset += written
    }
}

/// Writes to file descriptor 2, unbuffered (the C `stderr` global is not usable from Swift 6).
public func writeToStandardError(_ text: String) {
    writeAll(text, to: 2)
}

/// Writes to file descriptor 1, unbuffered, for lines a reader waits for (`alarmctl watch`).
public func writeToStandardOutput(_ text: String) {
    writeAll(text, to: 1)
}
