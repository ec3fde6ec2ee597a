import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Testing

@testable import AlarmEngine

/// Shared values for the engine tests.
enum Fixture {
    static let database = TimeZoneDatabase()
    static let owner = ClientID(rawValue: 1000)
    static let stranger = ClientID(rawValue: 1001)

    /// The fixture owner's alarm `id`, as the engine keys it.
    static func key(_ id: Alarm.ID) -> AlarmKey { AlarmKey(owner: owner, id: id) }

    static func zone(_ name: String) -> TimeZoneRules {
        do {
            return try database.rules(named: name)
        } catch {
            fatalError("tzdata must provide \(name): \(error)")
        }
    }

    static let berlin = zone("Europe/Berlin")

    /// An instant from ISO 8601 text; a typo in a test is a programmer error.
    static func at(_ text: String) -> Date {
        guard let date = ISO8601.parse(text) else { fatalError("bad instant in test: \(text)") }
        return date
    }

    static func presentation(_ title: String = "Wake up") -> AlarmPresentation {
        AlarmPresentation(
            alert: .init(title: title, stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown),
            countdown: .init(title: title, pauseButton: .pause),
            paused: .init(title: title, resumeButton: .resume))
    }

    /// A wall-clock alarm at `hour:minute`, weekly on `days` or once.
    static func alarm(
        _ hour: Int, _ minute: Int, weekly days: [Locale.Weekday]? = nil,
        preAlert: TimeInterval? = nil, postAlert: TimeInterval? = nil
    ) -> AlarmDefinition {
        let recurrence: Alarm.Schedule.Relative.Recurrence = days.map { .weekly($0) } ?? .never
        return AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: hour, minute: minute), repeats: recurrence)),
            countdownDuration: preAlert == nil && postAlert == nil ? nil : .init(preAlert: preAlert, postAlert: postAlert),
            presentation: presentation())
    }

    static func fixed(_ date: Date, postAlert: TimeInterval? = nil) -> AlarmDefinition {
        AlarmDefinition(
            schedule: .fixed(date),
            countdownDuration: postAlert.map { .init(preAlert: nil, postAlert: $0) },
            presentation: presentation())
    }

    static func timer(_ seconds: TimeInterval) -> AlarmDefinition {
        AlarmDefinition(schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: seconds), presentation: presentation("Tea"))
    }

    static let everyDay: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

    static func scheduler(
        _ zone: TimeZoneRules = berlin, policy: EnginePolicy = .default, trusted: Bool = true
    ) -> AlarmScheduler {
        AlarmScheduler(policy: policy, timeZone: zone, clockTrusted: trusted)
    }
}

extension AlarmScheduler {
    /// Schedules for the fixture owner and returns the id.
    @discardableResult
    mutating func add(_ definition: AlarmDefinition, now: Date, id: Alarm.ID = Alarm.ID()) throws -> Alarm.ID {
        _ = try schedule(id: id, owner: Fixture.owner, definition: definition, now: now)
        return id
    }

    func state(of id: Alarm.ID) -> Alarm.State? {
        record(for: Fixture.key(id))?.phase.state
    }

    mutating func act(_ command: AlarmCommand, _ id: Alarm.ID, now: Date) throws -> SchedulerOutcome {
        try perform(command, id: id, owner: Fixture.owner, now: now)
    }
}

extension SchedulerOutcome {
    /// The ids of the alarms that started alerting (the tests' alarms are the fixture owner's).
    var alertStarts: [Alarm.ID] {
        events.compactMap { if case .alertStarted(let key, _) = $0 { key.id } else { nil } }
    }

    var missed: [MissedAlarm] {
        events.compactMap { if case .missed(let missed) = $0 { missed } else { nil } }
    }
}
