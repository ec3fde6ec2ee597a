import AlarmClient
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials
import LinuxSupport

/// One command's conversation with alarmd: a ``ControlClient`` whose errors become
/// ``CommandFailure``s, and the look-ups commands share (alarms with their details, id prefixes).
struct DaemonSession: Sendable {
    let client: ControlClient
    let path: String
    /// What the daemon said on connecting: who it takes the caller for, and whether an administrator.
    let hello: ControlHello

    /// Connects and says hello, so that an absent daemon fails here, before anything else.
    static func connect(path: String) async throws -> DaemonSession {
        let client = ControlClient(path: path)
        do {
            let hello = try await client.hello()
            return DaemonSession(client: client, path: path, hello: hello)
        } catch {
            client.close()
            throw CommandFailure.from(error, socket: path)
        }
    }

    /// Runs `body`, turning the client's errors into ``CommandFailure``s.
    func call<Result>(_ body: (ControlClient) async throws -> Result) async throws -> Result {
        do {
            return try await body(client)
        } catch {
            throw CommandFailure.from(error, socket: path)
        }
    }

    func close() {
        client.close()
    }

    /// The dB range this clock's volume percentages span (its card's mixer range, or -60 to 0):
    /// a percentage means what the page and alsamixer show for this clock.
    func volumeScale() async -> ClosedRange<Double> {
        (try? await client.settings().volumeScale) ?? AlarmWake.volumeRange
    }

    /// Before a request that may wait for the person at the device (the first `schedule` of a
    /// user not yet asked, `auth request`): says so on stderr, since it can take up to 60 s.
    func announceAuthorizationPrompt() async throws {
        if try await call({ try await $0.authorizationState() }) == .notDetermined {
            writeToStandardError(Self.waitingForAuthorization + "\n")
        }
    }

    static let waitingForAuthorization =
        "Waiting for the person at the device to allow or deny... (hold STOP and SNOOZE together for yes, press STOP for no)"

    // MARK: - Alarms

    /// The caller's alarms, or everyone's (`all`, administrators only), oldest first when the
    /// daemon reports creation order, with titles and dates when it reports them.
    func alarms(all: Bool = false) async throws -> [AlarmView] {
        if let records = try await records(all: all) {
            return records.sorted { $0.sequenceNumber < $1.sequenceNumber }.map(AlarmView.init(record:))
        }
        if all {
            return try await call { try await $0.allAlarms() }.map { AlarmView(alarm: $0.alarm, owner: $0.owner.rawValue) }
        }
        let owner = hello.uid
        return try await call { try await $0.alarms() }.map { AlarmView(alarm: $0, owner: owner) }
    }

    /// The daemon's records (or only the one with `id`); `nil` from a daemon without
    /// `alarmRecords`, whose alarms are listed from the AlarmKit view alone: no titles, and no
    /// remaining time for countdowns.
    func records(all: Bool, id: Alarm.ID? = nil) async throws -> [AlarmRecord]? {
        let records: [AlarmRecord]
        do {
            records = try await client.alarmRecords(all: all, id: id)
        } catch let error as ControlError where error.code == .unknownOperation {
            return nil
        } catch {
            throw CommandFailure.from(error, socket: path)
        }
        // A daemon that ignores the `id` parameter answers with every alarm.
        guard let id else { return records }
        return records.filter { $0.id == id }
    }

    /// The one alarm of the caller's whose id starts with `key`; refused if none or several match.
    func resolve(_ key: AlarmIDPrefix) async throws -> AlarmView {
        let prefix = key.text
        let matches = try await alarms().filter { key.matches($0.id) }
        switch matches.count {
        case 1:
            return matches[0]
        case 0:
            throw CommandFailure.refused("no alarm of yours has an id starting with \(prefix)")
        default:
            let shown = matches.prefix(4).map { $0.id.uuidString }.joined(separator: ", ")
            throw CommandFailure.refused(
                "id prefix \(prefix) is ambiguous: it matches \(matches.count) alarms (\(shown)\(matches.count > 4 ? ", ..." : ""))")
        }
    }
}

/// The start of an alarm id as a person types it: hex digits, any case; dashes are ignored, so
/// `6f0c1a2b9d` and `6F0C1A2B-9D` are the same prefix.
struct AlarmIDPrefix {
    /// As typed, for messages.
    let text: String
    /// Upper-case hex digits, no dashes.
    let digits: String

    init(_ text: String) throws {
        let digits = text.uppercased().filter { $0 != "-" }
        guard !digits.isEmpty, digits.count <= 32, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
            throw CommandFailure.usage("invalid alarm id \"\(text)\": expected an id or its first characters, such as 6F0C1A2B")
        }
        self.text = text
        self.digits = digits
    }

    func matches(_ id: Alarm.ID) -> Bool {
        id.uuidString.filter { $0 != "-" }.hasPrefix(digits)
    }
}
