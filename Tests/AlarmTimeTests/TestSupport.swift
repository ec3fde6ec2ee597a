import AlarmModel
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

/// Shared helpers: zone loading, terse literals and a window onto glibc's own conversion.
enum Support {
    static let database = TimeZoneDatabase()

    static func zone(_ name: String) throws -> TimeZoneRules {
        try database.rules(named: name)
    }

    /// An instant from an ISO 8601 literal; traps on typos in the test table itself.
    static func instant(_ text: String) -> Date {
        guard let date = ISO8601.parse(text) else { fatalError("bad ISO literal \(text)") }
        return date
    }

    /// A wall-clock reading from "YYYY-MM-DDTHH:MM[:SS]".
    static func local(_ text: String) -> LocalDateTime {
        let parts = text.split(separator: "T")
        guard parts.count == 2, let date = CivilDate(String(parts[0])), let time = CivilTime(String(parts[1])) else {
            fatalError("bad local literal \(text)")
        }
        return LocalDateTime(date: date, time: time)
    }

    static func day(_ text: String) -> CivilDate {
        guard let date = CivilDate(text) else { fatalError("bad date literal \(text)") }
        return date
    }

    static func seconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }

    static func date(_ seconds: Int) -> Date {
        Date(timeIntervalSince1970: Double(seconds))
    }
}

/// glibc's view of local time under a TZ value. TZ is process-global, so only suites marked
/// `.serialized` under ``GlibcComparison`` may use this.
enum LibcZone {
    /// Runs `body` with TZ set to `value`, then sets it back to its previous value (or ":UTC"
    /// when it had none). TZ is never unset: replacing an existing variable leaves glibc's
    /// `environ` array where it is, while removing and re-adding one may move it under another
    /// thread reading the environment. Nothing in the project reads TZ through libc meanwhile,
    /// and child processes get an explicit environment.
    static func with<T>(tz value: String, _ body: () throws -> T) rethrows -> T {
        let previous = getenv("TZ").map { String(cString: $0) } ?? ":UTC"
        setenv("TZ", value, 1)
        tzset()
        defer {
            setenv("TZ", previous, 1)
            tzset()
        }
        return try body()
    }

    struct Reading: Equatable, CustomStringConvertible {
        var year, month, day, hour, minute, second, offset: Int
        var description: String {
            "\(year)-\(month)-\(day) \(hour):\(minute):\(second) \(offset)"
        }
    }

    static func reading(_ seconds: Int) -> Reading {
        var time = time_t(seconds)
        var parts = tm()
        _ = localtime_r(&time, &parts)
        return Reading(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                       hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec),
                       offset: Int(parts.tm_gmtoff))
    }

    static func offset(_ seconds: Int) -> Int {
        var time = time_t(seconds)
        var parts = tm()
        _ = localtime_r(&time, &parts)
        return Int(parts.tm_gmtoff)
    }
}

extension TimeZoneRules {
    /// Our reading in the same shape as glibc's; the offset is derived from the local time (one lookup
    /// instead of two keeps the debug-build comparisons fast) unless `direct`, which asks `offset(at:)`.
    func reading(_ seconds: Int, direct: Bool = false) -> LibcZone.Reading {
        let local = localDateTime(at: Support.date(seconds))
        let wall = local.date.daysSinceEpoch * 86_400 + local.time.secondsSinceMidnight
        return LibcZone.Reading(year: local.date.year, month: local.date.month, day: local.date.day,
                                hour: local.time.hour, minute: local.time.minute, second: local.time.second,
                                offset: direct ? offset(at: Support.date(seconds)) : wall - seconds)
    }

    /// All offset changes in [from, to), via `nextTransition(after:)`.
    func transitions(from: Int, to: Int) -> [Int] {
        var result: [Int] = []
        var probe = Support.date(from - 1)
        while let next = nextTransition(after: probe), Support.seconds(next) < to {
            result.append(Support.seconds(next))
            probe = next
        }
        return result
    }
}
