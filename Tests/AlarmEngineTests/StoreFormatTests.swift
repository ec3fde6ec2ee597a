import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Logging
import Testing

@testable import AlarmEngine

/// Store files in the format alarmd writes (snapshot and journal, version 1), byte for byte, with
/// every kind of value a record holds: a newer build must load them as they were meant.
///
/// The owner (uid 1000) has the weekly `E0000005…` (06:30 Mondays and Fridays, next on Friday
/// 2026-06-05, rang on 2026-06-01) and a missed `A0000001…`; the stranger (1001) a paused timer
/// `F0000006…` with every optional field set. In the journal, the owner started the timer
/// `D0000004…` (15 minutes), then the stranger's timer was cancelled and the stranger denied.
@Suite struct StoreFormatTests {
    static let snapshot = Array(#"""
alarmd-store 1 ee4e1d4e 1942
{"savedAt":801986400,"authorizations":[{"client":1000,"state":"authorized"},{"client":1001,"state":"authorized"}],"scheduler":{"missedAlarms":[{"alarmID":"A0000001-0000-4000-8000-000000000001","owner":1000,"title":"Early","dueDate":801979200,"reason":"tooLate","occurrences":2,"recordedAt":801986400}],"alarms":[{"id":"E0000005-0000-4000-8000-000000000005","owner":1000,"definition":{"schedule":{"relative":{"_0":{"time":{"hour":6,"minute":30},"repeats":{"weekly":{"_0":["mon","fri"]}}}}},"countdownDuration":{"postAlert":540},"presentation":{"alert":{"title":"Gym","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"},"secondaryButton":{"text":"Snooze","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"repeat"},"secondaryButtonBehavior":"countdown"}},"tintColor":{"red":1,"green":1,"blue":1},"sound":{"default":{}}},"phase":{"scheduled":{"_0":{"day":{"_0":"2026-06-05"}}}},"createdAt":801900000.25,"sequenceNumber":1,"lastOccurrenceDay":"2026-06-01","datesFromUntrustedClock":false},{"id":"F0000006-0000-4000-8000-000000000006","owner":1001,"definition":{"countdownDuration":{"preAlert":600,"postAlert":300},"presentation":{"alert":{"title":"Tea \"green\"","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"}},"countdown":{"title":"Steeping","pauseButton":{"text":"Pause","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"pause.circle"}},"paused":{"title":"Paused","resumeButton":{"text":"Resume","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"play.circle"}}},"tintColor":{"red":0.1,"green":0.2,"blue":0.3},"metadata":"eyJjdXBzIjoyfQ==","stopIntent":{"name":"open","parameters":{"url":"https://example.org/tea"}},"sound":{"named":{"_0":"birds.wav"}}},"phase":{"paused":{"_0":{"kind":"timer","previouslyElapsed":120.5,"total":600}}},"createdAt":801985800,"sequenceNumber":2,"datesFromUntrustedClock":false}]}}
"""#.utf8)

    static let journal = Array((#"""
alarmd-journal 1
3f956865 557
{"savedAt":801986400,"upserted":[{"id":"D0000004-0000-4000-8000-000000000004","owner":1000,"definition":{"countdownDuration":{"preAlert":900,"postAlert":900},"presentation":{"alert":{"title":"Eggs","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"}}},"tintColor":{"red":1,"green":1,"blue":1},"sound":{"default":{}}},"phase":{"countdown":{"_0":{"kind":"timer","startDate":801986400,"previouslyElapsed":0,"total":900}}},"createdAt":801986400,"sequenceNumber":3,"datesFromUntrustedClock":false}],"removed":[]}
d8433dd3 213
{"savedAt":801986460,"upserted":[],"removed":[{"owner":1001,"id":"F0000006-0000-4000-8000-000000000006"}],"missedAlarms":[],"authorizations":[{"client":1000,"state":"authorized"},{"client":1001,"state":"denied"}]}
"""# + "\n").utf8)

    static func button(_ text: String, _ image: String) -> AlarmButton {
        AlarmButton(text: text, textColor: .white, systemImageName: image)
    }

    static let now = Date(timeIntervalSinceReferenceDate: 801_986_400)

    static let expected = StoredState(
        scheduler: SchedulerSnapshot(
            alarms: [
                {
                    var record = AlarmRecord(
                        id: UUID(uuidString: "E0000005-0000-4000-8000-000000000005")!, owner: ClientID(rawValue: 1000),
                        definition: AlarmDefinition(
                            schedule: .relative(.init(time: .init(hour: 6, minute: 30), repeats: .weekly([.monday, .friday]))),
                            countdownDuration: .init(preAlert: nil, postAlert: 540),
                            presentation: AlarmPresentation(alert: .init(
                                title: "Gym", stopButton: button("Stop", "stop.circle"), secondaryButton: button("Snooze", "repeat"),
                                secondaryButtonBehavior: .countdown))),
                        phase: .scheduled(.day(CivilDate(year: 2026, month: 6, day: 5)!)),
                        createdAt: Date(timeIntervalSinceReferenceDate: 801_900_000.25), sequenceNumber: 1)
                    record.lastOccurrenceDay = CivilDate(year: 2026, month: 6, day: 1)
                    return record
                }(),
                AlarmRecord(
                    id: UUID(uuidString: "D0000004-0000-4000-8000-000000000004")!, owner: ClientID(rawValue: 1000),
                    definition: AlarmDefinition(
                        schedule: nil, countdownDuration: .init(preAlert: 900, postAlert: 900),
                        presentation: AlarmPresentation(alert: .init(title: "Eggs", stopButton: button("Stop", "stop.circle")))),
                    phase: .countdown(CountdownPhase(kind: .timer, startDate: now, previouslyElapsed: 0, total: 900, occurrence: nil)),
                    createdAt: now, sequenceNumber: 3),
            ],
            missedAlarms: []),
        authorizations: [
            AuthorizationRecord(client: ClientID(rawValue: 1000), state: .authorized),
            AuthorizationRecord(client: ClientID(rawValue: 1001), state: .denied),
        ],
        savedAt: now.addingTimeInterval(60))

    /// The stranger's paused timer, as the snapshot holds it before the journal removes it.
    static let pausedTimer = AlarmRecord(
        id: UUID(uuidString: "F0000006-0000-4000-8000-000000000006")!, owner: ClientID(rawValue: 1001),
        definition: AlarmDefinition(
            schedule: nil, countdownDuration: .init(preAlert: 600, postAlert: 300),
            presentation: AlarmPresentation(
                alert: .init(title: "Tea \"green\"", stopButton: button("Stop", "stop.circle")),
                countdown: .init(title: "Steeping", pauseButton: button("Pause", "pause.circle")),
                paused: .init(title: "Paused", resumeButton: button("Resume", "play.circle"))),
            tintColor: Color(red: 0.1, green: 0.2, blue: 0.3),
            metadata: Data(#"{"cups":2}"#.utf8),
            stopIntent: AlarmIntent("open", parameters: ["url": "https://example.org/tea"]),
            sound: .named("birds.wav")),
        phase: .paused(PausedPhase(kind: .timer, previouslyElapsed: 120.5, total: 600, occurrence: nil)),
        createdAt: Date(timeIntervalSinceReferenceDate: 801_985_800), sequenceNumber: 2)

    @Test func theSnapshotLoadsWithEveryValue() throws {
        let state = try AlarmStore.decode(Self.snapshot)
        #expect(state.scheduler.alarms == [Self.expected.scheduler.alarms[0], Self.pausedTimer])
        // Written before disable and skip existed: every alarm is enabled and skips nothing.
        #expect(state.scheduler.alarms.allSatisfy { $0.enabled && $0.skippedDate == nil })
        #expect(state.scheduler.missedAlarms == [
            MissedAlarm(
                alarmID: UUID(uuidString: "A0000001-0000-4000-8000-000000000001")!, owner: ClientID(rawValue: 1000), title: "Early",
                dueDate: Date(timeIntervalSinceReferenceDate: 801_979_200), reason: .tooLate, occurrences: 2, recordedAt: Self.now),
        ])
    }

    @Test func theSnapshotAndTheJournalLoadAsTheStateTheyHold() throws {
        let scratch = try TemporaryDirectory()
        try TestFiles.write(Self.snapshot, to: scratch.path + "/alarms.store")
        try TestFiles.write(Self.snapshot, to: scratch.path + "/alarms.store.backup")
        try TestFiles.write(Self.journal, to: scratch.path + "/alarms.journal")
        let loaded = AlarmStore(directory: scratch.path, logger: StoreJournalTests.silent).load()
        #expect(loaded.problems.isEmpty)
        #expect(loaded.journalEntries == 2 && !loaded.journalHasRemovalsWithoutOwner)
        #expect(loaded.state == Self.expected)
    }

    /// What this build writes of that state, it reads back the same.
    @Test func theStateWrittenAgainReadsBackTheSame() throws {
        #expect(try AlarmStore.decode(AlarmStore.encode(Self.expected)) == Self.expected)
    }
}
