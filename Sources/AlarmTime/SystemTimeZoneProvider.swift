import CLinuxSupport
import Glibc

/// The device's zone as libc picks it (``TimeZoneDatabase/systemZone(environment:localtimePath:)``),
/// with changes noticed through inotify: `timedatectl set-timezone` replacing `/etc/localtime`,
/// or a tzdata upgrade replacing the zone's file under `/usr/share/zoneinfo`.
public struct SystemTimeZoneProvider: TimeZoneProvider {
    public let database: TimeZoneDatabase
    public let environment: [String: String]
    public let localtimePath: String

    public init(
        database: TimeZoneDatabase = TimeZoneDatabase(),
        environment: [String: String] = SystemTimeZoneProvider.processEnvironment(),
        localtimePath: String = "/etc/localtime"
    ) {
        self.database = database
        self.environment = environment
        self.localtimePath = localtimePath
    }

    public func currentZone() throws(TimeZoneError) -> TimeZoneRules {
        try database.systemZone(environment: environment, localtimePath: localtimePath)
    }

    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let stopDescriptor = alarmd_eventfd_create()
        guard stopDescriptor >= 0 else {
            continuation.finish()
            return stream
        }
        let watched = watchedDirectories()
        continuation.onTermination = { _ in _ = alarmd_eventfd_signal(stopDescriptor) }
        Task {
            await BlockingCall.run {
                Self.watch(watched, stopDescriptor: stopDescriptor) { continuation.yield(()) }
                close(stopDescriptor)
            }
            continuation.finish()
        }
        return stream
    }

    /// The directories to watch, each with the file names in it that matter.
    private func watchedDirectories() -> [(directory: String, names: Set<String>)] {
        var watched = [(Self.directory(of: localtimePath), Set([Self.baseName(of: localtimePath), "timezone"]))]
        var linkTarget = [CChar](repeating: 0, count: 4096)
        let length = readlink(localtimePath, &linkTarget, linkTarget.count - 1)
        if length > 0 {
            var target = String(decoding: linkTarget[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !target.hasPrefix("/") { target = Self.directory(of: localtimePath) + "/" + target }
            watched.append((Self.directory(of: target), [Self.baseName(of: target)]))
        }
        return watched
    }

    /// Blocks, calling `changed` for every relevant inotify event, until `stopDescriptor` is readable.
    private static func watch(
        _ watched: [(directory: String, names: Set<String>)], stopDescriptor: Int32, changed: () -> Void
    ) {
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { return }
        defer { close(inotify) }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB)
        var namesByWatch: [Int32: Set<String>] = [:]
        for (directory, names) in watched {
            let watch = inotify_add_watch(inotify, directory, mask)
            if watch >= 0 { namesByWatch[watch, default: []].formUnion(names) }
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
            if containsRelevantEvent(buffer[0..<count], namesByWatch: namesByWatch) { changed() }
        }
    }

    /// Walks the `struct inotify_event` records in a read buffer.
    private static func containsRelevantEvent(_ bytes: ArraySlice<UInt8>, namesByWatch: [Int32: Set<String>]) -> Bool {
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

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func baseName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The process environment, read once.
    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }
}
