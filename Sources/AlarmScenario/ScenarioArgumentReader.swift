import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

/// Reads a step's arguments in order, failing with a message that names what was expected.
struct ArgumentReader {
    private var remaining: ArraySlice<String>
    let fail: (String) -> ScenarioSyntaxError

    init(arguments: [String], fail: @escaping (String) -> ScenarioSyntaxError) {
        remaining = arguments[...]
        self.fail = fail
    }

    mutating func next() -> String? { remaining.popFirst() }

    var isAtEnd: Bool { remaining.isEmpty }

    mutating func accept(_ word: String) -> Bool {
        guard remaining.first == word else { return false }
        remaining.removeFirst()
        return true
    }

    mutating func expect(_ word: String) throws(ScenarioSyntaxError) {
        guard accept(word) else { throw fail("expected `\(word)`" + (remaining.first.map { ", found \"\($0)\"" } ?? "")) }
    }

    mutating func word(_ what: String) throws(ScenarioSyntaxError) -> String {
        guard let word = remaining.popFirst() else { throw fail("missing \(what)") }
        return word
    }

    func finish() throws(ScenarioSyntaxError) {
        if let extra = remaining.first { throw fail("unexpected \"\(extra)\"") }
    }

    /// The next word as `parse` reads it; fails with "missing WHAT" or "\"WORD\" is not WHAT".
    mutating func value<Value>(_ what: String, _ parse: (String) -> Value?) throws(ScenarioSyntaxError) -> Value {
        let text = try word(what)
        guard let value = parse(text) else { throw fail("\"\(text)\" is not \(what)") }
        return value
    }

    mutating func integer(_ what: String) throws(ScenarioSyntaxError) -> Int {
        try value(what) { Int($0) }
    }

    mutating func number(_ what: String) throws(ScenarioSyntaxError) -> Double {
        try value(what) { Double($0).flatMap { $0.isFinite ? $0 : nil } }
    }

    mutating func date() throws(ScenarioSyntaxError) -> CivilDate {
        try value("a date like 2026-11-23") { CivilDate($0) }
    }

    mutating func time() throws(ScenarioSyntaxError) -> CivilTime {
        try value("a time like 07:30") { CivilTime($0) }
    }

    mutating func duration() throws(ScenarioSyntaxError) -> TimeInterval {
        try value("a duration like 9m, 90s or 1h30m") { DurationText.parse($0) } / .seconds(1)
    }

    mutating func button() throws(ScenarioSyntaxError) -> Button {
        try value("a button (stop or snooze)") { Button(rawValue: $0) }
    }

    mutating func errorKind() throws(ScenarioSyntaxError) -> HardwareError.Kind {
        try value("a fault (unavailable, busy or io)") { ["unavailable": .deviceUnavailable, "busy": .busy, "io": .io][$0] }
    }

    mutating func weekdays() throws(ScenarioSyntaxError) -> [Locale.Weekday] {
        let text = try word("days like mon,tue,fri")
        let table: [String: Locale.Weekday] = [
            "mon": .monday, "tue": .tuesday, "wed": .wednesday, "thu": .thursday, "fri": .friday,
            "sat": .saturday, "sun": .sunday,
        ]
        var days: [Locale.Weekday] = []
        for part in text.split(separator: ",") {
            guard let day = table[part.lowercased()] else { throw fail("\"\(part)\" is not a day (mon...sun)") }
            days.append(day)
        }
        guard !days.isEmpty else { throw fail("no days in \"\(text)\"") }
        return days
    }

    mutating func color() throws(ScenarioSyntaxError) -> Color {
        let rgb = try value("a colour like #FF8000") { $0.count == 7 && $0.first == "#" ? Int($0.dropFirst(), radix: 16) : nil }
        return Color(red: Double(rgb >> 16 & 0xFF) / 255, green: Double(rgb >> 8 & 0xFF) / 255, blue: Double(rgb & 0xFF) / 255)
    }

    mutating func newName(_ names: inout Set<String>) throws(ScenarioSyntaxError) -> String {
        let name = try word("a name for the alarm")
        guard names.insert(name).inserted else { throw fail("an alarm is already named \"\(name)\"") }
        return name
    }

    mutating func knownName(_ names: Set<String>) throws(ScenarioSyntaxError) -> String {
        let name = try word("an alarm's name")
        guard names.contains(name) else { throw fail("no alarm is named \"\(name)\" before this line") }
        return name
    }
}
