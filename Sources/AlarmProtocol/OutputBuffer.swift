/// Bytes waiting to be written to a non-blocking socket, with a bound.
///
/// A value kept under its connection's lock: tasks append whole lines, the I/O thread writes as
/// much as the socket takes.
///
/// The bound counts the bytes appended with ``append(_:)``. Bytes appended with
/// ``appendUncounted(_:)`` do not count: the daemon's answers, which their writer paces itself
/// by ``uncountedCount`` (it waits for the socket to drain), so that an answer of any size reaches
/// a client that reads it.
package struct OutputBuffer {
    /// The most counted bytes that may wait; an append beyond it fails and the connection must close.
    package let limit: Int
    private var bytes: [UInt8] = []
    private var offset = 0
    /// Bytes written since the buffer was made: positions below are gone.
    private var written = 0
    /// Where the uncounted bytes are, as positions in the whole stream, in order.
    private var uncounted: [Range<Int>] = []
    /// Unwritten bytes appended by ``appendUncounted(_:)``.
    package private(set) var uncountedCount = 0

    package init(limit: Int) {
        self.limit = limit
    }

    package var isEmpty: Bool { offset == bytes.count }
    package var count: Int { bytes.count - offset }
    /// Unwritten bytes that count against ``limit``.
    package var countedCount: Int { count - uncountedCount }

    /// Appends `line` whole, or nothing if that would pass the limit.
    package mutating func append(_ line: [UInt8]) -> Bool {
        guard countedCount + line.count <= limit else { return false }
        store(line)
        return true
    }

    /// Appends `part` whatever the limit: its writer bounds what waits by ``uncountedCount``.
    package mutating func appendUncounted(_ part: [UInt8]) {
        guard !part.isEmpty else { return }
        let start = written + count
        if let last = uncounted.last, last.upperBound == start {
            uncounted[uncounted.count - 1] = last.lowerBound..<(start + part.count)
        } else {
            uncounted.append(start..<(start + part.count))
        }
        uncountedCount += part.count
        store(part)
    }

    private mutating func store(_ part: [UInt8]) {
        if offset > 0, offset >= bytes.count / 2 {
            bytes.removeFirst(offset)
            offset = 0
        }
        bytes.append(contentsOf: part)
    }

    /// Writes what the socket takes without blocking.
    /// - Returns: `nil` while the connection is healthy, else the errno of the failed send.
    package mutating func write(to fd: Int32) -> Int32? {
        while !isEmpty {
            let transfer = bytes.withUnsafeBytes { UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch transfer {
            case .done(let sent):
                advance(by: sent)
            case .wouldBlock:
                return nil
            case .failed(let errno):
                return errno
            }
        }
        bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
        offset = 0
        return nil
    }

    private mutating func advance(by sent: Int) {
        offset += sent
        written += sent
        while let first = uncounted.first, first.lowerBound < written {
            let end = min(first.upperBound, written)
            uncountedCount -= end - first.lowerBound
            if end == first.upperBound {
                uncounted.removeFirst()
            } else {
                uncounted[0] = end..<first.upperBound
            }
        }
    }
}
