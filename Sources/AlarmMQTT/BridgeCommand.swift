import FoundationEssentials

/// What the household may ask of the clock over MQTT: the device's own actions and two of its
/// settings. Nothing here creates an alarm or reads one.
public enum BridgeCommand: Hashable, Sendable {
    /// STOP: the ringing alarm the clock presents, else a snoozed one (its snooze ends).
    case stop
    /// SNOOZE on the ringing alarm the clock presents.
    case snooze
    /// The household's volume, in percent of the clock's volume scale.
    case setVolume(percent: Int)
    /// The snooze offered for new alarms, in minutes.
    case setSnooze(minutes: Int)
    /// The sunrise light on by hand at this output (0 to 1), or off (`nil`).
    case setLight(Double?)
    /// One of the alarms the bridge shows on (`enable`) or off (`disable`).
    case setEnabled(UUID, Bool)
    /// One of them skips its next day (`skip`), or not (`enable`, which undoes a skip).
    case setSkip(UUID, Bool)

    /// Why a message was not taken as a command: logged with its topic, nothing changed.
    public struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// The longest payload read: a press or a number.
    static let maximumPayload = 64

    /// The command `message` asks for on this clock's command topics (`alarmd/NODE/cmd/...`).
    /// - Throws: ``Refusal`` for a retained message (a command is acted on when it is sent,
    ///   never when a broker replays it), a topic that names no command, or a payload that is
    ///   not the command's (`PRESS` for a button; a whole number in range for a number).
    public static func parse(_ message: MQTTClient.Message, topics: BridgeTopics) throws(Refusal) -> BridgeCommand {
        guard !message.retained else {
            throw Refusal("a retained message: commands are acted on when sent, never when a broker replays them")
        }
        let prefix = topics.command("")
        guard message.topic.hasPrefix(prefix) else { throw Refusal("not one of this clock's command topics") }
        guard message.payload.count <= maximumPayload else { throw Refusal("a payload of \(message.payload.count) bytes") }
        let text = String(message.text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        switch String(message.topic.dropFirst(prefix.count)) {
        case "stop":
            try press(text)
            return .stop
        case "snooze":
            try press(text)
            return .snooze
        case "volume/set":
            return .setVolume(percent: try number(text, in: 0...100, "volume"))
        case "snooze/set":
            return .setSnooze(minutes: try number(text, in: 1...1440, "snooze length"))
        case "light/set":
            return .setLight(try light(text))
        case let other:
            let parts = other.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 4, parts[0] == "alarm", parts[3] == "set", let id = UUID(uuidString: String(parts[1])), parts[2] == "enabled" || parts[2] == "skip" {
                let on = try onOff(text)
                return parts[2] == "enabled" ? .setEnabled(id, on) : .setSkip(id, on)
            }
            throw Refusal("no command \"\(Self.printable(other))\" (stop, snooze, volume/set, snooze/set, light/set, alarm/ID/enabled/set, alarm/ID/skip/set)")
        }
    }

    /// Home Assistant's JSON light command: `{"state": "ON", "brightness": 0-255}` (brightness
    /// left out: full) or `{"state": "OFF"}`; its other fields (a transition) are not used.
    private static func light(_ text: String) throws(Refusal) -> Double? {
        struct Command: Decodable {
            var state: String
            var brightness: Int?
        }
        guard let command = try? JSONDecoder().decode(Command.self, from: Data(text.utf8)) else {
            throw Refusal("a light takes {\"state\": \"ON\", \"brightness\": 0-255} or {\"state\": \"OFF\"}, not \"\(printable(text))\"")
        }
        switch (command.state, command.brightness) {
        case ("OFF", _): return nil
        case ("ON", nil): return 1
        case ("ON", let brightness?) where (0...255).contains(brightness): return brightness == 0 ? nil : Double(brightness) / 255
        default: throw Refusal("a light's state is ON or OFF and its brightness 0 to 255, not \"\(printable(text))\"")
        }
    }

    private static func onOff(_ text: String) throws(Refusal) -> Bool {
        switch text {
        case "ON": return true
        case "OFF": return false
        default: throw Refusal("a switch takes ON or OFF, not \"\(printable(text))\"")
        }
    }

    private static func press(_ text: String) throws(Refusal) {
        guard text == "PRESS" || text.isEmpty else { throw Refusal("a button takes PRESS, not \"\(printable(text))\"") }
    }

    private static func number(_ text: String, in range: ClosedRange<Int>, _ name: String) throws(Refusal) -> Int {
        guard let value = Double(text), value.isFinite, value.rounded() == value, let whole = Int(exactly: value),
              range.contains(whole) else {
            throw Refusal("the \(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(printable(text))\"")
        }
        return whole
    }

    /// `text` for a log line: control characters as `?`, at most `limit` characters (a topic
    /// naming an alarm is about 70).
    static func printable(_ text: String, limit: Int = 40) -> String {
        String(String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) }).prefix(limit))
    }
}
