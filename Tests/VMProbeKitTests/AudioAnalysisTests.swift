import AlarmTestKit
import Testing
@testable import VMProbeKit

/// `sound` and `silence` on captures made in the test: known onsets, stops, levels and pitches.
@Suite struct AudioAnalysisTests {
    typealias Signal = SyntheticCapture

    /// Writes `signal` and loads it back as the probe would.
    func analysis(
        _ signal: Signal, thresholdDB: Double = -60, lost: [Range<Int>] = [], lateness: (Int) -> Int64 = { _ in 0 }
    ) throws -> AudioAnalysis {
        let directory = try TemporaryDirectory()
        try signal.write(to: directory.path, lost: lost, lateness: lateness)
        return AudioAnalysis(capture: try Capture.load(directory: directory.path), thresholdDB: thresholdDB)
    }

    func milliseconds(_ from: RealtimeInstant?, _ to: RealtimeInstant) -> Double? {
        from.map { RealtimeInstant.millisecondsBetween(to, $0) }
    }

    @Test func steadyToneGivesOnsetFrequencyAndLevel() throws {
        var signal = Signal()
        signal.silence(1.0)
        signal.tone(2000, seconds: 0.5, peak: 0.5)
        signal.silence(0.5)
        let report = try analysis(signal).sound(after: Signal.instant(seconds: 0.9))
        let onset = try #require(milliseconds(report.firstSound, Signal.instant(seconds: 1.0)))
        #expect(abs(onset) < 0.05)  // within 2 samples of the true onset
        #expect(abs(try #require(report.latencyMilliseconds) - 100) < 0.05)
        #expect(abs(try #require(report.frequency) - 2000) < 20)
        #expect(abs(try #require(report.peakDBFS) - (-6.02)) < 0.1)
        #expect(abs(try #require(report.rmsDBFS) - (-9.03)) < 0.5)
        #expect(abs(report.soundingMilliseconds - 500) <= 5)
        #expect(abs(report.analysedMilliseconds - 1100) <= 0.1)
        #expect(report.xruns == 0)
    }

    @Test(arguments: [440.0, 1000.0, 2000.0, 3150.0])
    func frequencyIsWithinTwentyHertz(_ frequency: Double) throws {
        var signal = Signal()
        signal.silence(0.2)
        signal.tone(frequency, seconds: 0.3, peak: 0.1)
        let report = try analysis(signal).sound(after: Signal.start)
        #expect(abs(try #require(report.frequency) - frequency) < 20)
    }

    @Test func alarmToneWithCrescendoAndDropoutIsFoundAtItsFirstBeep() throws {
        var signal = Signal()
        signal.silence(0.5)
        signal.alarmTone(seconds: 3.0, crescendo: 30)
        signal.dropout(at: 0.5 + 0.05)  // inside the first beep, at −36 dB
        signal.silence(0.5)
        let press = Signal.instant(seconds: 0.25)
        let report = try analysis(signal).sound(after: press)
        #expect(abs(try #require(milliseconds(report.firstSound, Signal.instant(seconds: 0.5)))) < 0.05)
        #expect(abs(try #require(report.latencyMilliseconds) - 250) < 0.05)
        #expect(abs(try #require(report.frequency) - 2000) < 20)
        // Crescendo: -36 dB at the start, -33 dB after 3 s; the peak of 0.9 FS is -0.92 dBFS.
        #expect(abs(try #require(report.peakDBFS) - (-0.92 - 33)) < 0.3)
        // 3 s of the tone: 0.4 s of beeps per 1.4 s loop, twice, then the third loop's first beep.
        #expect(abs(report.soundingMilliseconds - 900) <= 15)
    }

    @Test func aClickIsNotAnOnset() throws {
        var signal = Signal()
        signal.silence(1.0)
        signal.tone(1000, seconds: 0.2)
        signal.click(at: 0.3)
        let report = try analysis(signal).sound(after: Signal.start)
        #expect(abs(try #require(milliseconds(report.firstSound, Signal.instant(seconds: 1.0)))) < 0.05)
    }

    @Test func silenceHasNoSound() throws {
        var signal = Signal()
        signal.silence(1.0)
        let report = try analysis(signal).sound(after: Signal.start)
        #expect(report.firstSound == nil)
        #expect(report.latencyMilliseconds == nil)
        #expect(report.frequency == nil)
        #expect(report.peakDBFS == nil)
        #expect(report.rmsDBFS == nil)
        #expect(report.soundingMilliseconds == 0)
        #expect(report.json.text.contains("\"first_sound\":null,\"latency_ms\":null"))
    }

