import CLinuxSupport
import Glibc

/// An inotify descriptor (non-blocking, close-on-exec) and its watches; closed in `deinit`.
///
/// ```swift
/// guard let inotify = Inotify() else { return }        // no descriptor to spare
/// let watch = inotify.add("/dev", mask: UInt32(IN_CREATE | IN_ATTRIB))
/// // poll inotify.descriptor, then:
/// for event in inotify.readEvents() where event.watch == watch && event.name.hasPrefix("gpiochip") { ... }
/// ```
///
/// The kernel queues an event while the system call that caused it runs: once `rename` has
/// returned, the event is there to read.
public final class Inotify: @unchecked Sendable {
    // @unchecked: a C descriptor; each instance is read by one thread at a time (its owner's).
    public let descriptor: Int32

    /// `nil` if the process has no inotify instance or descriptor to spare.
    public init?() {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Watches `path` for the events in `mask`; returns the watch descriptor, or `nil` if the
    /// path cannot be watched (it does not exist, or is not readable). Watching an inode already
    /// watched returns its watch, with the mask replaced. The corresponding C function is
    /// `inotify_add_watch`.
    public func add(_ path: String, mask: UInt32) -> Int32? {
        let watch = inotify_add_watch(descriptor, path, mask)
        return watch >= 0 ? watch : nil
    }

    /// Stops a watch. The corresponding C function is `inotify_rm_watch`.
    public func remove(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// Every event queued now, oldest first; empty if none (never blocks).
    public func readEvents() -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return events }
            events += InotifyEvent.parse(buffer[0..<count])
        }
    }
}

/// One `struct inotify_event`.
public struct InotifyEvent: Hashable, Sendable {
    /// The watch descriptor it came from; -1 for a queue overflow.
    public var watch: Int32
    public var mask: UInt32
    /// The name of the entry in a watched directory; empty for an event on the watched inode.
    public var name: String

    /// Whether events were lost: the queue overflowed, so anything may have changed.
    public var isOverflow: Bool { mask & UInt32(IN_Q_OVERFLOW) != 0 }

    /// The `struct inotify_event` records in a read buffer.
    static func parse(_ bytes: ArraySlice<UInt8>) -> [InotifyEvent] {
        let headerSize = MemoryLayout<inotify_event>.size
        var events: [InotifyEvent] = []
        var offset = bytes.startIndex
        while offset + headerSize <= bytes.endIndex {
            let header = bytes.withUnsafeBytes {
                $0.loadUnaligned(fromByteOffset: offset - bytes.startIndex, as: inotify_event.self)
            }
            let nameStart = offset + headerSize
            let nameEnd = min(nameStart + Int(header.len), bytes.endIndex)
            let name = String(decoding: bytes[nameStart..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)
            events.append(InotifyEvent(watch: header.wd, mask: header.mask, name: name))
            offset = nameEnd
        }
        return events
    }
}
