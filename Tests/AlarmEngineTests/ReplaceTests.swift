import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Testing

@testable import AlarmEngine

/// `replace`: an alarm edited in place, under the same id, in one durable step.
///
/// Sunday 2026-11-22 20:00 in Berlin unless a test says otherwise; Monday is 2026-11-23.
@Suite struct ReplaceTests {
    let sunday = Fixture.at("2026-11-22T20:00:00+01:00")

    @Test func aReplacedAlarmKeepsItsIdAndPlaceAndStartsAfreshWithTheNewDefinition() throws {
        var scheduler = Fixture.scheduler()
        let first = try scheduler.add(Fixture.alarm(6, 0), now: sunday)
        let id = try scheduler.add(Fixture.alarm(7, 0, weekly: Fixture.everyDay), now: sunday)
        _ = try scheduler.perform(.skip, id: id, owner: Fixture.owner, now: sunday)
        _ = try scheduler.perform(.disable, id: id, owner: Fixture.owner, now: sunday)
        let before = try #require(scheduler.record(for: Fixture.key(id)))

        let (alarm, outcome) = try scheduler.replace(
            id: id, owner: Fixture.owner, definition: Fixture.alarm(8, 15, weekly: [.tuesday]), now: sunday)
        #expect(alarm.id == id && alarm.state == .scheduled)
        #expect(outcome.events == [.scheduled(Fixture.key(id))])
        #expect(outcome.changedOwners == [Fixture.owner])
        let record = try #require(scheduler.record(for: Fixture.key(id)))
        #expect(record.definition == Fixture.alarm(8, 15, weekly: [.tuesday]))
        #expect(record.sequenceNumber == before.sequenceNumber && record.createdAt == before.createdAt)
        #expect(record.enabled && record.skippedDate == nil, "a fresh schedule: on, skipping nothing")
        #expect(record.phase == .scheduled(.day(CivilDate("2026-11-24")!)))
        #expect(scheduler.alarms(of: Fixture.owner).map(\.id) == [first, id], "its place in the list")
    }

    @Test func aReplacedAlarmsIntentsStillGoToTheAppThatScheduledIt() throws {
        var scheduler = Fixture.scheduler()
        let id = Alarm.ID()
        _ = try scheduler.schedule(id: id, owner: Fixture.owner, definition: Fixture.alarm(7, 0), now: sunday, app: "wake-app")
        _ = try scheduler.replace(id: id, owner: Fixture.owner, definition: Fixture.alarm(7, 30), now: sunday)
        #expect(scheduler.record(for: Fixture.key(id))?.app == "wake-app")
    }

    @Test func aSnoozeEndsWithTheOldDefinitionAndARingingAlarmIsNotReplaced() throws {
        var scheduler = Fixture.scheduler()
        let seven = Fixture.at("2026-11-23T07:00:00+01:00")
        let id = try scheduler.add(Fixture.alarm(7, 0, postAlert: 540), now: sunday)
        #expect(scheduler.evaluate(now: seven).alertStarts == [id])

        let ringing = scheduler.snapshot
        let error = #expect(throws: AlarmChangeRefusal.self) {
            try scheduler.replace(id: id, owner: Fixture.owner, definition: Fixture.alarm(7, 30), now: seven)
        }
        #expect(error?.reason == "it is alerting (stop or snooze it first)")
        #expect(scheduler.snapshot == ringing, "a ringing alarm is never silenced by an edit")

        _ = try scheduler.act(.countdown, id, now: seven)
        _ = try scheduler.replace(id: id, owner: Fixture.owner, definition: Fixture.alarm(7, 30), now: seven.addingTimeInterval(60))
        #expect(scheduler.record(for: Fixture.key(id))?.phase == .scheduled(.day(CivilDate("2026-11-23")!)))
        #expect(scheduler.nextDeadline == Fixture.at("2026-11-23T07:30:00+01:00"), "the snooze's end is gone")
    }

    @Test func aRefusedReplaceChangesNothing() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let before = scheduler.snapshot
        #expect(throws: AlarmOperationError.notFound(id)) {
            try scheduler.replace(id: id, owner: Fixture.stranger, definition: Fixture.alarm(7, 30), now: sunday)
        }
        let unused = Alarm.ID()
        #expect(throws: AlarmOperationError.notFound(unused)) {
            try scheduler.replace(id: unused, owner: Fixture.owner, definition: Fixture.alarm(7, 30), now: sunday)
        }
        let past = Fixture.fixed(sunday.addingTimeInterval(-86_400))
        #expect(throws: AlarmOperationError.self) {
            try scheduler.replace(id: id, owner: Fixture.owner, definition: past, now: sunday)
        }
        #expect(scheduler.snapshot == before)
    }

    @Test func aReplaceIsOneJournalEntryAndAStoreThatCannotBeWrittenKeepsTheOldAlarm() async throws {
        let scratch = try TemporaryDirectory()
        let runtime = try AlarmStoreTests.runtime(in: scratch.path)
        let id = Alarm.ID()
        _ = try await runtime.schedule(id: id, definition: Fixture.alarm(7, 0), client: Fixture.owner)
        let journal = scratch.path + "/alarms.journal"
        let linesBefore = TestFiles.read(journal)?.count(where: { $0 == UInt8(ascii: "\n") }) ?? 0

        _ = try await runtime.replace(id: id, definition: Fixture.alarm(7, 30), client: Fixture.owner)
        let linesAfter = TestFiles.read(journal)?.count(where: { $0 == UInt8(ascii: "\n") }) ?? 0
        // An entry is two lines (its checksum and length, then its JSON).
        #expect(linesAfter == linesBefore + 2, "one entry: after a crash the store holds the old alarm or the new one")
        #expect(try await AlarmStoreTests.runtime(in: scratch.path).record(for: Fixture.key(id))?.definition == Fixture.alarm(7, 30))

        // A directory in place of the journal (and of a snapshot's temporary file) fails every save.
        #expect(rename(journal, journal + ".moved") == 0)
        mkdir(journal, 0o700)
        mkdir(scratch.path + "/alarms.store.tmp", 0o700)
        await AlarmStoreTests.expectStorageFailure {
            _ = try await runtime.replace(id: id, definition: Fixture.alarm(9, 0), client: Fixture.owner)
        }
        let kept = await runtime.record(for: Fixture.key(id))
        #expect(kept?.definition == Fixture.alarm(7, 30), "the old alarm stays in effect")
        #expect(kept?.phase == .scheduled(.day(CivilDate("2026-06-02")!)), "08:00 in Berlin: 07:30 rings tomorrow")
    }

    @Test func aClientWhoseAuthorizationWasRevokedCannotReplace() async throws {
        let scratch = try TemporaryDirectory()
        let runtime = try AlarmStoreTests.runtime(in: scratch.path)
        let id = Alarm.ID()
        _ = try await runtime.schedule(id: id, definition: Fixture.alarm(7, 0), client: Fixture.owner)
        try await runtime.setAuthorization(.denied, for: Fixture.owner)
        await #expect(throws: AlarmOperationError.notAuthorized(.denied)) {
            _ = try await runtime.replace(id: id, definition: Fixture.alarm(7, 30), client: Fixture.owner)
        }
        #expect(await runtime.record(for: Fixture.key(id))?.definition == Fixture.alarm(7, 0))
    }
}
