import Glibc

/// Converting kernel trace timestamps to `CLOCK_REALTIME`.
///
/// Trace timestamps count in the clock chosen by `/sys/kernel/tracing/trace_clock`. The
/// conversion adds `realtime − that clock`, measured when the probe runs, so it holds as long as
/// nobody set the realtime clock between the events and the analysis (or the harness measured
/// the offset itself and passes `--clock-offset`). Clocks it can convert:
///
/// | trace clock | kernel clock              |
/// |-------------|---------------------------|
/// | `mono`      | `CLOCK_MONOTONIC`         |
/// | `mono_raw`  | `CLOCK_MONOTONIC_RAW`     |
/// | `boot`      | `CLOCK_BOOTTIME`          |
/// | `tai`       | `CLOCK_TAI`               |
///
/// The default `local` (and `global`, `perf`, `uptime`, `counter`, `x86-tsc`) follow no clock a
/// program can read, so they are refused: set `echo mono > /sys/kernel/tracing/trace_clock`
/// before enabling the event.
public enum TraceClock {
    public static let defaultTraceFS = "/sys/kernel/tracing"

    /// The clock id for a trace clock name, or nil for one that cannot be converted.
    public static func clockID(named name: String) -> clockid_t? {
        switch name {
        case "mono": CLOCK_MONOTONIC
        case "mono_raw": CLOCK_MONOTONIC_RAW
        case "boot": CLOCK_BOOTTIME
        case "tai": CLOCK_TAI
        default: nil
        }
    }

    /// The selected clock in the text of `trace_clock` (`local global [mono] boot ...` → `mono`).
    public static func selected(in text: String) -> String? {
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("[") && word.hasSuffix("]") {
            return String(word.dropFirst().dropLast())
        }
        return nil
    }

    /// The clock tracefs at `traceFS` is set to.
    /// - Throws: ``ProbeError`` when `trace_clock` cannot be read or shows no selection.
    public static func current(traceFS: String = defaultTraceFS) throws(ProbeError) -> String {
        let path = traceFS + "/trace_clock"
        let text: String
        do {
            text = try FileIO.readText(path)
        } catch {
            throw ProbeError("\(error.message) (pass --trace-clock NAME or --clock-offset SECONDS)")
        }
        guard let name = selected(in: text) else { throw ProbeError("\(path): no clock selected in `\(text.trimmingSpaces)`") }
        return name
    }

    /// `realtime − clock` now, in nanoseconds.
    /// - Throws: ``ProbeError`` for a clock that cannot be converted.
    public static func offsetNow(clock name: String) throws(ProbeError) -> Int64 {
        guard let id = clockID(named: name) else {
            throw ProbeError(
                "trace clock `\(name)` cannot be converted to realtime: `echo mono > \(defaultTraceFS)/trace_clock` before tracing, or pass --clock-offset SECONDS")
        }
        return SystemClock.realtimeOffset(from: id)
    }
}
