import AlarmKit
import AlarmTime
import FoundationEssentials

/// Writes alarms and their records as JSON straight into bytes: the JSON `JSONEncoder` writes
/// for them through their synthesized `Codable` conformances, without its generic machinery.
///
/// `JSONEncoder` spends tens of microseconds on one ``AlarmRecord`` (65 µs when BENCHMARKS.md
/// first measured it), most of it in `Codable`'s containers rather than in writing bytes: in a
/// `perf` profile of the daemon's `schedule`, the record's journal entry and the reply were a
/// fifth of its CPU. With this writer they no longer show among its costs.
///
/// The form is that of the synthesized conformances: members by their property names, `nil`
/// optionals left out, an enum case as `{"case":{"_0":value}}` (`{"case":{}}` without values),
/// dates as the caller's `JSONEncoder` would write them (``DateForm``), `Data` as base64.
/// `JSONDecoder` reads what this writes to the same value; `AlarmJSONWriterTests` check that,
/// and that the JSON is `JSONEncoder`'s (member order aside, which `JSONEncoder` does not keep
/// either).
///
/// A number JSON cannot hold (infinite or NaN) gives `nil`: `JSONEncoder` refuses it too, and
/// callers fall back to it for its error.
package struct AlarmJSONWriter {
    /// How dates are written: as `JSONEncoder`'s date strategy would.
    package enum DateForm: Sendable {
        /// `.deferredToDate`, `JSONEncoder`'s default (seconds since 2001-01-01): the store.
        case sinceReferenceDate
        /// `.secondsSince1970`: the control protocol.
        case secondsSince1970
    }

    private var bytes: [UInt8] = []
    private var needsComma = false
    private var refused = false
    private let dateForm: DateForm

    private init(dateForm: DateForm) {
        self.dateForm = dateForm
        bytes.reserveCapacity(512)
    }

    /// The JSON of `record`, or `nil` if it holds a number JSON cannot.
    package static func json(of record: AlarmRecord, dates dateForm: DateForm) -> [UInt8]? {
        var writer = AlarmJSONWriter(dateForm: dateForm)
        writer.write(record)
        return writer.refused ? nil : writer.bytes
    }

    /// The JSON of `alarm`, or `nil` if it holds a number JSON cannot.
    package static func json(of alarm: Alarm, dates dateForm: DateForm) -> [UInt8]? {
        var writer = AlarmJSONWriter(dateForm: dateForm)
        writer.write(alarm)
        return writer.refused ? nil : writer.bytes
    }

    // MARK: - The engine's types

    private mutating func write(_ record: AlarmRecord) {
        object {
            $0.member("id") { $0.write(record.id) }
            $0.member("owner") { $0.write(UInt64(record.owner.rawValue)) }
            $0.member("definition") { $0.write(record.definition) }
            $0.member("phase") { $0.write(record.phase) }
            $0.member("createdAt") { $0.write(record.createdAt) }
            $0.member("sequenceNumber") { $0.write(record.sequenceNumber) }
            $0.optionalMember("lastOccurrenceDay", record.lastOccurrenceDay) { $0.write($1.description) }
            $0.member("datesFromUntrustedClock") { $0.write(record.datesFromUntrustedClock) }
        }
    }

    private mutating func write(_ phase: AlarmPhase) {
        switch phase {
        case .scheduled(let occurrence):
            enumCase("scheduled") { $0.optionalMember("_0", occurrence) { $0.write($1) } }
        case .countdown(let countdown):
            enumCase("countdown") {
                $0.member("_0") { writer in
                    writer.object {
                        $0.member("kind") { $0.write(countdown.kind.rawValue) }
                        $0.member("startDate") { $0.write(countdown.startDate) }
                        $0.member("previouslyElapsed") { $0.write(countdown.previouslyElapsed) }
                        $0.member("total") { $0.write(countdown.total) }
                        $0.optionalMember("occurrence", countdown.occurrence) { $0.write($1) }
                    }
                }
            }
        case .paused(let paused):
            enumCase("paused") {
                $0.member("_0") { writer in
                    writer.object {
                        $0.member("kind") { $0.write(paused.kind.rawValue) }
                        $0.member("previouslyElapsed") { $0.write(paused.previouslyElapsed) }
                        $0.member("total") { $0.write(paused.total) }
                        $0.optionalMember("occurrence", paused.occurrence) { $0.write($1) }
                    }
                }
            }
        case .alerting(let alerting):
            enumCase("alerting") {
                $0.member("_0") { writer in
                    writer.object {
                        $0.member("since") { $0.write(alerting.since) }
                        $0.member("dueDate") { $0.write(alerting.dueDate) }
                        $0.member("time") { $0.write(alerting.time) }
                        $0.optionalMember("occurrence", alerting.occurrence) { $0.write($1) }
                    }
                }
            }
        }
    }

    private mutating func write(_ occurrence: Occurrence) {
        switch occurrence {
        case .fixed(let date): enumCase("fixed") { $0.member("_0") { $0.write(date) } }
        case .day(let day): enumCase("day") { $0.member("_0") { $0.write(day.description) } }
        }
    }

    // MARK: - AlarmKit's types

    private mutating func write(_ alarm: Alarm) {
        object {
            $0.member("id") { $0.write(alarm.id) }
            $0.optionalMember("schedule", alarm.schedule) { $0.write($1) }
            $0.optionalMember("countdownDuration", alarm.countdownDuration) { $0.write($1) }
            $0.member("state") { $0.write(alarm.state.rawValue) }
        }
    }

    private mutating func write(_ definition: AlarmDefinition) {
        object {
            $0.optionalMember("schedule", definition.schedule) { $0.write($1) }
            $0.optionalMember("countdownDuration", definition.countdownDuration) { $0.write($1) }
            $0.member("presentation") { $0.write(definition.presentation) }
            $0.member("tintColor") { $0.write(definition.tintColor) }
            $0.optionalMember("metadata", definition.metadata) { $0.write($1.base64EncodedString()) }
            $0.optionalMember("stopIntent", definition.stopIntent) { $0.write($1) }
            $0.optionalMember("secondaryIntent", definition.secondaryIntent) { $0.write($1) }
            $0.member("sound") { writer in
                switch definition.sound {
                case .default: writer.enumCase("default") { _ in }
                case .named(let name): writer.enumCase("named") { $0.member("_0") { $0.write(name) } }
                }
            }
        }
    }

    private mutating func write(_ schedule: Alarm.Schedule) {
        switch schedule {
        case .fixed(let date):
            enumCase("fixed") { $0.member("_0") { $0.write(date) } }
        case .relative(let relative):
            enumCase("relative") {
                $0.member("_0") { writer in
                    writer.object {
                        $0.member("time") { $0.write(relative.time) }
                        $0.member("repeats") { writer in
                            switch relative.repeats {
                            case .never:
                                writer.enumCase("never") { _ in }
                            case .weekly(let days):
                                writer.enumCase("weekly") {
                                    $0.member("_0") { $0.array(days) { $0.write($1.rawValue) } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private mutating func write(_ time: Alarm.Schedule.Relative.Time) {
        object {
            $0.member("hour") { $0.write(Int64(time.hour)) }
            $0.member("minute") { $0.write(Int64(time.minute)) }
        }
    }

    private mutating func write(_ duration: Alarm.CountdownDuration) {
        object {
            $0.optionalMember("preAlert", duration.preAlert) { $0.write($1) }
            $0.optionalMember("postAlert", duration.postAlert) { $0.write($1) }
        }
    }

    private mutating func write(_ presentation: AlarmPresentation) {
        object {
            $0.member("alert") { writer in
                let alert = presentation.alert
                writer.object {
                    $0.member("title") { $0.write(alert.title) }
                    $0.member("stopButton") { $0.write(alert.stopButton) }
                    $0.optionalMember("secondaryButton", alert.secondaryButton) { $0.write($1) }
                    $0.optionalMember("secondaryButtonBehavior", alert.secondaryButtonBehavior) { $0.write($1.rawValue) }
                }
            }
            $0.optionalMember("countdown", presentation.countdown) { writer, countdown in
                writer.object {
                    $0.member("title") { $0.write(countdown.title) }
                    $0.optionalMember("pauseButton", countdown.pauseButton) { $0.write($1) }
                }
            }
            $0.optionalMember("paused", presentation.paused) { writer, paused in
                writer.object {
                    $0.member("title") { $0.write(paused.title) }
                    $0.member("resumeButton") { $0.write(paused.resumeButton) }
                }
            }
        }
    }

    private mutating func write(_ button: AlarmButton) {
        object {
            $0.member("text") { $0.write(button.text) }
            $0.member("textColor") { $0.write(button.textColor) }
            $0.member("systemImageName") { $0.write(button.systemImageName) }
        }
    }

    private mutating func write(_ color: Color) {
        object {
            $0.member("red") { $0.write(color.red) }
            $0.member("green") { $0.write(color.green) }
            $0.member("blue") { $0.write(color.blue) }
        }
    }

    private mutating func write(_ intent: AlarmIntent) {
        object {
            $0.member("name") { $0.write(intent.name) }
            $0.member("parameters") { writer in
                writer.object {
                    for (name, value) in intent.parameters {
                        $0.member(named: name) { $0.write(value) }
                    }
                }
            }
        }
    }

    // MARK: - JSON

    private mutating func object(_ writeMembers: (inout AlarmJSONWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        writeMembers(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `{"name":{…}}`: a case of an enum with a synthesized conformance; `writeValues` writes the
    /// associated values as members `_0`, … (nothing for a case without values).
    private mutating func enumCase(_ name: StaticString, _ writeValues: (inout AlarmJSONWriter) -> Void) {
        object { $0.member(name) { $0.object(writeValues) } }
    }

    private mutating func array<Element>(_ elements: [Element], _ writeElement: (inout AlarmJSONWriter, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for element in elements {
            if needsComma { bytes.append(UInt8(ascii: ",")) }
            writeElement(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member whose key is a property's name: ASCII without anything to escape.
    private mutating func member(_ key: StaticString, _ writeValue: (inout AlarmJSONWriter) -> Void) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        writeValue(&self)
    }

    /// A member whose key is data (an intent's parameter name).
    private mutating func member(named key: String, _ writeValue: (inout AlarmJSONWriter) -> Void) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        write(key)
        bytes.append(UInt8(ascii: ":"))
        writeValue(&self)
    }

    /// A member for an optional: left out when `nil`, as `encodeIfPresent` does.
    private mutating func optionalMember<Value>(
        _ key: StaticString, _ value: Value?, _ writeValue: (inout AlarmJSONWriter, Value) -> Void
    ) {
        guard let value else { return }
        member(key) { writeValue(&$0, value) }
    }

    private mutating func write(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                // The other control characters as \u00XX, as JSON requires.
                let hexDigits = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array(#"\u00"#.utf8))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func write(_ number: Int64) {
        bytes.append(contentsOf: String(number).utf8)
        needsComma = true
    }

    private mutating func write(_ number: UInt64) {
        bytes.append(contentsOf: String(number).utf8)
        needsComma = true
    }

    /// The shortest digits that read back as the same `Double`, without a trailing `.0`, as
    /// `JSONEncoder` writes them; `1e-07` and `1e+16` are JSON numbers as they are.
    private mutating func write(_ number: Double) {
        guard number.isFinite else {
            refused = true
            return
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    private mutating func write(_ flag: Bool) {
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        needsComma = true
    }

    private mutating func write(_ date: Date) {
        switch dateForm {
        case .sinceReferenceDate: write(date.timeIntervalSinceReferenceDate)
        case .secondsSince1970: write(date.timeIntervalSince1970)
        }
    }

    /// Upper-case `8-4-4-4-12`, as `UUID`'s `Encodable` writes it.
    private mutating func write(_ uuid: UUID) {
        write(uuid.uuidString)
    }
}
