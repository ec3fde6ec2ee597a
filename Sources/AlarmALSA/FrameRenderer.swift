import AlarmHardware

/// Turns a sound into the device's frames: loops it, maps its channels onto the device's, and
/// applies the gain ramp.
///
/// The ramp is measured in frames written, not in wall time, so a crescendo lasts as long in the
/// sound as it says, however the writer was scheduled. The gain steps once a millisecond, far
/// finer than an ear hears.
struct FrameRenderer {
    let sound: PCMSound
    let deviceChannels: Int
    let rate: Int
    let gain: GainRamp
    let looping: Bool
    /// The next frame of `sound` to play.
    private(set) var position = 0
    /// Frames played so far: the ramp's clock.
    private(set) var played = 0

    private let blockFrames: Int
    private let finalAmplitude: Double

    init(sound: PCMSound, deviceChannels: Int, gain: GainRamp, looping: Bool) {
        self.sound = sound
        self.deviceChannels = deviceChannels
        self.rate = sound.sampleRate
        self.gain = gain
        self.looping = looping
        blockFrames = max(sound.sampleRate / 1000, 1)
        finalAmplitude = GainRamp.amplitude(decibels: gain.target)
    }

    /// Whether a sound that does not loop has been played to its end.
    var isFinished: Bool { !looping && position >= sound.frameCount }

    /// The frames the next write may take: `limit`, or fewer at the end of a sound that does not loop.
    func nextChunk(limit: Int) -> Int {
        looping ? limit : min(limit, sound.frameCount - position)
    }

    /// Renders the next `frames` frames into `buffer` (resized as needed) without consuming them:
    /// ``advance(by:)`` consumes what the device actually took.
    func render(into buffer: inout [Int16], frames: Int) {
        let needed = frames * deviceChannels
        if buffer.count < needed { buffer = [Int16](repeating: 0, count: needed) }
        let sourceChannels = sound.channels
        sound.samples.withUnsafeBufferPointer { samples in
            buffer.withUnsafeMutableBufferPointer { output in
                var frame = 0
                while frame < frames {
                    let blockEnd = min(frames, frame + blockFrames)
                    let amplitude = self.amplitude(atFrame: played + frame)
                    for index in frame..<blockEnd {
                        let source = ((position + index) % sound.frameCount) * sourceChannels
                        let target = index * deviceChannels
                        for channel in 0..<deviceChannels {
                            let value: Double
                            if sourceChannels == deviceChannels || sourceChannels == 1 {
                                value = Double(samples[source + min(channel, sourceChannels - 1)])
                            } else if deviceChannels == 1 {
                                value = (Double(samples[source]) + Double(samples[source + 1])) / 2
                            } else {
                                value = channel < sourceChannels ? Double(samples[source + channel]) : 0
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
        position += frames
        if looping { position %= sound.frameCount }
    }

    private func amplitude(atFrame frame: Int) -> Double {
        let elapsed = Duration.nanoseconds(Int64(frame) * 1_000_000_000 / Int64(rate))
        guard gain.duration > .zero, elapsed < gain.duration else { return finalAmplitude }
        return GainRamp.amplitude(decibels: gain.decibels(after: elapsed))
    }
}
