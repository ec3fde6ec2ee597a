import AlarmEngine
import AlarmHardware
import FoundationEssentials

/// An instant as the appliance sees it: the wall clock, for alarms and the screen, and the
/// monotonic clock, for button timing.
struct ApplianceMoment: Hashable, Sendable {
    var wall: Date
    var monotonic: Duration
}

/// Everything the bedside device decides, with nothing that waits or touches a part: it takes
/// the engine's ``DeviceSnapshot``, button events, questions and the time, and returns the
/// ``PartCommand``s that bring sound, display and LED in line, plus when it must next be woken
/// (``nextWake(at:)``). The ``Appliance`` actor carries the commands out and reports each
/// ``PartOutcome`` back through ``record(_:of:at:)``.
///
/// A refresh comes in three steps, each decided after the last one's outcomes are in:
/// ``refreshSound(with:at:)`` first, so a due alarm's `play` is the first command;
/// ``refreshDisplay()``; ``refreshLight()``; then ``refreshIndicator()``, because the LED shows
/// whether the other parts work.
///
/// ```swift
/// var core = ApplianceCore(settings: ApplianceSettings(), displaySize: DisplaySize(columns: 16, rows: 2))
/// let commands = core.refreshSound(with: snapshot, at: moment)   // [.playAlert(...)] when one is due
/// ```
struct ApplianceCore: Sendable {
    var settings: ApplianceSettings
    let renderer: ScreenRenderer

    var gestures: ButtonGestures
    /// Buttons whose current press already acted (on an alert, or to acknowledge missed alarms):
    /// its release or long press does nothing more.
    var consumedPresses: Set<Button> = []
    var backlightUntil: Date?
    var nextAlarmShownUntil: Date?
    /// Until when the display says how a countdown ends ("Hold STOP to end"), after a short STOP
    /// that did not end it.
    var stopHintShownUntil: Date?
    /// The engine's view the last decisions were made from.
    private(set) var lastSnapshot: DeviceSnapshot?

    var screen = ScreenState()
    var shownPattern: IndicatorPattern?

    /// What the sound output is doing, for which alarm.
    var soundState = SoundState.silent
    /// The alerting alarm's own sound that could not play (the built-in tone rings instead),
    /// for the status; cleared when the alert ends.
    var failedSoundPath: String?
    /// The sound's health: a fault shows until the next sound that plays; retried at a fixed
    /// interval while an alert has no sound.
    var sound = PartHealth.working
    /// The display's and the LED's: retried after a wait that doubles up to five minutes, so a
    /// part that stays missing costs a few wake-ups an hour.
    var display = PartHealth.working
    var indicator = PartHealth.working
    /// Whether the board has a sunrise light, what it does, and its health (retried as the display).
    let hasLight: Bool
    var light = LightState()
    var lightHealth = PartHealth.working

    var questions = QuestionQueue()
    /// A self-test running on the appliance's own parts, and the part it holds now.
    var selfTest: SelfTestHold?

    init(settings: ApplianceSettings, displaySize: DisplaySize, hasLight: Bool = false) {
        self.settings = settings
        self.hasLight = hasLight
        self.renderer = ScreenRenderer(size: displaySize, clockFormat: settings.clockFormat)
        self.gestures = ButtonGestures(longPressDuration: settings.longPressDuration)
    }

    /// What the display was last given, as far as the appliance knows.
    struct ScreenState: Sendable {
        var content: ScreenContent?
        /// When ``content`` first appeared: a title scrolls from here.
        var contentSince = Date(timeIntervalSince1970: 0)
        var shownFrame: DisplayFrame?
        var backlightOn: Bool?
        var glyphsLoaded = false
        var nextChange: Date?

        /// What the display holds is unknown: everything is written again.
        mutating func forget() {
            glyphsLoaded = false
            shownFrame = nil
            backlightOn = nil
        }
    }

    /// Takes `snapshot` as the engine's current view.
    mutating func observe(_ snapshot: DeviceSnapshot) {
        lastSnapshot = snapshot
    }

    /// Whether `published`, a snapshot the engine sent with a change, is at least as new as the
    /// last one seen (an older one is replaced by a fresh look).
    func isCurrent(_ published: DeviceSnapshot) -> Bool {
        published.revision >= (lastSnapshot?.revision ?? 0)
    }

