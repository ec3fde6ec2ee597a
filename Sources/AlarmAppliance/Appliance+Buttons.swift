import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import FoundationEssentials

extension Appliance {
    /// Handles one debounced button event.
    ///
    /// - Alerting: STOP stops the presented alarm; SNOOZE runs its secondary behaviour. Each is
    ///   the alarm's button pressed in the engine (``AlarmRuntime/press(_:on:requiring:)``),
    ///   which also delivers the button's intent. Both act on the press itself, silencing the
    ///   sound before anything else, so a sleepy press is answered at once; the rest of that
    ///   press does nothing more.
    /// - A question on show: STOP answers no, STOP and SNOOZE held together yes (see
    ///   ``answerPrompt(with:)``); nothing else happens with those presses.
    /// - Missed alarms on show: a press acknowledges them.
    /// - Counting down: SNOOZE pauses, or resumes when paused; STOP held for the long-press time
    ///   ends the countdown (cancels a timer; stops a snooze or pre-alert countdown).
    /// - Idle: a press lights the display and shows the next alarm; it never changes an alarm.
    ///
    /// Every press lights the backlight for ``ApplianceSettings/backlightDuration``.
    public func handle(_ event: ButtonEvent) async {
        reportedLevel[event.button] = event.edge
        // Chatter that got past the backend: dropped here, confirmed from the last reported
        // level once the debounce interval is over (see `confirmDebouncedLevels`).
        guard let accepted = debouncer.accept(event) else { return }
        await process(accepted)
    }

    /// Puts right a button whose last edges were dropped as chatter but changed its level.
    func confirmDebouncedLevels() async {
        let now = clock.monotonicNow
        for button in Button.allCases {
            guard let due = debouncer.confirmationDeadline(for: button), due <= now else { continue }
            if let event = debouncer.confirm(button, level: reportedLevel[button] ?? .released, at: due) {
                await process(event)
            }
        }
    }

    private func process(_ event: ButtonEvent) async {
        let now = clock.now
        let gesturesDone = gestures.handle(event)
        if event.edge == .pressed {
            // A new press starts afresh, even if the last one's release was lost.
            consumedPresses.remove(event.button)
            backlightUntil = now.addingTimeInterval(settings.backlightDuration / .seconds(1))
            await actOnPress(of: event.button)
        }
        for gesture in gesturesDone {
            await act(on: gesture)
        }
        if event.edge == .released {
            consumedPresses.remove(event.button)
        }
        await refresh()
    }

    /// Acts on the long presses that became due (called on every refresh).
    func handleLongPresses() async {
        for gesture in gestures.deadlineReached(at: clock.monotonicNow) {
            await act(on: gesture)
        }
    }

    private func actOnPress(of button: Button) async {
        // The last snapshot answers at once; if it shows no alert, one might have just begun.
        var snapshot = lastSnapshot
        if snapshot?.alerting.isEmpty ?? true {
            snapshot = await runtime.deviceSnapshot()
            lastSnapshot = snapshot
        }
        guard let snapshot else { return }
        if let presented = snapshot.alerting.first {
            consumedPresses.insert(button)
            await answerAlert(presented, with: button)
        } else if !prompts.isEmpty {
            // Answered by the gesture this press makes (a STOP, or both held), not by the edge.
            return
        } else if snapshot.countdowns.isEmpty, !snapshot.missedAlarms.isEmpty || snapshot.storage.hasUnseenProblems {
            consumedPresses.insert(button)
            logger.info("Missed alarms acknowledged", metadata: [
                "missed.count": "\(snapshot.missedAlarms.count)",
                "store.problems": "\(snapshot.storage.hasUnseenProblems ? snapshot.storage.problemsAtStart.count : 0)",
            ])
            await runtime.acknowledgeMissedAlarms()
        }
    }

    private func answerAlert(_ alarm: AlarmRecord, with button: Button) async {
        switch button {
        case .stop:
            await silence()
            await press(.stop, on: alarm, because: "STOP pressed")
        case .snooze:
            guard alarm.definition.presentation.alert.secondaryButton != nil else {
                logger.info("SNOOZE pressed on an alarm without a secondary button; still ringing", metadata: ["alarm.id": "\(alarm.id)"])
                return
            }
            await silence()
            await press(.secondary, on: alarm, because: "SNOOZE pressed")
        }
    }

    private func act(on gesture: ButtonGesture) async {
        let button: Button
        switch gesture {
        case .shortPress(let pressed), .longPress(let pressed): button = pressed
        case .bothHeld:
            // A press that silenced an alert is not half of an answer.
            guard consumedPresses.isEmpty else { return }
            _ = answerPrompt(with: gesture)
            consumedPresses.formUnion(Button.allCases)
            return
        }
        guard !consumedPresses.contains(button) else { return }
        if answerPrompt(with: gesture) {
            consumedPresses.insert(button)
            return
        }
        let snapshot: DeviceSnapshot
        if let last = lastSnapshot { snapshot = last } else {
            snapshot = await runtime.deviceSnapshot()
        }
        guard let countdown = snapshot.countdowns.first else {
            showNextAlarm()
            return
        }
        switch (gesture, countdown.phase) {
        case (.shortPress(.snooze), .countdown), (.longPress(.snooze), .countdown):
            guard countdown.definition.presentation.countdown?.pauseButton != nil else {
                logger.debug("SNOOZE pressed on a countdown that offers no pause", metadata: ["alarm.id": "\(countdown.id)"])
                return
            }
            await press(.pause, on: countdown, because: "SNOOZE pressed")
        case (.shortPress(.snooze), .paused), (.longPress(.snooze), .paused):
            await press(.resume, on: countdown, because: "SNOOZE pressed")
        case (.shortPress(.stop), .countdown), (.shortPress(.stop), .paused):
            // A short STOP does not end a countdown (a snooze must not end by a brush of the
            // hand); say what does.
            stopHintShownUntil = clock.now.addingTimeInterval(settings.stopHintDuration / .seconds(1))
            logger.info("STOP pressed briefly on a countdown; holding STOP ends it", metadata: ["alarm.id": "\(countdown.id)"])
        case (.longPress(.stop), _):
            // The engine says what ending it means: a timer is cancelled, an alarm's snooze or
            // pre-alert ends this occurrence only.
            await press(.stop, on: countdown, because: "STOP held")
        default:
            break
        }
        consumedPresses.insert(button)
    }

    private func showNextAlarm() {
        nextAlarmShownUntil = clock.now.addingTimeInterval(settings.nextAlarmDisplayDuration / .seconds(1))
    }

    /// Stops the sound at once, ahead of the engine's durable write; ``refresh()`` starts it again
    /// if the alarm turns out to be still alerting.
    private func silence() async {
        guard soundState.source != nil else { return }
        await hardware.audio.stop()
        soundState.soundStopped()
    }

    /// Presses one of the alarm's buttons in the engine, which makes the change and delivers the
    /// button's intent; a refusal (the alarm moved on meanwhile) is logged, not fatal.
    private func press(_ press: AlarmPress, on alarm: AlarmRecord, because reason: String) async {
        do {
            let action = try await runtime.press(press, on: alarm.key)
            logger.info("Button acted on an alarm", metadata: [
                "alarm.id": "\(alarm.id)", "client": "\(alarm.owner)", "action": "\(action.rawValue)", "reason": "\(reason)",
            ])
        } catch {
            logger.warning("Device action refused", metadata: [
                "alarm.id": "\(alarm.id)", "client": "\(alarm.owner)", "press": "\(press.rawValue)", "error": "\(error)",
            ])
        }
    }
}
