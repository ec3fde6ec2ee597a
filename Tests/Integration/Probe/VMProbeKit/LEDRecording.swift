/// What `record-led` writes: the LED's level at its start and at each change.
///
/// ```
/// 1764000000.100000 0        the level when sampling began
/// 1764000003.215004 1        each change, at the sample that saw it
/// 1764000003.715311 0
/// # end 1764000010.000120    written when the recorder stops (SIGTERM/SIGINT)
/// ```
public struct LEDRecording: Sendable, Equatable {
    public struct Change: Sendable, Equatable {
        public var instant: RealtimeInstant
        public var high: Bool

        public init(instant: RealtimeInstant, high: Bool) {
            self.instant = instant
            self.high = high
        }
    }

    /// The first entry is the initial level; each later one a change (repeats are tolerated and
    /// dropped).
    public var changes: [Change]
    /// When the recorder stopped, if it has.
    public var end: RealtimeInstant?

    public init(changes: [Change], end: RealtimeInstant? = nil) {
        self.changes = changes
        self.end = end
    }

    /// Parses a recording. Blank lines and other `#` comments are skipped, as is a last line
    /// without its newline (a reader racing the recorder).
    /// - Throws: ``ProbeError`` naming the line that does not parse, or `FILE is empty` when
    ///   there is not even the initial level.
    public static func parse(_ text: String, path: String) throws(ProbeError) -> LEDRecording {
        var recording = LEDRecording(changes: [])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // The last piece follows the last newline: empty, or a line still being written.
        for (index, line) in lines.dropLast().enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.isEmpty { continue }
            if fields[0] == "#" {
                if fields.count == 3, fields[1] == "end", let end = RealtimeInstant(parsing: fields[2]) {
                    recording.end = end
                }
                continue
            }
            if fields[0].hasPrefix("#") { continue }
            guard fields.count == 2, let instant = RealtimeInstant(parsing: fields[0]), fields[1] == "0" || fields[1] == "1" else {
                throw ProbeError("\(path):\(index + 1): expected `SECONDS 0|1`, found `\(line)`")
            }
            let high = fields[1] == "1"
            if recording.changes.last?.high != high {
                recording.changes.append(Change(instant: instant, high: high))
            }
        }
        guard !recording.changes.isEmpty else { throw ProbeError("\(path) is empty: no initial level recorded yet") }
        return recording
    }

    /// The level at `instant`: the last entry at or before it (the first entry's level before it).
    public func level(at instant: RealtimeInstant) -> Bool {
        changes.last { $0.instant <= instant }?.high ?? changes[0].high
    }
}

/// What `led` prints.
public struct LEDReport: Sendable, Equatable {
    /// The classification of the level over the range.
    public enum Pattern: String, Sendable {
        /// Low throughout; or it went low once and stayed so.
        case off
        /// High throughout; or it went high once and stayed so.
        case on
        /// Two or more changes.
        case blink
    }

    public var after: RealtimeInstant
    /// The end of the range: `--before`, else the recording's end, else the time of the analysis.
    public var until: RealtimeInstant
    public var levelAtStart: Bool
    public var firstHigh: RealtimeInstant?
    public var highFraction: Double
    public var transitions: Int
    public var risingEdges: Int
    /// The median time between rising edges; nil with fewer than two.
    public var periodMilliseconds: Double?
    /// The median length of the complete high pulses; nil if none.
    public var highMilliseconds: Double?
    public var levelAtEnd: Bool
    public var lastTransition: RealtimeInstant?
    public var pattern: Pattern

    public var json: JSONObject {
        var object = JSONObject()
        object.set("after", .instant(after))
        object.set("until", .instant(until))
        object.set("level_at_start", .integer(levelAtStart ? 1 : 0))
        object.set("first_high", .instant(firstHigh))
        object.set("high_fraction", .number(highFraction, decimals: 4))
        object.set("transitions", .integer(transitions))
        object.set("rising_edges", .integer(risingEdges))
        object.set("period_ms", .number(periodMilliseconds, decimals: 1))
        object.set("high_ms", .number(highMilliseconds, decimals: 1))
        object.set("level_at_end", .integer(levelAtEnd ? 1 : 0))
        object.set("last_transition", .instant(lastTransition))
        object.set("pattern", .string(pattern.rawValue))
        return object
    }
}

extension LEDRecording {
    /// Analyses the range from `after` to `before`, or else to the recording's end, or else to
    /// `now` (a recorder still running). A range starting before the recording starts at its first
    /// entry; one ending after a finished recording ends with it.
    public func analyse(after: RealtimeInstant, before: RealtimeInstant? = nil, now: RealtimeInstant) -> LEDReport {
        let start = max(after, changes[0].instant)
        var until = before ?? end ?? now
        if let end { until = min(until, end) }
        until = max(until, start)
        let levelAtStart = level(at: start)
        let inside = changes.filter { $0.instant > start && $0.instant <= until }
        var high = levelAtStart
        var highNanoseconds: Int64 = 0
        var previous = start
        var rising: [RealtimeInstant] = []
        var pulses: [Int64] = []
        var lastRise: RealtimeInstant?
        for change in inside {
            if high { highNanoseconds += change.instant.nanoseconds - previous.nanoseconds }
            if change.high {
                rising.append(change.instant)
                lastRise = change.instant
            } else if let rise = lastRise {
                pulses.append(change.instant.nanoseconds - rise.nanoseconds)
                lastRise = nil
            }
            high = change.high
            previous = change.instant
        }
        if high { highNanoseconds += until.nanoseconds - previous.nanoseconds }
        let total = until.nanoseconds - start.nanoseconds
        let periods = zip(rising.dropFirst(), rising).map { $0.nanoseconds - $1.nanoseconds }
        let pattern: LEDReport.Pattern = inside.count >= 2 ? .blink : (high ? .on : .off)
        return LEDReport(
            after: after, until: until, levelAtStart: levelAtStart,
            firstHigh: levelAtStart ? start : inside.first(where: \.high)?.instant,
            highFraction: total > 0 ? Double(highNanoseconds) / Double(total) : (levelAtStart ? 1 : 0),
            transitions: inside.count,
            risingEdges: rising.count,
            periodMilliseconds: Self.median(periods).map { Double($0) / 1_000_000 },
            highMilliseconds: Self.median(pulses).map { Double($0) / 1_000_000 },
            levelAtEnd: high,
            lastTransition: inside.last?.instant,
            pattern: pattern)
    }

    static func median(_ values: [Int64]) -> Int64? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// The recorder's memory: turns samples into the lines of a recording (the first sample, then
/// changes only).
public struct LEDChangeLog: Sendable {
    private var last: Bool?

    public init() {}

    /// The line to write for a sample, or nil when the level did not change.
    public mutating func line(forSample high: Bool, at instant: RealtimeInstant) -> String? {
        guard last != high else { return nil }
        last = high
        return "\(instant.text) \(high ? 1 : 0)"
    }

    /// The closing line, `# end SECONDS`.
    public static func endLine(at instant: RealtimeInstant) -> String {
        "# end \(instant.text)"
    }

    /// The level in the text of a gpio-sim `value` attribute (`"0\n"` or `"1\n"`).
    /// - Throws: ``ProbeError`` for anything else.
    public static func level(fromAttribute text: String, path: String) throws(ProbeError) -> Bool {
        switch text.trimmingSpaces {
        case "0": return false
        case "1": return true
        default: throw ProbeError("\(path): expected 0 or 1, read `\(text.trimmingSpaces)`")
        }
    }
}

extension String {
    /// The text without leading and trailing spaces, tabs and newlines.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
