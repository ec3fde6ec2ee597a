/// Bytes waiting to be written to a non-blocking socket, with a bound.
///
/// A value kept under its connection's lock: tasks append whole lines, the I/O thread writes as
/// much as the socket takes.
package struct OutputBuffer {
    /// The most bytes that may wait; an append beyond it fails and the connection must close.
    package let limit: Int
    private var bytes: [UInt8] = []
    private var offset = 0

    package init(limit: Int) {
        self.limit = limit
    }

    package var isEmpty: Bool { offset == bytes.count }
    package var count: Int { bytes.count - offset }

    /// Appends `line` whole, or nothing if that would pass the limit.
    package mutating func append(_ line: [UInt8]) -> Bool {
        guard count + line.count <= limit else { return false }
        if offset > 0, offset >= bytes.count / 2 {
            bytes.removeFirst(offset)
            offset = 0
        }
        bytes.append(contentsOf: line)
        return true
    }

    /// Writes what the socket takes without blocking.
    /// - Returns: `nil` while the connection is healthy, else the errno of the failed send.
    package mutating func write(to fd: Int32) -> Int32? {
        while !isEmpty {
            let transfer = bytes.withUnsafeBytes { UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch transfer {
            case .done(let sent):
                offset += sent
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
}
