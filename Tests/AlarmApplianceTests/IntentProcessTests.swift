import AlarmAppliance
import AlarmControl
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmEngine

/// A STOP press on the simulated board reaches the app that owns the alarm: a separate process
/// that imports only AlarmKit, over the control socket, whether it connects before or after the
/// press.
@Suite(.timeLimit(.minutes(5))) struct IntentProcessTests {
    static let probe = ChildProcess.product("alarmkit-app-probe")
    /// The probe runs as this process's user, so the alarms it should hear of are this user's.
    static var me: ClientID { ClientID(rawValue: geteuid()) }

    @Test func aStopPressDeliversTheStopIntentToTheOwnersProcessWhenItConnects() async throws {
        let rig = try await ApplianceRig()
        let id = try await Self.ringingAlarm(on: rig)
        await rig.tap(.stop)
        #expect(await rig.runtime.alarms(for: Self.me).isEmpty, "the device stopped it without waiting for the app")

        try await Self.serving(rig) { socket in
            let result = try await ChildProcess.run(Self.probe, ["intents", "1"], environment: ["ALARMD_SOCKET": socket])
            #expect(result.standardOutput == "delivered stop ProbeStopIntent\nran ProbeStopIntent \(id)\n", "\(result.standardError)")
        }
        #expect(rig.runtime.intents.waiting(for: Self.me).isEmpty, "the app acknowledged it")
        #expect(rig.delivered(to: Scene.owner).isEmpty, "no other client has it")
    }

    @Test func aConnectedAppGetsTheIntentOfAPressAsItHappens() async throws {
        let rig = try await ApplianceRig()
        let id = try await Self.ringingAlarm(on: rig)
        try await Self.serving(rig) { socket in
            async let result = ChildProcess.run(Self.probe, ["intents", "1"], environment: ["ALARMD_SOCKET": socket])
            await rig.tap(.stop)
            let output = try await result.standardOutput
            #expect(output == "delivered stop ProbeStopIntent\nran ProbeStopIntent \(id)\n")
        }
        #expect(rig.runtime.intents.waiting(for: Self.me).isEmpty)
    }

    /// Two processes of one app (the same executable, as `AlarmManager.shared` names it): each
    /// intent runs in exactly one. The first to run one exits; the next press runs in the other,
    /// which by then has passed over the first intent without running it.
    @Test func twoProcessesOfOneAppRunEachIntentOnce() async throws {
        let rig = try await ApplianceRig()
        let first = try await Self.ringingAlarm(on: rig, app: "alarmkit-app-probe")
        await rig.tap(.stop)
        try await Self.serving(rig) { socket in
            try await withThrowingTaskGroup(of: ChildProcess.Result.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await ChildProcess.run(Self.probe, ["intents", "1"], environment: ["ALARMD_SOCKET": socket]) }
                }
                let ranFirst = try #require(try await group.next())
                #expect(ranFirst.standardOutput.hasSuffix("ran ProbeStopIntent \(first)\n"), "\(ranFirst.standardError)")
                let second = try await Self.ringingAlarm(on: rig, app: "alarmkit-app-probe")
                await rig.tap(.stop)
                let ranSecond = try #require(try await group.next())
                #expect(ranSecond.standardOutput.hasSuffix("ran ProbeStopIntent \(second)\n"), "\(ranSecond.standardError)")
                #expect(!ranSecond.standardOutput.contains("ran ProbeStopIntent \(first)"), "the first intent ran once")
            }
        }
        #expect(rig.runtime.intents.waiting(for: Self.me).isEmpty)
    }

    /// `$ALARMKIT_APP_ID` names the app, as a bundle identifier does: the intent of another app
    /// of the same user never reaches it.
    @Test func anAppNamedByItsIdentifierGetsOnlyItsOwnAlarmsIntents() async throws {
        let rig = try await ApplianceRig()
        let theirs = try await Self.ringingAlarm(on: rig, app: "org.example.other")
        let mine = try await Self.ringingAlarm(on: rig, app: "com.example.eggs", at: 7, 1)
        await rig.tap(.stop)
        await rig.tap(.stop)
        #expect(rig.runtime.intents.waiting(for: Self.me).count == 2)
        try await Self.serving(rig) { socket in
            let result = try await ChildProcess.run(
                Self.probe, ["intents", "1"], environment: ["ALARMD_SOCKET": socket, "ALARMKIT_APP_ID": "com.example.eggs"])
            #expect(result.standardOutput == "delivered stop ProbeStopIntent\nran ProbeStopIntent \(mine)\n", "\(result.standardError)")
        }
        #expect(rig.runtime.intents.waiting(for: Self.me).map(\.intent.parameters["alarmID"]) == [theirs.uuidString])
    }

    /// An alarm of this user's, alerting, whose stop intent is the probe's.
    static func ringingAlarm(on rig: ApplianceRig, app: String? = nil, at hour: Int = 7, _ minute: Int = 0) async throws -> Alarm.ID {
        let id = Alarm.ID()
        let intent = AlarmIntent("ProbeStopIntent", parameters: ["alarmID": id.uuidString])
        _ = try await rig.runtime.schedule(id: id, definition: Scene.alarm(hour, minute, stopIntent: intent), client: me, app: app)
        try await rig.advanceToNextDeadline()
        #expect(await rig.runtime.record(for: AlarmKey(owner: me, id: id))?.phase.state == .alerting)
        return id
    }

    /// Runs `body` with the rig's engine behind a control socket, as `alarmd` serves it.
    static func serving(_ rig: ApplianceRig, _ body: (String) async throws -> Void) async throws {
        let socket = rig.directory.path + "/control.sock"
        let server = ControlServer(configuration: .init(socketPath: socket), runtime: rig.runtime, logger: Scene.logger)
        try server.start()
        do {
            try await body(socket)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
