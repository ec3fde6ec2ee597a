import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmClient
@testable import AlarmEngine
@testable import AlarmProtocol

/// `replace` over a real socket, as the phone page edits an alarm through ``ControlClient``.
@Suite(.timeLimit(.minutes(5))) struct ReplaceServerTests {
    static let me = ClientID(rawValue: geteuid())

    static func alarm(_ hour: Int, _ minute: Int, title: String) -> AlarmDefinition {
        AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: hour, minute: minute), repeats: .weekly([.monday, .wednesday]))),
            countdownDuration: nil, presentation: AlarmPresentation(alert: .init(title: title)))
    }

    @Test func anEditKeepsTheIdIsPublishedAndSurvivesARestart() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            let id = Alarm.ID()
            _ = try await client.schedule(id: id, definition: Self.alarm(7, 0, title: "Gym"))
            var updates = client.alarmUpdates().makeAsyncIterator()
            #expect(await updates.nextElement()?.map(\.id) == [id])

            let replaced = try await client.replace(id: id, definition: Self.alarm(6, 30, title: "Run"))
            #expect(replaced.id == id)
            let published = try #require(await updates.nextElement())
            #expect(published.map(\.id) == [id])
            #expect(published.first?.schedule == Self.alarm(6, 30, title: "Run").schedule)

            try await rig.restart()
            try rig.server.start()
            let reloaded = try #require(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: id)))
            #expect(reloaded.definition.presentation.alert.title == "Run")
            #expect(await rig.runtime.allRecords().count == 1)
        }
    }

    @Test func anotherClientsIdOrARingingAlarmIsRefusedAndChangesNothing() async throws {
        let rig = try ServerRig()
        try await rig.serving {
            let client = rig.client()
            let ringing = Alarm.ID()
            _ = try await client.schedule(id: ringing, definition: AlarmDefinition(
                schedule: .fixed(ServerRig.start), countdownDuration: nil, presentation: AlarmPresentation(alert: .init(title: "Now"))))
            #expect(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: ringing))?.phase.isAlerting == true)
            let before = rig.storeFiles()
            let unknown = Alarm.ID()
            await #expect(throws: AlarmOperationError.notFound(unknown)) {
                _ = try await client.replace(id: unknown, definition: Self.alarm(6, 30, title: "Run"))
            }
            let refused = await #expect(throws: ControlError.self) {
                _ = try await client.replace(id: ringing, definition: Self.alarm(6, 30, title: "Run"))
            }
            #expect(refused?.code == .invalidTransition)
            #expect(await rig.runtime.record(for: AlarmKey(owner: Self.me, id: ringing))?.definition.presentation.alert.title == "Now")
            #expect(rig.storeFiles() == before)
        }
    }
}
