import AlarmAppliance
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import Testing

/// The buttons: what STOP and SNOOZE do when alerting, counting down, paused and idle.
extension ApplianceTests {
    static let everyDay: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

    static func fireDate(of id: Alarm.ID, in rig: ApplianceRig) async -> Date? {
        guard case .countdown(let countdown) = await rig.runtime.record(for: Scene.key(id))?.phase else { return nil }
        return countdown.fireDate
    }

    // MARK: - Alerting

    @Test func twoUsersAlarmsWithOneIDAreTwoAlertsAndStopActsOnThePresentedOne() async throws {
        let rig = try await ApplianceRig()
        let stranger = ClientID(rawValue: 1001)
        let shared = try await rig.schedule(Scene.alarm(7, 0, title: "Mine", sound: .named("birds.wav")))
        _ = try await rig.runtime.schedule(
            id: shared, definition: Scene.alarm(7, 1, title: "Theirs", stopIntent: AlarmIntent("theirs")), client: stranger)
        let birds = SoundSource.file(rig.settings.soundsDirectory + "/birds.wav")
        try await rig.advanceToNextDeadline()
        #expect(rig.audioLog.calls.last == .play(birds, rig.settings.gainRamp, started: true))
        // The newer alert is presented, with its own sound, though its id is the same.
        try await rig.advanceToNextDeadline()
        #expect(rig.lines[0].contains("Theirs"))
        guard case .play(.builtInTone, _, started: true)? = rig.audioLog.calls.last else {
            Issue.record("the presented alarm's sound must play: \(rig.audioLog.calls)")
            return
        }

        await rig.tap(.stop)
        #expect(rig.delivered(to: stranger) == [.init(intent: AlarmIntent("theirs"), alarm: shared, button: .stop)])
        #expect(rig.delivered(to: Scene.owner).isEmpty, "only the alarm's owner gets its intent")
        #expect(await rig.runtime.alarms(for: stranger).isEmpty)
        #expect(await rig.state(of: shared) == .alerting)
        #expect(rig.lines[0].contains("Mine"))
        guard case .play(birds, _, started: true)? = rig.audioLog.calls.last else {
            Issue.record("the next alert's sound must play: \(rig.audioLog.calls)")
            return
        }
        await rig.tap(.stop)
        #expect(await rig.state(of: shared) == nil)
        #expect(rig.audio.nowPlaying == nil)
    }

