import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmControl
@testable import AlarmProtocol
@testable import AlarmEngine

/// The server's bounds: clients, unread output, idle connections, requests in flight and
/// subscriptions per connection; and what it logs.
///
/// The idle timeout runs on the server's manual clock: the tests move it.
@Suite(.timeLimit(.minutes(5)))
struct ControlLimitsTests {
    /// 64 slots for this process's user, whether it administers (root) or not.
    static func sixtyFourSlots(_ configuration: inout ControlServer.Configuration) {
        configuration.maximumClients = 64
        configuration.maximumClientsPerUser = 64
        configuration.maximumAdministratorClients = 64
    }

    @Test func theClientBeyondTheLimitIsToldBusyAndClosed() async throws {
        let rig = try ServerRig(configure: Self.sixtyFourSlots)
        try await rig.serving {
            let connections = try await Self.answeredConnections(64, rig)
            let refused = try await rig.rawConnection()
            let message = await refused.nextMessage()
            #expect(message?["ok"] == .bool(false))
            #expect(message?["id"] == .null)
            #expect(message?["error"]?["code"] == .string("busy"))
            #expect(await refused.next() == .closed)
            // The 64 are still served.
            await connections[63].send(Sample.request(100, "alarms"))
            #expect(await connections[63].nextMessage()?["id"] == .integer(100))
        }
    }

    @Test func aSlotFreedByAClientThatLeftIsTakenByTheNextAtOnce() async throws {
        let rig = try ServerRig(configure: Self.sixtyFourSlots)
        try await rig.serving {
            let connections = try await Self.answeredConnections(64, rig)
            // The server's thread is held (logging a refused line) while one client leaves and
            // another arrives, so that it sees both in one wake-up, as a busy server would.
            rig.log.hold(at: "Control request refused")
            await connections[1].send(Array("nonsense\n".utf8))
            await rig.log.held()
            connections[0].close()
            let next = try await rig.rawConnection()
            rig.log.releaseHold()
            await next.send(Sample.request(100, "hello"))
            let answer = await next.nextMessage()
            #expect(answer?["id"] == .integer(100), "\(String(describing: answer))")
            #expect(answer?["ok"] == .bool(true))
            #expect(await connections[1].nextMessage()?["ok"] == .bool(false))
        }
    }

