import AlarmEngine
import AlarmHardware
import AlarmModel
import FoundationEssentials

/// What the sunrise light is doing.
struct LightState: Hashable, Sendable {
    /// The output the lamp last took; `nil` when unknown (at start, after a failure or a self-test).
    var shown: Double?
    /// When the output must next change by itself: the next step of a sunrise, its start, or the
    /// end of the time it is kept on.
    var nextChange: Date?
    /// The alarm whose alert or snooze holds the light full.
    var heldBy: AlarmKey?
    /// After that alarm, kept on until then (``ApplianceSettings/LightAfterStop/on``).
    var keptUntil: Date?
    /// Turned on by hand (a household's automation, through alarm-mqtt): this output until it is
    /// turned off, an alarm rings, or STOP is pressed with nothing ringing. A sunrise brighter
    /// than it shows through.
    var byHand: Double?
}

extension ApplianceCore {
    /// Why the light last failed; cleared once it takes an output.
    var lightFault: HardwareError? { lightHealth.fault }

    /// The sunrise: the light rises in equal steps of perceived lightness (``PerceivedLightness``)
    /// from the alarm's lead (its own, else the household's) to full at its time, stays full
    /// while it rings and while it is snoozed, then goes off or stays on as the household chose.
    /// Decided after the sound, and never waits for it: a light that fails is retried and shown
    /// as a fault, and changes nothing else.
    mutating func refreshLight() -> [PartCommand] {
        guard hasLight, selfTest?.part != .light, let snapshot = lastSnapshot else { return [] }
        let now = snapshot.now
        updateLightHold(snapshot)
        let (output, nextChange) = lightTarget(in: snapshot)
        light.nextChange = nextChange
        if let retryAt = lightHealth.retryAt, now < retryAt { return [] }
        return output == light.shown ? [] : [.setLight(output)]
    }

    /// The alarm holding the light full: one ringing, or snoozed, that uses the light.
    private mutating func updateLightHold(_ snapshot: DeviceSnapshot) {
        let holder = snapshot.alerting.first { usesLight($0) } ?? snapshot.countdowns.first { record in
            guard case .countdown(let countdown) = record.phase, countdown.kind == .postAlert else { return false }
            return usesLight(record)
        }
        if let holder {
            light.heldBy = holder.key
            light.keptUntil = nil
            light.byHand = nil
        } else if light.heldBy != nil {
            // The alarm was stopped or rang out.
            light.heldBy = nil
            if settings.lightAfterStop == .on {
                light.keptUntil = snapshot.now.addingTimeInterval(settings.lightKeptOn / .seconds(1))
            }
        }
        // Kept on until its time, and only while the household still wants it kept.
        if let until = light.keptUntil, snapshot.now >= until || settings.lightAfterStop == .off {
            light.keptUntil = nil
        }
    }

    /// The output for now, and when it next changes by itself: full while held or kept, else the
    /// brightest sunrise under way, for the next alarm and for alarms counting down to their
    /// time (a pre-alert countdown: the alarm is due at its end).
    private func lightTarget(in snapshot: DeviceSnapshot) -> (output: Double, nextChange: Date?) {
        if light.heldBy != nil { return (1, nil) }
        if let until = light.keptUntil { return (1, until) }
        let sunrise = sunriseTarget(in: snapshot)
        return (max(sunrise.output, light.byHand ?? 0), sunrise.nextChange)
    }

    /// The brightest sunrise under way, and when it next changes by itself.
    private func sunriseTarget(in snapshot: DeviceSnapshot) -> (output: Double, nextChange: Date?) {
        var targets: [(record: AlarmRecord, due: Date)] = snapshot.nextAlarm.map { [($0.record, $0.dueDate)] } ?? []
        for record in snapshot.countdowns {
            if case .countdown(let countdown) = record.phase, countdown.kind == .preAlert { targets.append((record, countdown.fireDate)) }
        }
        var output = 0.0
        var nextChange: Date?
        for target in targets where usesLight(target.record) {
            let sunrise = sunrise(before: target.due, lead: lightLead(of: target.record), now: snapshot.now)
            output = max(output, sunrise.output)
            nextChange = [nextChange, sunrise.nextChange].compactMap { $0 }.min()
        }
        return (output, nextChange)
    }

    /// A sunrise of `lead` seconds ending at `due`, at `now`: its output, and when that next changes.
    private func sunrise(before due: Date, lead: TimeInterval, now: Date) -> (output: Double, nextChange: Date?) {
        let start = due.addingTimeInterval(-lead)
        guard now >= start else { return (0, start) }
        guard now < due else { return (1, nil) }
        let lightness = now.timeIntervalSince(start) / lead
        // About 200 steps, at least a second and at most 10 s apart: smooth to the eye, and a few
        // hundred wake-ups per sunrise.
        let step = min(max(lead / 200, 1), 10)
        return (Self.quantized(PerceivedLightness.output(lightness: lightness)), min(now.addingTimeInterval(step), due))
    }

    /// The alarm's sunrise lead, in seconds: its own, else the household's.
    func lightLead(of record: AlarmRecord) -> TimeInterval {
        record.wake?.lightLeadSeconds ?? (settings.sunriseLead / .seconds(1))
    }

    /// A scheduled alarm (not a timer) whose lead is not zero.
    private func usesLight(_ record: AlarmRecord) -> Bool {
        record.definition.schedule != nil && lightLead(of: record) > 0
    }

    /// To a thousandth: finer than a PWM period of 1 ms resolves, and repeats are not sent.
    private static func quantized(_ output: Double) -> Double {
        (output * 1000).rounded() / 1000
    }

    /// A STOP with nothing ringing turns off a light left on after the alarm: `true` if it was on
    /// (kept until after `now`).
    mutating func turnOffKeptLight(at now: Date) -> Bool {
        let byHand = light.byHand != nil
        light.byHand = nil
        guard let until = light.keptUntil else { return byHand }
        light.keptUntil = nil
        return now < until || byHand
    }

    /// Turns the light on by hand at `output` (0 to 1), or off (`nil`); quantized as the sunrise is.
    mutating func setLightByHand(_ output: Double?) {
        light.byHand = output.map { Self.quantized(min(max($0, 0), 1)) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// What the lamp shows now (0 to 1); `nil` without a light, or while unknown.
    var lightOutput: Double? { hasLight ? light.shown : nil }

    /// How a `setLight` went.
    mutating func recordLight(_ outcome: PartOutcome, output: Double, at moment: ApplianceMoment) -> [PartCommand] {
        switch outcome {
        case .done:
            light.shown = output
            return lightHealth.recordSuccess() ? [.log(.notice, "Sunrise light works again")] : []
        case .failed(let error):
            light.shown = nil
            guard lightHealth.recordFailure(error, at: moment.wall, backoff: settings.displayRetryBackoff) else { return [] }
            return [.log(.error, "Sunrise light cannot be driven; alarms still ring", ["error": "\(error)"])]
        }
    }
}
