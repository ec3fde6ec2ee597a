/// The files `record-audio` writes into its directory, and how they are read back.
///
/// - `capture.s16`: the samples, raw signed 16-bit little-endian mono at 48 kHz.
/// - `capture.times`: one line per read, `FIRST_FRAME_INDEX REALTIME_SECONDS` (the index into
///   `capture.s16` of the read's first frame, and the instant it was captured), and a line
///   `xrun REALTIME_SECONDS` wherever an overrun lost frames (the next period line starts a new
///   stretch of timing).
/// - `ready`: created, empty, once the first period is on disk.
public enum CaptureFiles {
    public static let samples = "capture.s16"
    public static let times = "capture.times"
    public static let ready = "ready"
    /// What alarmd plays and snd-aloop therefore forces on the capture side.
    public static let sampleRate = 48_000
}

/// One line of `capture.times`.
public enum CaptureTimesEntry: Sendable, Equatable {
    /// A read whose first frame, `firstFrame` in `capture.s16`, was captured at `instant`.
    case period(firstFrame: Int, instant: RealtimeInstant)
    /// An overrun, noticed and recovered from at `instant`: frames were lost before the next period.
    case xrun(RealtimeInstant)

    /// The line as `record-audio` writes it.
    public var line: String {
        switch self {
        case .period(let frame, let instant): "\(frame) \(instant.text)"
        case .xrun(let instant): "xrun \(instant.text)"
        }
    }

    /// Parses `capture.times`. Blank lines and `#` comments are skipped, and so is a last line
    /// without its newline (a reader racing the recorder's flush: every line ends with one).
    /// - Throws: ``ProbeError`` naming the line for anything else that does not parse, or a
    ///   frame index going backwards.
    public static func parse(_ text: String, path: String = CaptureFiles.times) throws(ProbeError) -> [CaptureTimesEntry] {
        var entries: [CaptureTimesEntry] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var lastFrame = -1
        // The last piece follows the last newline: empty, or a line still being written.
        for (index, line) in lines.dropLast().enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            let entry: CaptureTimesEntry? = if fields.count == 2, let instant = RealtimeInstant(parsing: fields[1]) {
                if fields[0] == "xrun" {
                    .xrun(instant)
                } else if let frame = Int(fields[0]), frame >= 0 {
                    .period(firstFrame: frame, instant: instant)
                } else {
                    nil
                }
            } else {
                nil
            }
            guard let entry else {
                throw ProbeError("\(path):\(index + 1): expected `FRAME SECONDS` or `xrun SECONDS`, found `\(line)`")
            }
            if case .period(let frame, _) = entry {
                guard frame >= lastFrame else {
                    throw ProbeError("\(path):\(index + 1): frame index \(frame) goes back (previous \(lastFrame))")
                }
                lastFrame = frame
            }
            entries.append(entry)
        }
        return entries
    }
}

/// A recording made by `record-audio`: the samples and the instant of each.
public struct Capture: Sendable {
    public let samples: [Int16]
    public let timeline: CaptureTimeline

    public init(samples: [Int16], timeline: CaptureTimeline) {
        self.samples = samples
        self.timeline = timeline
    }

    /// Reads `directory`'s `capture.times` and then `capture.s16` (in that order, so that a
    /// recording still running has written every frame the times refer to). An odd trailing byte
    /// (half a sample being written) is ignored.
    /// - Throws: ``ProbeError`` for a missing or unreadable file, a malformed times line, or a
    ///   times file with no period yet (`capture.times has no period yet: did record-audio start?`).
    public static func load(directory: String) throws(ProbeError) -> Capture {
        let timesPath = directory + "/" + CaptureFiles.times
        let entries = try CaptureTimesEntry.parse(try FileIO.readText(timesPath), path: timesPath)
        let bytes = try FileIO.read(directory + "/" + CaptureFiles.samples)
        var samples = [Int16](repeating: 0, count: bytes.count / 2)
        for index in samples.indices {
            samples[index] = Int16(bitPattern: UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8)
        }
        let timeline = try CaptureTimeline(entries: entries, sampleRate: CaptureFiles.sampleRate, path: timesPath)
        return Capture(samples: samples, timeline: timeline)
    }

    /// Little-endian bytes of `samples`, as `capture.s16` holds them.
    public static func bytes(of samples: some Collection<Int16>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {
            let bits = UInt16(bitPattern: sample)
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        return bytes
    }
}
