import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

/// What the display is showing, by identity: a change of content restarts the title's scrolling.
public enum ScreenContent: Hashable, Sendable {
    /// The time and the next alarm.
    case clock
    /// The next alarm's details, for a few seconds after an idle press.
    case nextAlarm
    case alert(AlarmKey)
    case countdown(AlarmKey)
    case paused(AlarmKey)
    /// Missed alarms, until a button is pressed.
    case missed
    /// A question answered with the buttons ("Allow alice to set alarms?"), by its number.
    case prompt(UInt64)
}

/// A yes/no question for the person at the device, answered with STOP (no) or STOP and SNOOZE
/// held together (yes).
public struct DevicePrompt: Hashable, Sendable {
    /// The question on one scrolling line ("Allow alice to set alarms?").
    public var question: String
    /// The same, for displays of 4 rows and more: a line each, centered.
    public var tallLines: [String]
    /// Tells a question from an earlier one with the same words.
    public var number: UInt64 = 0

    public init(question: String, tallLines: [String]) {
        self.question = question
        self.tallLines = tallLines
    }
}

/// Draws the appliance's screens for a 16x2 or 20x4 character LCD (any display of at least 16
/// columns; 4 rows and more get the roomier layouts).
///
/// Pure: a frame depends only on the ``Input``, and each rendering says when it next changes (the
/// next minute on a clock, the next second of a countdown, the next step of a scrolling title),
/// so the appliance sleeps exactly until then.
///
/// 16x2, an alert and a countdown (① is the bell glyph, ③ pause):
/// ```
/// ①Wake up   07:00
/// Stop      Snooze
///
/// Tea timer
/// 04:59    ③Pause
/// ```
public struct ScreenRenderer: Sendable {
    public let size: DisplaySize
    public let clockFormat: ApplianceSettings.ClockFormat

    public init(size: DisplaySize, clockFormat: ApplianceSettings.ClockFormat = .twentyFourHour) {
        self.size = size
        self.clockFormat = clockFormat
    }

    public struct Input: Sendable {
        public var snapshot: DeviceSnapshot
        /// An idle press asked for the next alarm's details.
        public var showsNextAlarm: Bool
        /// Why the alert is silent, shown with it ("No sound: hw:0 busy").
        public var soundFault: String?
        /// When the current content first appeared: scrolling counts from here.
        public var contentSince: Date
        /// A question waiting for the person's answer.
        public var prompt: DevicePrompt?
        /// A line shown with a countdown in place of its time, for a moment (``holdStopHint``).
        public var countdownHint: String?

        public init(
            snapshot: DeviceSnapshot, showsNextAlarm: Bool = false, soundFault: String? = nil, contentSince: Date,
            prompt: DevicePrompt? = nil, countdownHint: String? = nil
        ) {
            self.snapshot = snapshot
            self.showsNextAlarm = showsNextAlarm
            self.soundFault = soundFault
            self.contentSince = contentSince
            self.prompt = prompt
            self.countdownHint = countdownHint
        }
    }

    public struct Output: Hashable, Sendable {
        public var frame: DisplayFrame
        /// When the frame next changes by itself; `nil` if it does not.
        public var nextChange: Date?
    }

    /// What the display shows for this state: an alert over a question over a
    /// countdown over missed alarms over the clock.
    public static func content(
        of snapshot: DeviceSnapshot, showsNextAlarm: Bool, prompting prompt: DevicePrompt? = nil
    ) -> ScreenContent {
        if let alert = snapshot.alerting.first { return .alert(alert.key) }
        if let prompt { return .prompt(prompt.number) }
        if let countdown = snapshot.countdowns.first {
            if case .paused = countdown.phase { return .paused(countdown.key) }
            return .countdown(countdown.key)
        }
        if !snapshot.missedAlarms.isEmpty { return .missed }
        return showsNextAlarm ? .nextAlarm : .clock
    }

    /// What a short STOP on a countdown shows: only holding STOP ends a snooze or a timer.
    public static let holdStopHint = "Hold STOP to end"

