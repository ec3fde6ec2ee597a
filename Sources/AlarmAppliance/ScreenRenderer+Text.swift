import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

// The words and numbers on the screens, and the canvas they are drawn on.
extension ScreenRenderer {
    func title(of record: AlarmRecord) -> [UInt8] {
        HD44780Text.encode(record.definition.presentation.alert.title)
    }

    /// A button's label as the display shows it: its icon, if the display has one, then its text.
    func label(of button: AlarmButton) -> [UInt8] {
        let icon = DisplayIcon(systemImageName: button.systemImageName).map { [$0.code] } ?? []
        return icon + HD44780Text.encode(button.text)
    }

    func timeText(_ time: CivilTime) -> String {
        switch clockFormat {
        case .twentyFourHour:
            return twoDigits(time.hour) + ":" + twoDigits(time.minute)
        case .twelveHour:
            let hour = time.hour % 12 == 0 ? 12 : time.hour % 12
            return "\(hour):\(twoDigits(time.minute))" + (time.hour < 12 ? "am" : "pm")
        }
    }

    /// `Today 07:00`, `Tomorrow 07:00`, `Mon 07:00` within a week, `24 Dec 07:00` beyond;
    /// `omittingToday` gives `07:00` for today; `compact` says `Mon` for tomorrow and yesterday too.
    func dayAndTime(_ date: Date, in snapshot: DeviceSnapshot, omittingToday: Bool = false, compact: Bool = false) -> String {
        let zone = snapshot.timeZone
        let local = zone.localDateTime(at: date)
        let today = zone.localDateTime(at: snapshot.now).date
        let time = timeText(local.time)
        let days = local.date.daysSinceEpoch - today.daysSinceEpoch
        switch days {
        case 0: return omittingToday ? time : "Today \(time)"
        case 1 where !compact: return "Tomorrow \(time)"
        case -1 where !compact: return "Yesterday \(time)"
        case -6...6: return "\(Self.weekdayNames[local.date.weekday] ?? "") \(time)"
        default: return "\(local.date.day) \(Self.monthNames[local.date.month - 1]) \(time)"
        }
    }

    /// The day alone, as ``dayAndTime(_:in:omittingToday:compact:)`` names it compactly.
    func dayText(_ date: Date, in snapshot: DeviceSnapshot) -> String {
        let local = snapshot.timeZone.localDateTime(at: date).date
        let days = local.daysSinceEpoch - snapshot.timeZone.localDateTime(at: snapshot.now).date.daysSinceEpoch
        switch days {
        case 0: return "today"
        case -6...6: return Self.weekdayNames[local.weekday] ?? ""
        default: return "\(local.day) \(Self.monthNames[local.month - 1])"
        }
    }

    func dateText(_ date: CivilDate) -> String {
        "\(Self.weekdayNames[date.weekday] ?? "") \(date.day) \(Self.monthNames[date.month - 1]) \(date.year)"
    }

    func repeatText(_ definition: AlarmDefinition) -> String {
        guard case .relative(let relative) = definition.schedule, case .weekly(let days) = relative.repeats else {
            return definition.schedule == nil ? "Timer" : "Once"
        }
        if Set(days).count == 7 { return "Every day" }
        let order: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]
        return order.filter(days.contains).map { String((Self.weekdayNames[$0] ?? "").prefix(2)) }.joined(separator: " ")
    }

    /// The next local minute boundary.
    func nextMinute(after snapshot: DeviceSnapshot) -> Date {
        let seconds = snapshot.now.timeIntervalSince1970 + Double(snapshot.timeZone.offset(at: snapshot.now))
        let intoMinute = seconds - (seconds / 60).rounded(.down) * 60
        return snapshot.now.addingTimeInterval(60 - intoMinute)
    }

    func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    static let weekdayNames: [Locale.Weekday: String] = [
        .monday: "Mon", .tuesday: "Tue", .wednesday: "Wed", .thursday: "Thu", .friday: "Fri",
        .saturday: "Sat", .sunday: "Sun",
    ]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

/// A frame being drawn, and the earliest instant something on it changes.
struct Canvas {
    var frame: DisplayFrame
    let now: Date
    let contentSince: Date
    private(set) var nextChange: Date?

    init(size: DisplaySize, now: Date, contentSince: Date) {
        frame = DisplayFrame(size: size)
        self.now = now
        self.contentSince = contentSince
    }

    var columns: Int { frame.size.columns }

    mutating func changes(at date: Date) {
        nextChange = min(nextChange ?? date, date)
    }

    mutating func put(_ codes: [UInt8], row: Int, column: Int = 0) {
        frame.write(codes, row: row, column: column)
    }

    mutating func center(_ text: String, row: Int) {
        center(HD44780Text.encode(text), row: row)
    }

    mutating func center(_ codes: [UInt8], row: Int) {
        let shown = Array(codes.prefix(columns))
        put(shown, row: row, column: (columns - shown.count) / 2)
    }

    /// Writes `codes` from `column`, scrolling them if they do not fit in `width` (the rest of the row by default).
    mutating func scroll(_ codes: [UInt8], row: Int, column: Int = 0, width: Int? = nil) {
        let width = max(width ?? columns - column, 0)
        let elapsed = now.timeIntervalSince(contentSince)
        let (window, next) = Marquee.window(codes, width: width, elapsed: elapsed)
        put(window, row: row, column: column)
        if let next { changes(at: now.addingTimeInterval(next)) }
    }

    /// The two buttons' labels on one row: STOP's on the left, SNOOZE's on the right, each cut to
    /// fit; `keepingLeft` columns at the left are already used.
    mutating func labels(left: [UInt8], right: [UInt8], row: Int, keepingLeft used: Int = 0) {
        let available = columns - used
        let rightShown = Array(right.prefix(max(available - (left.isEmpty ? 1 : min(left.count, available / 2) + 1), 0)))
        let leftShown = Array(left.prefix(max(available - rightShown.count - 1, 0)))
        put(leftShown, row: row, column: used)
        put(rightShown, row: row, column: columns - rightShown.count)
    }
}