    @Test func aClientThatDoesNotReadItsEventsIsDisconnected() async throws {
        let rig = try ServerRig(configure: { $0.outputLimit = 64 * 1024 })
        let me = ClientID(rawValue: geteuid())
        try await rig.serving {
            let lazy = try await rig.rawConnection()
            await lazy.send(Sample.request(1, "subscribeAlarms"))
            #expect(await lazy.nextMessage()?["id"] == .integer(1))
            // From here on it reads nothing, while every change sends it the whole, growing list.
            let title = String(repeating: "A long title for a big list ", count: 7)
            for _ in 0..<80 {
                _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: Sample.definition(title), client: me)
            }
            // What the kernel had buffered arrives, then the end: the server let it go.
            #expect(await lazy.drainUntilClosed())
            let closed = rig.log.entries.filter { $0.message == "Control connection closed" }
            #expect(closed.map(\.level) == [.warning])
            #expect(closed.first?.metadata["control.reason"] == "client does not read")
            // Everyone else is served as before.
            #expect(try await rig.client().alarms().count == 80)
        }
    }

    @Test func aSilentConnectionIsClosedAfterTheIdleTimeoutButASubscriberIsNot() async throws {
        let rig = try ServerRig(configure: { $0.idleTimeout = .seconds(10) })
        try await rig.serving {
            let subscriber = try await rig.rawConnection()
            await subscriber.send(Sample.request(1, "subscribeAuthorization"))
            #expect(await subscriber.nextMessage()?["id"] == .integer(1))
            let silent = try await rig.rawConnection()
            try await Self.roundTrip(rig)
            rig.advanceServerClock(by: 9.9)
            // The server has looked at the clock once this answer arrives.
            try await Self.roundTrip(rig)
            #expect(await silent.next(timeout: .zero) == .timedOut, "closed before its timeout")
            rig.advanceServerClock(by: 0.1)
            #expect(await silent.next() == .closed)
            await subscriber.send(Sample.request(2, "hello"))
            var reply = await subscriber.nextMessage()
            if reply?["event"] != nil { reply = await subscriber.nextMessage() }
            #expect(reply?["id"] == .integer(2), "a subscriber waits for events: it is not idle")
        }
    }

    /// `idle_timeout = "0"` in alarmd.toml: no connection is closed for silence.
    @Test func withoutAnIdleTimeoutASilentConnectionStays() async throws {
        let rig = try ServerRig(configure: { $0.idleTimeout = nil })
        try await rig.serving {
            let silent = try await rig.rawConnection()
            try await Self.roundTrip(rig)
            rig.advanceServerClock(by: 366 * 86_400)
            try await Self.roundTrip(rig)
            #expect(await silent.next(timeout: .zero) == .timedOut)
            await silent.send(Sample.request(1, "hello"))
            #expect(await silent.nextMessage()?["id"] == .integer(1))
        }
    }

    @Test func anAnsweredConnectionIsClosedOnceIdleForTheTimeout() async throws {
        // The idle timer starts at the answer, not at the request. The answer waits for a person,
        // so the I/O thread is surely asleep with the request pending.
        let prompter = GatedPrompter()
        let rig = try ServerRig(authorizer: prompter, configure: { $0.idleTimeout = .seconds(5) })
        try await rig.serving {
            let connection = try await rig.rawConnection(
                as: ControlServerTests.plainUser, sending: Sample.request(1, "requestAuthorization"))
            await prompter.waitUntilAsked()
            // Longer than the timeout while the request waits: a pending request is not idleness.
            rig.advanceServerClock(by: 60)
            prompter.answer(.authorized)
            #expect(await connection.nextMessage()?["id"] == .integer(1))
            rig.advanceServerClock(by: 4.9)
            try await Self.roundTrip(rig)
            #expect(await connection.next(timeout: .zero) == .timedOut, "closed before its timeout")
            rig.advanceServerClock(by: 0.1)
            #expect(await connection.next() == .closed)
        }
    }

    /// `count` connections, each answered once: an answer proves the server has taken it in.
    static func answeredConnections(_ count: Int, _ rig: ServerRig) async throws -> [RawConnection] {
        var connections: [RawConnection] = []
        for index in 0..<count {
            let connection = try await rig.rawConnection()
            await connection.send(Sample.request(Int64(index), "hello"))
            #expect(await connection.nextMessage()?["ok"] == .bool(true))
            connections.append(connection)
        }
        return connections
    }

    /// A request answered on a connection of its own: the server's I/O thread has been through
    /// its loop (and its idle check) since anything the test did before.
    static func roundTrip(_ rig: ServerRig) async throws {
        let probe = try await rig.rawConnection()
        await probe.send(Sample.request(99, "hello"))
        #expect(await probe.nextMessage()?["id"] == .integer(99))
        probe.close()
    }

    @Test func aClientThatShutsItsSideGetsEveryAnswerThenTheEnd() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let connection = try await rig.rawConnection()
            await connection.send(Sample.request(1, "hello") + Sample.request(2, "alarms") + Sample.request(3, "authorizationState"))
            connection.finishSending()
            var ids: [JSONValue?] = []
            for _ in 0..<3 { ids.append(await connection.nextMessage()?["id"]) }
            #expect(ids == [.integer(1), .integer(2), .integer(3)])
            #expect(await connection.next() == .closed)
        }
    }

    @Test func requestsInFlightAndSubscriptionsPerConnectionAreBounded() async throws {
        let prompter = GatedPrompter()
        let rig = try ServerRig(authorizer: prompter, configure: {
            $0.maximumPendingRequests = 2
            $0.maximumSubscriptions = 2
        })
        try await rig.serving {
            let connection = try await rig.rawConnection(as: ControlServerTests.plainUser)
            await connection.send(Sample.request(1, "requestAuthorization"))
            await connection.send(Sample.request(2, "requestAuthorization"))
            await prompter.waitUntilAsked()
            await connection.send(Sample.request(3, "hello"))
            let busy = await connection.nextMessage()
            #expect(busy?["id"] == .integer(3))
            #expect(busy?["error"]?["code"] == .string("busy"))
            prompter.answer(.authorized)
            #expect(Set([await connection.nextMessage()?["id"], await connection.nextMessage()?["id"]]) == [.integer(1), .integer(2)])

            for id in 4...6 { await connection.send(Sample.request(Int64(id), "subscribeAlarms")) }
            var codes: [Int64: JSONValue] = [:]
            while codes.count < 3, let message = await connection.nextMessage() {
                if let id = message["id"]?.integerValue { codes[id] = message["ok"] }
            }
            #expect(codes == [4: .bool(true), 5: .bool(true), 6: .bool(false)])
        }
    }

    @Test func aLineTooLargeGetsAnErrorThenTheConnectionCloses() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let connection = try await rig.rawConnection()
            await connection.send(Array(#"{"v":1,"id":1,"op":"hello","pad":""#.utf8) + [UInt8](repeating: 0x61, count: 70_000))
            let refused = await connection.nextMessage()
            #expect(refused?["error"]?["code"] == .string("tooLarge"))
            #expect(refused?["id"] == .null)
            #expect(await connection.drainUntilClosed())
        }
    }

    @Test func theServerLogsOneLinePerConnectionOpenedAndClosedAndNothingWhileIdle() async throws {
        let rig = try ServerRig()
        try rig.server.start()
        for index in 0..<3 {
            let connection = try await rig.rawConnection()
            await connection.send(Sample.request(Int64(index), "hello"))
            #expect(await connection.nextMessage()?["id"] == .integer(Int64(index)))
            // A refused request is the client's mistake: debug, not a warning.
            await connection.send(Array("nonsense\n".utf8))
            #expect(await connection.nextMessage()?["ok"] == .bool(false))
        }
        let idle = try await rig.rawConnection()
        await idle.send(Sample.request(9, "hello"))
        _ = await idle.nextMessage()
        await rig.server.stop()
        let entries = rig.log.entries
        #expect(entries.filter { $0.message == "Control connection opened" }.count == 4)
        #expect(entries.filter { $0.message == "Control connection closed" }.count == 4)
        #expect(entries.filter { $0.message.hasPrefix("Control connection") }.allSatisfy { $0.level == .debug })
        #expect(entries.filter { $0.level >= .warning }.isEmpty, "\(entries.filter { $0.level >= .warning }.map(\.message))")
        #expect(entries.first { $0.message == "Control connection opened" }?.metadata["control.uid"] == "\(geteuid())")
        #expect(entries.map(\.message).filter { !$0.hasPrefix("Control connection") && $0 != "Control request refused" }
            == ["Control socket has no administrators' group; only root administers", "Control socket listening", "Control socket closed"])
    }
}
