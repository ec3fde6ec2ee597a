import AlarmKitCore
import AlarmModel
import AlarmTestKit
import CUnixSocket
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmControl
@testable import AlarmProtocol
@testable import AlarmEngine

/// The server's request handling seen from a raw connection: ordering, requests that wait for a
/// person, subscriptions, operations the daemon adds.
@Suite(.timeLimit(.minutes(5)))
struct ControlServerTests {
    /// A client that is not an administrator: another user when we are root, else ourselves.
    static let plainUser: (uid: UInt32, gid: UInt32)? = getuid() == 0 ? (65533, ServerRig.otherUser.gid) : nil
    static var plainClient: ClientID { ClientID(rawValue: plainUser?.uid ?? geteuid()) }

    @Test func aPromptWaitsBesideTheQueueWithoutHoldingUpTheConnection() async throws {
        let prompter = GatedPrompter()
        let rig = try ServerRig(authorizer: prompter)
        try await rig.serving {
            let connection = try await rig.rawConnection(as: Self.plainUser)
            await connection.send(Sample.request(1, "requestAuthorization"))
            await prompter.waitUntilAsked()
            await connection.send(Sample.request(2, "alarms"))
            let alarms = await connection.nextMessage()
            #expect(alarms?["id"] == .integer(2))
            #expect(alarms?["result"] == .array([]))
            prompter.answer(.authorized)
            let decision = await connection.nextMessage()
            #expect(decision?["id"] == .integer(1))
            #expect(decision?["result"] == .string("authorized"))
            #expect(prompter.timesAsked == 1)
        }
    }

    @Test func theFirstScheduleOfAnUndeterminedClientAsksThenRejoinsTheQueue() async throws {
        let prompter = GatedPrompter()
        let rig = try ServerRig(authorizer: prompter)
        try await rig.serving {
            let connection = try await rig.rawConnection(as: Self.plainUser)
            let id = Alarm.ID()
            await connection.send(Sample.scheduleRequest(1, alarm: id))
            await prompter.waitUntilAsked()
            await connection.send(Sample.request(2, "authorizationState"))
            #expect(await connection.nextMessage()?["result"] == .string("notDetermined"))
            prompter.answer(.authorized)
            let scheduled = await connection.nextMessage()
            #expect(scheduled?["id"] == .integer(1))
            #expect(scheduled?["ok"] == .bool(true))
            #expect(await rig.runtime.alarms(for: Self.plainClient).map(\.id) == [id])
            #expect(prompter.timesAsked == 1)
        }
    }

    @Test func aDeniedPromptRefusesTheScheduleClearly() async throws {
        let prompter = GatedPrompter()
        prompter.answer(.denied)
        let rig = try ServerRig(authorizer: prompter)
        try await rig.serving {
            let connection = try await rig.rawConnection(as: Self.plainUser)
            await connection.send(Sample.scheduleRequest(1, alarm: Alarm.ID()))
            let refused = await connection.nextMessage()
            #expect(refused?["ok"] == .bool(false))
            #expect(refused?["error"]?["code"] == .string("notAuthorized"))
            #expect(refused?["error"]?["authorization"] == .string("denied"))
            #expect(refused?["error"]?["message"] == .string("not authorized to set alarms (authorization is denied)"))
            #expect(await rig.runtime.alarms(for: Self.plainClient).isEmpty)
        }
    }

