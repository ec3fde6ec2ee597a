import FoundationEssentials

/// A store as alarmd wrote it while alarm ids were unique on the device (before they became each
/// client's own), byte for byte: its journal removes an alarm by id alone.
///
/// At 2026-06-01T06:00Z (``AlarmStoreTests/now``) the fixture owner scheduled `A0000001…`
/// (07:00 once) and `C0000003…` (06:30 Mondays and Fridays), the stranger the timer
/// `B0000002…` (10 minutes), and a snapshot was written. Then, in the journal: the owner
/// cancelled `A0000001…`, the stranger paused its timer, and the owner started the timer
/// `D0000004…` (15 minutes).
enum StoreWrittenBeforeScopedIDs {
    static let removed = UUID(uuidString: "A0000001-0000-4000-8000-000000000001")!
    static let strangersTimer = UUID(uuidString: "B0000002-0000-4000-8000-000000000002")!
    static let weekly = UUID(uuidString: "C0000003-0000-4000-8000-000000000003")!
    static let ownersTimer = UUID(uuidString: "D0000004-0000-4000-8000-000000000004")!

    /// `alarms.store` (and `alarms.store.backup`, the same bytes).
    static let snapshot = Array(#"""
alarmd-store 1 2dd3837c 2899
{"savedAt":801986400,"authorizations":[{"client":1000,"state":"authorized"},{"client":1001,"state":"authorized"}],"scheduler":{"missedAlarms":[],"alarms":[{"id":"A0000001-0000-4000-8000-000000000001","owner":1000,"definition":{"schedule":{"relative":{"_0":{"time":{"hour":7,"minute":0},"repeats":{"never":{}}}}},"presentation":{"alert":{"title":"Wake up","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"},"secondaryButton":{"text":"Snooze","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"zzz"},"secondaryButtonBehavior":"countdown"},"countdown":{"title":"Wake up","pauseButton":{"text":"Pause","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"pause.fill"}},"paused":{"title":"Wake up","resumeButton":{"text":"Resume","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"play.fill"}}},"tintColor":{"red":1,"green":1,"blue":1},"sound":{"default":{}}},"phase":{"scheduled":{"_0":{"day":{"_0":"2026-06-02"}}}},"createdAt":801986400,"sequenceNumber":1,"datesFromUntrustedClock":false},{"id":"B0000002-0000-4000-8000-000000000002","owner":1001,"definition":{"countdownDuration":{"preAlert":600,"postAlert":600},"presentation":{"alert":{"title":"Tea","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"},"secondaryButton":{"text":"Snooze","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"zzz"},"secondaryButtonBehavior":"countdown"},"countdown":{"title":"Tea","pauseButton":{"text":"Pause","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"pause.fill"}},"paused":{"title":"Tea","resumeButton":{"text":"Resume","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"play.fill"}}},"tintColor":{"red":1,"green":1,"blue":1},"sound":{"default":{}}},"phase":{"countdown":{"_0":{"kind":"timer","startDate":801986400,"previouslyElapsed":0,"total":600}}},"createdAt":801986400,"sequenceNumber":2,"datesFromUntrustedClock":false},{"id":"C0000003-0000-4000-8000-000000000003","owner":1000,"definition":{"schedule":{"relative":{"_0":{"time":{"hour":6,"minute":30},"repeats":{"weekly":{"_0":["mon","fri"]}}}}},"presentation":{"alert":{"title":"Wake up","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"},"secondaryButton":{"text":"Snooze","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"zzz"},"secondaryButtonBehavior":"countdown"},"countdown":{"title":"Wake up","pauseButton":{"text":"Pause","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"pause.fill"}},"paused":{"title":"Wake up","resumeButton":{"text":"Resume","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"play.fill"}}},"tintColor":{"red":1,"green":1,"blue":1},"sound":{"default":{}}},"phase":{"scheduled":{"_0":{"day":{"_0":"2026-06-05"}}}},"createdAt":801986400,"sequenceNumber":3,"datesFromUntrustedClock":false}]}}
"""#.utf8)

    /// `alarms.journal`.
    static let journal = Array((#"""
alarmd-journal 1
db78b58e 86
{"savedAt":801986400,"upserted":[],"removed":["A0000001-0000-4000-8000-000000000001"]}
6658bb92 930
{"savedAt":801986400,"upserted":[{"id":"B0000002-0000-4000-8000-000000000002","owner":1001,"definition":{"countdownDuration":{"preAlert":600,"postAlert":600},"presentation":{"alert":{"title":"Tea","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"},"secondaryButton":{"text":"Snooze","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"zzz"},"secondaryButtonBehavior":"countdown"},"countdown":{"title":"Tea","pauseButton":{"text":"Pause","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"pause.fill"}},"paused":{"title":"Tea","resumeButton":{"text":"Resume","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"play.fill"}}},"tintColor":{"red":1,"green":1,"blue":1},"sound":{"default":{}}},"phase":{"paused":{"_0":{"kind":"timer","previouslyElapsed":0,"total":600}}},"createdAt":801986400,"sequenceNumber":2,"datesFromUntrustedClock":false}],"removed":[]}
77b0a7d6 955
{"savedAt":801986400,"upserted":[{"id":"D0000004-0000-4000-8000-000000000004","owner":1000,"definition":{"countdownDuration":{"preAlert":900,"postAlert":900},"presentation":{"alert":{"title":"Tea","stopButton":{"text":"Stop","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"stop.circle"},"secondaryButton":{"text":"Snooze","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"zzz"},"secondaryButtonBehavior":"countdown"},"countdown":{"title":"Tea","pauseButton":{"text":"Pause","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"pause.fill"}},"paused":{"title":"Tea","resumeButton":{"text":"Resume","textColor":{"red":1,"green":1,"blue":1},"systemImageName":"play.fill"}}},"tintColor":{"red":1,"green":1,"blue":1},"sound":{"default":{}}},"phase":{"countdown":{"_0":{"kind":"timer","startDate":801986400,"previouslyElapsed":0,"total":900}}},"createdAt":801986400,"sequenceNumber":4,"datesFromUntrustedClock":false}],"removed":[]}
"""# + "\n").utf8)
}
