import Glibc

/// The built-in alarm tone, generated in code so it can never be missing: bursts of beeps at a
/// frequency small speakers reproduce well, then a pause, as one loop of PCM.
///
/// Each beep rises and falls over a few milliseconds: a tone switched on or off at full level
/// clicks, and a click on every beep is harsh at 6 a.m. Gain is not applied here: the audio
/// backend applies the crescendo to whatever it plays.
public struct AlarmTone: Hashable, Sendable {
    public var sampleRate: Int

    /// The beep's pitch in Hz. 2.5-3 kHz is where a small speaker is loudest and the ear most
    /// sensitive; 880 Hz is gentler.
    static let frequency: Double = 2_000
    static let beepsPerBurst = 4
    static let beep: Duration = .milliseconds(100)
    static let gapBetweenBeeps: Duration = .milliseconds(100)
    static let pauseAfterBurst: Duration = .milliseconds(600)
    /// The rise and fall of each beep.
    static let ramp: Duration = .milliseconds(5)
    /// Peak level as a fraction of full scale, leaving headroom for the backend's gain.
    static let peak = 0.9

    public init(sampleRate: Int = 48_000) {
        self.sampleRate = sampleRate
    }

    public var loopDuration: Duration {
        Self.beep * Self.beepsPerBurst + Self.gapBetweenBeeps * (Self.beepsPerBurst - 1) + Self.pauseAfterBurst
    }

    /// One loop as signed 16-bit mono samples; play it looped.
    public func loop() -> [Int16] {
        let beepFrames = frames(Self.beep), gapFrames = frames(Self.gapBetweenBeeps), rampFrames = max(frames(Self.ramp), 1)
        var samples: [Int16] = []
        samples.reserveCapacity(frames(loopDuration))
        let step = 2 * Double.pi * Self.frequency / Double(sampleRate)
        for index in 0..<Self.beepsPerBurst {
            for frame in 0..<beepFrames {
                let edge = min(frame, beepFrames - 1 - frame)
                let envelope = edge < rampFrames ? Double(edge) / Double(rampFrames) : 1
                samples.append(Int16((sin(step * Double(frame)) * envelope * Self.peak * Double(Int16.max)).rounded()))
            }
            if index < Self.beepsPerBurst - 1 {
                samples += repeatElement(0, count: gapFrames)
            }
        }
        samples += repeatElement(0, count: frames(Self.pauseAfterBurst))
        return samples
    }

    private func frames(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * sampleRate + Int((Double(attoseconds) * 1e-18 * Double(sampleRate)).rounded())
    }
}