    public func render(_ input: Input) -> Output {
        var canvas = Canvas(size: size, now: input.snapshot.now, contentSince: input.contentSince)
        let snapshot = input.snapshot
        switch Self.content(of: snapshot, showsNextAlarm: input.showsNextAlarm, prompting: input.prompt) {
        case .prompt:
            if let prompt = input.prompt { drawPrompt(prompt, on: &canvas) }
        case .alert:
            drawAlert(snapshot.alerting[0], others: snapshot.alerting.count - 1, fault: input.soundFault, on: &canvas)
        case .countdown, .paused:
            drawCountdown(snapshot.countdowns[0], on: &canvas)
            if let hint = input.countdownHint {
                // Over the time and the buttons' labels on 2 rows; below the time on 4.
                let row = isTall ? 2 : 1
                canvas.put(Array(HD44780Text.encode(hint + String(repeating: " ", count: size.columns)).prefix(size.columns)), row: row)
            }
        case .missed:
            drawMissed(snapshot, on: &canvas)
            canvas.changes(at: nextMinute(after: snapshot))
        case .nextAlarm:
            drawNextAlarmDetails(snapshot, on: &canvas)
            if snapshot.isClockTrusted { canvas.changes(at: nextMinute(after: snapshot)) }
        case .clock:
            drawClock(snapshot, on: &canvas)
            // The last alert had no sound, or alarms cannot be saved: say so where a person
            // looks before sleeping.
            if let fault = input.soundFault ?? snapshot.storage.displayText {
                canvas.put(HD44780Text.encode(fault + String(repeating: " ", count: size.columns)), row: isTall ? 2 : 1)
            } else if showsUnverifiedWarning(snapshot) {
                canvas.put(HD44780Text.encode(unverifiedText + String(repeating: " ", count: size.columns)), row: isTall ? 2 : 1)
            }
            // An unset clock shows `--:--`, which never changes: no wake-ups for it.
            if snapshot.isClockTrusted { canvas.changes(at: nextMinute(after: snapshot)) }
            if blinksTime(snapshot) { canvas.changes(at: nextSecond(after: snapshot)) }
        }
        return Output(frame: canvas.frame, nextChange: canvas.nextChange)
    }

    var isTall: Bool { size.rows >= 4 }
    private var lastRow: Int { size.rows - 1 }

    // MARK: - Screens

    private func drawClock(_ snapshot: DeviceSnapshot, on canvas: inout Canvas) {
        let local = snapshot.timeZone.localDateTime(at: snapshot.now)
        guard snapshot.isClockTrusted else {
            canvas.center("--:--", row: 0)
            canvas.center("Clock not set", row: 1)
            return
        }
        if !(blinksTime(snapshot) && isOddSecond(snapshot.now)) {
            canvas.center(timeText(local.time), row: 0)
        }
        if isTall {
            canvas.center(dateText(local.date), row: 1)
        }
        guard let next = snapshot.nextAlarm else {
            canvas.center("No alarms", row: lastRow)
            return
        }
        let when = dayAndTime(next.dueDate, in: snapshot)
        if isTall {
            // Cut, not scrolled: an idle clock wakes once a minute. A press shows it in full.
            let lead = [DisplayIcon.bell.code] + HD44780Text.encode(when + " ")
            canvas.put(lead + title(of: next.record), row: lastRow)
        } else {
            canvas.center([DisplayIcon.bell.code] + HD44780Text.encode(when), row: 1)
        }
    }

    private func drawNextAlarmDetails(_ snapshot: DeviceSnapshot, on canvas: inout Canvas) {
        guard snapshot.isClockTrusted else {
            canvas.center("--:--", row: 0)
            canvas.center("Clock not set", row: 1)
            return
        }
        guard let next = snapshot.nextAlarm else {
            canvas.center(timeText(snapshot.timeZone.localDateTime(at: snapshot.now).time), row: 0)
            canvas.center("No alarms set", row: 1)
            return
        }
        canvas.put([DisplayIcon.bell.code] + HD44780Text.encode(dayAndTime(next.dueDate, in: snapshot)), row: 0)
        canvas.scroll(title(of: next.record), row: 1)
        if isTall {
            canvas.put(HD44780Text.encode(repeatText(next.record.definition)), row: 2)
            canvas.center("Next alarm", row: lastRow)
        }
    }

    private func drawMissed(_ snapshot: DeviceSnapshot, on canvas: inout Canvas) {
        let missed = snapshot.missedAlarms
        guard let latest = missed.last else { return }
        let count = missed.reduce(0) { $0 + max($1.occurrences, 1) }
        let headline = count == 1 ? "Missed" : "Missed \(count) alarms"
        let when = dayAndTime(latest.dueDate, in: snapshot, omittingToday: true)
        if isTall {
            canvas.center(headline, row: 0)
            canvas.center(when, row: 1)
            canvas.put(HD44780Text.encode(latest.title), row: 2)
            canvas.center("Press a button", row: 3)
        } else {
            var line = count == 1 ? "Missed \(when)" : headline
            if line.count > size.columns {
                // An older miss on a narrow display: the day and the time, or the day alone.
                line = "Missed " + dayAndTime(latest.dueDate, in: snapshot, omittingToday: true, compact: true)
                if line.count > size.columns { line = "Missed " + dayText(latest.dueDate, in: snapshot) }
            }
            canvas.put(HD44780Text.encode(line), row: 0)
            // Cut, not scrolled: the screen may wait all night for a press.
            canvas.put(HD44780Text.encode(latest.title), row: 1)
        }
    }

