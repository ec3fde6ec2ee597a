import Glibc

/// Turns screen lines into the bytes that redraw a terminal in place, without flicker, and only
/// when something changed.
///
/// Each line is drawn over the old one where it stands (the cursor placed at its start, the text,
/// then erase-to-end-of-line), and the rest of the screen is erased after the last: nothing is
/// cleared first, so nothing blinks. Every character counts as one column, as in
/// ``SimulatorScreen``. With a known ``TerminalSize``, lines are cut to the width (a full-width
/// line gets no erase, which would wipe its last cell while the cursor waits to wrap) and to the
/// height (a line more would scroll the screen). Control characters in the text are shown as `?`
/// so that a log message cannot move the cursor.
public struct ScreenWriter: Hashable, Sendable {
    private struct Shown: Hashable, Sendable {
        var lines: [String]
        var size: TerminalSize?
    }

    private var shown: Shown?

    public init() {}

    /// The bytes that turn the screen last drawn into `lines`, or `nil` if it shows them already.
    public mutating func redraw(_ lines: [String], size: TerminalSize? = nil) -> [UInt8]? {
        let fitted = Self.fit(lines, size: size)
        let next = Shown(lines: fitted, size: size)
        guard next != shown else { return nil }
        shown = next
        var bytes: [UInt8] = []
        for (index, line) in fitted.enumerated() {
            bytes += Array("\u{1B}[\(index + 1);1H".utf8)
            bytes += Array(line.utf8)
            if size.map({ line.count < $0.columns }) ?? true {
                bytes += Array("\u{1B}[K".utf8)
            }
        }
        if size.map({ fitted.count < $0.rows }) ?? true {
            bytes += Array("\u{1B}[\(fitted.count + 1);1H\u{1B}[J".utf8)
        }
        return bytes
    }

    /// Writes all of `bytes`, retrying after interruptions and partial writes.
    public static func write(_ bytes: [UInt8], to descriptor: Int32) throws(TerminalError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw TerminalError(operation: "write", errno: errno)
            }
            offset += written
        }
    }

    /// `lines` with control characters made visible, cut to `size`.
    static func fit(_ lines: [String], size: TerminalSize?) -> [String] {
        let visible = lines.prefix(size?.rows ?? .max).map { line in
            String(String.UnicodeScalarView(line.unicodeScalars.map { scalar in
                scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) ? "?" : scalar
            }))
        }
        guard let size else { return visible }
        return visible.map { String($0.prefix(size.columns)) }
    }
}
