import FoundationEssentials

/// An ``AlarmManager/AlarmConfiguration`` with its metadata type erased: what a backend receives,
/// what the engine stores and what travels over the control socket.
public struct AlarmDefinition: Codable, Hashable, Sendable {
    public var schedule: Alarm.Schedule?
    public var countdownDuration: Alarm.CountdownDuration?
    public var presentation: AlarmPresentation
    public var tintColor: Color
    /// The client's metadata as JSON, returned to it unchanged.
    public var metadata: Data?
    public var stopIntent: AlarmIntent?
    public var secondaryIntent: AlarmIntent?
    public var sound: AlertSound

    public init(
        schedule: Alarm.Schedule?,
        countdownDuration: Alarm.CountdownDuration?,
        presentation: AlarmPresentation,
        tintColor: Color = .white,
        metadata: Data? = nil,
        stopIntent: AlarmIntent? = nil,
        secondaryIntent: AlarmIntent? = nil,
        sound: AlertSound = .default
    ) {
        self.schedule = schedule
        self.countdownDuration = countdownDuration
        self.presentation = presentation
        self.tintColor = tintColor
        self.metadata = metadata
        self.stopIntent = stopIntent
        self.secondaryIntent = secondaryIntent
        self.sound = sound
    }

    /// Erases a configuration's metadata type; throws `.invalidConfiguration` if the metadata
    /// cannot be encoded, or an intent cannot be kept as an ``AlarmIntent``.
    public init<Metadata>(_ configuration: AlarmManager.AlarmConfiguration<Metadata>) throws(AlarmOperationError) {
        var encodedMetadata: Data?
        if let metadata = configuration.attributes.metadata {
            do {
                encodedMetadata = try JSONEncoder().encode(metadata)
            } catch {
                throw .invalidConfiguration("metadata cannot be encoded as JSON: \(error)")
            }
        }
        self.init(
            schedule: configuration.schedule,
            countdownDuration: configuration.countdownDuration,
            presentation: configuration.attributes.presentation,
            tintColor: configuration.attributes.tintColor,
            metadata: encodedMetadata,
            stopIntent: try configuration.stopIntent?.alarmIntent(),
            secondaryIntent: try configuration.secondaryIntent?.alarmIntent(),
            sound: configuration.sound
        )
    }

    /// The countdown before each alert, if any.
    public var preAlert: TimeInterval? { countdownDuration?.preAlert }

    /// The snooze or repeat countdown: `postAlert`, else `preAlert`, else `nil` (no snooze).
    public var postAlertCountdown: TimeInterval? { countdownDuration?.postAlert ?? countdownDuration?.preAlert }

    /// Whether the alarm comes back after it has alerted (a weekly schedule).
    public var repeats: Bool {
        if case .relative(let relative) = schedule, case .weekly = relative.repeats { return true }
        return false
    }
}

extension AlarmDefinition {
    /// The longest countdown accepted: a year.
    public static let maximumCountdown: TimeInterval = 366 * 24 * 3600
    /// The shortest countdown accepted: a millisecond, the finest unit durations are written in.
    public static let minimumCountdown: TimeInterval = 0.001
    /// The instants a `.fixed` schedule may name: 1970-01-01T00:00:00Z up to 10000-01-01. Within
    /// it a date's ISO 8601 text (four-digit years) and its JSON seconds are exact; outside it a
    /// date prints as another (the civil-date conversions clamp) or not at all (NaN, infinities).
    public static let fixedDates = Date(timeIntervalSince1970: 0)..<Date(timeIntervalSince1970: 253_402_300_800)
    /// The longest string accepted in a definition, in characters: titles, button texts and
    /// symbol names, intent names, intent parameters' names and values.
    public static let maximumTextLength = 200
    /// The most bytes (UTF-8) any of those strings may take. A character may carry any number of
    /// combining marks, so a count of characters alone does not bound a string's size; 1,024
    /// bytes hold any 200 characters of one to four bytes each, with room to spare.
    public static let maximumTextBytes = 1024
    /// The most parameters an intent may carry.
    public static let maximumIntentParameters = 16
    /// The largest metadata accepted, in bytes of JSON.
    public static let maximumMetadataSize = 16 * 1024

