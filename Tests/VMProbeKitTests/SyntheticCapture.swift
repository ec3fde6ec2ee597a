import AlarmTestKit
import Glibc
import VMProbeKit

/// A capture built in memory: a signal sample by sample, and the `capture.times` lines the
/// recorder would have written for it, optionally late by some jitter and with overruns.
struct SyntheticCapture {
    static let rate = 48_000
    /// The instant of frame 0.
    static let start = RealtimeInstant(parsing: "1764000000.000000")!

    /// Every frame of the signal, including those an overrun will drop from the file.
    var signal: [Int16] = []
    private var phase = 0.0

    /// The instant of frame `frame` of the signal.
    static func instant(ofFrame frame: Int) -> RealtimeInstant {
        RealtimeInstant(nanoseconds: start.nanoseconds + Int64(frame) * 1_000_000_000 / Int64(rate))
    }

    static func instant(seconds: Double) -> RealtimeInstant {
        RealtimeInstant(nanoseconds: start.nanoseconds + Int64((seconds * 1e9).rounded()))
    }

    static func frames(_ seconds: Double) -> Int { Int((seconds * Double(rate)).rounded()) }

    mutating func silence(_ seconds: Double) {
        silence(frames: Self.frames(seconds))
    }

    mutating func silence(frames: Int) {
        signal += [Int16](repeating: 0, count: frames)
        phase = 0
    }

    /// A sine starting at phase 0 (as a player starts one); `peak` in full scale (1 = 32767),
    /// `gain` in dB applied per sample from the signal's current instant.
    mutating func tone(_ frequency: Double, seconds: Double, peak: Double = 0.9, gain: (Double) -> Double = { _ in 0 }) {
        tone(frequency, frames: Self.frames(seconds), peak: peak, gain: gain)
    }

    mutating func tone(_ frequency: Double, frames: Int, peak: Double = 0.9, gain: (Double) -> Double = { _ in 0 }) {
        for _ in 0..<frames {
            let t = Double(signal.count) / Double(Self.rate)
            let amplitude = peak * pow(10, gain(t) / 20) * 32767
            signal.append(Int16((amplitude * sin(phase)).rounded()))
            phase += 2 * Double.pi * frequency / Double(Self.rate)
        }
    }

    /// alarmd's built-in tone for `seconds`: 4 beeps of 100 ms at 2 kHz with 100 ms gaps, a
    /// 600 ms pause, repeated; a crescendo from −36 dB rising 30 dB over `crescendo` seconds from
    /// the tone's start. Cut off wherever `seconds` ends (a stop).
    mutating func alarmTone(seconds: Double, crescendo: Double = 30) {
        let first = signal.count
        let begin = Double(first) / Double(Self.rate)
        let end = first + Self.frames(seconds)
        let gain: (Double) -> Double = { t in -36 + 30 * min(1, (t - begin) / crescendo) }
        while signal.count < end {
            let inLoop = (signal.count - first) % Self.frames(1.4)
            let beep = inLoop < Self.frames(0.8) && inLoop % Self.frames(0.2) < Self.frames(0.1)
            // One 1 ms step at a time, so the cut-off lands exactly.
            let step = min(Self.rate / 1000, end - signal.count)
            if beep { tone(2000, frames: step, gain: gain) } else { silence(frames: step) }
        }
    }

    /// Zeroes `seconds` of signal from `at` (a block lost to silence under TCG).
    mutating func dropout(at seconds: Double, length: Double = 0.004) {
        let first = Self.frames(seconds)
        for index in first..<min(signal.count, first + Self.frames(length)) { signal[index] = 0 }
    }

    /// A single full-scale sample (a click).
    mutating func click(at seconds: Double) {
        signal[Self.frames(seconds)] = 30000
    }

    /// Writes `capture.s16` and `capture.times` into `directory`. Each period of `period` frames
    /// gets a line, late by `lateness(periodIndex)` nanoseconds. Frames in `lost` (ranges of the
    /// signal) are left out of the file, with an `xrun` line where they were.
    func write(
        to directory: String, period: Int = 240, lost: [Range<Int>] = [], lateness: (Int) -> Int64 = { _ in 0 },
        unfinishedLastLine: Bool = false
    ) throws {
        var samples: [Int16] = []
        var lines: [String] = []
        var frame = 0
        var periodIndex = 0
        while frame < signal.count {
            if let gap = lost.first(where: { $0.lowerBound == frame }) {
                lines.append(CaptureTimesEntry.xrun(Self.instant(ofFrame: gap.upperBound)).line)
                frame = gap.upperBound
                continue
            }
            let next = min(frame + period, signal.count, lost.map(\.lowerBound).filter { $0 > frame }.min() ?? .max)
            let instant = RealtimeInstant(nanoseconds: Self.instant(ofFrame: frame).nanoseconds + lateness(periodIndex))
            lines.append(CaptureTimesEntry.period(firstFrame: samples.count, instant: instant).line)
            samples += signal[frame..<next]
            frame = next
            periodIndex += 1
        }
        var times = lines.joined(separator: "\n") + "\n"
        if unfinishedLastLine { times += "\(samples.count) 17640" }
        try TestFiles.write(Array(times.utf8), to: directory + "/" + CaptureFiles.times)
        try TestFiles.write(Capture.bytes(of: samples), to: directory + "/" + CaptureFiles.samples)
    }
}
