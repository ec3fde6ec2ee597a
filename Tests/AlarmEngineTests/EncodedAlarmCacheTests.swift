import AlarmKit
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// The store body assembled from cached records must be the state it stands for.
@Suite struct EncodedAlarmCacheTests {
    let now = Fixture.at("2026-11-22T20:00:00+01:00")

    @Test func theAssembledBodyDecodesToTheSchedulersStateAfterEveryKindOfChange() throws {
        var scheduler = Fixture.scheduler()
        let weekly = try scheduler.add(Fixture.alarm(7, 30, weekly: [.monday, .friday], postAlert: 540), now: now)
        let timer = try scheduler.add(Fixture.timer(600), now: now)
        let fixed = try scheduler.add(Fixture.fixed(now), now: now)
        var cache = EncodedAlarmCache()
        try expectCacheMatches(&cache, scheduler: &scheduler)

        _ = try scheduler.act(.pause, timer, now: now.addingTimeInterval(30))
        _ = try scheduler.act(.cancel, fixed, now: now.addingTimeInterval(30))
        try expectCacheMatches(&cache, scheduler: &scheduler)

        _ = scheduler.evaluate(now: Fixture.at("2026-11-23T07:30:00+01:00"))
        _ = try scheduler.act(.countdown, weekly, now: Fixture.at("2026-11-23T07:31:00+01:00"))
        try expectCacheMatches(&cache, scheduler: &scheduler)
        #expect(scheduler.changedIDs.isEmpty)
    }

    private func expectCacheMatches(_ cache: inout EncodedAlarmCache, scheduler: inout AlarmScheduler) throws {
        try cache.update(scheduler.changedIDs, from: scheduler)
        scheduler.clearChangedIDs()
        let authorizations = [AuthorizationRecord(client: Fixture.owner, state: .authorized)]
        let body = try cache.body(missedAlarms: scheduler.missedAlarms, authorizations: authorizations, savedAt: now)
        let decoded = try AlarmStore.decode(AlarmStore.frame(body))
        let restored = AlarmScheduler(
            policy: .default, timeZone: Fixture.berlin, clockTrusted: true, snapshot: decoded.scheduler)
        #expect(restored.snapshot == scheduler.snapshot)
        #expect(decoded.scheduler.alarms == scheduler.snapshot.alarms, "the file lists alarms in creation order")
        #expect(decoded.authorizations == authorizations)
        #expect(decoded.savedAt == now)
    }
}
