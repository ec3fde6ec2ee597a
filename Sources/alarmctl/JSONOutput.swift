import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTime
import FoundationEssentials

/// alarmctl's `--json` output, version 1: a contract for scripts, independent of the daemon's
/// internal types. New fields may be added in version 1; none is removed or changes meaning.
///
/// Every document is an object with `"version": 1`. Strings hold control characters, bidi
/// marks and line separators as `\uXXXX` escapes (``TerminalText``), never raw. Instants are ISO
/// 8601 in the local zone with its offset (`2026-11-22T07:00:00+01:00`); lengths are seconds
/// (numbers). Fields with nothing to say are `null`, never missing. Each command's `--help`
/// gives its document's shape; an alarm is ``AlarmJSON``; `status` passes the daemon's report on.
enum JSONOutput {
    static let version = 1

    /// `value` as indented JSON with sorted keys, and a newline.
    static func document(_ value: some Encodable) -> String {
        text(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + "\n"
    }

    /// `value` as one line of JSON with sorted keys, and a newline.
    static func line(_ value: some Encodable) -> String {
        text(value, formatting: [.sortedKeys, .withoutEscapingSlashes]) + "\n"
    }

    private static func text(_ value: some Encodable, formatting: JSONEncoder.OutputFormatting) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .secondsSince1970
        // Everything alarmctl encodes is finite and string-keyed: encoding cannot fail.
        guard let data = try? encoder.encode(value) else { return "null" }
        return TerminalText.jsonEscaped(String(decoding: data, as: UTF8.self))
    }

    struct AlarmList: Encodable {
        var version = JSONOutput.version
        var alarms: [AlarmJSON]
    }

    struct OneAlarm: Encodable {
        var version = JSONOutput.version
        var alarm: AlarmJSON
    }

    struct WebPairings: Encodable {
        struct Entry: Encodable {
            var id: String
            var name: String
            var created: String
            var lastSeen: String
        }

        var version = JSONOutput.version
        var pairings: [Entry]
    }

    struct History: Encodable {
        struct Entry: Encodable {
            var date: String
            var kind: String
            var id: String
            var owner: UInt32
            var title: String
            /// A late `rang`: how late, in seconds.
            var lateBySeconds: Double?
            /// Why it rang late or was missed: clockSet or notRunning.
            var reason: String?
            /// For soundFailed: the sound file that could not play.
            var detail: String?
        }

        var version = JSONOutput.version
        var entries: [Entry]
    }

    struct Sounds: Encodable {
        var version = JSONOutput.version
        var sounds: [String]
        var files: [SoundFileInfo]
    }

    struct Change: Encodable {
        var version = JSONOutput.version
        var time: String
        var id: String
        var state: String
        @Null var title: String?
    }

    /// An intent delivered by a press at the device, in `watch --json`.
    struct Intent: Encodable {
        var version = JSONOutput.version
        var time: String
        var id: String
        var intent: String
        var button: String
        var parameters: [String: String]
        var delivery: String
    }
}

/// An optional field that is `null` when empty: the synthesized encoders leave a `nil` out, and
/// the `--json` contract has every field present.
@propertyWrapper
struct Null<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

/// One alarm in `--json` output, version 1, with the fields `alarmctl show --help` lists. `id` is
/// upper case; `schedule.repeat` is `[]` for once; `nextAlert` is a scheduled occurrence or a
/// running countdown's end; `remaining` counts whole seconds of a running or paused countdown;
/// `enabled` and `skippedDate` are the device's extensions to AlarmKit (`disable`, `skip`).
struct AlarmJSON: Encodable {
    var id: String
    var owner: UInt32
    var state: String
    @Null var title: String?
    @Null var schedule: Schedule?
    @Null var countdown: Countdown?
    @Null var nextAlert: String?
    @Null var remaining: Int?
    @Null var sound: String?
    @Null var secondary: String?
    @Null var enabled: Bool?
    @Null var skippedDate: String?
    @Null var wake: Wake?

    /// How it wakes (`alarmctl wake`): each `null` is the household's.
    struct Wake: Encodable {
        @Null var fadeSeconds: Double?
        @Null var volumePercent: Int?
        @Null var lightLeadSeconds: Double?
    }

    struct Schedule: Encodable {
        var type: String
        var at: String?
        var time: String?
        var `repeat`: [String]?
    }

    struct Countdown: Encodable {
        @Null var preAlert: Double?
        @Null var postAlert: Double?
    }

    init(_ view: AlarmView, now: Date, zone: TimeZoneRules, volumeScale: ClosedRange<Double> = AlarmWake.volumeRange) {
        id = view.id.uuidString
        owner = view.owner
        state = view.state.rawValue
        title = view.title
        switch view.alarm.schedule {
        case .fixed(let date)?:
            schedule = Schedule(type: "fixed", at: ISO8601.format(date, in: zone))
        case .relative(let relative)?:
            var days: [String] = []
            if case .weekly(let weekly) = relative.repeats { days = TimeText.weekdays(weekly) }
            let time = CivilTime(hour: relative.time.hour, minute: relative.time.minute).map(TimeText.hoursAndMinutes)
            schedule = Schedule(type: "relative", time: time ?? "\(relative.time.hour):\(relative.time.minute)", repeat: days)
        case nil:
            schedule = nil
        }
        countdown = view.alarm.countdownDuration.map { Countdown(preAlert: $0.preAlert, postAlert: $0.postAlert) }
        nextAlert = view.nextAlert(now: now, zone: zone).map { ISO8601.format($0, in: zone) }
        remaining = view.remaining(now: now).map { Int($0.rounded(.down)) }
        sound = view.sound
        secondary = view.secondary
        enabled = view.enabled
        skippedDate = view.skippedDate?.description
        wake = view.record.map { record in
            Wake(
                fadeSeconds: record.wake?.crescendoSeconds, volumePercent: record.wake?.volumeDB.map { VolumePercent.percent(decibels: $0, scale: volumeScale) },
                lightLeadSeconds: record.wake?.lightLeadSeconds)
        }
    }
}
