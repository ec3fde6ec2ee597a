import Glibc

/// Sound and silence in a capture, judged on 5 ms windows.
///
/// A window *sounds* when its RMS level is above the threshold (dBFS, full scale 32768: a
/// full-scale sine is −3 dBFS RMS). Instants are refined inside the deciding window to the first
/// (or last) sample whose magnitude exceeds the threshold as a peak level.
///
/// - Sound starts at the first window of a run of at least two sounding windows (10 ms), so one
///   click is not an onset; a run at the very end of the range counts whatever its length.
/// - Silence starts after the last sounding window before the end of the range: the tone's own
///   gaps (100 ms) and pauses (600 ms) are followed by more sound and so never count, and a 4 ms
///   block lost to silence under TCG cannot make a 5 ms window silent.
public struct AudioAnalysis: Sendable {
    public let capture: Capture
    public let thresholdDB: Double
    /// Frames per window (5 ms).
    public let windowFrames: Int

    public init(capture: Capture, thresholdDB: Double = -60) {
        self.capture = capture
        self.thresholdDB = thresholdDB
        windowFrames = max(1, capture.timeline.sampleRate / 200)
    }

    /// The frames from `after` to `before` (or the end of the capture), and their 5 ms windows.
    struct AnalysedRange {
        var frames: Range<Int>
        /// Each window's frames and whether it sounds.
        var windows: [(frames: Range<Int>, sounding: Bool, sumOfSquares: Double)]
    }

    func range(after: RealtimeInstant, before: RealtimeInstant?) -> AnalysedRange {
        let samples = capture.samples
        let timeline = capture.timeline
        let start = timeline.firstFrame(atOrAfter: after, frameCount: samples.count)
        let end = before.map { max(start, timeline.firstFrame(atOrAfter: $0, frameCount: samples.count)) } ?? samples.count
        let threshold = thresholdAmplitude * thresholdAmplitude
        var windows: [(frames: Range<Int>, sounding: Bool, sumOfSquares: Double)] = []
        var low = start
        while low < end {
            let high = min(low + windowFrames, end)
            var sum = 0.0
            for index in low..<high {
                let value = Double(samples[index])
                sum += value * value
            }
            windows.append((low..<high, sum / Double(high - low) > threshold, sum))
            low = high
        }
        return AnalysedRange(frames: start..<end, windows: windows)
    }

    /// The threshold as a sample magnitude.
    var thresholdAmplitude: Double { 32768 * pow(10, thresholdDB / 20) }

    static func dBFS(amplitude: Double) -> Double? {
        amplitude > 0 ? 20 * log10(amplitude / 32768) : nil
    }

    func milliseconds(frames: Int) -> Double {
        Double(frames) * 1000 / Double(capture.timeline.sampleRate)
    }
}

/// What `sound` prints.
public struct SoundReport: Sendable, Equatable {
    public var after: RealtimeInstant
    public var before: RealtimeInstant?
    public var thresholdDB: Double
    /// The first sustained sound at or after `after`.
    public var firstSound: RealtimeInstant?
    public var latencyMilliseconds: Double?
    public var frequency: Double?
    public var peakDBFS: Double?
    /// Of the sounding windows only.
    public var rmsDBFS: Double?
    public var soundingMilliseconds: Double
    /// The length of the range that was analysed (it ends early when the capture does).
    public var analysedMilliseconds: Double
    public var captureEnd: RealtimeInstant?
    /// Overruns recovered from during the analysed range.
    public var xruns: Int

    public var json: JSONObject {
        var object = JSONObject()
        object.set("after", .instant(after))
        object.set("before", .instant(before))
        object.set("threshold_db", .number(thresholdDB, decimals: 1))
        object.set("first_sound", .instant(firstSound))
        object.set("latency_ms", .number(latencyMilliseconds, decimals: 3))
        object.set("frequency_hz", .number(frequency, decimals: 1))
        object.set("peak_dbfs", .number(peakDBFS, decimals: 2))
        object.set("rms_dbfs", .number(rmsDBFS, decimals: 2))
        object.set("sounding_ms", .number(soundingMilliseconds, decimals: 1))
        object.set("analysed_ms", .number(analysedMilliseconds, decimals: 1))
        object.set("capture_end", .instant(captureEnd))
        object.set("xruns", .integer(xruns))
        return object
    }
}

/// What `silence` prints.
public struct SilenceReport: Sendable, Equatable {
    public var after: RealtimeInstant
    public var before: RealtimeInstant?
    public var thresholdDB: Double
    public var minimumSeconds: Double
    /// Where the final silent stretch begins: just after the last sounding sample, or `after`.
    public var silentFrom: RealtimeInstant
    public var delayMilliseconds: Double
    /// Whether the stretch from `silentFrom` to `until` lasts at least `minimumSeconds`.
    public var silent: Bool
    public var silentMilliseconds: Double
    /// The end of the analysed range: `before`, or the end of the capture if that is earlier.
    public var until: RealtimeInstant
    public var captureEnd: RealtimeInstant?
    public var xruns: Int