    @Test func stopSilencesBeforeTheAlarmLeavesAlertingAndAOneTimeAlarmIsGone() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0, stopIntent: AlarmIntent("open-app")))
        try await rig.advanceToNextDeadline()
        rig.audioLog.watch(id, on: rig.runtime)

        await rig.press(.stop)
        #expect(rig.audioLog.calls.last == .stop(watched: .alerting))
        #expect(await rig.runtime.record(for: Scene.key(id)) == nil)
        #expect(await rig.runtime.alarms(for: Scene.owner).isEmpty)
        #expect(rig.delivered() == [.init(intent: AlarmIntent("open-app"), alarm: id, button: .stop)])
        #expect(rig.indicator.pattern == .off)
        #expect(rig.display.isBacklightOn)
        #expect(rig.lines == ["     07:00      ", "   No alarms    "])

        // The rest of that press does nothing more: no second stop, no next-alarm screen.
        await rig.advance(by: 0.15)
        await rig.release(.stop)
        #expect(rig.audioLog.stops == 1)
        #expect(rig.delivered().count == 1)
        #expect(rig.lines == ["     07:00      ", "   No alarms    "])
    }

    @Test func snoozeCountsDownBreathesAndRingsAgainAfterTheSnooze() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        await rig.tap(.snooze)
        #expect(await rig.state(of: id) == .countdown)
        #expect(rig.audio.nowPlaying == nil)
        #expect(rig.indicator.pattern == Self.breathe)
        #expect(rig.lines == ["Wake up         ", "②09:00    ③Pause"])   // ② marks a snooze

        try await rig.advanceToNextDeadline()
        #expect(rig.clock.now == Scene.monday(7, 9))
        #expect(await rig.state(of: id) == .alerting)
        #expect(rig.audioLog.started == [.builtInTone, .builtInTone])
        #expect(rig.audio.nowPlaying?.gain == rig.settings.gainRamp)
        #expect(rig.indicator.pattern == Self.blink)
    }

    @Test func aCustomSecondaryButtonRunsTheSecondaryIntentAndStops() async throws {
        let rig = try await ApplianceRig()
        let taken = AlarmButton(text: "Taken", textColor: .white, systemImageName: "pills")
        let intent = AlarmIntent("log-medication", parameters: ["dose": "1"])
        let id = try await rig.schedule(Scene.alarm(
            7, 0, presentation: Scene.presentation("Pills", secondary: taken, behavior: .custom), secondaryIntent: intent))
        try await rig.advanceToNextDeadline()
        #expect(rig.lines == ["①Pills     07:00", "Stop       Taken"])

        await rig.tap(.snooze)
        #expect(rig.delivered() == [.init(intent: intent, alarm: id, button: .secondary)])
        #expect(await rig.runtime.record(for: Scene.key(id)) == nil)
        #expect(rig.audio.nowPlaying == nil)
        #expect(rig.audioLog.stops == 1)
    }

    /// Apple's own examples attach a snooze or repeat intent to a `.countdown` button: the press
    /// counts down and delivers it.
    @Test func aCountdownSecondaryButtonSnoozesAndDeliversTheSecondaryIntent() async throws {
        let rig = try await ApplianceRig()
        let snoozed = AlarmIntent("SnoozeIntent", parameters: ["alarmID": "wake"])
        let id = try await rig.schedule(Scene.alarm(7, 0, stopIntent: AlarmIntent("StopIntent"), secondaryIntent: snoozed))
        try await rig.advanceToNextDeadline()
        await rig.tap(.snooze)
        #expect(await rig.state(of: id) == .countdown)
        #expect(rig.delivered() == [.init(intent: snoozed, alarm: id, button: .secondary)])
    }

    @Test func snoozeOnAnAlarmWithoutASecondaryButtonKeepsItRinging() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0, presentation: Scene.presentation(secondary: nil, behavior: nil)))
        try await rig.advanceToNextDeadline()
        await rig.tap(.snooze)
        await rig.press(.snooze)
        await rig.advance(by: 2.5)
        await rig.release(.snooze)
        #expect(await rig.state(of: id) == .alerting)
        #expect(rig.audioLog.stops == 0)
        #expect(rig.audioLog.started == [.builtInTone])
        #expect(rig.indicator.pattern == Self.blink)
    }

    // MARK: - Counting down

    @Test func snoozePausesATimerAndResumesItWithTheTimeThatWasLeft() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.timer(300))
        #expect(rig.indicator.pattern == Self.breathe)
        #expect(rig.lines == ["Tea             ", "05:00     ③Pause"])

        await rig.advance(by: 60)
        await rig.tap(.snooze)   // released 60.15 s in: 239.85 s left
        #expect(await rig.state(of: id) == .paused)
        #expect(rig.indicator.pattern == .steady(.white))
        #expect(rig.lines == ["Tea             ", "③04:00   ④Resume"])

        await rig.advance(by: 100)
        #expect(await rig.state(of: id) == .paused)
        await rig.tap(.snooze)
        #expect(await rig.state(of: id) == .countdown)
        #expect(rig.indicator.pattern == Self.breathe)
        let fireDate = try #require(await Self.fireDate(of: id, in: rig))
        // Resumed on the release, 100 ms before the tap's finger-away time that `now` is.
        #expect(abs(fireDate.timeIntervalSince(rig.clock.now) - 239.75) < 1e-3)
    }

    @Test func holdingStopTwoSecondsCancelsATimerBeforeItIsReleased() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.timer(300))
        await rig.press(.stop)
        await rig.advance(by: 1.9)
        #expect(await rig.state(of: id) == .countdown)
        await rig.advance(by: 0.1)
        #expect(await rig.runtime.record(for: Scene.key(id)) == nil)
        #expect(rig.indicator.pattern == .off)
        await rig.release(.stop)
        #expect(rig.lines == ["     06:59      ", "   No alarms    "])
    }

    @Test func holdingStopOnATimerOrASnoozeDeliversTheStopIntent() async throws {
        let rig = try await ApplianceRig()
        let tea = try await rig.schedule(Scene.timer(300, stopIntent: AlarmIntent("TeaStopped")))
        await rig.press(.stop)
        await rig.advance(by: 2)
        await rig.release(.stop)
        #expect(await rig.runtime.record(for: Scene.key(tea)) == nil)
        #expect(rig.delivered() == [.init(intent: AlarmIntent("TeaStopped"), alarm: tea, button: .stop)])

        let wake = try await rig.schedule(Scene.alarm(7, 0, weekly: Self.everyDay, stopIntent: AlarmIntent("WakeStopped")))
        try await rig.advanceToNextDeadline()
        await rig.tap(.snooze)
        await rig.press(.stop)
        await rig.advance(by: 2)
        await rig.release(.stop)
        #expect(await rig.state(of: wake) == .scheduled)
        #expect(rig.delivered().map(\.intent) == [AlarmIntent("TeaStopped"), AlarmIntent("WakeStopped")])
        #expect(rig.delivered().last?.button == .stop)
    }

    @Test func pausingAndResumingATimerDeliversNoIntent() async throws {
        let rig = try await ApplianceRig()
        let tea = try await rig.schedule(Scene.timer(300, stopIntent: AlarmIntent("TeaStopped")))
        await rig.tap(.snooze)
        #expect(await rig.state(of: tea) == .paused)
        await rig.tap(.snooze)
        #expect(await rig.state(of: tea) == .countdown)
        #expect(rig.delivered().isEmpty)
    }

    @Test func holdingStopCancelsAPausedTimer() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.timer(300))
        await rig.tap(.snooze)
        #expect(await rig.state(of: id) == .paused)
        await rig.press(.stop)
        await rig.advance(by: 2)
        #expect(await rig.runtime.record(for: Scene.key(id)) == nil)
        await rig.release(.stop)
    }

    @Test func holdingStopDuringASnoozeEndsOnlyThisOccurrence() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0, weekly: Self.everyDay))
        try await rig.advanceToNextDeadline()
        await rig.tap(.snooze)
        await rig.press(.stop)
        await rig.advance(by: 2)
        #expect(await rig.state(of: id) == .scheduled)
        #expect(await rig.runtime.nextDeadline == Scene.monday(7, 0).addingTimeInterval(86_400))
        await rig.release(.stop)
    }

    @Test func aShortStopOnACountdownLeavesItAlone() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.timer(300))
        let fireDate = await Self.fireDate(of: id, in: rig)
        await rig.tap(.stop)
        await rig.press(.stop)
        await rig.advance(by: 1.5)
        await rig.release(.stop)
        #expect(await rig.state(of: id) == .countdown)
        #expect(await Self.fireDate(of: id, in: rig) == fireDate)
    }

    @Test func aShortStopDuringASnoozeSaysForAMomentThatHoldingStopEndsIt() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0, weekly: Self.everyDay))
        try await rig.advanceToNextDeadline()
        await rig.tap(.snooze)
        #expect(rig.lines[1].hasPrefix("②"))
        await rig.tap(.stop)
        #expect(await rig.state(of: id) == .countdown, "a brush of the hand does not end a snooze")
        #expect(rig.lines[1] == ScreenRenderer.holdStopHint)
        let hintEnds = rig.clock.now.addingTimeInterval(rig.settings.stopHintDuration / .seconds(1))
        #expect(try #require(await rig.appliance.nextWake) <= hintEnds, "the appliance wakes to take the hint away")
        await rig.advance(to: hintEnds)
        #expect(rig.lines[1].hasPrefix("②"), "the snooze's time again: \(rig.lines)")
    }

    /// The simulator's `s` key: pressed and released at one instant (the release is confirmed
    /// once the debounce interval is over).
    @Test func anInstantStopDuringASnoozeShowsTheHintToo() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0, weekly: Self.everyDay))
        try await rig.advanceToNextDeadline()
        await rig.press(.snooze)
        await rig.release(.snooze)
        await rig.advance(by: 0.1)
        await rig.press(.stop)
        await rig.release(.stop)
        await rig.advance(by: 0.1)
        #expect(await rig.state(of: id) == .countdown)
        #expect(rig.lines[1] == ScreenRenderer.holdStopHint, "\(rig.lines)")
    }

    // MARK: - Idle

    @Test func anIdlePressLightsTheDisplayAndShowsTheNextAlarmButChangesNoAlarm() async throws {
        let rig = try await ApplianceRig()
        try await rig.schedule(Scene.alarm(8, 0, weekly: Self.everyDay))
        try await rig.schedule(Scene.alarm(9, 30, title: "Dentist"))
        let before = await rig.runtime.alarms(for: Scene.owner)
        #expect(rig.lines == ["     06:59      ", "  ①Today 08:00  "])
        #expect(!rig.display.isBacklightOn)

        let pressed = rig.clock.now
        await rig.tap(.snooze)
        let released = pressed.addingTimeInterval(0.15)
        #expect(rig.display.isBacklightOn)
        #expect(rig.lines == ["①Today 08:00    ", "Wake up         "])
        #expect(await rig.appliance.nextWake == released.addingTimeInterval(5))

        await rig.advance(to: released.addingTimeInterval(5))
        #expect(rig.lines == ["     06:59      ", "  ①Today 08:00  "])
        #expect(rig.display.isBacklightOn)
        #expect(await rig.appliance.nextWake == pressed.addingTimeInterval(10))

        await rig.advance(to: pressed.addingTimeInterval(10))
        #expect(!rig.display.isBacklightOn)
        #expect(await rig.appliance.nextWake == Scene.monday(7, 0))

        // Every other gesture on either button: still no alarm changes.
        await rig.tap(.stop)
        for button in Button.allCases {
            await rig.press(button)
            #expect(await rig.appliance.nextWake == rig.clock.now.addingTimeInterval(2))
            await rig.advance(by: 2.5)
            await rig.release(button)
        }
        #expect(await rig.runtime.alarms(for: Scene.owner) == before)
        #expect(rig.indicator.pattern == .off)
        #expect(rig.audioLog.calls.isEmpty)
    }

    // MARK: - Chatter

    // Buttons are debounced once, in the backend (the kernel on libgpiod 2, `ButtonDebouncer` on
    // libgpiod 1): these feed a line's raw edges through the debouncer as `ButtonWatcher` does.

    @Test func aChatteringPressThroughTheDebouncerActsOnce() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        // Bounces on the way down (0-12 ms) and on the way up (200-207 ms).
        let forwarded = await rig.rawEdges(.snooze, [
            (0, .pressed), (3, .released), (6, .pressed), (9, .released), (12, .pressed),
            (200, .released), (203, .pressed), (207, .released),
        ])
        #expect(forwarded == 2)
        #expect(await rig.state(of: id) == .countdown)
    }

    @Test func aTapShorterThanTheDebounceIsStillOnePress() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        let forwarded = await rig.rawEdges(.snooze, [(0, .pressed), (3, .released), (6, .pressed), (9, .released)])
        #expect(forwarded == 2, "the press, and the release read back from the line")
        #expect(await rig.state(of: id) == .countdown)
    }

    @Test func chatterOnTheReleaseActsOnce() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        await rig.rawEdges(.snooze, [(0, .pressed), (150, .released), (153, .pressed), (156, .released)])
        #expect(await rig.state(of: id) == .countdown)
    }

    @Test func aHoldThatChatteredAtFirstIsStillALongPress() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.timer(300))
        await rig.rawEdges(.stop, [(0, .pressed), (3, .released), (6, .pressed)])
        await rig.advance(by: 2.5)   // STOP is still held
        #expect(await rig.state(of: id) == nil)
        await rig.release(.stop)
    }

    @Test func aPressSoonAfterTheLastReleaseIsTakenAsItComes() async throws {
        // The backend's edges are debounced already: a second press 40 ms after a release is a
        // finger's, and the appliance does not drop it as chatter a second time.
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.timer(300))
        await rig.press(.snooze)
        await rig.advance(by: 0.1)
        await rig.release(.snooze)
        #expect(await rig.state(of: id) == .paused)
        await rig.advance(by: 0.04)
        await rig.press(.snooze)
        await rig.advance(by: 0.1)
        await rig.release(.snooze)
        #expect(await rig.state(of: id) == .countdown)
    }

    @Test func aLostReleaseDoesNotSwallowTheNextPress() async throws {
        let rig = try await ApplianceRig()
        let id = try await rig.schedule(Scene.alarm(7, 0))
        try await rig.advanceToNextDeadline()
        await rig.press(.snooze)   // snoozes; its release never arrives
        await rig.advance(by: 60)
        await rig.tap(.snooze)
        #expect(await rig.state(of: id) == .paused)
    }
}

