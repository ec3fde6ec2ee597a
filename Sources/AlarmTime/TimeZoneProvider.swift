/// Where the engine gets the device's time zone, and hears that it changed.
///
/// Backends: ``SystemTimeZoneProvider`` (TZ or `/etc/localtime`, watched with inotify), and
/// `ManualTimeZoneProvider` in `AlarmSimulator` for tests.
public protocol TimeZoneProvider: Sendable {
    /// The zone in force now, with its current rules.
    /// - Throws: ``TimeZoneError`` if the configured zone cannot be read.
    func currentZone() throws(TimeZoneError) -> TimeZoneRules
    /// A new stream that yields whenever the zone, or the rules of the zone, may have changed.
    /// The consumer reads ``currentZone()`` again and compares.
    func changes() -> AsyncStream<Void>
}
