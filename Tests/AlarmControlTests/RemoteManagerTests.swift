import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Glibc
import AlarmTestKit
import Testing

@testable import AlarmClient
@testable import AlarmControl
@testable import AlarmProtocol
@testable import AlarmEngine

/// `AlarmManager(backend: SocketAlarmBackend(...))` against the daemon in this process: the same
/// answers and the same updates as the in-process manager, and streams that outlive the daemon.
@Suite(.timeLimit(.minutes(5)))
struct RemoteManagerTests {
    private static var me: ClientID { ClientID(rawValue: geteuid()) }

    @Test func alarmUpdatesOverTheSocketMatchTheInProcessStream() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let manager = AlarmManager(backend: SocketAlarmBackend(client: rig.client()))
            var remote = manager.alarmUpdates.makeAsyncIterator()
            var local = rig.runtime.alarmUpdates(for: Self.me).makeAsyncIterator()
            // A subscription is in place once its first list arrived.
            #expect(await remote.nextElement() == [])
            #expect(await local.nextElement() == [])
            let wake = Alarm.ID()
            let tea = Alarm.ID()
            let now = Alarm.ID()
            let attributes = AlarmAttributes<NoAlarmMetadata>(
                presentation: .init(alert: .init(title: "Wake"), countdown: .init(title: "Tea", pauseButton: .pause)), tintColor: .orange)
            _ = try await manager.schedule(id: wake, configuration: .alarm(
                schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday, .friday]))), attributes: attributes))
            _ = try await manager.schedule(id: tea, configuration: .timer(duration: 240, attributes: attributes))
            try await manager.perform(.pause, id: tea)
            try await manager.perform(.resume, id: tea)
            // Due now: alerting at once.
            _ = try await manager.schedule(id: now, configuration: .init(
                countdownDuration: .init(preAlert: nil, postAlert: 60), schedule: .fixed(ServerRig.start), attributes: attributes))
            try await manager.perform(.countdown, id: now)
            try await manager.perform(.stop, id: now)
            try await manager.perform(.cancel, id: wake)
            await #expect(throws: AlarmOperationError.invalidTransition(tea, action: .resume, from: .countdown)) {
                try await manager.perform(.resume, id: tea)
            }
            var remoteLists: [[Alarm]] = []
            var localLists: [[Alarm]] = []
            for _ in 0..<8 {
                remoteLists.append(await remote.nextElement() ?? [])
                localLists.append(await local.nextElement() ?? [])
            }
            #expect(remoteLists == localLists)
            #expect(remoteLists.last?.map(\.id) == [tea])
            #expect(await manager.awaitedAlarms() == rig.runtime.alarms(for: Self.me))
        }
    }

    @Test func theSameCallsGiveTheSameAnswersAsInProcess() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let remote = AlarmManager(backend: SocketAlarmBackend(client: rig.client()))
            let local = rig.runtime.manager(for: Self.me)
            let id = Alarm.ID()
            let config = AlarmManager.AlarmConfiguration.alarm(
                schedule: .fixed(ServerRig.start.addingTimeInterval(600)),
                attributes: AlarmAttributes(presentation: .init(alert: .init(title: "Meds")), metadata: Medication(name: "aspirin", milligrams: 100), tintColor: .red))
            let scheduled = try await remote.schedule(id: id, configuration: config)
            #expect(await local.awaitedAlarms() == [scheduled])
            // Every refusal arrives as the same error.
            await #expect(throws: AlarmOperationError.duplicateID(id)) { try await remote.schedule(id: id, configuration: config) }
            await #expect(throws: AlarmOperationError.invalidTransition(id, action: .pause, from: .scheduled)) { try await remote.perform(.pause, id: id) }
            await #expect(throws: AlarmOperationError.invalidTransition(id, action: .countdown, from: .scheduled)) { try await remote.perform(.countdown, id: id) }
            let missing = Alarm.ID()
            await #expect(throws: AlarmOperationError.notFound(missing)) { try await remote.perform(.stop, id: missing) }
            let invalid = AlarmManager.AlarmConfiguration<NoAlarmMetadata>(attributes: .init(presentation: .init(alert: .init(title: "x")), tintColor: .white))
            await #expect(throws: AlarmOperationError.self) { try await remote.schedule(id: Alarm.ID(), configuration: invalid) }
            // A definition the client did not validate is still refused by the daemon.
            await #expect(throws: AlarmOperationError.invalidConfiguration("an alarm needs a schedule or countdownDuration.preAlert (a timer)")) {
                try await SocketAlarmBackend(client: rig.client()).schedule(id: Alarm.ID(), definition: AlarmDefinition(
                    schedule: nil, countdownDuration: nil, presentation: .init(alert: .init(title: "x"))))
            }
            #expect(await remote.awaitedAuthorizationState() == .authorized)
            #expect(try await remote.requestAuthorization() == .authorized)
            var authorization = remote.authorizationUpdates.makeAsyncIterator()
            #expect(await authorization.next() == .authorized)
            // The metadata comes back unchanged.
            let record = await rig.runtime.record(for: AlarmKey(owner: .currentUser, id: id))
            #expect(try record.map { try JSONDecoder().decode(Medication.self, from: $0.definition.metadata ?? Data()) } == Medication(name: "aspirin", milligrams: 100))
        }
    }

    @Test func streamsSurviveADaemonRestartAndRequestsInBetweenFailClearly() async throws {
        let rig = try ServerRig()
        try rig.server.start()
        let client = rig.client()
        let manager = AlarmManager(backend: SocketAlarmBackend(client: client))
        var updates = manager.alarmUpdates.makeAsyncIterator()
        var authorization = manager.authorizationUpdates.makeAsyncIterator()
        #expect(await updates.nextElement() == [])
        let first = try await manager.schedule(id: Alarm.ID(), configuration: .timer(
            duration: 600, attributes: AlarmAttributes<NoAlarmMetadata>(presentation: .init(alert: .init(title: "One")), tintColor: .white)))
        #expect(await updates.nextElement() == [first])
        #expect(await authorization.nextElement() == .authorized)

        try await rig.restart()
        // Down: a call fails at once with a clear error (whether it raced the old connection's end
        // or found no daemon), and is not retried later.
        let error = #expect(throws: AlarmOperationError.self) { try manager.alarms }
        guard case .serviceUnavailable = error else {
            Issue.record("expected serviceUnavailable, got \(String(describing: error))")
            return
        }
        let fresh = await #expect(throws: AlarmOperationError.self) { try await rig.client().alarms() }
        #expect(fresh == .serviceUnavailable("connect \(rig.socketPath): No such file or directory"))
        // The new daemon has one more alarm, set in its own process before it listens.
        let second = try await rig.runtime.schedule(id: Alarm.ID(), definition: Sample.timer(), client: Self.me)
        try rig.server.start()
        let afterRestart = await updates.nextElement()
        #expect(afterRestart?.map(\.id) == [first.id, second.id])
        #expect(await authorization.nextElement() == .authorized, "the authorization stream is fresh too")
        #expect(await manager.awaitedAlarms().map(\.id) == [first.id, second.id])
        try await manager.perform(.cancel, id: second.id)
        #expect(await updates.nextElement()?.map(\.id) == [first.id])
        await rig.server.stop()
        client.close()
        #expect(await updates.nextElement() == nil, "closing the client ends its streams")
    }

    @Test func aRequestInFlightWhenTheConnectionDropsFailsWithoutARetry() async throws {
        let prompter = GatedPrompter()
        let rig = try ServerRig(authorizer: prompter)
        try rig.server.start()
        // A non-administrator waits for a person; the daemon goes away meanwhile.
        let client = getuid() == 0 ? rig.client(as: ServerRig.otherUser) : rig.client()
        let answer = Task { try await client.requestAuthorization() }
        await prompter.waitUntilAsked()
        await rig.server.stop()
        await #expect(throws: AlarmOperationError.serviceUnavailable(
            "the connection to alarmd closed before it answered; the request may or may not have taken effect")
        ) {
            _ = try await answer.value
        }
        prompter.answer(.denied)
    }
}

struct Medication: AlarmMetadata {
    var name: String
    var milligrams: Int
}

extension RemoteManagerTests {
    @Test func aRequestTooLargeIsRefusedByTheClientAndTheConnectionStays() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            _ = try await client.hello()
            let huge: [String: JSONValue] = ["pad": .string(String(repeating: "x", count: ControlProtocol.maximumRequestSize))]
            // `history` ignores fields it does not know: only the size matters.
            let error = await #expect(throws: ControlError.self) { try await client.request("history", parameters: huge) }
            #expect(error?.code == .tooLarge)
            #expect(try await client.request("alarmRecords", parameters: ["small": .bool(true)]) == .array([]))
        }
    }
}
