import AlarmEngine
import AlarmHardware
import AlarmModel
import FoundationEssentials
import Logging

/// One thing ``ApplianceCore`` decided the device must do: drive a part, tell the engine what a
/// button did, answer a question, or log. The ``Appliance`` actor carries them out in order and
/// reports each one's ``PartOutcome`` back to the core, which may answer with more (the built-in
/// tone after the alarm's own sound failed).
///
/// An alert's sound always comes first in a list: nothing (no display, no LED, no log) is
/// between a due alarm and its `play`.
enum PartCommand: Hashable, Sendable {
    /// Plays an alert's sound; on failure the core tries the next source, then records the fault.
    case playAlert(AlertPlay)
    /// Stops whatever plays. Never fails.
    case stopSound
    /// Opens the sound device and loads `source` ahead of an alert (see
    /// ``ApplianceSettings/soundPreparationLead``), held for `duration`.
    case prepareSound(SoundSource, for: Duration)
    /// Shows a pattern on the LED.
    case showPattern(IndicatorPattern)
    /// Sets the sunrise light's output, 0 to 1.
    case setLight(Double)
    /// Brings the display in line: glyphs, frame and backlight, as one attempt.
    case drawDisplay(DisplayUpdate)
    /// The display's contents are unknown (a self-test drew on it): the driver forgets what it
    /// believes is shown, so the next frame is written whole.
    case forgetDisplayContents
    /// Presses one of the alarm's buttons in the engine, which makes the change and delivers the
    /// button's intent.
    case pressAlarm(AlarmPress, on: AlarmRecord, because: String)
    /// The person saw the missed alarms (and the store's problems).
    case acknowledgeMissedAlarms
    /// The alarm's own sound (a file) could not play and the built-in tone rings instead: the
    /// engine's history records it.
    case recordSoundFallback(AlarmKey, sound: String)
    /// Answers the question numbered `number` (``DevicePrompt/number``).
    case answerPrompt(number: UInt64, PromptAnswer)
    /// Ends the self-test's wait on its part: an alert takes the parts back.
    case endSelfTestWait
    case log(LogEntry)

    /// An attempt to play one source for an alert, with what to try if it fails.
    struct AlertPlay: Hashable, Sendable {
        var alarm: AlarmRecord
        var source: SoundSource
        /// Tried in order if `source` fails (the built-in tone after a named sound).
        var fallbacks: [SoundSource]
        var gain: GainRamp
        /// Whether the alarm's named sound already failed during this alert.
        var namedSoundFailed: Bool
        /// The error of the source tried before this one, if any.
        var previousError: HardwareError?
    }

    /// What the display must be given; `nil` fields are already shown.
    struct DisplayUpdate: Hashable, Sendable {
        /// Whether the custom glyphs must be defined first (after a start or a failure).
        var defineGlyphs: Bool
        var frame: DisplayFrame?
        var backlight: Bool?
    }
}

/// How a ``PartCommand`` went.
enum PartOutcome: Hashable, Sendable {
    case done
    case failed(HardwareError)
}

/// How a question on the display ended.
enum PromptAnswer: Hashable, Sendable {
    case yes, no, unanswered
    /// An alert took the display before anyone answered: the asker must ask again.
    case withdrawn
}

/// A log line the core asks for: the core decides what is worth saying, the actor's logger says it.
struct LogEntry: Hashable, Sendable {
    var level: Logger.Level
    var message: String
    var metadata: [String: String]

    init(_ level: Logger.Level, _ message: String, _ metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}

extension PartCommand {
    static func log(_ level: Logger.Level, _ message: String, _ metadata: [String: String] = [:]) -> PartCommand {
        .log(LogEntry(level, message, metadata))
    }
}
