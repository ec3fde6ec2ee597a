import AlarmHardware
import AlarmSoundFile

/// Turns a sound into the device's frames: loops it, maps its channels onto the device's, and
/// applies the gain ramp.
///
/// The ramp is measured in frames written, not in wall time, so a crescendo lasts as long in the
/// sound as it says, however the writer was scheduled. The gain steps once a millisecond, far
/// finer than an ear hears.
struct FrameRenderer {
    let feed: any SampleFeed
    let deviceChannels: Int
    let rate: Int
    let gain: GainRamp
    /// Frames played so far: the ramp's clock.
    private(set) var played = 0

    private let blockFrames: Int
    private let finalAmplitude: Double

    init(feed: any SampleFeed, deviceChannels: Int, gain: GainRamp, looping: Bool) {
        self.feed = feed
        feed.looping = looping
        self.deviceChannels = deviceChannels
        self.rate = feed.sampleRate
        self.gain = gain
        blockFrames = max(feed.sampleRate / 1000, 1)
        finalAmplitude = GainRamp.amplitude(decibels: gain.target)
    }

    /// Whether a sound that does not loop has been played to its end.
    var isFinished: Bool { feed.isExhausted }

    /// The frames the next write may take: `limit`, or fewer at the end of a sound (or at the
    /// loop point of one in memory). Decodes them if the sound is a file.
    /// - Throws: ``SoundFileError`` when the file's data cannot be decoded.
    func nextChunk(limit: Int) throws(SoundFileError) -> Int {
        try feed.peek(frames: limit).count / feed.channels
    }

    /// Renders the next `frames` frames (at most ``nextChunk(limit:)``) into `buffer` (resized as
    /// needed) without consuming them: ``advance(by:)`` consumes what the device actually took.
    func render(into buffer: inout [Int16], frames: Int) throws(SoundFileError) {
        let needed = frames * deviceChannels
        if buffer.count < needed { buffer = [Int16](repeating: 0, count: needed) }
        let source = try feed.peek(frames: frames)
        let sourceChannels = feed.channels
        let frames = min(frames, source.count / sourceChannels)
        source.withUnsafeBufferPointer { samples in
            buffer.withUnsafeMutableBufferPointer { output in
                var frame = 0
                while frame < frames {
                    let blockEnd = min(frames, frame + blockFrames)
                    let amplitude = self.amplitude(atFrame: played + frame)
                    for index in frame..<blockEnd {
                        let from = index * sourceChannels
                        let target = index * deviceChannels
                        for channel in 0..<deviceChannels {
                            let value: Double
                            if sourceChannels == deviceChannels || sourceChannels == 1 {
                                value = Double(samples[from + min(channel, sourceChannels - 1)])
                            } else if deviceChannels == 1 {
                                value = (Double(samples[from]) + Double(samples[from + 1])) / 2
                            } else {
                                value = channel < sourceChannels ? Double(samples[from + channel]) : 0
                            }
                            output[target + channel] = Int16(clamping: Int((value * amplitude).rounded()))
                        }
                    }
                    frame = blockEnd
                }
            }
        }
    }

    /// Consumes `frames` frames that the device took.
    mutating func advance(by frames: Int) {
        played += frames
        feed.consume(frames: frames)
    }

    private func amplitude(atFrame frame: Int) -> Double {
        let elapsed = Duration.nanoseconds(Int64(frame) * 1_000_000_000 / Int64(rate))
        guard gain.duration > .zero, elapsed < gain.duration else { return finalAmplitude }
        return GainRamp.amplitude(decibels: gain.decibels(after: elapsed))
    }
}
