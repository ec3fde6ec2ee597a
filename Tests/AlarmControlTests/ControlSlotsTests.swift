import FoundationEssentials
import Glibc
import Testing

@testable import AlarmControl
@testable import AlarmProtocol

/// Connections are shared out by user: each ordinary user holds at most its share of the ordinary
/// users' slots, subscribers included, and root and the administrators have slots of their own.
///
/// Runs as root only: its clients connect as other users.
@Suite(.timeLimit(.minutes(5)), .enabled(if: getuid() == 0, "connects as other users, which needs root"))
struct ControlSlotsTests {
    static let alice: (uid: UInt32, gid: UInt32) = (65533, 65534)
    static let bob: (uid: UInt32, gid: UInt32) = (65532, 65534)
    static let carol: (uid: UInt32, gid: UInt32) = (65531, 65534)
    /// In the administrators' group by its effective gid, as alarm-web is.
    static let page: (uid: UInt32, gid: UInt32) = (65530, 65520)

    static func rig(_ configure: @escaping (inout ControlServer.Configuration) -> Void) throws -> ServerRig {
        try ServerRig(configure: {
            $0.administrators = ControlAdministrators(groupID: page.gid)
            configure(&$0)
        })
    }

    /// Lets every user reach the socket, whatever its group: the server's own limits decide.
    static func openToEveryone(_ rig: ServerRig) {
        chmod(rig.socketPath, 0o666)
    }

    /// A connection as `user` with a subscription, answered: the server holds it as a subscriber.
    static func subscriber(_ user: (uid: UInt32, gid: UInt32)?, _ rig: ServerRig) async throws -> RawConnection {
        let connection = try await rig.rawConnection(as: user)
        await connection.send(Sample.request(1, "subscribeAuthorization"))
        let answer = await connection.nextMessage()
        #expect(answer?["id"] == .integer(1) && answer?["ok"] == .bool(true), "\(String(describing: answer))")
        return connection
    }

    /// The answer to request `id`, past the subscription's events.
    static func answer(_ id: Int64, on connection: RawConnection) async -> JSONValue? {
        while let message = await connection.nextMessage() {
            if message["id"] == .integer(id) { return message }
        }
        return nil
    }

    /// The refusal a connection as `user` gets, or `nil` if it is served.
    static func refusal(_ user: (uid: UInt32, gid: UInt32)?, _ rig: ServerRig) async throws -> String? {
        let connection = try await rig.rawConnection(as: user)
        await connection.send(Sample.request(7, "hello"))
        let answer = await connection.nextMessage()
        guard answer?["id"] == .integer(7) else {
            #expect(answer?["error"]?["code"] == .string("busy"))
            #expect(await connection.next() == .closed)
            guard case .string(let message)? = answer?["error"]?["message"] else { return "(no message)" }
            return message
        }
        return nil
    }

    @Test func oneUserHoldsAtMostItsShareAndTheOthersAreStillServed() async throws {
        let rig = try Self.rig {
            $0.maximumClients = 8
            $0.maximumClientsPerUser = 3
        }
        try await rig.serving {
            Self.openToEveryone(rig)
            var held: [RawConnection] = []
            for _ in 0..<3 { held.append(try await Self.subscriber(Self.alice, rig)) }
            let refused = try await Self.refusal(Self.alice, rig)
            #expect(refused == "uid 65533 already holds 3 connections, the most one user may; close one first")
            #expect(try await Self.refusal(Self.bob, rig) == nil)
            // One of hers leaves: she may connect again (the server sees a close before the
            // connection that follows it).
            held.removeFirst().close()
            #expect(try await Self.refusal(Self.alice, rig) == nil)
            #expect(rig.log.entries.contains {
                $0.message == "Control connection refused" && $0.level == .warning && $0.metadata["control.uid"] == "65533"
            })
        }
    }

    @Test func aUserRefusedInALoopIsLoggedOnceAMinuteWithTheCountBetween() async throws {
        let rig = try Self.rig {
            $0.maximumClients = 8
            $0.maximumClientsPerUser = 1
        }
        try await rig.serving {
            Self.openToEveryone(rig)
            let held = try await Self.subscriber(Self.alice, rig)
            for _ in 0..<5 { #expect(try await Self.refusal(Self.alice, rig) != nil) }
            let logged = { rig.log.entries.filter { $0.message == "Control connection refused" } }
            #expect(logged().count == 1)
            rig.serverClock.advance(by: 60)
            #expect(try await Self.refusal(Self.alice, rig) != nil)
            #expect(logged().count == 2)
            #expect(logged().last?.metadata["control.refusedUnlogged"] == "4")
            held.close()
        }
    }

    @Test func rootAndTheAdministratorsAreServedWhenOrdinaryUsersHoldEverySlot() async throws {
        let rig = try Self.rig {
            $0.maximumClients = 4
            $0.maximumClientsPerUser = 2
            $0.maximumAdministratorClients = 3
        }
        try await rig.serving {
            Self.openToEveryone(rig)
            var held: [RawConnection] = []
            for user in [Self.alice, Self.alice, Self.bob, Self.bob] { held.append(try await Self.subscriber(user, rig)) }
            #expect(try await Self.refusal(Self.carol, rig) == "too many clients (4); try again later")
            // The page and root each get in, and are administrators there.
            let page = try await Self.subscriber(Self.page, rig)
            await page.send(Sample.request(2, "hello"))
            #expect(await Self.answer(2, on: page)?["result"]?["admin"] == .bool(true))
            let root = try await Self.subscriber(nil, rig)
            await root.send(Sample.request(2, "allAlarms"))
            #expect(await Self.answer(2, on: root)?["ok"] == .bool(true))
            // Their own slots are bounded too.
            let third = try await Self.subscriber(nil, rig)
            #expect(try await Self.refusal(Self.page, rig) == "too many administrators' connections (3); try again later")
            withExtendedLifetime((held, page, root, third)) {}
        }
    }
}