    public var json: JSONObject {
        var object = JSONObject()
        object.set("after", .instant(after))
        object.set("before", .instant(before))
        object.set("threshold_db", .number(thresholdDB, decimals: 1))
        object.set("min_s", .number(minimumSeconds, decimals: 3))
        object.set("silent_from", .instant(silentFrom))
        object.set("delay_ms", .number(delayMilliseconds, decimals: 3))
        object.set("silent", .bool(silent))
        object.set("silent_ms", .number(silentMilliseconds, decimals: 1))
        object.set("until", .instant(until))
        object.set("capture_end", .instant(captureEnd))
        object.set("xruns", .integer(xruns))
        return object
    }
}

extension AudioAnalysis {
    /// The instant just after the last frame, nil for an empty capture.
    var captureEnd: RealtimeInstant? {
        capture.samples.isEmpty ? nil : capture.timeline.instant(ofFrame: capture.samples.count)
    }

    func xruns(from start: RealtimeInstant, to end: RealtimeInstant?) -> Int {
        capture.timeline.xruns.filter { xrun in xrun >= start && (end.map { xrun <= $0 } ?? true) }.count
    }

    /// Analyses the sound from `after` to `before` (default: the end of the capture).
    public func sound(after: RealtimeInstant, before: RealtimeInstant? = nil) -> SoundReport {
        let range = range(after: after, before: before)
        let windows = range.windows
        var firstSound: RealtimeInstant?
        var runs: [Range<Int>] = []
        var index = 0
        while index < windows.count {
            guard windows[index].sounding else {
                index += 1
                continue
            }
            var end = index
            while end < windows.count && windows[end].sounding { end += 1 }
            runs.append(windows[index].frames.lowerBound..<windows[end - 1].frames.upperBound)
            if firstSound == nil && (end - index >= 2 || end == windows.count) {
                let frames = windows[index].frames
                let onset = frames.first { Double(abs(Int(capture.samples[$0]))) > thresholdAmplitude } ?? frames.lowerBound
                firstSound = capture.timeline.instant(ofFrame: onset)
            }
            index = end
        }
        var peak = 0
        for frame in range.frames { peak = max(peak, abs(Int(capture.samples[frame]))) }
        let sounding = windows.filter(\.sounding)
        let soundingFrames = sounding.reduce(0) { $0 + $1.frames.count }
        let soundingSum = sounding.reduce(0.0) { $0 + $1.sumOfSquares }
        let end = range.frames.isEmpty ? nil : capture.timeline.instant(ofFrame: range.frames.upperBound)
        return SoundReport(
            after: after, before: before, thresholdDB: thresholdDB,
            firstSound: firstSound,
            latencyMilliseconds: firstSound.map { RealtimeInstant.millisecondsBetween(after, $0) },
            frequency: Spectrum.dominantFrequency(of: capture.samples, in: runs, sampleRate: capture.timeline.sampleRate),
            peakDBFS: Self.dBFS(amplitude: Double(peak)),
            rmsDBFS: soundingFrames > 0 ? Self.dBFS(amplitude: (soundingSum / Double(soundingFrames)).squareRoot()) : nil,
            soundingMilliseconds: milliseconds(frames: soundingFrames),
            analysedMilliseconds: milliseconds(frames: range.frames.count),
            captureEnd: captureEnd,
            xruns: xruns(from: after, to: end))
    }

    /// Finds the silence that lasts from some instant after `after` to `before` (default: the
    /// end of the capture), and whether it lasts `minimumSeconds`.
    public func silence(after: RealtimeInstant, before: RealtimeInstant? = nil, minimumSeconds: Double = 1.5) -> SilenceReport {
        let range = range(after: after, before: before)
        let until = range.frames.isEmpty ? after : capture.timeline.instant(ofFrame: range.frames.upperBound)
        var silentFrom = after
        if let last = range.windows.lastIndex(where: \.sounding) {
            let frames = range.windows[last].frames
            let lastLoud = frames.reversed().first { Double(abs(Int(capture.samples[$0]))) > thresholdAmplitude }
                ?? frames.upperBound - 1
            silentFrom = max(after, capture.timeline.instant(ofFrame: lastLoud + 1))
        }
        let silentMilliseconds = max(0, RealtimeInstant.millisecondsBetween(silentFrom, until))
        return SilenceReport(
            after: after, before: before, thresholdDB: thresholdDB, minimumSeconds: minimumSeconds,
            silentFrom: silentFrom,
            delayMilliseconds: RealtimeInstant.millisecondsBetween(after, silentFrom),
            silent: silentMilliseconds >= minimumSeconds * 1000,
            silentMilliseconds: silentMilliseconds,
            until: until,
            captureEnd: captureEnd,
            xruns: xruns(from: after, to: until))
    }
}
