import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import AlarmTime
import FoundationEssentials

/// The alarms the benchmarks are made of: what a household's clients would set.
struct Workload {
    /// The instant every scheduler operation is performed at: Monday 2026-03-02 07:00:30 in Berlin.
    /// The scheduler takes `now` as an input, so the benchmark controls time completely.
    static let now = ISO8601.parse("2026-03-02T06:00:30Z")!
    /// The wall time (minute) of `now` in Berlin, for alarms made to ring at `now`.
    static let nowWallTime = Alarm.Schedule.Relative.Time(hour: 7, minute: 0)

    static let owners = (1000...1003).map { ClientID(rawValue: UInt32($0)) }
    static let everyDay: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]
    static let tints: [Color] = [.white, .red, .orange, .yellow, .green, .blue, .purple]

    /// A policy that admits every alarm the benchmark creates; the other values are the defaults.
    static let policy = EnginePolicy(maximumAlarms: 1_000_000)

    static let berlin: TimeZoneRules = {
        do {
            return try TimeZoneDatabase().rules(named: "Europe/Berlin")
        } catch {
            fatalError("tzdata must provide Europe/Berlin: \(error)")
        }
    }()

    /// What the mix is made of, in per cent (cumulative bounds below).
    static let mixDescription =
        "45% weekly relative (random time, random non-empty set of days, 10% with a 10-minute pre-alert), "
        + "20% one-time relative (random time), 20% fixed dates 1 hour to 1 year ahead, 15% timers of 1 minute to 2 hours; "
        + "all with snooze buttons, 20% with 20 bytes of client metadata; 4 clients"

    var rng: SeededRandomNumberGenerator
    private var serial = 0

    init(seed: UInt64) {
        rng = SeededRandomNumberGenerator(seed: seed)
    }

    mutating func owner() -> ClientID {
        Self.owners[Int.random(in: 0..<Self.owners.count, using: &rng)]
    }

    /// One alarm of the realistic mix; its deadline is always after ``now``.
    mutating func definition() -> AlarmDefinition {
        serial += 1
        let roll = Int.random(in: 0..<100, using: &rng)
        let time = Alarm.Schedule.Relative.Time(
            hour: Int.random(in: 0...23, using: &rng), minute: Int.random(in: 0...59, using: &rng))
        switch roll {
        case 0..<45:
            let mask = Int.random(in: 1...127, using: &rng)
            let days = Self.everyDay.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
            let preAlert: TimeInterval? = Int.random(in: 0..<10, using: &rng) == 0 ? 600 : nil
            return make(
                .relative(.init(time: time, repeats: .weekly(days))),
                countdown: .init(preAlert: preAlert, postAlert: 540), title: "Wake up \(serial)")
        case 45..<65:
            return make(
                .relative(.init(time: time, repeats: .never)),
                countdown: .init(preAlert: nil, postAlert: 540), title: "Reminder \(serial)")
        case 65..<85:
            let minutesAhead = Int.random(in: 60...(365 * 24 * 60), using: &rng)
            return make(
                .fixed(Self.now.addingTimeInterval(TimeInterval(minutesAhead * 60))),
                countdown: .init(preAlert: nil, postAlert: 300), title: "Appointment \(serial)")
        default:
            let seconds = TimeInterval(Int.random(in: 60...7_200, using: &rng))
            return make(nil, countdown: .init(preAlert: seconds, postAlert: seconds), title: "Timer \(serial)")
        }
    }

    /// A one-shot alarm due exactly at ``now``: scheduled at ``now`` it is alerting at once.
    mutating func dueNow() -> AlarmDefinition {
        serial += 1
        return make(.fixed(Self.now), countdown: .init(preAlert: nil, postAlert: 540), title: "Due now \(serial)")
    }

    /// A daily alarm at the wall time of ``now``: scheduled a minute before ``now``, it starts
    /// alerting when ``now`` is evaluated, and a stop moves it on to tomorrow.
    mutating func dailyAtNow() -> AlarmDefinition {
        serial += 1
        return make(
            .relative(.init(time: Self.nowWallTime, repeats: .weekly(Self.everyDay))),
            countdown: .init(preAlert: nil, postAlert: 540), title: "Daily \(serial)")
    }

    private mutating func make(
        _ schedule: Alarm.Schedule?, countdown: Alarm.CountdownDuration?, title: String
    ) -> AlarmDefinition {
        let metadata: Data? = Int.random(in: 0..<5, using: &rng) == 0 ? Data(#"{"source":"kitchen"}"#.utf8) : nil
        return AlarmDefinition(
            schedule: schedule,
            countdownDuration: countdown,
            presentation: AlarmPresentation(
                alert: .init(title: title, stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown),
                countdown: .init(title: title, pauseButton: .pause),
                paused: .init(title: title, resumeButton: .resume)),
            tintColor: Self.tints[Int.random(in: 0..<Self.tints.count, using: &rng)],
            metadata: metadata)
    }
}

/// A scheduler holding `count` alarms of the mix, and what is needed to re-create each of them.
struct FilledScheduler {
    struct Entry {
        let id: Alarm.ID
        let owner: ClientID
        let definition: AlarmDefinition
    }

    var scheduler: AlarmScheduler
    var entries: [Entry]
    /// How long filling took, in microseconds (one `schedule` per alarm).
    let fillMicroseconds: Double

    /// Schedules `count` alarms of the mix. As on a device, each is created at its own instant
    /// (spread over the 10 seconds before ``Workload/now``, within the same minute, so no deadline
    /// moves); with `distinctCreation` false they all share one `createdAt` instead, a worst case
    /// for anything that orders by creation.
    init(count: Int, workload: inout Workload, distinctCreation: Bool = true) throws {
        var scheduler = AlarmScheduler(policy: Workload.policy, timeZone: Workload.berlin, clockTrusted: true)
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            entries.append(Entry(id: UUID(), owner: workload.owner(), definition: workload.definition()))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let step = distinctCreation ? 10.0 / Double(max(count, 1)) : 0
        for (index, entry) in entries.enumerated() {
            let created = Workload.now.addingTimeInterval(distinctCreation ? -10 + Double(index) * step : 0)
            _ = try scheduler.schedule(id: entry.id, owner: entry.owner, definition: entry.definition, now: created)
        }
        fillMicroseconds = microseconds(clock.now - start)
        precondition(scheduler.alarmCount == count, "filling lost alarms")
        precondition(scheduler.evaluate(now: Workload.now).events.isEmpty, "a filled alarm is due at now")
        self.scheduler = scheduler
        self.entries = entries
    }
}
