import AlarmKit
import FoundationEssentials

/// Reads the requests the daemon gets most, `schedule` and the alarm actions, straight from
/// their bytes: `JSONDecoder` parsed a `schedule` line twice (its envelope, then its `params`)
/// and spent more CPU on its `Codable` containers than the rest of the request's handling.
///
/// It reads only a request whose members are `v`, `id`, `op` and `params`, each once, in any
/// order, and whose `params` is absent, `null`, `{}`, or the parameters of `schedule` or of an
/// ``AlarmAction`` in the form ``ControlClient`` writes them. Anything else gives `nil`, and
/// ``ControlRequest/decode(line:operations:)`` parses the line with `JSONDecoder`, which stays
/// the authority: when this reads a line, it reads the values `JSONDecoder` would (the `protocol`
/// fuzz target checks both on every input).
enum ControlRequestReader {
    struct Request {
        var id: Int64
        var operation: String
        var hasParameters: Bool
        /// `ScheduleParameters` or `AlarmIDParameters` when `params` held them.
        var parameters: (any Sendable)?
    }

    /// `line` must be valid UTF-8 (checked by the caller).
    static func read(_ line: [UInt8], operations: Set<String>) -> Request? {
        var reader = AlarmJSONReader(line, validatedUTF8: true)
        var version: Int?
        var id: Int?
        var operation: String?
        var parameters: Range<Int>?
        var parametersAreNull = false
        var seen = MemberSet()
        let read = reader.readWholeLine { reader -> Bool? in
            let members = reader.readObject { reader, key in
                if reader.key(key, is: "v") {
                    version = reader.readInteger()
                    return seen.insert(0) && version != nil
                }
                if reader.key(key, is: "id") {
                    id = reader.readInteger()
                    return seen.insert(1) && id != nil
                }
                if reader.key(key, is: "op") {
                    operation = reader.readString().map { String(decoding: reader.bytes[$0], as: UTF8.self) }
                    return seen.insert(2) && operation != nil
                }
                if reader.key(key, is: "params") {
                    guard seen.insert(3) else { return false }
                    if reader.take("null") {
                        parametersAreNull = true
                        return true
                    }
                    parameters = reader.skipObject()
                    return parameters != nil
                }
                return false
            }
            return members ? true : nil
        }
        guard read != nil, version == ControlProtocol.version, let id, let operation, operations.contains(operation) else {
            return nil
        }
        guard let parameters, !parametersAreNull else {
            return Request(id: Int64(id), operation: operation, hasParameters: false, parameters: nil)
        }
        // The parameters are read now that the operation is known, wherever `op` was.
        var parametersReader = AlarmJSONReader(line, validatedUTF8: true)
        parametersReader.index = parameters.lowerBound
        let value: (any Sendable)?
        if parametersReader.readObject({ _, _ in false }) {
            value = nil
        } else {
            parametersReader.index = parameters.lowerBound
            if operation == ControlOperationName.schedule {
                guard let schedule = parametersReader.readScheduleParameters() else { return nil }
                value = schedule
            } else if AlarmAction(rawValue: operation) != nil {
                guard let alarm = parametersReader.readAlarmIDParameters() else { return nil }
                value = alarm
            } else {
                return nil
            }
        }
        guard parametersReader.index == parameters.upperBound else { return nil }
        return Request(id: Int64(id), operation: operation, hasParameters: true, parameters: value)
    }
}

