import AlarmEngine
import AlarmHardware

/// What a running self-test holds.
struct SelfTestHold: Hashable, Sendable {
    /// The part it drives now; `nil` between parts, and once an alert took the parts back.
    var part: ApplianceCheck?
    var interrupted = false
}

extension ApplianceCore {
    /// Whether a self-test runs now.
    var isSelfTesting: Bool { selfTest != nil }

    /// Whether the running self-test still holds the parts: no alert took them back.
    var selfTestHoldsParts: Bool { selfTest?.interrupted == false }

    /// Starts a self-test, given a fresh look at the engine.
    ///
    /// - Throws: ``SelfTestRefusal`` when another self-test runs, an alarm rings, or a question
    ///   is on the display.
    mutating func beginSelfTest(seeing snapshot: DeviceSnapshot) throws(SelfTestRefusal) {
        guard selfTest == nil else { throw .alreadyRunning }
        guard snapshot.alerting.isEmpty else { throw .alarmRinging }
        guard questions.isEmpty else { throw .questionShown }
        selfTest = SelfTestHold()
    }

    /// The self-test drives `part` now: refreshes leave it alone.
    mutating func selfTestTakes(_ part: ApplianceCheck) {
        selfTest?.part = part
    }

    /// The self-test is done with `part`: the appliance shows its own state there again.
    mutating func selfTestReleases(_ part: ApplianceCheck) -> [PartCommand] {
        selfTest?.part = nil
        return handBack(part)
    }

    /// Ends the self-test; returns whether an alert interrupted it.
    mutating func endSelfTest() -> Bool {
        defer { selfTest = nil }
        return selfTest?.interrupted ?? true
    }

    /// An alert takes the parts back: the self-test's wait ends, it touches nothing more, and the
    /// part it held shows the appliance's own state in this same refresh.
    mutating func interruptSelfTest() -> [PartCommand] {
        guard var hold = selfTest, !hold.interrupted else { return [] }
        let held = hold.part
        hold.interrupted = true
        hold.part = nil
        selfTest = hold
        let commands: [PartCommand] = [
            .endSelfTestWait,
            .log(.notice, "Self-test interrupted: an alarm takes the parts", ["part": held?.rawValue ?? "none"]),
        ]
        return commands + (held.map { handBack($0) } ?? [])
    }

    /// Makes the appliance show its own state on `part` at the next refresh, whatever the
    /// self-test left there: the display is forgotten and written whole.
    private mutating func handBack(_ part: ApplianceCheck) -> [PartCommand] {
        switch part {
        case .led:
            shownPattern = nil
            return []
        case .display:
            screen.forget()
            return [.forgetDisplayContents]
        case .sound:
            // Stopped by the check, or replaced by the alert's sound that follows.
            return []
        case .light:
            light.shown = nil
            return []
        }
    }
}
