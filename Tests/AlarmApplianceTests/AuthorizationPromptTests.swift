import AlarmAppliance
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmProtocol
import AlarmSimulator
import Testing

/// The on-device authorization prompt: "Allow NAME to set alarms?", SNOOZE yes, STOP no.
@Suite(.timeLimit(.minutes(1))) struct AuthorizationPromptTests {
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

    @Test func snoozeAllowsAndTheScheduleGoesThrough() async throws {
        let (rig, scheduling) = try await promptShown()
        #expect(rig.lines == ["Allow alice to s", "No           Yes"])
        #expect(rig.display.isBacklightOn)
        await rig.tap(.snooze)
        let alarm = try await scheduling.value
        #expect(alarm.state == .scheduled)
        #expect(await rig.runtime.authorizationState(for: Self.stranger) == .authorized)
        #expect(!rig.lines[0].contains("Allow"))
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

    @Test func anAlertShowsOverThePromptAndItsPressesStopTheAlarmNotTheQuestion() async throws {
        let (rig, scheduling) = try await promptShown()
        try await rig.runtime.setAuthorization(.authorized, for: Scene.owner)
        let id = try await rig.schedule(Scene.timer(10))
        try await rig.advanceToNextDeadline()
        #expect(await rig.state(of: id) == .alerting)
        #expect(!rig.lines[0].contains("Allow"))
        await rig.tap(.stop)
        #expect(await rig.state(of: id) == nil)
        #expect(rig.lines[0].contains("Allow"))
        await rig.tap(.snooze)
        _ = try await scheduling.value
    }
}