extension AlarmJSONReader {
    /// Skips an object without reading it, strings and nesting taken into account but nothing
    /// else checked: the range it spans, to be read once it is known how.
    mutating func skipObject() -> Range<Int>? {
        skipSpace()
        let start = index
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return start..<index }
            case UInt8(ascii: "\""):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index += 1
            default:
                break
            }
        }
        return nil
    }

    // MARK: - Parameters

    mutating func readScheduleParameters() -> ScheduleParameters? {
        var id: UUID?
        var definition: AlarmDefinition?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "id") {
                id = reader.readUUID()
                return seen.insert(0) && id != nil
            }
            if reader.key(key, is: "definition") {
                definition = reader.readDefinition()
                return seen.insert(1) && definition != nil
            }
            return false
        }
        guard read, let id, let definition else { return nil }
        return ScheduleParameters(id: id, definition: definition)
    }

    mutating func readAlarmIDParameters() -> AlarmIDParameters? {
        var id: UUID?
        var seen = MemberSet()
        let read = readObject { reader, key in
            guard reader.key(key, is: "id") else { return false }
            id = reader.readUUID()
            return seen.insert(0) && id != nil
        }
        guard read, let id else { return nil }
        return AlarmIDParameters(id: id)
    }

    // MARK: - A definition, as its synthesized Codable conformance writes it

    mutating func readDefinition() -> AlarmDefinition? {
        var schedule: Alarm.Schedule?
        var countdownDuration: Alarm.CountdownDuration?
        var presentation: AlarmPresentation?
        var tintColor: Color?
        var metadata: Data?
        var stopIntent: AlarmIntent?
        var secondaryIntent: AlarmIntent?
        var sound: AlertSound?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "schedule") {
                return seen.insert(0) && reader.readNullable(into: &schedule) { $0.readSchedule() }
            }
            if reader.key(key, is: "countdownDuration") {
                return seen.insert(1) && reader.readNullable(into: &countdownDuration) { $0.readCountdownDuration() }
            }
            if reader.key(key, is: "presentation") {
                presentation = reader.readPresentation()
                return seen.insert(2) && presentation != nil
            }
            if reader.key(key, is: "tintColor") {
                tintColor = reader.readColor()
                return seen.insert(3) && tintColor != nil
            }
            if reader.key(key, is: "metadata") {
                // Base64, as `JSONDecoder` reads `Data` by default.
                return seen.insert(4) && reader.readNullable(into: &metadata) { reader in
                    reader.readString().flatMap { Data(base64Encoded: String(decoding: reader.bytes[$0], as: UTF8.self)) }
                }
            }
            if reader.key(key, is: "stopIntent") {
                return seen.insert(5) && reader.readNullable(into: &stopIntent) { $0.readIntent() }
            }
            if reader.key(key, is: "secondaryIntent") {
                return seen.insert(6) && reader.readNullable(into: &secondaryIntent) { $0.readIntent() }
            }
            if reader.key(key, is: "sound") {
                sound = reader.readSound()
                return seen.insert(7) && sound != nil
            }
            return false
        }
        guard read, let presentation, let tintColor, let sound else { return nil }
        return AlarmDefinition(
            schedule: schedule, countdownDuration: countdownDuration, presentation: presentation, tintColor: tintColor,
            metadata: metadata, stopIntent: stopIntent, secondaryIntent: secondaryIntent, sound: sound)
    }

    mutating func readPresentation() -> AlarmPresentation? {
        var alert: AlarmPresentation.Alert?
        var countdown: AlarmPresentation.Countdown?
        var paused: AlarmPresentation.Paused?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "alert") {
                alert = reader.readAlert()
                return seen.insert(0) && alert != nil
            }
            if reader.key(key, is: "countdown") {
                return seen.insert(1) && reader.readNullable(into: &countdown) { reader in
                    var title: String?
                    var pauseButton: AlarmButton?
                    var seen = MemberSet()
                    let read = reader.readObject { reader, key in
                        if reader.key(key, is: "title") {
                            title = reader.readText()
                            return seen.insert(0) && title != nil
                        }
                        if reader.key(key, is: "pauseButton") {
                            return seen.insert(1) && reader.readNullable(into: &pauseButton) { $0.readButton() }
                        }
                        return false
                    }
                    guard read, let title else { return nil }
                    return AlarmPresentation.Countdown(title: title, pauseButton: pauseButton)
                }
            }
            if reader.key(key, is: "paused") {
                return seen.insert(2) && reader.readNullable(into: &paused) { reader in
                    var title: String?
                    var resumeButton: AlarmButton?
                    var seen = MemberSet()
                    let read = reader.readObject { reader, key in
                        if reader.key(key, is: "title") {
                            title = reader.readText()
                            return seen.insert(0) && title != nil
                        }
                        if reader.key(key, is: "resumeButton") {
                            resumeButton = reader.readButton()
                            return seen.insert(1) && resumeButton != nil
                        }
                        return false
                    }
                    guard read, let title, let resumeButton else { return nil }
                    return AlarmPresentation.Paused(title: title, resumeButton: resumeButton)
                }
            }
            return false
        }
        guard read, let alert else { return nil }
        return AlarmPresentation(alert: alert, countdown: countdown, paused: paused)
    }

    mutating func readAlert() -> AlarmPresentation.Alert? {
        var title: String?
        var stopButton: AlarmButton?
        var secondaryButton: AlarmButton?
        var behavior: AlarmPresentation.Alert.SecondaryButtonBehavior?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "title") {
                title = reader.readText()
                return seen.insert(0) && title != nil
            }
            if reader.key(key, is: "stopButton") {
                stopButton = reader.readButton()
                return seen.insert(1) && stopButton != nil
            }
            if reader.key(key, is: "secondaryButton") {
                return seen.insert(2) && reader.readNullable(into: &secondaryButton) { $0.readButton() }
            }
            if reader.key(key, is: "secondaryButtonBehavior") {
                return seen.insert(3) && reader.readNullable(into: &behavior) { $0.readRawValue() }
            }
            return false
        }
        guard read, let title, let stopButton else { return nil }
        return AlarmPresentation.Alert(
            title: title, stopButton: stopButton, secondaryButton: secondaryButton, secondaryButtonBehavior: behavior)
    }

    mutating func readButton() -> AlarmButton? {
        var text: String?
        var textColor: Color?
        var systemImageName: String?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "text") {
                text = reader.readText()
                return seen.insert(0) && text != nil
            }
            if reader.key(key, is: "textColor") {
                textColor = reader.readColor()
                return seen.insert(1) && textColor != nil
            }
            if reader.key(key, is: "systemImageName") {
                systemImageName = reader.readText()
                return seen.insert(2) && systemImageName != nil
            }
            return false
        }
        guard read, let text, let textColor, let systemImageName else { return nil }
        return AlarmButton(text: text, textColor: textColor, systemImageName: systemImageName)
    }

    /// `Color`'s own `Decodable` reads the three components and clamps them in its initializer.
    mutating func readColor() -> Color? {
        var red: Double?
        var green: Double?
        var blue: Double?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "red") {
                red = reader.readDouble()
                return seen.insert(0) && red != nil
            }
            if reader.key(key, is: "green") {
                green = reader.readDouble()
                return seen.insert(1) && green != nil
            }
            if reader.key(key, is: "blue") {
                blue = reader.readDouble()
                return seen.insert(2) && blue != nil
            }
            return false
        }
        guard read, let red, let green, let blue else { return nil }
        return Color(red: red, green: green, blue: blue)
    }

    mutating func readIntent() -> AlarmIntent? {
        var name: String?
        var parameters: [String: String]?
        var seen = MemberSet()
        let read = readObject { reader, key in
            if reader.key(key, is: "name") {
                name = reader.readText()
                return seen.insert(0) && name != nil
            }
            if reader.key(key, is: "parameters") {
                var values: [String: String] = [:]
                let read = reader.readObject { reader, key in
                    let name = String(decoding: reader.bytes[key], as: UTF8.self)
                    // A repeated name: which value counts is `JSONDecoder`'s to say.
                    guard values[name] == nil, let value = reader.readText() else { return false }
                    values[name] = value
                    return true
                }
                parameters = read ? values : nil
                return seen.insert(1) && parameters != nil
            }
            return false
        }
        guard read, let name, let parameters else { return nil }
        return AlarmIntent(name, parameters: parameters)
    }

    /// `{"default":{}}` or `{"named":{"_0":"…"}}`.
    mutating func readSound() -> AlertSound? {
        var sound: AlertSound?
        let read = readObject { reader, key in
            guard sound == nil else { return false }
            if reader.key(key, is: "default") {
                if reader.readObject({ _, _ in false }) { sound = .default }
            } else if reader.key(key, is: "named") {
                sound = reader.readAssociatedValue { $0.readText() }.map { .named($0) }
            }
            return sound != nil
        }
        return read ? sound : nil
    }

    /// A string value.
    mutating func readText() -> String? {
        readString().map { String(decoding: bytes[$0], as: UTF8.self) }
    }
}
