import CLinuxSupport
import Glibc

/// inotify watches on some directories, reporting changes to some file names in them.
///
/// Owns the inotify descriptor and an eventfd that stops ``run(_:)``; both are closed when
/// ``run(_:)`` returns.
final class InotifyWatch: Sendable {
    private let inotify: Int32
    private let stopDescriptor: Int32
    private let namesByWatch: [Int32: Set<String>]

    /// Adds the watches; `nil` if inotify or the eventfd cannot be had.
    init?(_ watched: [(directory: String, names: Set<String>)]) {
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { return nil }
        let stopDescriptor = alarmd_eventfd_create()
        guard stopDescriptor >= 0 else {
            close(inotify)
            return nil
        }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB)
        var namesByWatch: [Int32: Set<String>] = [:]
        for (directory, names) in watched {
            let watch = inotify_add_watch(inotify, directory, mask)
            if watch >= 0 { namesByWatch[watch, default: []].formUnion(names) }
        }
        self.inotify = inotify
        self.stopDescriptor = stopDescriptor
        self.namesByWatch = namesByWatch
    }

    /// Makes ``run(_:)`` return.
    func stop() {
        _ = alarmd_eventfd_signal(stopDescriptor)
    }

    /// Blocks, calling `changed` for every batch of events that touches a watched name, until
    /// ``stop()``. Call once.
    func run(_ changed: () -> Void) {
        defer {
            close(inotify)
            close(stopDescriptor)
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            var descriptors = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count <= 0 { continue }
            if containsRelevantEvent(buffer[0..<count]) { changed() }
        }
    }

    /// Walks the `struct inotify_event` records in a read buffer.
    private func containsRelevantEvent(_ bytes: ArraySlice<UInt8>) -> Bool {
        let headerSize = MemoryLayout<inotify_event>.size
        var offset = bytes.startIndex
        while offset + headerSize <= bytes.endIndex {
            let event = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset - bytes.startIndex, as: inotify_event.self) }
            let nameStart = offset + headerSize
            let nameEnd = min(nameStart + Int(event.len), bytes.endIndex)
            let name = String(decoding: bytes[nameStart..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)
            if event.mask & UInt32(IN_Q_OVERFLOW) != 0 || namesByWatch[event.wd]?.contains(name) == true { return true }
            offset = nameEnd
        }
        return false
    }
}
