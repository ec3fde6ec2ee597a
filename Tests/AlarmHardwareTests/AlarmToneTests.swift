import AlarmHardware
import Testing

@Suite struct AlarmToneTests {
    let tone = AlarmTone()

    @Test func oneLoopLastsFourBeepsThreeGapsAndThePause() {
        #expect(tone.loopDuration == .milliseconds(4 * 100 + 3 * 100 + 600))
        #expect(tone.loop().count == 48_000 * 1_300 / 1_000)
    }

    @Test func eachBeepHasTheTonesFrequency() {
        let samples = tone.loop()
        let firstBeep = samples[0..<4_800]  // 100 ms at 48 kHz
        // A sine crosses zero upwards once a cycle: 2,000 Hz for 100 ms is 200 crossings.
        var upward = 0
        for index in firstBeep.indices.dropFirst() where firstBeep[index - 1] < 0 && firstBeep[index] >= 0 {
            upward += 1
        }
        #expect((199...200).contains(upward))
    }

    @Test func beepsRiseAndFallWithoutClicksAndGapsAreSilent() {
        let samples = tone.loop()
        let peak = samples.map { abs(Int($0)) }.max() ?? 0
        #expect(peak <= Int(0.9 * Double(Int16.max)) + 1 && peak > Int(0.85 * Double(Int16.max)))
        #expect(abs(Int(samples[0])) < 10, "a beep starts at silence")
        #expect(abs(Int(samples[4_799])) < 400, "and ends near it")
        #expect(samples[4_800..<9_600].allSatisfy { $0 == 0 }, "the gap is silent")
        #expect(samples[(samples.count - 28_800)...].allSatisfy { $0 == 0 }, "the pause is silent")
        let loudest = samples[2_000..<2_800].map { abs(Int($0)) }.max() ?? 0
        #expect(loudest > 29_000, "the middle of a beep is at full level")
    }
}