    @Test func aSubscriptionsResponseComesBeforeItsEventsAndUnsubscribeEndsThem() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let connection = try await rig.rawConnection()
            await connection.send(Sample.request(1, "subscribeAlarms"))
            let response = await connection.nextMessage()
            #expect(response?["id"] == .integer(1))
            let number = response?["result"]?["subscription"]
            #expect(number != nil)
            let event = await connection.nextMessage()
            #expect(event?["event"] == .string("alarms"))
            #expect(event?["subscription"] == number)
            #expect(event?["data"] == .array([]))
            await connection.send(Sample.request(2, "unsubscribe", ["subscription": number ?? .null]))
            #expect(await connection.nextMessage()?["id"] == .integer(2))
            _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: Sample.timer(), client: ClientID(rawValue: geteuid()))
            await connection.send(Sample.request(3, "hello"))
            #expect(await connection.nextMessage()?["id"] == .integer(3), "no event came after unsubscribe")
        }
    }

    @Test func operationsTheDaemonAddsAreServedWithTheCallersIdentity() async throws {
        let rig = try ServerRig()
        try await rig.serving { () async throws in
            let client = rig.client()
            #expect(try await client.alarmRecords() == [])
            let unknown = await #expect(throws: ControlError.self) { try await client.history() }
            #expect(unknown?.code == .unknownOperation)
        }
        let adminOnly = try ServerRig()
        var handlers = ControlHandlers()
        handlers.register(.selfTest) { call, parameters in
            SelfTestReport(parts: parameters.parts.map { .init(part: $0, passed: true, detail: "uid \(call.peer.uid)") })
        }
        handlers.register(.alarms) { _, _ in throw ControlError(.busy, "replaced") }
        let server = ControlServer(configuration: adminOnly.configuration, runtime: adminOnly.runtime, handlers: handlers, logger: ServerRig.logger)
        try server.start()
        let root = adminOnly.client()
        let asked = SelfTestParameters(parts: ["led"], showSeconds: 0)
        #expect(try await root.selfTest(asked).parts.map(\.detail) == ["uid \(geteuid())"] || geteuid() != 0)
        #expect(try await root.alarms() == [], "a handler cannot replace the protocol's own operations")
        if geteuid() == 0 {
            let other = adminOnly.client(as: ServerRig.otherUser)
            let error = await #expect(throws: ControlError.self) { try await other.selfTest(asked) }
            #expect(error?.code == .forbidden)
        }
        await server.stop()
    }

    @Test func aDaemonsOperationIsRefusedWithTheProtocolsOwnCodesAndMessages() async throws {
        let rig = try ServerRig()
        var handlers = ControlHandlers()
        handlers.register(.history) { _, _ in [] }
        handlers.register(.setSettings) { _, settings in settings }
        let server = ControlServer(configuration: rig.configuration, runtime: rig.runtime, handlers: handlers, logger: ServerRig.logger)
        try server.start()
        let connection = try await rig.rawConnection()
        await connection.send(Sample.request(1, "history", ["all": .string("yes")]))
        let malformed = await connection.nextMessage()?["error"]
        #expect(malformed?["code"] == .string("malformed"))
        #expect(malformed?["message"] == .string("bad parameters: params.all has the wrong type (expected a boolean)"))
        await connection.send(Sample.request(2, "trySound", ["volumeDB": .integer(-6)]))
        let unknown = await connection.nextMessage()?["error"]
        #expect(unknown?["code"] == .string("unknownOperation"))
        #expect(unknown?["message"] == .string("unknown operation \"trySound\""))
        if geteuid() == 0 {
            await connection.send(Sample.request(3, "setSettings", ["volumeDB": .integer(-6)]))
            #expect(await connection.nextMessage()?["error"]?["message"] == .string("bad parameters: params.crescendoSeconds is missing"))
            // Not an administrator: refused before its parameters are read.
            let other = try await rig.rawConnection(as: ServerRig.otherUser)
            await other.send(Sample.request(4, "setSettings"))
            let forbidden = await other.nextMessage()?["error"]
            #expect(forbidden?["code"] == .string("forbidden"))
            #expect(forbidden?["message"] == .string("setSettings is for administrators (root or the administrators' group)"))
        }
        await server.stop()
    }

    @Test func aStaleSocketIsReplacedButAnythingElseIsLeftAlone() async throws {
        let rig = try ServerRig()
        try rig.server.start()
        // A second daemon on the same path is refused while the first listens.
        let second = ServerRig.makeServer(rig.configuration, rig.runtime, clock: rig.serverClock)
        #expect(throws: ControlSocketError.self) { try second.start() }
        await rig.server.stop()
        // A socket file nobody listens on (a crashed daemon's) is replaced.
        let stale = alarmd_unix_bind(rig.socketPath)
        #expect(stale >= 0)
        Glibc.close(stale)
        try second.start()
        #expect(try await rig.client().hello().version == "test")
        await second.stop()
        // A regular file is not touched.
        try TestFiles.write([1, 2, 3], to: rig.socketPath)
        let third = ServerRig.makeServer(rig.configuration, rig.runtime, clock: rig.serverClock)
        #expect(throws: ControlSocketError.self) { try third.start() }
        #expect(TestFiles.read(rig.socketPath) == [1, 2, 3])
    }
}
