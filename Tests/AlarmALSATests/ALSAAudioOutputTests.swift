@testable import AlarmALSA
import AlarmHardware
import AlarmTestKit
internal import CALSAShim
import Glibc
import Testing

/// ALSAAudioOutput through the real libasound path into ALSA's file plugin (see ``FilePluginRig``).
@Suite(.timeLimit(.minutes(5)))
struct ALSAAudioOutputTests {
    @Test func builtInToneNotLoopingPlaysOneLoopAtTwoKilohertzInRealTime() async throws {
        let rig = try FilePluginRig()
        let tone = AlarmTone()
        let clock = ContinuousClock()
        let began = clock.now
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()
        let elapsed = clock.now - began

        let recording = try rig.recording()
        #expect(recording.sampleRate == 48_000)
        #expect(abs(recording.frameCount - tone.loop().count) <= 48)  // one loop, 1.3 s
        let samples = Signal.channel(0, of: recording)
        let firstBeep = 0..<Signal.frames(0.1, rate: 48_000)
        #expect(abs(Signal.frequency(samples, in: firstBeep, sampleRate: 48_000) - 2_000) < 20)
        // The beep's steady part peaks at 0.9 of full scale: an RMS of 0.9/√2, -3.9 dBFS.
        let steady = Signal.frames(0.02, rate: 48_000)..<Signal.frames(0.08, rate: 48_000)
        #expect(abs(Signal.decibels(samples, in: steady) - 20 * log10(0.9 / 2.0.squareRoot())) < 0.3)
        // The null device takes everything at once; the writer paces itself to the clock, so the
        // sound lasts its length (less the buffer written ahead), not a millisecond.
        #expect(elapsed >= .milliseconds(1_300 - 160 - 50))
    }

    @Test func gainRampRisesInDecibelsByFramesPlayed() async throws {
        let rig = try FilePluginRig()
        let path = try rig.writeSineWAV(
            named: "sine.wav", sampleRate: 48_000, bits: 16, seconds: 1, channels: [(1_000, 0.5)])
        let ramp = GainRamp(from: -30, to: 0, over: .milliseconds(800))
        try await rig.output.play(.file(path), gain: ramp, looping: false)
        await rig.output.waitUntilIdle()

        let recording = try rig.recording()
        #expect(recording.frameCount == 48_000)
        let samples = Signal.channel(0, of: recording)
        let sineLevel = 20 * log10(0.5 / 2.0.squareRoot())
        for centre in [0.03, 0.2, 0.4, 0.6, 0.77, 0.9] {
            // 20 ms blocks: whole cycles of 1 kHz, so the RMS is the level, not the phase.
            let block = Signal.frames(centre - 0.01, rate: 48_000)..<Signal.frames(centre + 0.01, rate: 48_000)
            let expected = sineLevel + ramp.decibels(after: .milliseconds(Int(centre * 1000)))
            let measured = Signal.decibels(samples, in: block)
            #expect(abs(measured - expected) < 0.5, "at \(centre) s: \(measured) dB, expected \(expected) dB")
        }
    }