extension ApplianceRig {
    /// Sends a line's raw edges for `button` (milliseconds from now) through the backend's
    /// debouncer, as `ButtonWatcher` does on libgpiod 1: accepted edges go to the appliance, and
    /// after a dropped edge the line is read once at the confirmation deadline. Returns how many
    /// events reached the appliance.
    @discardableResult
    func rawEdges(_ button: Button, _ raw: [(ms: Int, edge: ButtonEvent.Edge)]) async -> Int {
        var debouncer = ButtonDebouncer()
        let start = clock.monotonicNow
        var line = ButtonEvent.Edge.released
        var forwarded = 0
        let steps: [(at: Duration, edge: ButtonEvent.Edge?)] = raw.map { (start + .milliseconds($0.ms), $0.edge) } + [(start + .seconds(3600), nil)]
        for step in steps {
            if let due = debouncer.confirmationDeadline(for: button), due <= step.at {
                await advance(by: (due - clock.monotonicNow) / .seconds(1))
                if let event = debouncer.confirm(button, level: line, at: due) {
                    forwarded += 1
                    await appliance.handle(event)
                }
            }
            guard let edge = step.edge else { break }
            await advance(by: (step.at - clock.monotonicNow) / .seconds(1))
            line = edge
            if let event = debouncer.accept(ButtonEvent(button, edge, at: step.at)) {
                forwarded += 1
                await appliance.handle(event)
            }
        }
        return forwarded
    }
}
