// Apple's AppIntents.swift (AlarmKit-ScheduleAndAlert): the app's code for an alarm's buttons.
// On this device the daemon delivers an alarm's `stopIntent` (STOP pressed) and its
// `secondaryIntent` (SNOOZE: Repeat or Open) to this process, which runs them (`handleIntents`
// in main.swift); the terminal runs Pause, Resume and Repeat itself, as the widget's buttons do
// on iOS. Lines that
// differ from Apple's say why with `// Linux:`.

import AlarmKit
// Linux: no `import AppIntents`: AlarmKit declares LiveActivityIntent and IntentResult.

// Linux: no `static var title`, `description` or `openAppWhenRun` on these intents: App Intents'
// metadata does not exist here (and Swift 6 refuses a mutable `static var`); the device labels
// the buttons with the alarm's AlarmButton texts.

struct PauseIntent: LiveActivityIntent {
    func perform() throws -> some IntentResult {
        try AlarmManager.shared.pause(id: UUID(uuidString: alarmID)!)
        return .result()
    }

    var alarmID: String // Linux: a Codable property, not `@Parameter(title:)`: parameters reach the device as text

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

struct StopIntent: LiveActivityIntent {
    func perform() throws -> some IntentResult {
        print("Stopped at the device: alarm \(alarmID)") // Linux: the device stopped it already, it never waits for an app, so `stop(id:)` would find nothing to stop
        return .result()
    }

    var alarmID: String // Linux: a Codable property, not `@Parameter(title:)`: parameters reach the device as text

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

struct RepeatIntent: LiveActivityIntent {
    func perform() throws -> some IntentResult {
        let id = UUID(uuidString: alarmID)! // Linux: the device's Repeat button counts down before it delivers this intent; the terminal's `repeat` does not
        guard try AlarmManager.shared.alarms.first(where: { $0.id == id })?.state == .alerting else { return .result() } // Linux: see above
        try AlarmManager.shared.countdown(id: id)
        return .result()
    }

    var alarmID: String // Linux: a Codable property, not `@Parameter(title:)`: parameters reach the device as text

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

struct ResumeIntent: LiveActivityIntent {
    func perform() throws -> some IntentResult {
        try AlarmManager.shared.resume(id: UUID(uuidString: alarmID)!)
        return .result()
    }

    var alarmID: String // Linux: a Codable property, not `@Parameter(title:)`: parameters reach the device as text

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}

struct OpenAlarmAppIntent: LiveActivityIntent {
    func perform() throws -> some IntentResult {
        print("Opened from the device: alarm \(alarmID)") // Linux: the device stopped it already (a `.custom` button stops the alarm), and this process is the app, already running
        return .result()
    }

    var alarmID: String // Linux: a Codable property, not `@Parameter(title:)`: parameters reach the device as text

    init(alarmID: String) {
        self.alarmID = alarmID
    }

    init() {
        self.alarmID = ""
    }
}