    @Test func stereo24BitFileAt44kIsConvertedThroughPlug() async throws {
        let rig = try FilePluginRig(rate: 48_000, channels: 2)
        let path = try rig.writeSineWAV(
            named: "stereo.wav", sampleRate: 44_100, bits: 24, seconds: 0.5, channels: [(440, 0.5), (1_000, 0.25)])
        try await rig.output.play(.file(path), gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()

        let recording = try rig.recording()
        #expect(recording.sampleRate == 48_000)
        #expect(recording.channels == 2)
        #expect(abs(recording.frameCount - 24_000) <= 240)  // 0.5 s at the new rate, within 1%
        let left = Signal.channel(0, of: recording), right = Signal.channel(1, of: recording)
        let middle = Signal.frames(0.05, rate: 48_000)..<Signal.frames(0.45, rate: 48_000)
        #expect(abs(Signal.frequency(left, in: middle, sampleRate: 48_000) - 440) < 4)
        #expect(abs(Signal.frequency(right, in: middle, sampleRate: 48_000) - 1_000) < 10)
        #expect(abs(Signal.decibels(left, in: middle) - 20 * log10(0.5 / 2.0.squareRoot())) < 1)
        #expect(abs(Signal.decibels(right, in: middle) - 20 * log10(0.25 / 2.0.squareRoot())) < 1)
    }

    @Test func loopingToneRepeatsAtRealTimePaceUntilStopped() async throws {
        let rig = try FilePluginRig()
        let loopFrames = AlarmTone().loop().count
        let clock = ContinuousClock()
        let began = clock.now
        try await rig.output.play(.builtInTone, gain: .constant(-6), looping: true)
        // The file plugin writes a buffer behind; wait until the second loop's first beep is in.
        let enough = 44 + 2 * (loopFrames + 4_800)
        try await TestFiles.waitUntil(watching: rig.recordingPath, failure: { "a loop and a beep were not recorded" }) {
            rig.recordedBytes > enough ? () : nil
        }
        await rig.output.stop()
        let elapsed = Double((clock.now - began) / .milliseconds(1)) / 1000

        let recording = try rig.recording()
        #expect(recording.frameCount > loopFrames + 4_800)
        // Paced: never more than the buffer (and a period) ahead of the clock.
        #expect(Double(recording.frameCount) <= elapsed * 48_000 * 1.01 + 7_680 + 960)
        let samples = Signal.channel(0, of: recording)
        let secondLoopBeep = loopFrames..<(loopFrames + 4_800)
        #expect(abs(Signal.frequency(samples, in: secondLoopBeep, sampleRate: 48_000) - 2_000) < 20)
        let steady = (loopFrames + 960)..<(loopFrames + 3_840)
        #expect(abs(Signal.decibels(samples, in: steady) - (20 * log10(0.9 / 2.0.squareRoot()) - 6)) < 0.3)
    }

    @Test func playWhilePlayingReplacesThePlayback() async throws {
        let rig = try FilePluginRig()
        let path = try rig.writeSineWAV(
            named: "short.wav", sampleRate: 48_000, bits: 16, seconds: 0.25, channels: [(1_000, 0.5)])
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: true)
        try await rig.output.play(.file(path), gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()

        // The file plugin truncates on open: the tone's device was closed before the file's opened.
        let recording = try rig.recording()
        #expect(recording.frameCount == 12_000)
        let samples = Signal.channel(0, of: recording)
        #expect(abs(Signal.frequency(samples, in: 0..<12_000, sampleRate: 48_000) - 1_000) < 10)
    }

    /// A sound replaced in place, even by one of the same size at once, is heard as it is now.
    @Test func aFileRewrittenInPlaceIsPlayedAsItIsNow() async throws {
        let rig = try FilePluginRig()
        for frequency in [1_000.0, 440, 1_000] {
            let path = try rig.writeSineWAV(
                named: "sound.wav", sampleRate: 48_000, bits: 16, seconds: 0.25, channels: [(frequency, 0.5)])
            try await rig.output.play(.file(path), gain: .constant(0), looping: false)
            await rig.output.waitUntilIdle()
            let recording = try rig.recording()
            #expect(recording.frameCount == 12_000)
            let measured = Signal.frequency(Signal.channel(0, of: recording), in: 0..<12_000, sampleRate: 48_000)
            #expect(abs(measured - frequency) < 10, "expected \(frequency) Hz, recorded \(measured) Hz")
        }
    }

    // MARK: Prepared ahead of an alert

    @Test func aPreparedSoundPlaysFromTheDeviceAlreadyOpen() async throws {
        let rig = try FilePluginRig()
        await rig.output.prepare(.builtInTone, for: .seconds(30))
        await rig.pcm.nextOpen()
        #expect(rig.output.statistics.writes == 0, "a preparation never sounds")
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()
        #expect(rig.output.statistics.opens == 1)
        #expect(try rig.recording().frameCount == AlarmTone().loop().count)
    }

    @Test func anUnclaimedPreparationClosesTheDeviceWhenItsTimeIsUp() async throws {
        let rig = try FilePluginRig()
        await rig.output.prepare(.builtInTone, for: .milliseconds(100))
        await rig.output.waitUntilIdle()  // returns only once the writer closed the device
        #expect(rig.output.statistics.opens == 1)
        #expect(rig.output.statistics.writes == 0)
        #expect(try rig.recording().frameCount == 0)
        // Then a play opens it again.
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()
        #expect(rig.output.statistics.opens == 2)
        #expect(try rig.recording().frameCount == AlarmTone().loop().count)
    }

    @Test func aPlayOfAnotherSoundReplacesThePreparation() async throws {
        let rig = try FilePluginRig()
        let path = try rig.writeSineWAV(
            named: "sine.wav", sampleRate: 48_000, bits: 16, seconds: 0.25, channels: [(1_000, 0.5)])
        await rig.output.prepare(.builtInTone, for: .seconds(30))
        await rig.pcm.nextOpen()
        try await rig.output.play(.file(path), gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()
        #expect(rig.output.statistics.opens == 2)
        let recording = try rig.recording()
        #expect(recording.frameCount == 12_000)
        #expect(abs(Signal.frequency(Signal.channel(0, of: recording), in: 0..<12_000, sampleRate: 48_000) - 1_000) < 10)
    }

    @Test func stopReleasesAPreparedDeviceAtOnce() async throws {
        let rig = try FilePluginRig()
        await rig.output.prepare(.builtInTone, for: .seconds(60))
        await rig.pcm.nextOpen()
        await rig.output.stop()  // returns after the close: a minute's hold must not delay it
        await rig.output.waitUntilIdle()
        #expect(rig.output.statistics.writes == 0)
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()
        #expect(try rig.recording().frameCount == AlarmTone().loop().count)
    }

    @Test func preparingWhilePlayingLeavesThePlaybackAlone() async throws {
        let rig = try FilePluginRig()
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: false)
        await rig.output.prepare(.file(rig.directory.path + "/other.wav"), for: .seconds(30))
        await rig.output.waitUntilIdle()
        #expect(rig.output.statistics.opens == 1)
        #expect(try rig.recording().frameCount == AlarmTone().loop().count)
    }

    @Test func aPreparationThatCannotOpenLeavesTheErrorToThePlay() async throws {
        let rig = try FilePluginRig(device: "alarmd_no_such_pcm")
        await rig.output.prepare(.builtInTone, for: .seconds(30))
        await rig.output.waitUntilIdle()
        let error = await #expect(throws: HardwareError.self) {
            try await rig.output.play(.builtInTone, gain: .constant(0), looping: true)
        }
        #expect(error == HardwareError(.deviceUnavailable, device: "alarmd_no_such_pcm", errno: ENOENT))
    }

