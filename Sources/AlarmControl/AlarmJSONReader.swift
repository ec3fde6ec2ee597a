import AlarmKit
import FoundationEssentials

/// A cursor over one line; every `read` returns `nil` (or `false`) on anything it does not
/// expect, leaving the cursor anywhere, since the whole line is then given up.
struct AlarmJSONReader {
    let bytes: [UInt8]
    var index = 0
    /// Whether strings may hold bytes beyond ASCII: only for a line already checked to be UTF-8.
    private let acceptsUTF8: Bool

    init(_ bytes: [UInt8], validatedUTF8: Bool = false) {
        self.bytes = bytes
        acceptsUTF8 = validatedUTF8
    }

    // MARK: - The envelopes

    mutating func readWholeLine<Value>(_ read: (inout AlarmJSONReader) -> Value?) -> Value? {
        guard let value = read(&self) else { return nil }
        skipSpace()
        return index == bytes.count ? value : nil
    }

    /// `ResponseEnvelope`: `ok` must be `true`; `v` and `id` are routing fields the decoder skips.
    mutating func readResponse<Result>(_ readResult: (inout AlarmJSONReader) -> Result?) -> Result? {
        var ok = false
        var result: Result?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "v") { return seen.insert(0) && reader.readInteger() != nil }
            if reader.key(key, is: "id") { return seen.insert(1) && (reader.take("null") || reader.readInteger() != nil) }
            if reader.key(key, is: "ok") {
                ok = reader.take("true")
                return seen.insert(2) && ok
            }
            if reader.key(key, is: "result") {
                result = readResult(&reader)
                return seen.insert(3) && result != nil
            }
            return false
        }
        return read && ok ? result : nil
    }

    /// `EventEnvelope`: only `data` is decoded; `event` and `subscription` route the line.
    mutating func readEvent<Payload>(_ readData: (inout AlarmJSONReader) -> Payload?) -> Payload? {
        var data: Payload?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "v") { return seen.insert(0) && reader.readInteger() != nil }
            if reader.key(key, is: "event") { return seen.insert(1) && reader.readString() != nil }
            if reader.key(key, is: "subscription") { return seen.insert(2) && reader.readInteger() != nil }
            if reader.key(key, is: "data") {
                data = readData(&reader)
                return seen.insert(3) && data != nil
            }
            return false
        }
        return read ? data : nil
    }

    // MARK: - Alarms, as their synthesized Codable conformances write them

    mutating func readAlarms() -> [Alarm]? {
        var alarms: [Alarm] = []
        let read = readArray { reader in
            guard let alarm = reader.readAlarm() else { return false }
            alarms.append(alarm)
            return true
        }
        return read ? alarms : nil
    }

    mutating func readAlarm() -> Alarm? {
        var id: UUID?
        var schedule: Alarm.Schedule?
        var countdownDuration: Alarm.CountdownDuration?
        var state: Alarm.State?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "id") {
                id = reader.readUUID()
                return seen.insert(0) && id != nil
            }
            if reader.key(key, is: "schedule") {
                return seen.insert(1) && reader.readNullable(into: &schedule) { $0.readSchedule() }
            }
            if reader.key(key, is: "countdownDuration") {
                return seen.insert(2) && reader.readNullable(into: &countdownDuration) { $0.readCountdownDuration() }
            }
            if reader.key(key, is: "state") {
                state = reader.readRawValue()
                return seen.insert(3) && state != nil
            }
            return false
        }
        guard read, let id, let state else { return nil }
        return Alarm(id: id, schedule: schedule, countdownDuration: countdownDuration, state: state)
    }

    /// One key naming the case; `JSONDecoder` refuses an object with none or two.
    mutating func readSchedule() -> Alarm.Schedule? {
        var schedule: Alarm.Schedule?
        let read = readObject { reader, key in
            guard schedule == nil else { return false }
            if reader.key(key, is: "fixed") {
                // `.secondsSince1970`, as `ControlProtocol.makeDecoder()` reads dates.
                schedule = reader.readAssociatedValue { $0.readDouble() }.map { .fixed(Date(timeIntervalSince1970: $0)) }
            } else if reader.key(key, is: "relative") {
                schedule = reader.readAssociatedValue { $0.readRelative() }.map { .relative($0) }
            }
            return schedule != nil
        }
        return read ? schedule : nil
    }

    mutating func readRelative() -> Alarm.Schedule.Relative? {
        var time: Alarm.Schedule.Relative.Time?
        var repeats: Alarm.Schedule.Relative.Recurrence?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "time") {
                time = reader.readTime()
                return seen.insert(0) && time != nil
            }
            if reader.key(key, is: "repeats") {
                repeats = reader.readRecurrence()
                return seen.insert(1) && repeats != nil
            }
            return false
        }
        guard read, let time, let repeats else { return nil }
        return Alarm.Schedule.Relative(time: time, repeats: repeats)
    }

    mutating func readTime() -> Alarm.Schedule.Relative.Time? {
        var hour: Int?
        var minute: Int?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "hour") {
                hour = reader.readInteger()
                return seen.insert(0) && hour != nil
            }
            if reader.key(key, is: "minute") {
                minute = reader.readInteger()
                return seen.insert(1) && minute != nil
            }
            return false
        }
        guard read, let hour, let minute else { return nil }
        return Alarm.Schedule.Relative.Time(hour: hour, minute: minute)
    }

    mutating func readRecurrence() -> Alarm.Schedule.Relative.Recurrence? {
        var recurrence: Alarm.Schedule.Relative.Recurrence?
        let read = readObject { reader, key in
            guard recurrence == nil else { return false }
            if reader.key(key, is: "never") {
                // A case without values is an empty object.
                if reader.readObject({ _, _ in false }) { recurrence = .never }
            } else if reader.key(key, is: "weekly") {
                recurrence = reader.readAssociatedValue { $0.readWeekdays() }.map { .weekly($0) }
            }
            return recurrence != nil
        }
        return read ? recurrence : nil
    }

    mutating func readWeekdays() -> [Locale.Weekday]? {
        var weekdays: [Locale.Weekday] = []
        let read = readArray { reader in
            guard let weekday: Locale.Weekday = reader.readRawValue() else { return false }
            weekdays.append(weekday)
            return true
        }
        return read ? weekdays : nil
    }

    mutating func readCountdownDuration() -> Alarm.CountdownDuration? {
        var preAlert: TimeInterval?
        var postAlert: TimeInterval?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "preAlert") {
                return seen.insert(0) && reader.readNullable(into: &preAlert) { $0.readDouble() }
            }
            if reader.key(key, is: "postAlert") {
                return seen.insert(1) && reader.readNullable(into: &postAlert) { $0.readDouble() }
            }
            return false
        }
        return read ? Alarm.CountdownDuration(preAlert: preAlert, postAlert: postAlert) : nil
    }

    /// The single associated value of a synthesized enum case: `{"_0":value}`.
    mutating func readAssociatedValue<Value>(_ readValue: (inout AlarmJSONReader) -> Value?) -> Value? {
        var value: Value?
        var seen = MemberSet()
        let read = readObject { reader, key in
            guard reader.key(key, is: "_0") else { return false }
            value = readValue(&reader)
            return seen.insert(0) && value != nil
        }
        return read ? value : nil
    }

    // MARK: - JSON

    /// `{` members `}`, giving each key (its colon read) to `readMember`, which reads the value
    /// and returns `false` to give up.
    mutating func readObject(_ readMember: (inout AlarmJSONReader, Range<Int>) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = readString(), take(UInt8(ascii: ":")), readMember(&self, key) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// `[` elements `]`; `readElement` returns `false` to give up.
    mutating func readArray(_ readElement: (inout AlarmJSONReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard readElement(&self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    /// `null` (an optional the encoder did not leave out), or a value for `readValue`.
    mutating func readNullable<Value>(into value: inout Value?, _ readValue: (inout AlarmJSONReader) -> Value?) -> Bool {
        if take("null") {
            value = nil
            return true
        }
        value = readValue(&self)
        return value != nil
    }

    /// The byte range of a string's contents: printable ASCII only (and, in a line known to be
    /// UTF-8, any byte from 0x7F), with no escapes, which is everything the protocol writes in an
    /// alarm. Anything else is left to `JSONDecoder`.
    mutating func readString() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<(index - 1)
            }
            guard byte >= 0x20, byte < 0x7F || acceptsUTF8, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    func key(_ key: Range<Int>, is name: StaticString) -> Bool {
        name.withUTF8Buffer { name in
            guard name.count == key.count else { return false }
            // Indices rather than a slice: a slice retains the array, and this runs for every key.
            for offset in 0..<name.count where bytes[key.lowerBound + offset] != name[offset] { return false }
            return true
        }
    }

    /// A string enum (`Alarm.State`, `Locale.Weekday`) by its raw value, as its `Decodable` does.
    mutating func readRawValue<Value: RawRepresentable<String>>() -> Value? {
        guard let range = readString() else { return nil }
        return Value(rawValue: String(decoding: bytes[range], as: UTF8.self))
    }

    /// `8-4-4-4-12` hex digits, either case, as `UUID(uuidString:)` reads them.
    mutating func readUUID() -> UUID? {
        guard let range = readString(), range.count == 36 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var position = range.lowerBound
        // SAFETY: `byteIndex` stays below 16, the size of `uuid_t`.
        let complete = withUnsafeMutableBytes(of: &uuid) { uuidBytes in
            for byteIndex in 0..<16 {
                if byteIndex == 4 || byteIndex == 6 || byteIndex == 8 || byteIndex == 10 {
                    guard bytes[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = Self.hexValue(bytes[position]), let low = Self.hexValue(bytes[position + 1]) else { return false }
                uuidBytes[byteIndex] = high << 4 | low
                position += 2
            }
            return true
        }
        return complete ? UUID(uuid: uuid) : nil
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// An integer without fraction or exponent, of up to 18 digits (so it cannot overflow).
    /// `JSONDecoder` would also take `7.0` or `7e0` as an `Int`; those are left to it.
    mutating func readInteger() -> Int? {
        guard let text = readNumberText(), !text.hasFraction, !text.hasExponent, text.range.count <= 19 else { return nil }
        let isNegative = bytes[text.range.lowerBound] == UInt8(ascii: "-")
        let digits = isNegative ? text.range.dropFirst() : text.range
        guard digits.count <= 18 else { return nil }
        var magnitude = 0
        for position in digits { magnitude = magnitude * 10 + Int(bytes[position] - UInt8(ascii: "0")) }
        return isNegative ? -magnitude : magnitude
    }

    /// A number read by `Double(String)`, correctly rounded like the `strtod` `JSONDecoder` uses.
    /// Like `JSONDecoder`, it refuses what overflows to infinity or underflows to zero; a zero
    /// written with an exponent (`0e5`) is left to `JSONDecoder`, whose check for a true zero
    /// reads the exponent's digits too.
    mutating func readDouble() -> Double? {
        guard let text = readNumberText(), let value = Double(String(decoding: bytes[text.range], as: UTF8.self)),
            value.isFinite
        else { return nil }
        if value == 0 {
            guard !text.hasExponent, !bytes[text.range].contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) else {
                return nil
            }
        }
        return value
    }

    struct NumberText {
        var range: Range<Int>
        var hasFraction = false
        var hasExponent = false
    }

    /// A number by JSON's grammar, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    mutating func readNumberText() -> NumberText? {
        skipSpace()
        let start = index
        _ = takeByte(UInt8(ascii: "-"))
        if !takeByte(UInt8(ascii: "0")) {
            guard index < bytes.count, bytes[index] >= UInt8(ascii: "1"), bytes[index] <= UInt8(ascii: "9") else { return nil }
            _ = skipDigits()
        }
        var text = NumberText(range: start..<start)
        if takeByte(UInt8(ascii: ".")) {
            guard skipDigits() else { return nil }
            text.hasFraction = true
        }
        if takeByte(UInt8(ascii: "e")) || takeByte(UInt8(ascii: "E")) {
            if !takeByte(UInt8(ascii: "+")) { _ = takeByte(UInt8(ascii: "-")) }
            guard skipDigits() else { return nil }
            text.hasExponent = true
        }
        text.range = start..<index
        return text
    }

    /// Skips digits; `false` if there were none.
    mutating func skipDigits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Skips whitespace, then takes `byte` if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        return takeByte(byte)
    }

    /// Takes `byte` if it is next, with no whitespace before it (inside a number).
    mutating func takeByte(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Skips whitespace, then takes `literal` (`null`, `true`) if it is next.
    mutating func take(_ literal: StaticString) -> Bool {
        skipSpace()
        let matches = literal.withUTF8Buffer { literal in
            guard index + literal.count <= bytes.count else { return false }
            for offset in 0..<literal.count where bytes[index + offset] != literal[offset] { return false }
            return true
        }
        if matches { index += literal.utf8CodeUnitCount }
        return matches
    }
}

/// The members of one object read so far, to refuse a repeated key: decoders disagree on which
/// of two counts (`JSONDecoder` keeps the first).
struct MemberSet {
    private var bits: UInt8 = 0

    /// Marks member `number` (0 to 7) as read; `false` if it already was.
    mutating func insert(_ number: Int) -> Bool {
        let bit: UInt8 = 1 << number
        defer { bits |= bit }
        return bits & bit == 0
    }
}
