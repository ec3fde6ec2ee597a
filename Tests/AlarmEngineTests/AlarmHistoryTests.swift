import AlarmKitCore
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// The history `alarmctl history` shows: rang, snoozed, stopped, auto-silenced, missed; per
/// client, and kept across a restart.
@Suite struct AlarmHistoryTests {
    let sixFiftyNine = Fixture.at("2026-11-23T06:59:00+01:00")

    @Test func aMorningIsRecordedInOrderAndSurvivesARestart() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        let runtime = rig.runtime
        let wake = Alarm.ID(), later = Alarm.ID()
        _ = try await runtime.schedule(id: wake, definition: Fixture.alarm(7, 0, postAlert: 540), client: Fixture.owner)
        _ = try await runtime.schedule(id: later, definition: Fixture.alarm(7, 5), client: Fixture.stranger)

        rig.clock.advance(to: Fixture.at("2026-11-23T07:00:00+01:00"))
        await runtime.catchUpWithClock()
        try await runtime.perform(.countdown, id: wake, client: Fixture.owner)
        rig.clock.advance(to: Fixture.at("2026-11-23T07:09:00+01:00"))
        await runtime.catchUpWithClock()
        try await runtime.performOnDevice(.stop, alarm: Fixture.key(wake))
        // The stranger's alarm rang at 07:05 and nobody answers it.
        rig.clock.advance(to: Fixture.at("2026-11-23T07:30:00+01:00"))
        await runtime.catchUpWithClock()

        let mine = await runtime.history(for: Fixture.owner)
        #expect(mine.map(\.kind) == [.rang, .snoozed, .rang, .stopped])
        #expect(mine.allSatisfy { $0.alarmID == wake && $0.title == "Wake up" })
        #expect(mine.last?.date == Fixture.at("2026-11-23T07:09:00+01:00"))
        let theirs = await runtime.history(for: Fixture.stranger)
        #expect(theirs.map(\.kind) == [.rang, .autoSilenced])
        #expect(await runtime.history(for: nil).count == 6)

        let restarted = try rig.restarted()
        #expect(await restarted.history(for: nil) == runtime.history(for: nil))
    }

    @Test func aMissedAlarmIsRecordedAtItsDueTime() async throws {
        let rig = try EngineRig(now: sixFiftyNine)
        _ = try await rig.runtime.schedule(id: Alarm.ID(), definition: Fixture.alarm(7, 0), client: Fixture.owner)
        rig.clock.setWallClock(to: Fixture.at("2026-11-23T09:00:00+01:00"))
        await rig.runtime.catchUpWithClock()
        let history = await rig.runtime.history(for: Fixture.owner)
        #expect(history.map(\.kind) == [.missed])
        #expect(history.first?.date == Fixture.at("2026-11-23T07:00:00+01:00"))
    }

    @Test func theFileKeepsTheNewestEntriesAndSkipsADamagedLine() throws {
        let directory = try TemporaryDirectory()
        var history = AlarmHistory(directory: directory.path, capacity: 3)
        let id = Alarm.ID()
        for minute in 0..<8 {
            try history.append([HistoryEntry(
                date: Date(timeIntervalSince1970: Double(minute) * 60), kind: .rang, alarmID: id, owner: Fixture.owner, title: "\(minute)")])
        }
        #expect(history.entries.map(\.title) == ["5", "6", "7"])
        var bytes = TestFiles.read(directory.path + "/history.jsonl") ?? []
        bytes += Array("{not json\n".utf8)
        try TestFiles.write(bytes, to: directory.path + "/history.jsonl")
        let reloaded = AlarmHistory(directory: directory.path, capacity: 3)
        #expect(reloaded.entries.map(\.title) == ["5", "6", "7"])
    }
}
