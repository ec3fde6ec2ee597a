import AlarmKitCore
import AlarmModel
import FoundationEssentials

/// The control socket's wire protocol, version 1: newline-delimited JSON, one UTF-8 object per
/// line.
///
/// ```text
/// → {"v":1,"id":7,"op":"stop","params":{"id":"6F0C…"}}
/// ← {"v":1,"id":7,"ok":true,"result":null}
/// ← {"v":1,"id":8,"ok":false,"error":{"code":"notFound","message":"no alarm with id 6F0C…","alarm":"6F0C…"}}
/// ← {"v":1,"event":"alarms","subscription":2,"data":[…]}
/// ```
///
/// - Every line is one strict RFC 8259 JSON text in UTF-8 (``StrictJSON``: no trailing commas,
///   comments, invalid escapes, raw control characters in strings, lone surrogates, repeated
///   member names, byte order mark...). A request line that is not is refused whole as
///   `malformed`; a client ends a connection whose daemon sends one.
/// - A request carries `v` (the protocol version), `id` (any integer the client chooses; the
///   response repeats it), `op` and optional `params`. Unknown fields are ignored, so a newer
///   client's additions do not break an older daemon; an unknown `v` gets `unsupportedVersion`.
/// - A response has `ok` and either `result` or `error` (``ControlErrorBody``). A request that
///   cannot be parsed far enough to read its `id` gets `"id":null`.
/// - Events (`alarms`, `authorization`) follow a `subscribeAlarms`/`subscribeAuthorization`
///   response and carry its `subscription` number; each holds the whole current value. `intent`
///   events (after `subscribeIntents`) each hold one delivery instead.
/// - Dates are seconds since 1970 (a JSON number); ``AlarmDefinition/metadata`` is base64.
/// - A response is one line whatever its size (a list is not paged): the daemon writes it as the
///   client reads it, and holds only events and errors against its bound on a connection's
///   unread output, so a client that does not read its events is disconnected, and one that
///   asks for every record gets them.
///
/// See ``ControlOperation`` for the operations and their parameters.
public enum ControlProtocol {
    /// The version this build speaks.
    public static let version = 1
    /// Where `alarmd` listens unless configured otherwise (systemd's `RuntimeDirectory=alarmd`).
    public static let defaultSocketPath = "/run/alarmd/control.sock"
    /// The longest line a client may send, in bytes, without its newline: 64 KiB.
    public static let maximumRequestSize = 64 * 1024
    /// The longest line a client accepts from the daemon: 128 MiB. Larger than requests: a list
    /// travels in one line, and an administrator's holds every client's records. Each record
    /// comes from one request, so the device's default 1,000 alarms (`EnginePolicy.maximumAlarms`)
    /// at the largest size a request allows come to about 65 MiB. The daemon writes such a line
    /// as the socket drains; it is not held against its bound on unread output.
    public static let maximumResponseSize = 128 * 1024 * 1024

    package static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        // Keys sorted: the same value is the same bytes in every process (golden lines, diffs).
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    package static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    /// One encoded line with its newline; `nil` only if `value` cannot be encoded (a non-finite
    /// number, which nothing the protocol sends contains).
    package static func line(_ value: some Encodable) -> [UInt8]? {
        guard var bytes = try? Array(makeEncoder().encode(value)) else { return nil }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

/// The events a subscription delivers.
public enum ControlEventName {
    /// `data` is the subscriber's whole `[Alarm]`.
    public static let alarms = "alarms"
    /// `data` is the subscriber's authorization state.
    public static let authorization = "authorization"
    /// `data` is one ``AlarmIntentDelivery``: those waiting when the subscription starts, then each
    /// new one. A delivery comes again on each new subscription until it is acknowledged.
    public static let intent = "intent"
    /// `data` is a ``DeviceChange``: something any client's alarms or the device's state (the
    /// store's health, missed alarms) changed. For a client that shows the whole device, such as
    /// the phone page, which then asks again for what it shows.
    public static let device = "device"
}

/// A `device` event's data.
public struct DeviceChange: Codable, Hashable, Sendable {
    /// Increases with every change.
    public var revision: UInt64
    /// A button of the clock was pressed (`stop` or `snooze`), after the clock acted on it; the
    /// revision is the latest change's then. `nil`: a change of the alarms or the device's state.
    public var button: String?

    public init(revision: UInt64, button: String? = nil) {
        self.revision = revision
        self.button = button
    }
}