    // MARK: - Refreshing

    /// What is due before the engine is asked: questions nobody answered in time, and held
    /// buttons that became long presses.
    mutating func beginRefresh(at moment: ApplianceMoment) -> [PartCommand] {
        expireQuestions(at: moment) + handleLongPresses(at: moment)
    }

    /// Takes the engine's view and brings the sound in line with it: an alert's `play` comes
    /// first, then what an alert does to questions and to a self-test.
    mutating func refreshSound(with snapshot: DeviceSnapshot, at moment: ApplianceMoment) -> [PartCommand] {
        lastSnapshot = snapshot
        var commands = updateSound(snapshot)
        if !snapshot.alerting.isEmpty {
            commands += interruptSelfTest()
        }
        commands += noteAlerts(in: snapshot, at: moment)
        if selfTest?.part != .sound {
            commands += prepareSoundIfDue(snapshot)
        }
        return commands
    }

    /// Leaves the device dark and silent, every question undecided.
    mutating func shutdown() -> [PartCommand] {
        var commands = answerAllQuestions(.unanswered) + interruptSelfTest()
        soundState = .silent
        commands.append(.stopSound)
        commands.append(.showPattern(.off))
        if hasLight {
            light = LightState()
            commands.append(.setLight(0))
        }
        screen.forget()
        commands.append(.drawDisplay(.init(defineGlyphs: false, frame: DisplayFrame(size: renderer.size), backlight: false)))
        return commands
    }

    /// When the appliance next needs to wake by itself: the next change on the screen, the
    /// backlight's timeout, a part's retry, a question's deadline, a held button becoming a long
    /// press. A failed display has no screen to change: only its retry wakes the appliance for
    /// it, and the retry redraws.
    func nextWake(at moment: ApplianceMoment) -> Date? {
        let now = moment.wall
        var candidates = [sound.retryAt, display.retryAt, indicator.retryAt, lightHealth.retryAt, questions.first?.deadline]
        var timeouts = [soundState.prepareAt, light.nextChange]
        if display.isWorking {
            candidates.append(screen.nextChange)
            timeouts += [backlightUntil, nextAlarmShownUntil, stopHintShownUntil]
        }
        candidates += timeouts.map { $0.flatMap { $0 > now ? $0 : nil } }
        if let held = gestures.nextDeadline {
            candidates.append(now.addingTimeInterval(max(held - moment.monotonic, .zero) / .seconds(1)))
        }
        return candidates.compactMap { $0 }.min()
    }

    // MARK: - Outcomes

    /// Takes in how `command` went; returns what follows from it (the next sound to try, a log
    /// line about a part that failed or works again).
    mutating func record(_ outcome: PartOutcome, of command: PartCommand, at moment: ApplianceMoment) -> [PartCommand] {
        switch (command, outcome) {
        case (.playAlert(let play), .done):
            return alertPlayed(play)
        case (.playAlert(let play), .failed(let error)):
            return alertDidNotPlay(play, error: error, at: moment)
        case (.showPattern(let pattern), .done):
            shownPattern = pattern
            return indicator.recordSuccess() ? [.log(.notice, "LED works again")] : []
        case (.showPattern, .failed(let error)):
            shownPattern = nil
            guard indicator.recordFailure(error, at: moment.wall, backoff: settings.displayRetryBackoff) else { return [] }
            return [.log(.error, "LED cannot be driven", ["error": "\(error)"])]
        case (.setLight(let output), _):
            return recordLight(outcome, output: output, at: moment)
        case (.drawDisplay(let update), .done):
            if update.defineGlyphs { screen.glyphsLoaded = true }
            if let frame = update.frame { screen.shownFrame = frame }
            if let backlight = update.backlight { screen.backlightOn = backlight }
            return display.recordSuccess() ? [.log(.notice, "Display works again")] : []
        case (.drawDisplay, .failed(let error)):
            screen.forget()
            guard display.recordFailure(error, at: moment.wall, backoff: settings.displayRetryBackoff) else { return [] }
            return [.log(.error, "Display does not answer; alarms still ring", ["error": "\(error)"])]
        default:
            return []
        }
    }
}
