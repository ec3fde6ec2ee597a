import FoundationEssentials
import Glibc
import LinuxSupport
import AlarmTime
import TOMLConfig

/// The bridge's configuration: `/etc/alarmd/alarm-mqtt.toml` in the daemon's TOML style, with
/// the command line's `--broker` and `--socket` over the file's, as alarmd's options are.
///
/// ```toml
/// [mqtt]
/// broker = "mqtts://homeassistant.local"   # mqtt:// (1883) or mqtts:// (TLS, 8883)
/// ca_file = "/etc/ssl/certs/ca-certificates.crt"
/// username = "alarmd"
/// password_file = "/etc/alarmd/mqtt-password"   # root:alarm-mqtt 0640, never logged
/// discovery_prefix = "homeassistant"
/// node_id = "bedroom"                           # default: the host name
/// pre_alarm = ["20m", "5m"]                     # events this long before each alarm
/// alarms_of = "alarm-web"                       # whose alarms get switches (none by default)
/// ```
///
/// No broker anywhere: the bridge is off (``read(file:broker:socket:hostName:)`` returns `nil`).
public struct BridgeConfiguration: Hashable, Sendable {
    public var broker: BrokerAddress
    public var caFile: String?
    public var username: String?
    public var password: String?
    public var clientID: String
    public var discoveryPrefix: String
    public var nodeID: String
    public var socketPath: String
    /// How long before each alarm a `pre_alarm` event is sent (1 minute to 12 hours each).
    public var preAlarmOffsets: [Duration] = []
    /// Whose alarms the bridge shows as switches and acts on (`alarms_of`, a user's name or uid:
    /// `alarm-web` for the alarms set on the phone page); `nil`: no one's.
    public var alarmOwner: UInt32?
    /// Keys of the file that mean nothing here (a misspelling), for the log.
    public var warnings: [ConfigWarning] = []

    public static let defaultSocket = "/run/alarmd/control.sock"

    /// Reads `file` (absent: the defaults) with `broker` and `socket` from the command line over
    /// it. `nil` when no broker is configured at all.
    /// - Throws: ``ConfigError`` naming the file, the line and the key: a broker that is not an
    ///   `mqtt://` or `mqtts://` URL, a password file that cannot be read or that others may read.
    public static func read(file: String?, broker: String?, socket: String?, hostName: String) throws(ConfigError) -> BridgeConfiguration? {
        var text = ""
        let path = file ?? "(defaults)"
        if let file {
            switch try ConfigFile.read(file) {
            case .text(let contents): text = contents
            case .missing: throw ConfigError(file: file, line: 0, message: "no such file")
            }
        }
        var reader = ConfigReader(try TOMLDocument.parse(text, file: path))
        let configured = try reader.optional("mqtt.broker", as: .nonEmptyString)
        guard let url = broker ?? configured else { return nil }
        let address: BrokerAddress
        do {
            address = try BrokerAddress(url)
        } catch {
            throw ConfigError(file: broker != nil ? "--broker" : path, line: broker != nil ? 0 : reader.line(of: "mqtt.broker"), key: "mqtt.broker", message: error.message)
        }
        let node = ClockIdentity.sanitized(try reader.value("mqtt.node_id", as: .nonEmptyString, default: hostName))
        var configuration = BridgeConfiguration(
            broker: address, caFile: try reader.optional("mqtt.ca_file", as: .nonEmptyString),
            username: try reader.optional("mqtt.username", as: .nonEmptyString), password: nil,
            clientID: try reader.value("mqtt.client_id", as: .nonEmptyString, default: "alarm-mqtt-" + node),
            discoveryPrefix: try reader.value("mqtt.discovery_prefix", as: .nonEmptyString, default: "homeassistant"),
            nodeID: node, socketPath: socket ?? Self.defaultSocket)
        configuration.preAlarmOffsets = try reader.value("mqtt.pre_alarm", as: .offsets, default: [])
        if address.tls, configuration.caFile == nil { configuration.caFile = "/etc/ssl/certs/ca-certificates.crt" }
        if let passwordFile = try reader.optional("mqtt.password_file", as: .nonEmptyString) {
            do {
                configuration.password = try Self.password(from: passwordFile)
            } catch {
                throw ConfigError(file: path, line: reader.line(of: "mqtt.password_file"), key: "mqtt.password_file", message: error.message)
            }
        }
        if let owner = try reader.optional("mqtt.alarms_of", as: .nonEmptyString) {
            guard let uid = UInt32(owner) ?? UserNames.uid(named: owner) else {
                throw ConfigError(file: path, line: reader.line(of: "mqtt.alarms_of"), key: "mqtt.alarms_of", message: "no user \"\(owner)\" on this machine")
            }
            configuration.alarmOwner = uid
        }
        configuration.warnings = reader.unknownKeys
        return configuration
    }

