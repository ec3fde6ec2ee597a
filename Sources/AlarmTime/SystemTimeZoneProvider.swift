import FoundationEssentials
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
        environment: [String: String] = ProcessInfo.processInfo.environment,
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
        // The watches exist before this returns, so no change after subscribing can be missed.
        guard let watch = InotifyWatch(watchedDirectories()) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in watch.stop() }
        Task {
            await BlockingCall.run {
                watch.run { continuation.yield(()) }
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

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