    @Test func missingDeviceIsUnavailableAndNamedWithALSAsMessageInDiagnostics() async throws {
        let rig = try FilePluginRig(device: "alarmd_no_such_pcm")
        let error = await #expect(throws: HardwareError.self) {
            try await rig.output.play(.builtInTone, gain: .constant(0), looping: true)
        }
        #expect(error == HardwareError(.deviceUnavailable, device: "alarmd_no_such_pcm", errno: ENOENT))
        #expect(rig.diagnostics.contains { $0.contains("Unknown PCM alarmd_no_such_pcm") }, "\(rig.diagnostics)")
        await rig.output.stop()
    }

    /// ALSA has one handler for the whole process. Another module routing it (the VM probe does)
    /// must not leave the output reading an empty buffer of its own: there is one handler, in C.
    @Test func anotherModuleRoutingALSAsMessagesDoesNotTakeThemFromTheOutput() async throws {
        let rig = try FilePluginRig(device: "alarmd_no_such_pcm")
        #expect(alarmd_alsa_route_errors() == 0)
        await #expect(throws: HardwareError.self) {
            try await rig.output.play(.builtInTone, gain: .constant(0), looping: true)
        }
        #expect(rig.diagnostics.contains { $0.contains("Unknown PCM alarmd_no_such_pcm") }, "\(rig.diagnostics)")
    }

    @Test func missingCardWithoutPrivateConfigurationIsUnavailable() async throws {
        let output = ALSAAudioOutput(device: "hw:CARD=alarmdNoSuchCard")
        let error = await #expect(throws: HardwareError.self) {
            try await output.play(.builtInTone, gain: .constant(0), looping: false)
        }
        #expect(error?.kind == .deviceUnavailable)
        #expect(error?.device == "hw:CARD=alarmdNoSuchCard")
    }

    @Test func aMissingFileThrowsNamingItAndLeavesTheDeviceAlone() async throws {
        let rig = try FilePluginRig()
        let path = rig.directory.path + "/absent.wav"
        let error = await #expect(throws: HardwareError.self) {
            try await rig.output.play(.file(path), gain: .constant(0), looping: true)
        }
        #expect(error == HardwareError(.io, device: path, errno: ENOENT))
        #expect(rig.recordedBytes == 0)
    }

    @Test func aDirectoryOrAFIFOIsRefusedWithoutBlocking() async throws {
        let rig = try FilePluginRig()
        let fifo = rig.directory.path + "/fifo.wav"
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [rig.directory.path, fifo] {
            let error = await #expect(throws: HardwareError.self) {
                try await rig.output.play(.file(path), gain: .constant(0), looping: false)
            }
            #expect(error == HardwareError(.io, device: path))
            #expect(rig.diagnostics.contains("\(path): not a regular file"), "\(rig.diagnostics)")
        }
        #expect(rig.recordedBytes == 0)
    }

    @Test func aFileThatIsNoSoundThrowsNamingItWithTheReasonInDiagnostics() async throws {
        let rig = try FilePluginRig()
        let path = rig.directory.path + "/text.wav"
        try TestFiles.write(Array("this is not audio".utf8), to: path)
        let error = await #expect(throws: HardwareError.self) {
            try await rig.output.play(.file(path), gain: .constant(0), looping: false)
        }
        #expect(error?.kind == .io)
        #expect(error?.device == path)
        #expect(rig.diagnostics.contains { $0.hasPrefix("\(path): ") && $0.count > path.count + 2 }, "\(rig.diagnostics)")
        #expect(rig.recordedBytes == 0)
    }

    @Test func stopIsHarmlessWhenIdleAndTwice() async throws {
        let rig = try FilePluginRig()
        await rig.output.stop()
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: true)
        await rig.output.stop()
        await rig.output.stop()
        await rig.output.waitUntilIdle()
        let recording = try rig.recording()  // closed: the header carries the lengths
        #expect(recording.frameCount > 0)
        // And the output still plays afterwards.
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: false)
        await rig.output.waitUntilIdle()
        #expect(try rig.recording().frameCount == AlarmTone().loop().count)
    }

    @Test func deviceLostMidPlaybackEndsItAndIsReportedOnEveryStream() async throws {
        let rig = try FilePluginRig(failure: .init(afterFrames: 9_600, errno: ENODEV))
        var first = rig.output.failures().makeAsyncIterator()
        var second = rig.output.failures().makeAsyncIterator()
        try await rig.output.play(.builtInTone, gain: .constant(0), looping: true)
        let expected = HardwareError(.deviceUnavailable, device: FilePluginRig.deviceName, errno: ENODEV)
        #expect(await first.next() == expected)
        #expect(await second.next() == expected)
        await rig.output.waitUntilIdle()
        await rig.output.stop()
        #expect(abs(try rig.recording().frameCount - 9_600) <= 960)
    }

    @Test func deviceErrorBeforeTheFirstFrameIsThrownByPlay() async throws {
        let rig = try FilePluginRig(failure: .init(afterFrames: 0, errno: EIO))
        let error = await #expect(throws: HardwareError.self) {
            try await rig.output.play(.builtInTone, gain: .constant(0), looping: true)
        }
        #expect(error == HardwareError(.io, device: FilePluginRig.deviceName, errno: EIO))
        await rig.output.waitUntilIdle()
    }

    /// How fast is the benchmark's business (`alarm-benchmarks --only sound`); this checks that a
    /// stop while looping really ends the playback, twenty times in a row.
    @Test func stopEndsALoopingPlaybackEveryTime() async throws {
        let rig = try FilePluginRig()
        for _ in 0..<20 {
            try await rig.output.play(.builtInTone, gain: .constant(0), looping: true)
            await rig.output.stop()
            let before = rig.output.statistics.writes
            await rig.output.waitUntilIdle()
            #expect(rig.output.statistics.writes == before, "nothing is written after stop() returned")
        }
    }
}

@Suite struct ALSAMixerVolumeTests {
    @Test func aMissingCardIsUnavailableAndNamed() {
        let volume = ALSAMixerVolume(card: "hw:CARD=alarmdNoSuchCard", control: "PCM")
        #expect {
            try volume.set(decibels: -6)
        } throws: { error in
            guard let error = error as? HardwareError else { return false }
            return error.kind == .deviceUnavailable && error.device == "hw:CARD=alarmdNoSuchCard mixer PCM"
        }
        #expect(throws: HardwareError.self) { try volume.range() }
    }
}
