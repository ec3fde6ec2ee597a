import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import FoundationEssentials
import Glibc
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
        try await runtime.press(.stop, on: Fixture.key(wake))
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

    /// A history that fails to read at start (EIO) is never rewritten from what the engine saw
    /// since: new entries wait in memory, and once it reads they follow the old ones.
    @Test func aHistoryThatCannotBeReadIsNeverOverwrittenAndIsReadOnceItCanBe() throws {
        let directory = try TemporaryDirectory()
        let id = Alarm.ID()
        func entry(_ title: String) -> HistoryEntry {
            HistoryEntry(date: sixFiftyNine, kind: .rang, alarmID: id, owner: Fixture.owner, title: title)
        }
        var healthy = AlarmHistory(directory: directory.path, capacity: 2)
        try healthy.append([entry("old")])
        let path = directory.path + "/history.jsonl"
        let before = try #require(TestFiles.read(path))

        let files = FaultyFileSystem()
        files.fail(.read, on: "history.jsonl", with: EIO)
        var history = AlarmHistory(directory: directory.path, capacity: 2, files: DurableFile(calls: files))
        #expect(history.unread?.errno == EIO)
        for title in ["a", "b", "c", "d", "e"] { try history.append([entry(title)]) }
        #expect(history.entries.map(\.title) == ["d", "e"])
        #expect(TestFiles.read(path) == before, "neither appended to nor rewritten")

        files.heal()
        try history.append([entry("f")])
        #expect(history.unread == nil)
        #expect(AlarmHistory(directory: directory.path, capacity: 10).entries.map(\.title) == ["old", "e", "f"])
    }
}
