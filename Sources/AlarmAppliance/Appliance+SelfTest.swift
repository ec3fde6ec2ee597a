import AlarmEngine
import AlarmHardware
import AlarmTime
import FoundationEssentials

/// A part the appliance checks on itself: the outputs it drives (the buttons are the daemon's to
/// report, from their lines' state).
public enum ApplianceCheck: String, CaseIterable, Hashable, Sendable {
    case led, display, sound, light
}

/// How one part's check ended.
public struct ApplianceCheckResult: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        /// The driver took the pattern, the frame or the tone: what was shown.
        case shown(String)
        case failed(HardwareError)
        /// An alarm began ringing first: the part went back to it unchecked or half-checked.
        case interrupted
    }

    public var check: ApplianceCheck
    public var outcome: Outcome
}

/// Why a self-test did not start.
public enum SelfTestRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// An alarm rings: its sound, light and text come first.
    case alarmRinging
    /// The display asks the person a question (a pairing, a user's first alarm).
    case questionShown
    /// Another self-test is running.
    case alreadyRunning

    public var description: String {
        switch self {
        case .alarmRinging: "an alarm is ringing: stop it, then run the self-test"
        case .questionShown: "the display is asking a question: answer it (or wait a minute), then run the self-test"
        case .alreadyRunning: "another self-test is running"
        }
    }
}

extension Appliance {
    /// Checks `checks` on the appliance's own parts, in order, each shown for `showFor`: the LED
    /// blinks, the display shows ``selfTestPattern(size:)``, the sunrise light rises to full in
    /// four steps, the built-in tone plays (through
    /// the same output, and on a card with a volume control at the card's volume, no louder than
    /// 12 dB below the alarm's). After each part the appliance shows its normal state again, the
    /// display written whole (controller, glyphs, every cell, backlight), so nothing of the
    /// pattern survives on a driver that rewrites only changed cells.
    ///
    /// An alarm always wins: a check does not start while one rings, and an alert that begins
    /// during the check takes the part back in the refresh that sees it (the tone replaced by the
    /// alarm's sound, the alert drawn whole); that part and the ones after it end `interrupted`.
    ///
    /// - Throws: ``SelfTestRefusal`` when an alarm rings, a question is on the display, or another
    ///   self-test runs.
    public func selfTest(_ checks: [ApplianceCheck], showFor: Duration) async throws(SelfTestRefusal) -> [ApplianceCheckResult] {
        guard !core.isSelfTesting else { throw .alreadyRunning }
        let snapshot = await runtime.deviceSnapshot()
        // Decided after the look at the engine: another caller may have started one meanwhile.
        try core.beginSelfTest(seeing: snapshot)
        logger.notice("Self-test started", metadata: ["parts": "\(checks.map(\.rawValue).joined(separator: ","))"])
        var results: [ApplianceCheckResult] = []
        for check in checks {
            guard core.selfTestHoldsParts else {
                results.append(.init(check: check, outcome: .interrupted))
                continue
            }
            core.selfTestTakes(check)
            let outcome = await run(check, showFor: showFor)
            results.append(.init(check: check, outcome: outcome))
            if core.selfTestHoldsParts {
                await perform(core.selfTestReleases(check))
                await refresh()
            }
        }
        let interrupted = core.endSelfTest()
        logger.notice(interrupted ? "Self-test ended by an alarm" : "Self-test done")
        await refresh()
        return results
    }

    /// The self-test's frame: a title, the four icons and the digits, then (20x4) ROM samples.
    public static func selfTestPattern(size: DisplaySize) -> DisplayFrame {
        var frame = DisplayFrame(size: size)
        frame.write(HD44780Text.encode("alarmd self-test"), row: 0)
        let icons = DisplayIcon.allCases.map(\.code)
        frame.write(icons + HD44780Text.encode(" 0123456789ABCDEF"), row: 1)
        if size.rows >= 4 {
            frame.write(HD44780Text.encode("abcdefghijklmnopqrst"), row: 2)
            frame.write(HD44780Text.encode("äöü°→ ÄÖÜ ß µ Ω !?#"), row: 3)
        }
        return frame
    }

    /// Whether a self-test runs now.
    public var isSelfTesting: Bool { core.isSelfTesting }

    private func run(_ check: ApplianceCheck, showFor: Duration) async -> ApplianceCheckResult.Outcome {
        let seconds = showFor.timeInterval
        let shownFor = "\(seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)") s"
        switch check {
        case .led:
            do {
                try await hardware.indicator.show(.blink(.white, on: .milliseconds(250), off: .milliseconds(250)))
            } catch {
                return .failed(Self.hardwareError(error, device: "led"))
            }
            guard await holdParts(for: showFor) else { return .interrupted }
            return .shown("blinked for \(shownFor)")
        case .display:
            let display = hardware.display
            do {
                for icon in DisplayIcon.allCases {
                    try await display.define(icon.glyph, slot: Int(icon.code))
                }
                guard core.selfTestHoldsParts else { return .interrupted }
                try await display.show(Self.selfTestPattern(size: display.size))
                try await display.setBacklight(true)
            } catch {
                return .failed(Self.hardwareError(error, device: "display"))
            }
            guard await holdParts(for: showFor) else { return .interrupted }
            return .shown("test pattern and glyphs shown for \(shownFor), then the screen redrawn whole")
        case .sound:
            guard core.isSoundQuiet else { return .interrupted }
            do {
                try await hardware.audio.play(.builtInTone, gain: .constant(min(core.settings.volume, -12)), looping: true)
            } catch {
                return .failed(Self.hardwareError(error, device: "audio"))
            }
            core.toneStarted(provesSound: true)
            guard await holdParts(for: showFor) else { return .interrupted }
            await hardware.audio.stop()
            return .shown("tone played for \(shownFor)")
        case .light:
            guard let light = hardware.light else {
                return .failed(HardwareError(.deviceUnavailable, device: "light (the board profile has no [light])"))
            }
            // A quick sunrise: a quarter of the time at each of four steps of lightness.
            for lightness in [0.25, 0.5, 0.75, 1.0] {
                do {
                    try await light.setOutput(PerceivedLightness.output(lightness: lightness))
                } catch {
                    return .failed(Self.hardwareError(error, device: "light"))
                }
                guard await holdParts(for: showFor / 4) else { return .interrupted }
            }
            return .shown("rose to full in four steps over \(shownFor)")
        }
    }

    /// Waits `length` while the self-test holds its part; `false` if an alert took the parts back
    /// meanwhile (the caller then touches nothing: they are the alert's).
    private func holdParts(for length: Duration) async -> Bool {
        guard core.selfTestHoldsParts else { return false }
        let clock = clock
        let deadline = clock.now.addingTimeInterval(length / .seconds(1))
        let wait = Task { _ = try await clock.sleep(until: deadline) }
        selfTestWait = wait
        let slept = (try? await wait.value) != nil
        selfTestWait = nil
        return slept && core.selfTestHoldsParts
    }
}