    /// STOP answers no, both buttons held yes: "No" sits over STOP, as an alert's labels sit over
    /// their buttons, and the other label says how to answer yes.
    private func drawPrompt(_ prompt: DevicePrompt, on canvas: inout Canvas) {
        if isTall {
            for (row, line) in prompt.tallLines.prefix(lastRow).enumerated() {
                let codes = HD44780Text.encode(line)
                if codes.count <= size.columns { canvas.center(codes, row: row) } else { canvas.scroll(codes, row: row) }
            }
        } else {
            canvas.scroll(HD44780Text.encode(prompt.question), row: 0)
        }
        let yes = size.columns >= 18 ? "Yes: hold both" : "Yes:hold both"
        canvas.labels(left: HD44780Text.encode("No"), right: HD44780Text.encode(yes), row: lastRow)
    }

    private func drawAlert(_ record: AlarmRecord, others: Int, fault: String?, on canvas: inout Canvas) {
        let alert = record.definition.presentation.alert
        var time = ""
        if case .alerting(let alerting) = record.phase {
            time = timeText(CivilTime(hour: alerting.time.hour, minute: alerting.time.minute) ?? .midnight)
        }
        let titleCodes = HD44780Text.encode(alert.title)
        if isTall {
            canvas.put([DisplayIcon.bell.code], row: 0)
            canvas.scroll(titleCodes, row: 0, column: 1)
            canvas.center(time, row: 1)
            if let fault {
                canvas.scroll(HD44780Text.encode(fault), row: 2)
            } else if others > 0 {
                canvas.center("+\(others) more alarm\(others == 1 ? "" : "s")", row: 2)
            }
        } else {
            // The fault has no row of its own: it scrolls with the title.
            let shown = fault.map { titleCodes + HD44780Text.encode(" - \($0)") } ?? titleCodes
            let timeCodes = HD44780Text.encode(time)
            canvas.put([DisplayIcon.bell.code], row: 0)
            canvas.scroll(shown, row: 0, column: 1, width: size.columns - 2 - timeCodes.count)
            canvas.put(timeCodes, row: 0, column: size.columns - timeCodes.count)
        }
        let secondary = alert.secondaryButton.map(label(of:)) ?? []
        canvas.labels(left: label(of: alert.stopButton), right: secondary, row: lastRow)
    }

    private func drawCountdown(_ record: AlarmRecord, on canvas: inout Canvas) {
        let presentation = record.definition.presentation
        let now = canvas.now
        switch record.phase {
        case .countdown(let countdown):
            let remaining = countdown.fireDate.timeIntervalSince(now)
            // A snooze shows its icon: the alarm will ring again when it ends.
            let icon = countdown.kind == .postAlert ? [DisplayIcon.snooze.code] : []
            let text = icon + HD44780Text.encode(RemainingTimeText.format(remaining))
            canvas.scroll(HD44780Text.encode(presentation.countdown?.title ?? presentation.alert.title), row: 0)
            if isTall { canvas.center(text, row: 1) } else { canvas.put(text, row: 1) }
            let pause = presentation.countdown?.pauseButton.map(label(of:)) ?? []
            canvas.labels(left: [], right: pause, row: lastRow, keepingLeft: isTall ? 0 : text.count)
            // The shown seconds are rounded up, so the text changes as `remaining` crosses a whole second.
            let fraction = remaining - remaining.rounded(.down)
            if remaining > 0 { canvas.changes(at: now.addingTimeInterval(fraction > 0 ? fraction : 1)) }
        case .paused(let paused):
            let remaining = paused.total - paused.previouslyElapsed
            let text = [DisplayIcon.pause.code] + HD44780Text.encode(RemainingTimeText.format(remaining))
            let title = presentation.paused?.title ?? presentation.countdown?.title ?? presentation.alert.title
            canvas.scroll(HD44780Text.encode(title), row: 0)
            if isTall {
                canvas.center(text, row: 1)
                canvas.center("Paused", row: 2)
            } else {
                canvas.put(text, row: 1)
            }
            let resume = label(of: presentation.paused?.resumeButton ?? .resume)
            canvas.labels(left: [], right: resume, row: lastRow, keepingLeft: isTall ? 0 : text.count)
        case .scheduled, .alerting:
            break
        }
    }
}
