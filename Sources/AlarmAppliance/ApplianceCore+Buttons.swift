import AlarmEngine
import AlarmHardware
import AlarmModel
import FoundationEssentials

extension ApplianceCore {
    /// Whether `event` must be decided on a fresh look at the engine: nothing was seen yet, or a
    /// press finds no alert in the last snapshot, and one might have just begun.
    func needsFreshSnapshot(for event: ButtonEvent) -> Bool {
        guard let lastSnapshot else { return true }
        return event.edge == .pressed && lastSnapshot.alerting.isEmpty
    }

    /// Decides what one debounced button event does.
    ///
    /// - Alerting: STOP stops the presented alarm; SNOOZE runs its secondary behaviour. Each is
    ///   the alarm's button pressed in the engine (``PartCommand/pressAlarm(_:on:because:)``),
    ///   which also delivers the button's intent. Both act on the press itself, silencing the
    ///   sound before anything else, so a sleepy press is answered at once; the rest of that
    ///   press does nothing more.
    /// - A question on show: STOP answers no, STOP and SNOOZE held together yes (see
    ///   ``answerQuestion(with:at:)``); nothing else happens with those presses.
    /// - Missed alarms on show: a press acknowledges them.
    /// - Counting down: SNOOZE pauses, or resumes when paused; STOP held for the long-press time
    ///   ends the countdown (cancels a timer; stops a snooze or pre-alert countdown).
    /// - The sunrise light left on after an alarm: STOP turns it off.
    /// - Idle: a press lights the display and shows the next alarm; it never changes an alarm.
    /// - Night hours, no alert and no question: a press on the dark display only lights it; the
    ///   rest of that press does nothing more, and presses while it is lit act as above.
    ///
    /// Every press lights the backlight for ``ApplianceSettings/backlightDuration``.
    mutating func buttonEvent(_ event: ButtonEvent, at moment: ApplianceMoment) -> [PartCommand] {
        var commands: [PartCommand] = []
        let gesturesDone = gestures.handle(event)
        if event.edge == .pressed {
            // A new press starts afresh, even if the last one's release was lost.
            consumedPresses.remove(event.button)
            let wakesTheDisplay = isDarkNight(at: moment)
            backlightUntil = moment.wall.addingTimeInterval(settings.backlightDuration / .seconds(1))
            if wakesTheDisplay {
                consumedPresses.insert(event.button)
            } else {
                commands += actOnPress(of: event.button)
            }
        }
        for gesture in gesturesDone {
            commands += act(on: gesture, at: moment)
        }
        if event.edge == .released {
            consumedPresses.remove(event.button)
        }
        return commands
    }

    /// Night hours, nothing alerting or asking, and the backlight out: a press only wakes the display.
    private func isDarkNight(at moment: ApplianceMoment) -> Bool {
        guard let snapshot = lastSnapshot, snapshot.alerting.isEmpty, questions.isEmpty, isNight(snapshot, at: moment.wall) else {
            return false
        }
        return !(backlightUntil.map { moment.wall < $0 } ?? false)
    }

    /// The long presses that became due at `moment`.
    mutating func handleLongPresses(at moment: ApplianceMoment) -> [PartCommand] {
        gestures.deadlineReached(at: moment.monotonic).flatMap { act(on: $0, at: moment) }
    }

    private mutating func actOnPress(of button: Button) -> [PartCommand] {
        guard let snapshot = lastSnapshot else { return [] }
        if let presented = snapshot.alerting.first {
            consumedPresses.insert(button)
            return answerAlert(presented, with: button)
        }
        // Not while counting down: STOP held there ends the countdown, as ever.
        if button == .stop, questions.isEmpty, snapshot.countdowns.isEmpty, turnOffKeptLight(at: snapshot.now) {
            consumedPresses.insert(button)
            return [.log(.info, "Sunrise light turned off by STOP")]
        }
        // With a question on show, the press answers by the gesture it makes, not by its edge.
        guard questions.isEmpty, snapshot.countdowns.isEmpty,
            !snapshot.missedAlarms.isEmpty || snapshot.storage.hasUnseenProblems
        else { return [] }
        consumedPresses.insert(button)
        return [
            .log(.info, "Missed alarms acknowledged", [
                "missed.count": "\(snapshot.missedAlarms.count)",
                "store.problems": "\(snapshot.storage.hasUnseenProblems ? snapshot.storage.problemsAtStart.count : 0)",
            ]),
            .acknowledgeMissedAlarms,
        ]
    }

    private mutating func answerAlert(_ alarm: AlarmRecord, with button: Button) -> [PartCommand] {
        switch button {
        case .stop:
            return silence() + [.pressAlarm(.stop, on: alarm, because: "STOP pressed")]
        case .snooze:
            guard alarm.definition.presentation.alert.secondaryButton != nil else {
                return [.log(.info, "SNOOZE pressed on an alarm without a secondary button; still ringing", ["alarm.id": "\(alarm.id)"])]
            }
            return silence() + [.pressAlarm(.secondary, on: alarm, because: "SNOOZE pressed")]
        }
    }

    private mutating func act(on gesture: ButtonGesture, at moment: ApplianceMoment) -> [PartCommand] {
        let button: Button
        switch gesture {
        case .shortPress(let pressed), .longPress(let pressed): button = pressed
        case .bothHeld:
            // A press that silenced an alert is not half of an answer.
            guard consumedPresses.isEmpty else { return [] }
            consumedPresses.formUnion(Button.allCases)
            return answerQuestion(with: gesture, at: moment) ?? []
        }
        guard !consumedPresses.contains(button) else { return [] }
        if let answered = answerQuestion(with: gesture, at: moment) {
            consumedPresses.insert(button)
            return answered
        }
        guard let countdown = lastSnapshot?.countdowns.first else {
            nextAlarmShownUntil = moment.wall.addingTimeInterval(settings.nextAlarmDisplayDuration / .seconds(1))
            return []
        }
        consumedPresses.insert(button)
        return act(on: gesture, countingDown: countdown, at: moment)
    }

    private mutating func act(on gesture: ButtonGesture, countingDown countdown: AlarmRecord, at moment: ApplianceMoment) -> [PartCommand] {
        switch (gesture, countdown.phase) {
        case (.shortPress(.snooze), .countdown), (.longPress(.snooze), .countdown):
            guard countdown.definition.presentation.countdown?.pauseButton != nil else {
                return [.log(.debug, "SNOOZE pressed on a countdown that offers no pause", ["alarm.id": "\(countdown.id)"])]
            }
            return [.pressAlarm(.pause, on: countdown, because: "SNOOZE pressed")]
        case (.shortPress(.snooze), .paused), (.longPress(.snooze), .paused):
            return [.pressAlarm(.resume, on: countdown, because: "SNOOZE pressed")]
        case (.shortPress(.stop), .countdown), (.shortPress(.stop), .paused):
            // A short STOP does not end a countdown (a snooze must not end by a brush of the
            // hand); say what does.
            stopHintShownUntil = moment.wall.addingTimeInterval(settings.stopHintDuration / .seconds(1))
            return [.log(.info, "STOP pressed briefly on a countdown; holding STOP ends it", ["alarm.id": "\(countdown.id)"])]
        case (.longPress(.stop), _):
            // The engine says what ending it means: a timer is cancelled, an alarm's snooze or
            // pre-alert ends this occurrence only.
            return [.pressAlarm(.stop, on: countdown, because: "STOP held")]
        default:
            return []
        }
    }
}
