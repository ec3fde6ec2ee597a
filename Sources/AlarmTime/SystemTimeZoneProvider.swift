import FoundationEssentials
import Glibc
import LinuxSupport

/// The device's zone as libc picks it (``TimeZoneDatabase/systemZone(environment:localtimePath:)``),
/// with changes noticed through inotify (``LocaltimeWatch``): `timedatectl set-timezone`
/// replacing `/etc/localtime`, or a tzdata upgrade replacing the zone's file under
/// `/usr/share/zoneinfo`. Nothing else in `/etc` wakes it.
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
        guard let watch = LocaltimeWatch(localtimePath: localtimePath) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in watch.stop() }
        Task {
            await DetachedThread.run {
                watch.run { continuation.yield(()) }
            }
            continuation.finish()
        }
        return stream
    }
}
