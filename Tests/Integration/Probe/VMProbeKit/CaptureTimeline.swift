/// The instant of every captured frame, from the period lines of `capture.times`.
///
/// Each period line estimates `instant − index / rate`, the capture's offset from the realtime
/// clock. An estimate can only be late, never early: it is made after the read returned, from the
/// frames the driver had counted by then, and scheduling and the driver's 4 ms pointer updates
/// (snd-aloop's jiffies timer) both delay it. So a frame's offset is the *smallest* estimate
/// among the period lines within ±1 s of it: exact when any read in that second came back
/// promptly, yet still following a slow drift between the audio and realtime clocks.
/// An `xrun` line starts a new stretch: the frames lost there shift every later offset.
public struct CaptureTimeline: Sendable {
    public let sampleRate: Int
    /// Where overruns were recovered from.
    public let xruns: [RealtimeInstant]
    private let stretches: [Stretch]

    private struct Stretch: Sendable {
        /// The period lines' frame indices, ascending.
        var frames: [Int]
        /// The smoothed offset (nanoseconds) at each of `frames`.
        var offsets: [Int64]
    }

    /// - Parameters:
    ///   - smoothingFrames: how far either side of a frame a period line still counts (default 1 s).
    /// - Throws: ``ProbeError`` when `entries` has no period line.
    public init(
        entries: [CaptureTimesEntry], sampleRate: Int, smoothingFrames: Int? = nil, path: String = CaptureFiles.times
    ) throws(ProbeError) {
        self.sampleRate = sampleRate
        var xruns: [RealtimeInstant] = []
        var raw: [(frames: [Int], offsets: [Int64])] = []
        var startNew = true
        for entry in entries {
            switch entry {
            case .xrun(let instant):
                xruns.append(instant)
                startNew = true
            case .period(let frame, let instant):
                if startNew {
                    raw.append(([], []))
                    startNew = false
                }
                raw[raw.count - 1].frames.append(frame)
                raw[raw.count - 1].offsets.append(instant.nanoseconds - Self.nanoseconds(frames: frame, rate: sampleRate))
            }
        }
        guard !raw.isEmpty else { throw ProbeError("\(path) has no period yet: did record-audio start?") }
        let window = smoothingFrames ?? sampleRate
        self.xruns = xruns
        stretches = raw.map { Stretch(frames: $0.frames, offsets: Self.slidingMinimum($0.offsets, at: $0.frames, within: window)) }
    }

    /// The instant frame `frame` was captured.
    public func instant(ofFrame frame: Int) -> RealtimeInstant {
        let stretch = stretches[stretchIndex(containing: frame)]
        let anchor = max(lastIndex(in: stretch.frames, notAfter: frame), 0)
        return RealtimeInstant(nanoseconds: stretch.offsets[anchor] + Self.nanoseconds(frames: frame, rate: sampleRate))
    }

    /// The first frame in `0..<frameCount` captured at or after `instant`; `frameCount` when none.
    public func firstFrame(atOrAfter instant: RealtimeInstant, frameCount: Int) -> Int {
        var low = 0
        var high = frameCount
        while low < high {
            let middle = (low + high) / 2
            if self.instant(ofFrame: middle) < instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The duration of `frames` frames, in nanoseconds.
    public static func nanoseconds(frames: Int, rate: Int) -> Int64 {
        Int64(frames) * 1_000_000_000 / Int64(rate)
    }

    private func stretchIndex(containing frame: Int) -> Int {
        var index = 0
        for (candidate, stretch) in stretches.enumerated() where stretch.frames[0] <= frame {
            index = candidate
        }
        return index
    }

    /// The index of the last element of ascending `values` that is ≤ `value`; -1 if none.
    private func lastIndex(in values: [Int], notAfter value: Int) -> Int {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] <= value { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }

    /// For each position, the minimum of `values` over the positions whose `keys` lie within
    /// `window` of its own (keys ascending): a monotonic deque, linear time.
    static func slidingMinimum(_ values: [Int64], at keys: [Int], within window: Int) -> [Int64] {
        var result = [Int64](repeating: 0, count: values.count)
        var deque: [Int] = []
        var head = 0
        var next = 0
        for index in values.indices {
            while next < values.count && keys[next] <= keys[index] + window {
                while deque.count > head && values[deque[deque.count - 1]] >= values[next] { deque.removeLast() }
                deque.append(next)
                next += 1
            }
            while keys[deque[head]] < keys[index] - window { head += 1 }
            result[index] = values[deque[head]]
        }
        return result
    }
}
