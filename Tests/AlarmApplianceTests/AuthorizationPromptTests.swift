import AlarmAppliance
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import Testing

/// The on-device questions: "Allow NAME to set alarms?" and "Pair phone NAME? Code CODE"; STOP
/// and SNOOZE held together answer yes, STOP no, and nothing meant for an alarm answers them.
@Suite(.timeLimit(.minutes(5))) struct AuthorizationPromptTests {
    static let stranger = ClientID(rawValue: 1001)

    /// A rig whose engine asks the person at the device, and the stranger's first schedule,
    /// started and waiting for the answer once the prompt is on the display.
    func promptShown(displaySize: DisplaySize = .sixteenByTwo) async throws
        -> (ApplianceRig, Task<Alarm, any Error>)
    {
        let prompter = DevicePrompter(userName: { $0 == Self.stranger ? "alice" : "\($0)" })
        let rig = try await ApplianceRig(displaySize: displaySize, authorizer: prompter)
        prompter.attach(rig.appliance)
        var frames = rig.display.events().makeAsyncIterator()
        let scheduling = Task { [runtime = rig.runtime] in
            try await runtime.schedule(id: Alarm.ID(), definition: Scene.alarm(7, 30), client: Self.stranger)
        }
        while let event = await frames.next() {
            if case .frame(let frame) = event, frame.description.contains("Allow") { break }
        }
        return (rig, scheduling)
    }

    @Test func holdingBothAllowsAndTheScheduleGoesThrough() async throws {
        let (rig, scheduling) = try await promptShown()
        #expect(rig.lines == ["Allow alice to s", "No Yes:hold both"])
        #expect(rig.display.isBacklightOn)
        await rig.holdBoth()
        let alarm = try await scheduling.value
        #expect(alarm.state == .scheduled)
        #expect(await rig.runtime.authorizationState(for: Self.stranger) == .authorized)
        #expect(!rig.lines[0].contains("Allow"))
    }

    @Test func snoozeAloneShortOrHeldAnswersNothing() async throws {
        let (rig, scheduling) = try await promptShown()
        await rig.tap(.snooze)
        await rig.press(.snooze)
        await rig.advance(by: 3)
        await rig.release(.snooze)
        #expect(rig.lines[1] == "No Yes:hold both")
        #expect(await rig.runtime.authorizationState(for: Self.stranger) == .notDetermined)
        await rig.tap(.stop)
        await #expect(throws: AlarmOperationError.notAuthorized(.denied)) { try await scheduling.value }
    }

    @Test func stopDeniesAndTheScheduleFailsClearly() async throws {
        let (rig, scheduling) = try await promptShown(displaySize: .twentyByFour)
        #expect(rig.lines[0].contains("Allow alice"))
        #expect(rig.lines[1].contains("to set alarms?"))
        await rig.tap(.stop)
        await #expect(throws: AlarmOperationError.notAuthorized(.denied)) { try await scheduling.value }
        #expect(await rig.runtime.authorizationState(for: Self.stranger) == .denied)
        #expect(await rig.runtime.alarms(for: Self.stranger).isEmpty)
    }

    @Test func nobodyAnsweringLeavesItUndecided() async throws {
        let (rig, scheduling) = try await promptShown()
        await rig.advance(by: 59.9)
        #expect(rig.lines[0].contains("Allow"))
        await rig.advance(by: 0.1)
        await #expect(throws: AlarmOperationError.notAuthorized(.notDetermined)) { try await scheduling.value }
        #expect(await rig.runtime.authorizationState(for: Self.stranger) == .notDetermined)
    }

    @Test func anAlertWithdrawsTheQuestionAndItsPressesStopOnlyTheAlarm() async throws {
        let (rig, scheduling) = try await promptShown()
        try await rig.runtime.setAuthorization(.authorized, for: Scene.owner)
        let id = try await rig.schedule(Scene.timer(10))
        try await rig.advanceToNextDeadline()
        #expect(await rig.state(of: id) == .alerting)
        await #expect(throws: AlarmOperationError.notAuthorized(.notDetermined)) { try await scheduling.value }
        await rig.tap(.stop)
        #expect(await rig.state(of: id) == nil)
        #expect(!rig.lines[0].contains("Allow"))
        #expect(await rig.runtime.authorizationState(for: Self.stranger) == .notDetermined)
    }

    // MARK: - Phone pairing

    /// A pairing asked through the appliance, once the display shows it.
    func pairingShown(_ rig: ApplianceRig, name: String = "Eve") async -> Task<PairingOutcome, Never> {
        var frames = rig.display.events().makeAsyncIterator()
        let asking = Task { [appliance = rig.appliance] in await appliance.requestPairing(named: name, code: "1234") }
        while let event = await frames.next() {
            if case .frame(let frame) = event, frame.description.contains("Pair phone") { break }
        }
        return asking
    }

    @Test func aPairingAskedJustBeforeAnAlarmIsWithdrawnAndTheSleepersSecondSnoozePairsNobody() async throws {
        let rig = try await ApplianceRig()
        try await rig.runtime.setAuthorization(.authorized, for: Scene.owner)
        let id = try await rig.schedule(Scene.timer(10))
        let asking = await pairingShown(rig)
        try await rig.advanceToNextDeadline()
        #expect(await rig.state(of: id) == .alerting)
        #expect(await asking.value == .withdrawn)
        // The sleeper snoozes, then presses SNOOZE again 0.7 s and 5 s later.
        await rig.tap(.snooze)
        #expect(await rig.state(of: id) == .countdown)
        await rig.advance(by: 0.7)
        await rig.tap(.snooze)
        await rig.advance(by: 5)
        await rig.tap(.snooze)
        #expect(!rig.lines.joined().contains("Pair phone"))
    }

    @Test func gesturesInTheQuietTimeAfterAnAlertAnswerNothing() async throws {
        let rig = try await ApplianceRig()
        try await rig.runtime.setAuthorization(.authorized, for: Scene.owner)
        let id = try await rig.schedule(Scene.timer(10))
        try await rig.advanceToNextDeadline()
        await rig.tap(.stop)
        #expect(await rig.state(of: id) == nil)
        let asking = await pairingShown(rig)
        await rig.holdBoth()
        await rig.tap(.stop)
        #expect(rig.lines[1] == "No Yes:hold both")
        await rig.advance(by: 10)
        await rig.holdBoth()
        #expect(await asking.value == .allowed)
    }

    @Test func theDisplayAsksAboutAPhoneAtMostOnceAMinute() async throws {
        let rig = try await ApplianceRig()
        let first = await pairingShown(rig)
        await rig.tap(.stop)
        #expect(await first.value == .refused)
        await rig.advance(by: 30)
        guard case .tooSoon(let retryAfter) = await rig.appliance.requestPairing(named: "Eve", code: "5678") else {
            Issue.record("a second pairing within a minute was asked")
            return
        }
        #expect(retryAfter > .seconds(29) && retryAfter <= .seconds(30))
        #expect(!rig.lines.joined().contains("Pair phone"))
        await rig.advance(by: 30)
        let second = await pairingShown(rig)
        await rig.holdBoth()
        #expect(await second.value == .allowed)
    }
}