    @Test func soundBeforeTheRangeDoesNotCount() throws {
        var signal = Signal()
        signal.tone(2000, seconds: 0.5)
        signal.silence(1.0)
        signal.tone(2000, seconds: 0.5)
        let analysis = try analysis(signal)
        let report = analysis.sound(after: Signal.instant(seconds: 0.6))
        #expect(abs(try #require(milliseconds(report.firstSound, Signal.instant(seconds: 1.5)))) < 0.05)
        let bounded = analysis.sound(after: Signal.instant(seconds: 0.6), before: Signal.instant(seconds: 1.4))
        #expect(bounded.firstSound == nil)
        #expect(abs(bounded.analysedMilliseconds - 800) <= 0.1)
    }

    @Test func thresholdDecidesWhatSounds() throws {
        var signal = Signal()
        signal.silence(0.5)
        signal.tone(2000, seconds: 0.5, peak: 0.001)  // −60 dBFS peak, −63 RMS
        #expect(try analysis(signal).sound(after: Signal.start).firstSound == nil)
        #expect(try analysis(signal, thresholdDB: -70).sound(after: Signal.start).firstSound != nil)
    }

    @Test func lateTimestampsDoNotShiftInstants() throws {
        var signal = Signal()
        signal.silence(1.5)
        signal.alarmTone(seconds: 2.0)
        signal.silence(2.0)
        var random = SeededRandomNumberGenerator(seed: 7)
        // Most reads come back up to 8 ms late; one in five on time.
        let lateness = (0..<2000).map { _ in Int.random(in: 0..<5, using: &random) == 0 ? Int64(0) : Int64.random(in: 0...8_000_000, using: &random) }
        let analysis = try analysis(signal, lateness: { lateness[$0] })
        let sound = analysis.sound(after: Signal.instant(seconds: 1.0))
        #expect(abs(try #require(milliseconds(sound.firstSound, Signal.instant(seconds: 1.5)))) < 0.05)
        let silence = analysis.silence(after: Signal.instant(seconds: 3.0))
        #expect(abs(try #require(milliseconds(silence.silentFrom, Signal.instant(seconds: 3.4)))) < 0.05)
    }

    @Test func overrunsAreToleratedAndCounted() throws {
        var signal = Signal()
        signal.silence(1.0)
        signal.tone(2000, seconds: 1.0)
        signal.silence(1.0)
        // 100 ms lost at 0.5 s (silence) and 50 ms inside the tone.
        let lost = [Signal.frames(0.5)..<Signal.frames(0.6), Signal.frames(1.5)..<Signal.frames(1.55)]
        let analysis = try analysis(signal, lost: lost)
        #expect(analysis.capture.timeline.xruns.count == 2)
        let sound = analysis.sound(after: Signal.instant(seconds: 0.8))
        #expect(abs(try #require(milliseconds(sound.firstSound, Signal.instant(seconds: 1.0)))) < 0.05)
        #expect(sound.xruns == 1)
        #expect(abs(sound.soundingMilliseconds - 950) <= 10)
        let silence = analysis.silence(after: Signal.instant(seconds: 1.2))
        #expect(abs(try #require(milliseconds(silence.silentFrom, Signal.instant(seconds: 2.0)))) < 0.05)
    }

    // MARK: - Silence

    @Test func stopMidBeepIsSilenceFromTheStop() throws {
        var signal = Signal()
        signal.silence(0.5)
        signal.alarmTone(seconds: 2.05)  // stopped halfway through the second loop's fourth beep
        signal.silence(2.0)
        let press = Signal.instant(seconds: 2.5)
        let report = try analysis(signal).silence(after: press)
        #expect(abs(try #require(milliseconds(report.silentFrom, Signal.instant(seconds: 2.55)))) < 0.05)
        #expect(abs(report.delayMilliseconds - 50) < 0.05)
        #expect(report.silent)
        #expect(abs(report.silentMilliseconds - 2000) < 0.1)
    }

