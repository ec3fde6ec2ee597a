import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmClient
@testable import AlarmEngine
@testable import AlarmProtocol

/// `disable`, `enable` and `skip` over a real socket, as the phone page uses them through
/// ``ControlClient``.
@Suite(.timeLimit(.minutes(5))) struct ScheduleActionServerTests {
    static let me = ClientID(rawValue: geteuid())

    static func weekly() -> AlarmDefinition {
        AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday, .wednesday]))),
            countdownDuration: nil, presentation: AlarmPresentation(alert: .init(title: "Gym")))
    }

    @Test func eachChangeIsAnsweredPublishedToSubscribersAndKeptInTheRecord() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            let id = Alarm.ID()
            _ = try await client.schedule(id: id, definition: Self.weekly())
            var updates = client.alarmUpdates().makeAsyncIterator()
            #expect(await updates.nextElement()?.map(\.id) == [id])

            try await client.perform(.skip, id: id)
            #expect(await updates.nextElement()?.map(\.id) == [id])
            let skipped = try #require(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: id))?.skippedDate)

            try await client.perform(.disable, id: id)
            #expect(await updates.nextElement()?.map(\.state) == [.scheduled])
            #expect(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: id))?.enabled == false)

            // Kept across a restart of the daemon.
            try await rig.restart()
            try rig.server.start()
            let reloaded = try #require(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: id)))
            #expect(!reloaded.enabled && reloaded.skippedDate == nil && reloaded.phase == .scheduled(nil))

            try await rig.client().perform(.enable, id: id)
            let enabled = try #require(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: id)))
            #expect(enabled.enabled && enabled.phase != .scheduled(nil))
            #expect(skipped == CivilDate("2026-11-23"))
        }
    }

    @Test func setWakeIsKeptAcrossARestartAndABadValueIsInvalidConfiguration() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            let id = Alarm.ID()
            _ = try await client.schedule(id: id, definition: Self.weekly())
            let gentle = AlarmWake(crescendoSeconds: 1_800, volumeDB: -12)
            try await client.setWake(gentle, id: id)
            #expect(try await client.alarmRecords(all: false, id: id).first?.wake == gentle)

            let before = rig.storeFiles()
            let error = await #expect(throws: AlarmOperationError.self) {
                try await client.setWake(AlarmWake(crescendoSeconds: 3_600), id: id)
            }
            #expect(error == .invalidConfiguration("wake.crescendoSeconds is 3600.0; it must be from 0 to 2700 s (45 minutes)"))
            #expect(rig.storeFiles() == before)
            let elsewhere = Alarm.ID()
            await #expect(throws: AlarmOperationError.notFound(elsewhere)) { try await client.setWake(gentle, id: elsewhere) }

            try await rig.restart()
            try rig.server.start()
            #expect(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: id))?.wake == gentle)
        }
    }

    @Test func aRefusalIsInvalidTransitionWithItsReasonAndChangesNothing() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            let timer = Alarm.ID()
            _ = try await client.schedule(id: timer, definition: Sample.timer())
            let before = rig.storeFiles()
            let error = await #expect(throws: ControlError.self) { try await client.perform(.disable, id: timer) }
            #expect(error?.code == .invalidTransition)
            #expect(error?.message == "cannot disable alarm \(timer): a timer has no schedule to disable (cancel it instead)")
            #expect(rig.storeFiles() == before)
        }
    }

    /// The engine's refusals (its own ``AlarmChangeRefusal``) reach the wire as they always have:
    /// `invalidTransition`, the message, and no AlarmKit fields: the golden lines, byte for byte.
    @Test func refusalsKeepTheirLinesOnTheWire() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let timer = UUID(uuidString: "7A7A7A7A-0000-4000-8000-000000000001")!
            let ringing = UUID(uuidString: "7A7A7A7A-0000-4000-8000-000000000002")!
            _ = try await rig.client().schedule(id: timer, definition: Sample.timer())
            _ = try await rig.client().schedule(id: ringing, definition: Sample.definition(at: ServerRig.start))
            #expect(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: ringing))?.phase.isAlerting == true)
            let connection = try await rig.rawConnection()
            await connection.send(Sample.request(7, "disable", ["id": .string(timer.uuidString)]))
            #expect(await connection.nextLine() == #"""
                {"error":{"code":"invalidTransition","message":"cannot disable alarm 7A7A7A7A-0000-4000-8000-000000000001: a timer has no schedule to disable (cancel it instead)"},"id":7,"ok":false,"v":1}
                """#)
            let replace = ControlProtocol.line(RequestMessage(
                id: 8, op: "replace", params: ScheduleParameters(id: ringing, definition: Sample.definition()))) ?? []
            await connection.send(replace)
            #expect(await connection.nextLine() == #"""
                {"error":{"code":"invalidTransition","message":"cannot replace alarm 7A7A7A7A-0000-4000-8000-000000000002: it is alerting (stop or snooze it first)"},"id":8,"ok":false,"v":1}
                """#)
        }
    }

    /// What `alarmRecords` carries: `enabled` always, `skippedDate` as `YYYY-MM-DD` while skipping.
    @Test func theRecordOnTheWireHasEnabledAndSkippedDate() throws {
        var record = AlarmRecord(
            id: Alarm.ID(), owner: Self.me, definition: Self.weekly(), phase: .scheduled(.day(CivilDate("2026-11-25")!)),
            createdAt: ServerRig.start, sequenceNumber: 1)
        record.skippedDate = CivilDate("2026-11-23")
        let wire = try JSONDecoder().decode(JSONValue.self, from: ControlProtocol.makeEncoder().encode(record))
        #expect(wire["enabled"] == .bool(true))
        #expect(wire["skippedDate"] == .string("2026-11-23"))
        record.enabled = false
        record.skippedDate = nil
        let disabled = try JSONDecoder().decode(JSONValue.self, from: ControlProtocol.makeEncoder().encode(record))
        #expect(disabled["enabled"] == .bool(false))
        #expect(disabled["skippedDate"] == nil)
    }

    /// An administrator (the household's MQTT bridge) disables, enables and skips another
    /// client's alarm by naming its owner; nobody else may, and AlarmKit's actions stay each
    /// client's own.
    @Test(.enabled(if: geteuid() == 0, "connecting as another user needs root"))
    func anAdministratorActsOnAnotherClientsAlarmByNamingItsOwner() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let other = rig.client(as: ServerRig.otherUser)
            let id = Alarm.ID()
            _ = try await other.schedule(id: id, definition: Self.weekly())
            let key = AlarmKey(owner: ClientID(rawValue: ServerRig.otherUser.uid), id: id)
            let administrator = rig.client()
            try await administrator.perform(.disable, id: id, owner: ServerRig.otherUser.uid)
            #expect(await rig.runtime.record(for: key)?.enabled == false)
            try await administrator.perform(.enable, id: id, owner: ServerRig.otherUser.uid)
            try await administrator.perform(.skip, id: id, owner: ServerRig.otherUser.uid)
            #expect(await rig.runtime.record(for: key)?.skippedDate != nil)

            let stop = await #expect(throws: ControlError.self) { try await administrator.call(.command(.cancel), AlarmIDParameters(id: id, owner: ServerRig.otherUser.uid)) }
            #expect(stop?.code == .malformed)
            let mine = Alarm.ID()
            _ = try await administrator.schedule(id: mine, definition: Self.weekly())
            let refused = await #expect(throws: ControlError.self) { try await other.perform(.disable, id: mine, owner: geteuid()) }
            #expect(refused?.code == .forbidden)
            #expect(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: mine))?.enabled == true)
        }
    }
}
