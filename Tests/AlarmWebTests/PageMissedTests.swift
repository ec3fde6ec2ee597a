import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Testing

@testable import AlarmWeb

/// The page's "Missed" list: the last day's alarms that could not ring or rang unanswered,
/// newest first, each with why when the clock knows.
struct PageMissedTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    func entry(_ kind: HistoryEntry.Kind, _ title: String, hoursAgo: Double, lateBy: TimeInterval? = nil, reason: HistoryEntry.Reason? = nil) -> HistoryEntry {
        HistoryEntry(
            date: now.addingTimeInterval(-hoursAgo * 3600), kind: kind, alarmID: Alarm.ID(), owner: ClientID(rawValue: 1000),
            title: title, lateBy: lateBy, reason: reason)
    }

    @Test func missedAlarmsSayWhyNewestFirst() {
        let history = [
            entry(.missed, "Yesterday", hoursAgo: 30, reason: .clockSet),
            entry(.missed, "Off", hoursAgo: 5, reason: .notRunning),
            entry(.rang, "Late", hoursAgo: 4, lateBy: 600, reason: .clockSet),
            entry(.autoSilenced, "Unanswered", hoursAgo: 3),
            entry(.missed, "Clock set", hoursAgo: 2, reason: .clockSet),
            entry(.missed, "Unknown", hoursAgo: 1),
        ]
        let page = PageState(records: [], status: nil, history: history, ownUID: 1000, zone: .utc, now: now)
        #expect(page.missed.map(\.label) == ["Unknown", "Clock set", "Unanswered", "Off"])
        #expect(page.missed.map(\.why) == [
            nil, "the clock was set past its time", "rang unanswered", "the clock was off or restarting",
        ])
    }
}

/// What the page hears when alarmd says no: a refusal of the device's state is a conflict, a
/// bad value the phone's error, never "unavailable" (which the page reads as a clock out of reach).
struct DeviceRefusalStatusTests {
    @Test func refusalsAreConflictsAndBadValuesBadRequests() {
        #expect(WebApp.status(of: ControlError(.refused, "NTP wins")) == 409)
        #expect(WebApp.status(of: ControlError(.invalidTransition, "not alerting")) == 409)
        #expect(WebApp.status(of: ControlError(.invalidConfiguration, "years ahead")) == 400)
        #expect(WebApp.status(of: ControlError(.serviceUnavailable, "cannot set the clock")) == 503)
    }
}
