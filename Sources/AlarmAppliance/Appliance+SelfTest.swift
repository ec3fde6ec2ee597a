import AlarmEngine
import AlarmHardware
import AlarmTime
import FoundationEssentials

/// A part the appliance checks on itself: the outputs it drives (the buttons are the daemon's to
/// report, from their lines' state).
public enum ApplianceCheck: String, CaseIterable, Hashable, Sendable {
    case led, display, sound
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

/// What a running self-test holds.
struct SelfTestHold {
    /// The part it drives now; `nil` between parts, and once an alert took the parts back.
    var part: ApplianceCheck?
    var interrupted = false
    /// The wait while a part shows, cancelled by an alert.
    var wait: Task<Void, any Error>?
}

extension Appliance {
    /// Checks `checks` on the appliance's own parts, in order, each shown for `showFor`: the LED
    /// blinks, the display shows ``selfTestPattern(size:)``, the built-in tone plays (through
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
        guard selfTestHold == nil else { throw .alreadyRunning }
        let snapshot = await runtime.deviceSnapshot()
        guard snapshot.alerting.isEmpty else { throw .alarmRinging }
        guard prompts.isEmpty else { throw .questionShown }
        // Checked again: another caller may have started one during the look at the engine.
        guard selfTestHold == nil else { throw .alreadyRunning }
        selfTestHold = SelfTestHold()
        logger.notice("Self-test started", metadata: ["parts": "\(checks.map(\.rawValue).joined(separator: ","))"])
        var results: [ApplianceCheckResult] = []
        for check in checks {
            guard selfTestHold?.interrupted == false else {
                results.append(.init(check: check, outcome: .interrupted))
                continue
            }
            selfTestHold?.part = check
            let outcome = await run(check, showFor: showFor)
            results.append(.init(check: check, outcome: outcome))
            if selfTestHold?.interrupted == false {
                selfTestHold?.part = nil
                await handBack(check)
                await refresh()
            }
        }
        let interrupted = selfTestHold?.interrupted ?? true
        selfTestHold = nil
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
    public var isSelfTesting: Bool { selfTestHold != nil }

    private func run(_ check: ApplianceCheck, showFor: Duration) async -> ApplianceCheckResult.Outcome {
        let seconds = showFor.timeInterval
        let shownFor = "\(seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)") s"
        switch check {
        case .led:
            do {
                try await hardware.indicator.show(.blink(.white, on: .milliseconds(250), off: .milliseconds(250)))
            } catch {
                return .failed(error as? HardwareError ?? HardwareError(.io, device: "led", errno: nil))
            }
            guard await holdParts(for: showFor) else { return .interrupted }
            return .shown("blinked for \(shownFor)")
        case .display:
            let display = hardware.display
            do {
                for icon in DisplayIcon.allCases {
                    try await display.define(icon.glyph, slot: Int(icon.code))
                }
                guard selfTestHold?.interrupted == false else { return .interrupted }
                try await display.show(Self.selfTestPattern(size: display.size))
                try await display.setBacklight(true)
            } catch {
                return .failed(error as? HardwareError ?? HardwareError(.io, device: "display", errno: nil))
            }
            guard await holdParts(for: showFor) else { return .interrupted }
            return .shown("test pattern and glyphs shown for \(shownFor), then the screen redrawn whole")
        case .sound:
            guard case .quiet = soundState else { return .interrupted }
            do {
                try await hardware.audio.play(.builtInTone, gain: .constant(min(settings.volume, -12)), looping: true)
            } catch {
                return .failed(error as? HardwareError ?? HardwareError(.io, device: "audio", errno: nil))
            }
            // The device no longer holds what was prepared for the next alert: prepared again after.
            soundState = .silent
            sound.recordSuccess()
            guard await holdParts(for: showFor) else { return .interrupted }
            await hardware.audio.stop()
            return .shown("tone played for \(shownFor)")
        }
    }

    /// Waits `length` while the self-test holds its part; `false` if an alert took the parts back
    /// meanwhile (the caller then touches nothing: they are the alert's).
    private func holdParts(for length: Duration) async -> Bool {
        guard selfTestHold?.interrupted == false else { return false }
        let clock = clock
        let deadline = clock.now.addingTimeInterval(length / .seconds(1))
        let wait = Task { _ = try await clock.sleep(until: deadline) }
        selfTestHold?.wait = wait
        let slept = (try? await wait.value) != nil
        selfTestHold?.wait = nil
        return slept && selfTestHold?.interrupted == false
    }

    /// Ends the self-test's hold: it touches nothing more. Returns the part it held, which the
    /// caller hands back to the appliance.
    @discardableResult
    func interruptSelfTest() -> ApplianceCheck? {
        guard var hold = selfTestHold, !hold.interrupted else { return nil }
        hold.wait?.cancel()
        let held = hold.part
        hold.interrupted = true
        hold.part = nil
        hold.wait = nil
        selfTestHold = hold
        logger.notice("Self-test interrupted: an alarm takes the parts", metadata: ["part": "\(held?.rawValue ?? "none")"])
        return held
    }

    /// Makes the appliance show its own state on `part` at the next refresh, whatever the
    /// self-test left there: the display is forgotten and written whole.
    func handBack(_ part: ApplianceCheck) async {
        switch part {
        case .led:
            shownPattern = nil
        case .display:
            glyphsLoaded = false
            shownFrame = nil
            backlightOn = nil
            await hardware.display.forgetContents()
        case .sound:
            // Stopped by the check, or replaced by the alert's sound that follows.
            break
        }
    }
}
