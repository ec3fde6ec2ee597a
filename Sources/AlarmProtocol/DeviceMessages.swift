import AlarmKitCore
import AlarmModel
import FoundationEssentials

// The parameters and answers of the daemon's own operations (status and self-test have theirs in
// StatusReport.swift and SelfTestMessages.swift).

/// `history`'s parameters.
public struct HistoryParameters: Codable, Hashable, Sendable {
    /// Everyone's (administrators only); `nil` or `false`: the caller's.
    public var all: Bool?

    public init(all: Bool? = nil) {
        self.all = all
    }
}

/// `alarmRecords`' parameters: `history`'s, and optionally one alarm.
public struct RecordsParameters: Codable, Hashable, Sendable {
    /// Everyone's (administrators only); `nil` or `false`: the caller's.
    public var all: Bool?
    /// Only this alarm (an empty list if it is not among them): what `alarmctl schedule` shows
    /// of the alarm it just set, without fetching and decoding every other one.
    public var id: Alarm.ID?

    public init(all: Bool? = nil, id: Alarm.ID? = nil) {
        self.all = all
        self.id = id
    }
}

/// The settings the household changes from the phone page (`setSettings`' parameters and answer):
/// the alarm volume, its crescendo, the snooze offered for new alarms and how long an unanswered
/// alert rings. The daemon keeps them in its state directory (`settings.json`).
public struct HouseholdSettings: Codable, Hashable, Sendable {
    public var volumeDB: Double
    public var crescendoSeconds: Double
    public var snoozeSeconds: Double
    public var autoSilenceSeconds: Double
    /// When the bedroom is dark (``NightHours``): `"22:00-06:30"`, or `"off"`. `nil` only in a
    /// file written before it existed: the configuration's (`[display] night`) then applies.
    public var nightHours: String?
    /// How long before an alarm the sunrise light starts to rise (0 to 3,600 s; 0: no light),
    /// on a clock with one. `nil` only from a file or client that predates it (the configuration's).
    public var lightLeadSeconds: Double?
    /// What the light does after the alarm: `"off"`, or `"on"` (for `[light] kept_on`, an hour unless configured, or until STOP). `nil` as above.
    public var lightAfterStop: String?
    /// What an alarm that names no sound rings with (AlarmKit's `.default`): a name `sounds`
    /// lists, or ``builtInTone``. `nil` as above (the built-in tone).
    public var defaultSound: String?

    /// ``defaultSound``'s value for the built-in tone (a sound's name always has an extension).
    public static let builtInTone = "tone"

    public init(
        volumeDB: Double, crescendoSeconds: Double, snoozeSeconds: Double, autoSilenceSeconds: Double, nightHours: String? = nil,
        lightLeadSeconds: Double? = nil, lightAfterStop: String? = nil, defaultSound: String? = nil
    ) {
        self.volumeDB = volumeDB
        self.crescendoSeconds = crescendoSeconds
        self.snoozeSeconds = snoozeSeconds
        self.autoSilenceSeconds = autoSilenceSeconds
        self.nightHours = nightHours
        self.lightLeadSeconds = lightLeadSeconds
        self.lightAfterStop = lightAfterStop
        self.defaultSound = defaultSound
    }

    /// The default sound's file name: `nil` for the built-in tone (and for none).
    public var defaultSoundName: String? {
        defaultSound == Self.builtInTone ? nil : defaultSound
    }

    /// The night hours they set: `nil` for `"off"` (and for none).
    public var night: NightHours? {
        nightHours.flatMap(NightHours.init)
    }

    /// The same ranges as the configuration file's keys; the message names the bad one.
    public func validate() throws(SettingsError) {
        func check(_ value: Double, _ range: ClosedRange<Double>, _ name: String) throws(SettingsError) {
            guard value.isFinite, range.contains(value) else {
                throw SettingsError(description: "\(name) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
            }
        }
        try check(volumeDB, AlarmWake.volumeRange, "volumeDB")
        try check(crescendoSeconds, AlarmWake.crescendoRange, "crescendoSeconds")
        try check(snoozeSeconds, 1...86_400, "snoozeSeconds")
        try check(autoSilenceSeconds, 0...86_400, "autoSilenceSeconds")
        if let nightHours, nightHours != "off", NightHours(nightHours) == nil {
            throw SettingsError(description: "nightHours must be \"HH:MM-HH:MM\" (two different times) or \"off\", not \"\(nightHours)\"")
        }
        if let lightLeadSeconds { try check(lightLeadSeconds, AlarmWake.lightLeadRange, "lightLeadSeconds") }
        if let lightAfterStop, lightAfterStop != "off", lightAfterStop != "on" {
            throw SettingsError(description: "lightAfterStop must be \"off\" or \"on\", not \"\(lightAfterStop)\"")
        }
        if let name = defaultSoundName, let problem = SoundFileName.problem(with: name) {
            throw SettingsError(description: "defaultSound must be \"tone\" or a sound's name: \(problem)")
        }
    }
}

/// Why ``HouseholdSettings`` were refused.
public struct SettingsError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

/// `settings`' answer: the household settings, and how the display writes times (the
/// configuration's `[display] clock`), so a client shows times as the clock does, and the dB
/// range its volume percentages span (`volumeScale`, `[low, high]`: the card's own mixer range
/// where the board sets the volume there, ``VolumePercent/scale(forCard:)``). One flat object:
/// the settings' fields, `clock24h` and `volumeScale` (absent from an older daemon: -60 to 0).
public struct SettingsReport: Codable, Hashable, Sendable {
    public var settings: HouseholdSettings
    public var clock24h: Bool
    public var volumeScale: ClosedRange<Double>