    @Test func pausesBetweenBurstsAreNotTheStop() throws {
        var signal = Signal()
        signal.silence(0.5)
        signal.alarmTone(seconds: 5.0)
        let analysis = try analysis(signal)
        // From the middle of a pause, with the tone going on to the end of the capture.
        let ongoing = analysis.silence(after: Signal.instant(seconds: 0.5 + 0.9))
        #expect(!ongoing.silent)
        #expect(abs(try #require(milliseconds(ongoing.silentFrom, Signal.instant(seconds: 0.5 + 4.9)))) < 0.05)
        // A range ending inside a pause: silent from the pause, but not for 1.5 s.
        let pause = analysis.silence(after: Signal.instant(seconds: 0.5 + 0.65), before: Signal.instant(seconds: 0.5 + 1.35))
        #expect(abs(try #require(milliseconds(pause.silentFrom, Signal.instant(seconds: 0.5 + 0.7)))) < 0.05)
        #expect(!pause.silent)
        #expect(abs(pause.silentMilliseconds - 650) < 0.1)
        // The same with --min 0.5: the pause would do.
        #expect(analysis.silence(after: Signal.instant(seconds: 1.15), before: Signal.instant(seconds: 1.85), minimumSeconds: 0.5).silent)
    }

    @Test func dropoutIsNotSilence() throws {
        var signal = Signal()
        signal.tone(2000, seconds: 1.0, peak: 0.02)
        signal.dropout(at: 0.7)
        signal.dropout(at: 0.9)
        let report = try analysis(signal).silence(after: Signal.instant(seconds: 0.5), minimumSeconds: 0.04)
        #expect(!report.silent)
        #expect(report.silentMilliseconds < 0.1)
    }

    @Test func nothingAfterThePressIsSilentFromThePress() throws {
        var signal = Signal()
        signal.tone(2000, seconds: 0.5)
        signal.silence(2.0)
        let press = Signal.instant(seconds: 0.7)
        let report = try analysis(signal).silence(after: press, before: Signal.instant(seconds: 2.3))
        #expect(report.silentFrom == press)
        #expect(report.delayMilliseconds == 0)
        #expect(report.silent)
        #expect(report.until == Signal.instant(seconds: 2.3))
    }

    @Test func silenceShorterThanTheMinimumIsNotSilent() throws {
        var signal = Signal()
        signal.tone(2000, seconds: 1.0)
        signal.silence(1.0)
        let report = try analysis(signal).silence(after: Signal.instant(seconds: 0.5))
        #expect(abs(try #require(milliseconds(report.silentFrom, Signal.instant(seconds: 1.0)))) < 0.05)
        #expect(!report.silent)
        #expect(abs(report.silentMilliseconds - 1000) < 0.1)
    }

    // MARK: - Files

    @Test func missingFilesAreClearErrors() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: ProbeError("cannot read \(directory.path)/capture.times: No such file or directory")) {
            try Capture.load(directory: directory.path)
        }
        try TestFiles.write(Array("0 1764000000.000000\n".utf8), to: directory.path + "/capture.times")
        #expect(throws: ProbeError("cannot read \(directory.path)/capture.s16: No such file or directory")) {
            try Capture.load(directory: directory.path)
        }
    }

    @Test func timesWithoutAPeriodIsAClearError() throws {
        let directory = try TemporaryDirectory()
        try TestFiles.write([], to: directory.path + "/capture.times")
        try TestFiles.write([], to: directory.path + "/capture.s16")
        #expect(throws: ProbeError("\(directory.path)/capture.times has no period yet: did record-audio start?")) {
            try Capture.load(directory: directory.path)
        }
    }

    @Test func malformedTimesLineIsNamed() {
        #expect(throws: ProbeError("capture.times:2: expected `FRAME SECONDS` or `xrun SECONDS`, found `240 soon`")) {
            try CaptureTimesEntry.parse("0 1764000000.0\n240 soon\n480 1764000000.01\n")
        }
        #expect(throws: ProbeError("capture.times:2: frame index 100 goes back (previous 240)")) {
            try CaptureTimesEntry.parse("240 1764000000.0\n100 1764000000.01\n")
        }
    }

    @Test func aLineBeingWrittenIsIgnored() throws {
        var signal = Signal()
        signal.tone(2000, seconds: 0.1)
        let directory = try TemporaryDirectory()
        try signal.write(to: directory.path, unfinishedLastLine: true)
        let capture = try Capture.load(directory: directory.path)
        #expect(capture.samples.count == 4800)
        #expect(capture.timeline.instant(ofFrame: 4800) == Signal.instant(seconds: 0.1))
    }

    @Test func anOddTrailingByteIsIgnored() throws {
        let directory = try TemporaryDirectory()
        try TestFiles.write(Array("0 1764000000.5\n".utf8), to: directory.path + "/capture.times")
        try TestFiles.write([0x01, 0x00, 0xFF, 0xFF, 0x07], to: directory.path + "/capture.s16")
        #expect(try Capture.load(directory: directory.path).samples == [1, -1])
    }
}
