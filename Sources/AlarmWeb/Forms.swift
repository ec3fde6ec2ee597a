import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import WebPairings

/// The page's request bodies: JSON as strict as alarmd's socket takes it (``StrictJSON``: no
/// repeated member names, trailing commas, comments or bad escapes), then decoded.
enum WebJSON {
    struct NotStrict: Error, CustomStringConvertible {
        var violation: StrictJSON.Violation
        var description: String { "not strict JSON: \(violation)" }
    }

    static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        if let violation = StrictJSON.validate(Array(body)) { throw NotStrict(violation: violation) }
        return try JSONDecoder.web.decode(type, from: body)
    }
}

extension String {
    /// Without white space (Unicode's, line breaks included) at either end: what a person
    /// typing a label or a name did not mean.
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

/// The body of `POST /api/alarms` and `PUT /api/alarms/ID`.
struct AlarmForm: Decodable {
    var time: String
    var repeatDays: [String]?
    var label: String?
    var snoozeSeconds: Int?
    var sound: String?
    /// How it wakes (``AlarmWake``): each `null` or left out is the household's.
    var fadeSeconds: Int?
    var volumePercent: Int?
    var lightLeadSeconds: Int?

    enum CodingKeys: String, CodingKey {
        case time, repeatDays = "repeat", label, snoozeSeconds, sound, fadeSeconds, volumePercent, lightLeadSeconds
    }

    static func decode(_ body: Data) throws -> AlarmForm {
        do {
            return try WebJSON.decode(AlarmForm.self, from: body)
        } catch {
            throw WebError(400, "expected {\"time\": \"07:30\", \"repeat\": [\"mon\", ...], \"label\": ..., \"snoozeSeconds\": ..., \"sound\": ..., \"fadeSeconds\": ..., \"volumePercent\": ...}: \(Self.summary(error))")
        }
    }

    static func summary(_ error: any Error) -> String {
        switch error {
        case let error as WebJSON.NotStrict: "\(error)"
        case DecodingError.keyNotFound(let key, _): "\"\(key.stringValue)\" is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        default: "not valid JSON"
        }
    }

    /// The AlarmKit definition: an alarm at `time` (local), once or weekly, with a snooze.
    func alarm() throws -> AlarmDefinition {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), parts[1].count == 2,
              (0...23).contains(hour), (0...59).contains(minute)
        else { throw WebError(400, "\"time\" must be HH:MM, from 00:00 to 23:59, not \"\(time)\"") }
        var days: [Locale.Weekday] = []
        for name in repeatDays ?? [] {
            guard let day = Self.weekdays[name] else {
                throw WebError(400, "\"repeat\" takes mon, tue, wed, thu, fri, sat, sun, not \"\(name)\"")
            }
            if !days.contains(day) { days.append(day) }
        }
        let title = (label ?? "").trimmingWhitespace()
        guard title.count <= 64 else { throw WebError(400, "\"label\" is longer than 64 characters") }
        let snooze = snoozeSeconds ?? 9 * 60
        guard (60...3_600).contains(snooze) else { throw WebError(400, "\"snoozeSeconds\" must be 60 to 3600") }
        var alertSound = AlertSound.default
        if let sound, !sound.isEmpty {
            guard !sound.contains("/"), !sound.hasPrefix("."), sound.count <= 128 else {
                throw WebError(400, "\"sound\" must be a file name in the sounds directory")
            }
            alertSound = .named(sound)
        }
        let shown = title.isEmpty ? "Alarm" : title
        let definition = AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: hour, minute: minute), repeats: days.isEmpty ? .never : .weekly(days))),
            countdownDuration: .init(preAlert: nil, postAlert: TimeInterval(snooze)),
            presentation: AlarmPresentation(
                alert: .init(title: shown, stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown),
                countdown: .init(title: shown), paused: .init(title: shown, resumeButton: .resume)),
            sound: alertSound)
        do {
            try definition.validate()
        } catch {
            throw WebError(400, "\(error)")
        }
        return definition
    }

    /// How the alarm wakes; all `nil` is the household's. The volume's percentage spans `scale`
    /// (the clock's, `SettingsReport.volumeScale`).
    func wake(scale: ClosedRange<Double> = AlarmWake.volumeRange) throws -> AlarmWake {
        if let fadeSeconds, !(0...2_700).contains(fadeSeconds) {
            throw WebError(400, "\"fadeSeconds\" must be 0 to 2700 (45 minutes)")
        }
        if let volumePercent, !(0...100).contains(volumePercent) {
            throw WebError(400, "\"volumePercent\" must be 0 to 100")
        }
        if let lightLeadSeconds, !(0...3_600).contains(lightLeadSeconds) {
            throw WebError(400, "\"lightLeadSeconds\" must be 0 to 3600 (an hour)")
        }
        return AlarmWake(
            crescendoSeconds: fadeSeconds.map(Double.init), volumeDB: volumePercent.map { VolumePercent.decibels(percent: Double($0), scale: scale) },
            lightLeadSeconds: lightLeadSeconds.map(Double.init))
    }

    static let weekdays: [String: Locale.Weekday] = [
        "mon": .monday, "tue": .tuesday, "wed": .wednesday, "thu": .thursday, "fri": .friday, "sat": .saturday, "sun": .sunday,
    ]
}

/// The body of `POST /api/timers`.
struct TimerForm: Decodable {
    var seconds: Int
    var label: String?

    static func decode(_ body: Data) throws -> TimerForm {
        do {
            return try WebJSON.decode(TimerForm.self, from: body)
        } catch {
            throw WebError(400, "expected {\"seconds\": 300, \"label\": \"Tea\"}: \(AlarmForm.summary(error))")
        }
    }

    func timer() throws -> AlarmDefinition {
        guard (1...86_400).contains(seconds) else { throw WebError(400, "\"seconds\" must be 1 to 86400") }
        let title = (label ?? "").trimmingWhitespace()
        guard title.count <= 64 else { throw WebError(400, "\"label\" is longer than 64 characters") }
        let shown = title.isEmpty ? "Timer" : title
        return AlarmDefinition(
            schedule: nil, countdownDuration: .init(preAlert: TimeInterval(seconds), postAlert: nil),
            presentation: AlarmPresentation(
                alert: .init(title: shown, stopButton: .stop),
                countdown: .init(title: shown, pauseButton: .pause), paused: .init(title: shown, resumeButton: .resume)))
    }
}

/// The body of `PUT /api/settings` and `POST /api/settings/try` (alarmd checks the ranges).
enum SettingsForm {
    static func decode(_ body: Data) throws -> HouseholdSettings {
        do {
            return try WebJSON.decode(HouseholdSettings.self, from: body)
        } catch {
            throw WebError(400, "expected {\"volumeDB\", \"crescendoSeconds\", \"snoozeSeconds\", \"autoSilenceSeconds\", \"nightHours\", \"lightLeadSeconds\", \"lightAfterStop\", \"defaultSound\"}: \(AlarmForm.summary(error))")
        }
    }
}

/// `POST /api/time`: the phone's time, in seconds since 1970.
struct TimeForm: Decodable {
    var time: Double

    static func decode(_ body: Data) throws -> TimeForm {
        do {
            let form = try WebJSON.decode(TimeForm.self, from: body)
            guard form.time.isFinite else { throw WebError(400, "expected {\"time\": SECONDS_SINCE_1970}: time is not a number") }
            return form
        } catch let error as WebError {
            throw error
        } catch {
            throw WebError(400, "expected {\"time\": SECONDS_SINCE_1970}: \(AlarmForm.summary(error))")
        }
    }
}
