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

/// Two clients with different uids over the real socket: the kernel's peer credentials decide
/// who is who. Connections as another user are made from a thread whose effective uid and gid
/// are changed (root only), so `SO_PEERCRED` really reports that user.
@Suite(.timeLimit(.minutes(5)))
struct ClientIsolationTests {
    static let isRoot = getuid() == 0

    @Test func theSocketIsMode0660WithTheConfiguredGroupAndTheKernelNamesThePeer() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            var status = stat()
            #expect(lstat(rig.socketPath, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o660)
            if Self.isRoot { #expect(status.st_gid == ServerRig.otherUser.gid) }
            // A plain connection from this process: SO_PEERCRED gives our own uid and gid.
            let hello = try await rig.client().hello()
            #expect(hello.uid == geteuid())
            #expect(hello.gid == getegid())
            #expect(hello.admin == (geteuid() == 0))
            #expect(hello.protocol == 1)
            #expect(hello.server == "alarmd")
            #expect(hello.version == "test")
        }
        #expect(access(rig.socketPath, F_OK) != 0, "stop() removes the socket file")
    }

    @Test(.enabled(if: isRoot, "connecting as another user needs root"))
    func anotherUserIsIdentifiedByTheKernelAndTheModeKeepsStrangersOut() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let hello = try await rig.client(as: ServerRig.otherUser).hello()
            #expect(hello.uid == ServerRig.otherUser.uid)
            #expect(hello.gid == ServerRig.otherUser.gid)
            #expect(!hello.admin)
            // Neither the owner nor in the socket's group: mode 0660 refuses the connection.
            let stranger = rig.client(as: (65533, 65533))
            let error = await #expect(throws: AlarmOperationError.self) { try await stranger.hello() }
            #expect("\(error.map { "\($0)" } ?? "")".contains("Permission denied"))
        }
    }

    @Test(.enabled(if: isRoot, "connecting as another user needs root"))
    func clientsSeeAndChangeOnlyTheirOwnAlarms() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let owner = AlarmManager(backend: SocketAlarmBackend(client: rig.client(as: (1000, ServerRig.otherUser.gid))))
            let other = AlarmManager(backend: SocketAlarmBackend(client: rig.client(as: ServerRig.otherUser)))
            let ownersAlarm = Alarm.ID()
            let alarm = try await owner.schedule(id: ownersAlarm, configuration: .alarm(
                schedule: .fixed(ServerRig.start.addingTimeInterval(3600)),
                attributes: AlarmAttributes<NoAlarmMetadata>(presentation: .init(alert: .init(title: "Mine")), tintColor: .blue)))
            #expect(alarm.state == .scheduled)
            #expect(await owner.awaitedAlarms().map(\.id) == [ownersAlarm])
            #expect(await other.awaitedAlarms().isEmpty)
            for action in AlarmAction.allCases {
                await #expect(throws: AlarmOperationError.notFound(ownersAlarm)) {
                    try await SocketAlarmBackend(client: rig.client(as: ServerRig.otherUser)).perform(action, id: ownersAlarm)
                }
            }
            for action in AlarmCommand.allCases {
                await #expect(throws: AlarmOperationError.notFound(ownersAlarm)) {
                    try await rig.client(as: ServerRig.otherUser).perform(action, id: ownersAlarm)
                }
            }
            await #expect(throws: AlarmOperationError.notFound(ownersAlarm)) {
                _ = try await rig.client(as: ServerRig.otherUser).replace(id: ownersAlarm, definition: AlarmDefinition(
                    schedule: .fixed(ServerRig.start.addingTimeInterval(60)), countdownDuration: nil,
                    presentation: .init(alert: .init(title: "Theirs"))))
            }
            #expect(await owner.awaitedAlarms().map(\.id) == [ownersAlarm])
            let othersAlarm = Alarm.ID()
            _ = try await other.schedule(id: othersAlarm, configuration: .timer(
                duration: 60, attributes: AlarmAttributes<NoAlarmMetadata>(presentation: .init(alert: .init(title: "Tea")), tintColor: .green)))
            #expect(await owner.awaitedAlarms().map(\.id) == [ownersAlarm])
            #expect(await other.awaitedAlarms().map(\.id) == [othersAlarm])
            try await owner.perform(.cancel, id: ownersAlarm)
            #expect(await owner.awaitedAlarms().isEmpty)
            #expect(await other.awaitedAlarms().map(\.id) == [othersAlarm], "the owner's cancel touched only its own")
            // What the engine holds agrees.
            #expect(await rig.runtime.alarms(for: ClientID(rawValue: 1000)).isEmpty)
            #expect(await rig.runtime.alarms(for: ClientID(rawValue: ServerRig.otherUser.uid)).map(\.id) == [othersAlarm])
        }
    }

    @Test(.enabled(if: isRoot, "connecting as another user needs root"))
    func anotherUsersIDIsIndistinguishableFromAnUnusedOneAndFreeToUse() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let alice = rig.client(as: (1000, ServerRig.otherUser.gid))
            let shared = Alarm.ID(), unused = Alarm.ID()
            let due = ServerRig.start.addingTimeInterval(3600)
            let alicesAlarm = try await alice.schedule(id: shared, definition: Sample.definition("Alice's", at: due))

            // Every action on alice's id answers nobody exactly as on an id nobody uses.
            let raw = try await rig.rawConnection(as: ServerRig.otherUser)
            let operations = AlarmCommand.allCases.map(\.rawValue)
            for (number, operation) in operations.enumerated() {
                func answer(_ id: Alarm.ID) async -> String {
                    await raw.send(Sample.request(Int64(number), operation, ["id": .string(id.uuidString)]))
                    guard case .line(let line) = await raw.next() else { return "no answer" }
                    return String(decoding: line, as: UTF8.self)
                }
                let onShared = await answer(shared), onUnused = await answer(unused)
                #expect(Self.json(onShared.replacing(shared.uuidString, with: unused.uuidString)) == Self.json(onUnused))
                #expect(Self.json(onUnused)?["error"]?["code"] == .string("notFound"), "\(onUnused)")
            }

            // Nobody schedules with alice's id: that is its own alarm; alice's is untouched.
            let nobody = rig.client(as: ServerRig.otherUser)
            let nobodysAlarm = try await nobody.schedule(id: shared, definition: Sample.definition("Nobody's", at: due))
            #expect(nobodysAlarm.id == shared)
            await #expect(throws: AlarmOperationError.duplicateID(shared)) {
                try await nobody.schedule(id: shared, definition: Sample.timer())
            }
            #expect(try await alice.alarms() == [alicesAlarm])
            #expect(try await nobody.alarms() == [nobodysAlarm])
            let aliceID = ClientID(rawValue: 1000), nobodyID = ClientID(rawValue: ServerRig.otherUser.uid)
            #expect(try await rig.client().allAlarms() == [
                OwnedAlarm(owner: aliceID, alarm: alicesAlarm), OwnedAlarm(owner: nobodyID, alarm: nobodysAlarm),
            ])

            // Both ring; nobody snoozes its own, and alice's rings on.
            rig.clock.advance(to: due)
            await rig.runtime.catchUpWithClock()
            #expect(try await alice.alarms().map(\.state) == [.alerting])
            #expect(try await nobody.alarms().map(\.state) == [.alerting])
            try await nobody.perform(.countdown, id: shared)
            #expect(try await alice.alarms().map(\.state) == [.alerting])
            #expect(try await nobody.alarms().map(\.state) == [.countdown])

            // A restart keeps both.
            let before = await rig.runtime.allAlarms()
            try await rig.restart()
            try rig.server.start()
            #expect(await rig.runtime.allAlarms() == before)
            // Alice stops hers (a one-shot: gone); nobody's snooze goes on, also after a restart.
            try await rig.client(as: (1000, ServerRig.otherUser.gid)).perform(.stop, id: shared)
            try await rig.restart()
            try rig.server.start()
            #expect(await rig.runtime.alarms(for: aliceID).isEmpty)
            #expect(await rig.runtime.alarms(for: nobodyID).map(\.state) == [.countdown])
        }
    }

    private static func json(_ line: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
    }

    @Test(.enabled(if: isRoot, "connecting as another user needs root"))
    func rootAdministersEveryone() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let owner = rig.client(as: (1000, ServerRig.otherUser.gid))
            let other = rig.client(as: ServerRig.otherUser)
            let admin = rig.client()
            let first = try await owner.schedule(id: Alarm.ID(), definition: Sample.definition("Owner"))
            let second = try await other.schedule(id: Alarm.ID(), definition: Sample.definition("Other"))
            #expect(try await admin.allAlarms() == [OwnedAlarm(owner: ClientID(rawValue: 1000), alarm: first), OwnedAlarm(owner: ClientID(rawValue: 65534), alarm: second)])
            #expect(try await admin.authorizations() == [ClientAuthorization(uid: 1000, state: .authorized), ClientAuthorization(uid: 65534, state: .authorized)])
            // Nobody else may.
            for call in [{ _ = try await other.allAlarms() }, { _ = try await other.authorizations() }, { try await other.setAuthorization(.authorized, forUID: 65534) }] as [@Sendable () async throws -> Void] {
                let error = await #expect(throws: ControlError.self) { try await call() }
                #expect(error?.code == .forbidden)
            }
            // Revoked: the client's next schedule fails with a clear error; its alarms stay.
            try await admin.setAuthorization(.denied, forUID: 65534)
            await #expect(throws: AlarmOperationError.notAuthorized(.denied)) {
                try await other.schedule(id: Alarm.ID(), definition: Sample.definition())
            }
            #expect(try await other.authorizationState() == .denied)
            #expect(try await other.requestAuthorization() == .denied, "a decision is not asked again")
            #expect(try await other.alarms() == [second])
            // Granted again.
            try await admin.setAuthorization(.authorized, forUID: 65534)
            _ = try await other.schedule(id: Alarm.ID(), definition: Sample.definition())
            // An administrator's own authorization cannot be revoked.
            let error = await #expect(throws: ControlError.self) { try await admin.setAuthorization(.denied, forUID: 0) }
            #expect(error?.code == .forbidden)
            #expect(try await admin.authorizationState() == .authorized)
        }
    }

    @Test(.enabled(if: isRoot, "connecting as another user needs root"))
    func membersOfTheAdministratorsGroupAdminister() async throws {
        let rig = try ServerRig(configure: { $0.administrators = ControlAdministrators(groupID: ServerRig.otherUser.gid) })
        try await rig.serving { () async throws in
            // The peer's effective gid is the administrators' group.
            let member = rig.client(as: (4242, ServerRig.otherUser.gid))
            #expect(try await member.hello().admin)
            #expect(try await member.allAlarms() == [])
            // Administrators are authorized without a prompt.
            #expect(try await member.authorizationState() == .authorized)
        }
    }

    @Test func groupMembershipComesFromTheAccountDatabase() {
        // Debian's nobody has nogroup (65534) as its primary group; root is in group 0.
        #expect(ControlAdministrators(groupID: nil).includes(uid: 0))
        #expect(!ControlAdministrators(groupID: nil).includes(uid: 65534, gid: 65534))
        #expect(ControlAdministrators(groupID: 65534).includes(uid: 65534))
        #expect(!ControlAdministrators(groupID: 0).includes(uid: 65534, gid: 65534))
        #expect(ControlAdministrators.groupID(named: "root") == 0)
        #expect(ControlAdministrators.groupID(named: "no-such-group-here") == nil)
    }
}