    /// The first line of `path`: refused if anyone but its owner and group may read it.
    static func password(from path: String) throws(BrokerAddress.Refusal) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .init("\(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & 0o007 == 0 else {
            throw .init("\(path) may be read by anyone: make it root:alarm-mqtt 0640 (chown root:alarm-mqtt; chmod 0640)")
        }
        let text: String
        do {
            text = try ConfigFile.readText(path)
        } catch {
            throw .init("\(path) cannot be read: \(error.message)")
        }
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard !line.isEmpty else { throw .init("\(path) is empty: its first line is the password") }
        return line
    }
}

/// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (TLS); a host may be a name, an IPv4 address
/// or `[IPv6]`.
public struct BrokerAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public struct Refusal: Error, Hashable, Sendable {
        public var message: String
        init(_ message: String) { self.message = message }
    }

    public init(_ url: String) throws(Refusal) {
        let schemes = ["mqtt://": false, "mqtts://": true]
        guard let (scheme, tls) = schemes.first(where: { url.lowercased().hasPrefix($0.key) }) else {
            throw Refusal("\"\(url)\" is not a broker's URL: mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS)")
        }
        var rest = String(url.dropFirst(scheme.count))
        if rest.hasSuffix("/") { rest.removeLast() }
        var host = rest
        var port = tls ? 8883 : 1883
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw Refusal("\"\(url)\": an IPv6 address needs its closing ]") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { port = try Self.port(String(after.dropFirst()), in: url) } else if !after.isEmpty {
                throw Refusal("\"\(url)\": only a port may follow the host")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            port = try Self.port(String(rest[rest.index(after: colon)...]), in: url)
        }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@"), !host.contains(where: \.isWhitespace) else {
            throw Refusal("\"\(url)\": no host, or one with a path, a login or a space (the login is username and password_file)")
        }
        (self.host, self.port, self.tls) = (host, port, tls)
    }

    private static func port(_ text: String, in url: String) throws(Refusal) -> Int {
        guard let port = Int(text), (1...65_535).contains(port) else { throw Refusal("\"\(url)\": the port must be 1 to 65535") }
        return port
    }

    public var description: String {
        (tls ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }
}

extension ConfigType where Value == [Duration] {
    /// A list of durations from a minute to 12 hours (`["20m", "5m"]`), each once.
    static var offsets: ConfigType<[Duration]> {
        ConfigType(expected: "a list of durations from 1m to 12h, like [\"20m\", \"5m\"]") { value in
            guard case .array(let elements) = value else { return .failure(ConfigType.offsets.mismatch(value)) }
            var offsets: [Duration] = []
            for element in elements {
                guard case .string(let text) = element, let offset = DurationText.parse(text) else {
                    return .failure(ConfigRefusal("\(element) is not a duration; write it like \"20m\" or \"1h30m\""))
                }
                guard offset >= .seconds(60), offset <= .seconds(12 * 3600) else {
                    return .failure(ConfigRefusal("\(element) must be from 1m to 12h"))
                }
                guard !offsets.contains(offset) else { return .failure(ConfigRefusal("\(element) is listed twice")) }
                offsets.append(offset)
            }
            return .success(offsets)
        }
    }
}