    /// Checks everything that does not depend on the clock; `.invalidConfiguration` names the
    /// bad field.
    public func validate() throws(AlarmOperationError) {
        if schedule == nil && preAlert == nil {
            throw .invalidConfiguration("an alarm needs a schedule or countdownDuration.preAlert (a timer)")
        }
        try Self.checkDuration(countdownDuration?.preAlert, named: "countdownDuration.preAlert")
        try Self.checkDuration(countdownDuration?.postAlert, named: "countdownDuration.postAlert")
        switch schedule {
        case .fixed(let date):
            guard Self.fixedDates.contains(date) else {
                throw .invalidConfiguration(
                    "schedule.fixed is \(date.timeIntervalSince1970) s since 1970; a fixed date must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z")
            }
        case .relative(let relative):
            guard (0...23).contains(relative.time.hour) else {
                throw .invalidConfiguration("schedule hour \(relative.time.hour) is not in 0...23")
            }
            guard (0...59).contains(relative.time.minute) else {
                throw .invalidConfiguration("schedule minute \(relative.time.minute) is not in 0...59")
            }
            if case .weekly(let days) = relative.repeats {
                guard !days.isEmpty else { throw .invalidConfiguration("schedule repeats weekly on no day") }
                // Each entry makes every copy of the alarm longer: a list of the same day a
                // thousand times would be a string by another name.
                guard days.count <= 7 else {
                    throw .invalidConfiguration("schedule repeats weekly on \(days.count) days; a week has 7")
                }
            }
        case nil:
            break
        }
        try checkTexts()
        if let metadata, metadata.count > Self.maximumMetadataSize {
            throw .invalidConfiguration("metadata is \(metadata.count) bytes; at most \(Self.maximumMetadataSize)")
        }
        if case .named(let name) = sound {
            guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", name.utf8.count <= 255 else {
                throw .invalidConfiguration("sound name \(Self.quoted(name)) is not a plain file name")
            }
        }
    }

    private static func checkDuration(_ duration: TimeInterval?, named name: String) throws(AlarmOperationError) {
        guard let duration else { return }
        guard (minimumCountdown...maximumCountdown).contains(duration) else {
            throw .invalidConfiguration("\(name) is \(duration) s; it must be from \(minimumCountdown) to \(Int(maximumCountdown)) s")
        }
    }

    /// Every string of the definition but the sound's name (a file name, checked as one) is held
    /// to ``maximumTextLength`` characters and ``maximumTextBytes`` bytes. The bounds apply to what
    /// is scheduled: an alarm accepted before them keeps its strings (the store is never
    /// revalidated), and only scheduling it again with the same strings is refused.
    private func checkTexts() throws(AlarmOperationError) {
        let alert = presentation.alert
        var texts: [(field: String, text: String)] = [("presentation.alert.title", alert.title)]
        func button(_ button: AlarmButton?, _ field: String) {
            guard let button else { return }
            texts.append((field + ".text", button.text))
            texts.append((field + ".systemImageName", button.systemImageName))
        }
        button(alert.stopButton, "presentation.alert.stopButton")
        button(alert.secondaryButton, "presentation.alert.secondaryButton")
        if let countdown = presentation.countdown {
            texts.append(("presentation.countdown.title", countdown.title))
            button(countdown.pauseButton, "presentation.countdown.pauseButton")
        }
        if let paused = presentation.paused {
            texts.append(("presentation.paused.title", paused.title))
            button(paused.resumeButton, "presentation.paused.resumeButton")
        }
        for (field, text) in texts { try Self.checkText(text, named: field) }
        for (field, intent) in [("stopIntent", stopIntent), ("secondaryIntent", secondaryIntent)] {
            guard let intent else { continue }
            guard !intent.name.isEmpty else { throw .invalidConfiguration("\(field).name is empty") }
            try Self.checkText(intent.name, named: field + ".name")
            guard intent.parameters.count <= Self.maximumIntentParameters else {
                throw .invalidConfiguration(
                    "\(field).parameters has \(intent.parameters.count) entries; at most \(Self.maximumIntentParameters)")
            }
            // Sorted, so that of several bad entries the same one is named every time.
            for (name, value) in intent.parameters.sorted(by: { $0.key < $1.key }) {
                try Self.checkText(name, named: "a name in \(field).parameters")
                try Self.checkText(value, named: "\(field).parameters[\(Self.quoted(name))]")
            }
        }
    }

    /// Quoted with escapes and clipped: a refusal is one readable line, whatever the text holds.
    private static func quoted(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(60)).debugDescription + "…" : text.debugDescription
    }

    private static func checkText(_ text: String, named field: String) throws(AlarmOperationError) {
        let bytes = text.utf8.count
        // Fewer bytes than the limit on characters: no need to count characters.
        guard bytes > maximumTextLength else { return }
        let characters = text.count
        guard characters <= maximumTextLength else {
            throw .invalidConfiguration("\(field) has \(characters) characters; at most \(maximumTextLength)")
        }
        guard bytes <= maximumTextBytes else {
            throw .invalidConfiguration("\(field) is \(bytes) bytes of UTF-8; at most \(maximumTextBytes)")
        }
    }
}
