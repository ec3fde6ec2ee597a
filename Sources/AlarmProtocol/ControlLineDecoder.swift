/// Splits a byte stream into lines, refusing any line longer than a limit.
///
/// Pure and incremental: feed it whatever `read` returned, in any pieces, and it returns the
/// complete lines so far (without their `\n`, and without a `\r` before it). Empty lines are
/// skipped. A line that grows past ``maximumLineLength`` without a newline yields
/// ``Output/tooLarge`` once; the decoder then ignores everything (the framing is lost, so the
/// connection must be closed). Memory stays below the limit plus one read.
public struct ControlLineDecoder: Sendable {
    public enum Output: Hashable, Sendable {
        case line([UInt8])
        /// A line went over the limit: everything after it is ignored.
        case tooLarge
    }

    /// The longest line accepted, in bytes, not counting its newline.
    public let maximumLineLength: Int
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already known to hold no newline.
    private var scanned = 0
    /// Set once a line was too large.
    public private(set) var hasFailed = false

    public init(maximumLineLength: Int) {
        self.maximumLineLength = max(1, maximumLineLength)
    }

    /// Bytes received but not yet part of a complete line.
    public var pendingByteCount: Int { buffer.count }

    /// Adds received bytes and returns the lines they complete, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [Output] {
        guard !hasFailed else { return [] }
        buffer.append(contentsOf: bytes)
        var outputs: [Output] = []
        var lineStart = 0
        while let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
            var end = newline
            if end > lineStart, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            if end - lineStart > maximumLineLength { return fail(outputs) }
            if end > lineStart { outputs.append(.line(Array(buffer[lineStart..<end]))) }
            lineStart = newline + 1
            scanned = lineStart
        }
        let pending = buffer.count - lineStart
        // One byte over is still fine if it is the "\r" of a "\r\n" on its way.
        if pending > maximumLineLength + 1 || (pending == maximumLineLength + 1 && buffer.last != UInt8(ascii: "\r")) {
            return fail(outputs)
        }
        buffer.removeFirst(lineStart)
        scanned = buffer.count
        return outputs
    }

    private mutating func fail(_ outputs: [Output]) -> [Output] {
        hasFailed = true
        buffer = []
        scanned = 0
        return outputs + [.tooLarge]
    }
}
