import AlarmKitCore
import AlarmModel
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// `setWake`: how one alarm wakes (its fade-in, its loudest volume), beside the household's.
@Suite struct AlarmWakeTests {
    let sunday = Fixture.at("2026-11-22T20:00:00+01:00")

    @Test func aWakeIsKeptWithTheAlarmAndAnEmptyOneIsTheHouseholds() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let gentle = AlarmWake(crescendoSeconds: 1_800, volumeDB: -12)

        let outcome = try scheduler.setWake(gentle, id: id, owner: Fixture.owner)
        #expect(outcome.events == [.wakeChanged(Fixture.key(id))] && outcome.changedOwners == [Fixture.owner])
        #expect(scheduler.record(for: Fixture.key(id))?.wake == gentle)
        #expect(try !scheduler.setWake(gentle, id: id, owner: Fixture.owner).hasChanges, "the same again writes nothing")

        _ = try scheduler.setWake(AlarmWake(), id: id, owner: Fixture.owner)
        #expect(scheduler.record(for: Fixture.key(id))?.wake == nil, "nothing of its own: the household's")
    }

    @Test func aReplaceKeepsHowTheAlarmWakes() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        _ = try scheduler.setWake(AlarmWake(crescendoSeconds: 600), id: id, owner: Fixture.owner)
        _ = try scheduler.replace(id: id, owner: Fixture.owner, definition: Fixture.alarm(7, 30), now: sunday)
        #expect(scheduler.record(for: Fixture.key(id))?.wake == AlarmWake(crescendoSeconds: 600))
    }

    @Test(arguments: [
        (AlarmWake(crescendoSeconds: 2_701), "wake.crescendoSeconds is 2701.0; it must be from 0 to 2700 s (45 minutes)"),
        (AlarmWake(crescendoSeconds: -1), "wake.crescendoSeconds is -1.0; it must be from 0 to 2700 s (45 minutes)"),
        (AlarmWake(crescendoSeconds: .nan), "wake.crescendoSeconds is nan; it must be from 0 to 2700 s (45 minutes)"),
        (AlarmWake(volumeDB: 3), "wake.volumeDB is 3.0; it must be from -60 to 0 dB"),
        (AlarmWake(volumeDB: -61), "wake.volumeDB is -61.0; it must be from -60 to 0 dB"),
    ])
    func aValueOutOfRangeIsRefusedWithItsFieldAndChangesNothing(wake: AlarmWake, message: String) throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        _ = try scheduler.setWake(AlarmWake(volumeDB: -20), id: id, owner: Fixture.owner)
        let before = scheduler.snapshot
        #expect(throws: AlarmOperationError.invalidConfiguration(message)) {
            try scheduler.setWake(wake, id: id, owner: Fixture.owner)
        }
        #expect(scheduler.snapshot == before)
    }

    @Test func anotherClientsAlarmIsNotFound() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        #expect(throws: AlarmOperationError.notFound(id)) {
            try scheduler.setWake(AlarmWake(volumeDB: -20), id: id, owner: Fixture.stranger)
        }
        #expect(scheduler.record(for: Fixture.key(id))?.wake == nil)
    }

    @Test func aRecordWrittenWithoutAWakeReadsAsTheHouseholds() throws {
        var scheduler = Fixture.scheduler()
        let id = try scheduler.add(Fixture.alarm(7, 0), now: sunday)
        let record = try #require(scheduler.record(for: Fixture.key(id)))
        let encoded = try JSONEncoder().encode(record)
        #expect(!String(decoding: encoded, as: UTF8.self).contains("wake"))
        #expect(try JSONDecoder().decode(AlarmRecord.self, from: encoded).wake == nil)
    }

    @Test(arguments: [(0, -60.0), (24, -30.0), (50, -15.6), (77, -6.0), (100, 0.0)])
    func aPercentageIsTheDecibelsAlsamixerShows(percent: Int, decibels: Double) {
        #expect(VolumePercent.decibels(percent: Double(percent)) == decibels)
        #expect(VolumePercent.percent(decibels: decibels) == percent)
    }

    /// On a card whose alarm volume is set on a -40 to 0 dB control, the page's percentages are
    /// the ones alsamixer shows for that card: 0 % its floor, 50 % -13 dB.
    @Test(arguments: [(0, -40.0), (50, -13.0), (77, -5.2), (100, 0.0)])
    func onACardsOwnRangeAPercentageIsWhatAlsamixerShowsForIt(percent: Int, decibels: Double) {
        let scale = VolumePercent.scale(forCard: -40...0)
        #expect(scale == -40...0)
        #expect(VolumePercent.decibels(percent: Double(percent), scale: scale) == decibels)
        #expect(VolumePercent.percent(decibels: decibels, scale: scale) == percent)
    }

    @Test func aCardsRangeIsTakenWithinTheVolumesAlarmdPlays() {
        #expect(VolumePercent.scale(forCard: nil) == -60...0)
        #expect(VolumePercent.scale(forCard: -102.39...4) == -60...0, "the Pi's headphone PCM control")
        #expect(VolumePercent.scale(forCard: -30...6) == -30...0)
        #expect(VolumePercent.scale(forCard: 0...12) == -60...0, "a control that only boosts: the default scale")
        #expect(VolumePercent.decibels(percent: 100, scale: -30...0) == 0 && VolumePercent.percent(decibels: -45, scale: -30...0) == 0)
    }
}