    public init(settings: HouseholdSettings, clock24h: Bool, volumeScale: ClosedRange<Double> = AlarmWake.volumeRange) {
        self.settings = settings
        self.clock24h = clock24h
        self.volumeScale = volumeScale
    }

    private enum Key: String, CodingKey { case clock24h, volumeScale }

    public init(from decoder: any Decoder) throws {
        settings = try HouseholdSettings(from: decoder)
        let container = try decoder.container(keyedBy: Key.self)
        clock24h = try container.decode(Bool.self, forKey: .clock24h)
        let scale = try container.decodeIfPresent([Double].self, forKey: .volumeScale) ?? []
        volumeScale = scale.count == 2 && scale[0] < scale[1] ? scale[0]...scale[1] : AlarmWake.volumeRange
    }

    public func encode(to encoder: any Encoder) throws {
        try settings.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(clock24h, forKey: .clock24h)
        try container.encode([volumeScale.lowerBound, volumeScale.upperBound], forKey: .volumeScale)
    }

    /// `percent` of this clock's volume scale, in dB.
    public func decibels(percent: Double) -> Double { VolumePercent.decibels(percent: percent, scale: volumeScale) }

    /// `decibels` as a percentage of this clock's volume scale.
    public func percent(decibels: Double) -> Int { VolumePercent.percent(decibels: decibels, scale: volumeScale) }
}

/// `trySound`'s parameters: the volume to hear, -60 to 0 dB, and the sound: a name `sounds`
/// lists (its first five seconds), or the built-in tone when there is none (three seconds).
public struct TrySoundParameters: Codable, Hashable, Sendable {
    public var volumeDB: Double
    public var sound: String?

    public init(volumeDB: Double, sound: String? = nil) {
        self.volumeDB = volumeDB
        self.sound = sound
    }
}

/// `deviceAction`'s parameters: whose alarm, which, and `stop` or `countdown` (snooze).
public struct DeviceActionParameters: Codable, Hashable, Sendable {
    public var owner: UInt32
    public var id: Alarm.ID
    public var action: AlarmAction

    public init(owner: UInt32, id: Alarm.ID, action: AlarmAction) {
        self.owner = owner
        self.id = id
        self.action = action
    }
}

/// `requestPairing`'s parameters: the phone's name (1 to 32 characters on one line) and the code
/// it shows (4 to 8 digits), both on the display.
public struct PairingParameters: Codable, Hashable, Sendable {
    public var name: String
    public var code: String

    public init(name: String, code: String) {
        self.name = name
        self.code = code
    }
}

/// `requestPairing`'s answer.
public struct PairingReply: Codable, Hashable, Sendable {
    public enum Answer: String, Codable, Hashable, Sendable {
        /// STOP and SNOOZE held together.
        case allowed
        /// STOP.
        case refused
        /// Nobody answered in time.
        case unanswered
        /// An alarm rang first and took the display: ask again.
        case withdrawn
        /// The display asked about a phone too recently: ``PairingReply/retryAfter`` says when
        /// it may ask again.
        case tooSoon
    }

    public var answer: Answer
    /// For `tooSoon`: the seconds until the display may ask about a phone again.
    public var retryAfter: Int?

    public init(answer: Answer, retryAfter: Int? = nil) {
        self.answer = answer
        self.retryAfter = retryAfter
    }
}

/// `setTime`'s parameters: the time to set the clock to, as the phone (or a shell) reads it.
public struct SetTimeParameters: Codable, Hashable, Sendable {
    public var time: Date
    /// Who tells it: the phone page (`phone`) or `alarmctl time set` (`shell`).
    public var from: Setter

    public enum Setter: String, Codable, Hashable, Sendable {
        case phone, shell
    }

    public init(time: Date, from: Setter) {
        self.time = time
        self.from = from
    }
}

/// What `setTime` did: the clock's time before and after, and its time source now.
public struct SetTimeReport: Codable, Hashable, Sendable {
    public var previous: Date
    public var now: Date
    public var timeSource: TimeSource?

    public init(previous: Date, now: Date, timeSource: TimeSource?) {
        self.previous = previous
        self.now = now
        self.timeSource = timeSource
    }
}

/// `setLight`'s parameters: the sunrise light turned on by hand at `output` (0 to 1), or off
/// (`null` or 0), as a bedside lamp: until it is turned off, an alarm rings, or STOP is pressed
/// with nothing ringing. `refused` on a clock without a light.
public struct SetLightParameters: Codable, Hashable, Sendable {
    public var output: Double?

    public init(output: Double?) {
        self.output = output
    }
}
