import Glibc

/// `record-led`: samples a gpio-sim `value` attribute and writes its changes.
public enum LEDRecorder {
    public struct Summary: Sendable {
        public var samples = 0
        public var changes = 0
        public var readErrors = 0
        public var started: RealtimeInstant?
        public var stopped: RealtimeInstant?

        public var json: JSONObject {
            var object = JSONObject()
            object.set("samples", .integer(samples))
            object.set("changes", .integer(changes))
            object.set("read_errors", .integer(readErrors))
            object.set("started", .instant(started))
            object.set("stopped", .instant(stopped))
            return object
        }
    }

    /// Reads the level in `path` (a fresh open each time: sysfs shows the value at open).
    public static func readLevel(_ path: String) throws(ProbeError) -> Bool {
        try LEDChangeLog.level(fromAttribute: try FileIO.readText(path), path: path)
    }

    /// Samples `valuePath` every `intervalNanoseconds` (on a monotonic schedule) into `outPath`
    /// until `StopSignal.requested`; every line is flushed as it is written, and `# end SECONDS`
    /// closes the file.
    /// - Throws: ``ProbeError`` when the first read fails or the output cannot be written; later
    ///   read failures (a line being reconfigured) are counted and skipped.
    public static func record(valuePath: String, outPath: String, intervalNanoseconds: Int64) throws(ProbeError) -> Summary {
        _ = try readLevel(valuePath)
        let file = try AppendFile(creating: outPath)
        var log = LEDChangeLog()
        var summary = Summary()
        summary.started = .now()
        var deadline = SystemClock.read(CLOCK_MONOTONIC)
        while !StopSignal.requested {
            if let high = try? readLevel(valuePath) {
                summary.samples += 1
                if let line = log.line(forSample: high, at: .now()) {
                    file.appendLine(line)
                    try file.flush()
                    summary.changes += 1
                }
            } else {
                summary.readErrors += 1
            }
            deadline += intervalNanoseconds
            let now = SystemClock.read(CLOCK_MONOTONIC)
            if deadline < now { deadline = now }  // fell behind: do not burst to catch up
            SystemClock.sleep(untilMonotonic: deadline) { StopSignal.requested }
        }
        summary.stopped = .now()
        summary.changes = max(0, summary.changes - 1)  // the first line is the initial level
        file.appendLine(LEDChangeLog.endLine(at: summary.stopped!))
        try file.close()
        return summary
    }
}
