import AlarmClient
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials

/// The page's connection to alarmd: an AlarmKit client of the control socket like any other,
/// in the administrators' group so that it shows and rings the whole household's alarms.
public final class DeviceLink: Sendable {
    private let client: ControlClient
    /// Pairing questions wait for a person for up to a minute: on a connection of their own,
    /// so that they hold up nothing else.
    private let questions: ControlClient
    /// A sound's pieces, the last one decoded before it is answered: on a connection of their
    /// own, so that Stop from a phone never waits behind an upload.
    private let uploads: ControlClient

    public init(socketPath: String) {
        client = ControlClient(connector: .unixSocket(path: socketPath))
        questions = ControlClient(connector: .unixSocket(path: socketPath))
        uploads = ControlClient(connector: .unixSocket(path: socketPath))
    }

    public func close() {
        client.close()
        questions.close()
        uploads.close()
    }

    /// The page's own uid on alarmd's side: its alarms are the ones it may change.
    func ownUID() async throws -> UInt32 {
        try await client.hello().uid
    }

    /// Every client's alarms, with their titles and phases.
    func records() async throws -> [AlarmRecord] {
        try await client.alarmRecords(all: true)
    }

    /// Everyone's alarms with the id `id` (ids are each client's own; `all: false`: the page's own).
    func records(id: UUID, all: Bool) async throws -> [AlarmRecord] {
        try await client.alarmRecords(all: all, id: id)
    }

    /// The device's parts, clock and store; `nil` from a daemon without `status` (the simulator).
    func status() async -> StatusReport? {
        try? await client.status()
    }

    /// The household's settings, and what a test of the volume plays.
    func settings() async throws -> SettingsReport {
        try await client.settings()
    }

    func setSettings(_ settings: HouseholdSettings) async throws {
        try await client.setSettings(settings)
    }

    func trySound(volumeDB: Double, sound: String? = nil) async throws {
        try await client.trySound(volumeDB: volumeDB, sound: sound)
    }

    /// The sound files alarms may name, with where each comes from and who uses it.
    func soundFiles() async throws -> [SoundFileInfo] {
        try await client.soundFiles()
    }

    func uploadSound(named name: String, upload: String?, offset: Int, piece: Data, final: Bool) async throws -> UploadSoundReport {
        try await uploads.uploadSound(named: name, upload: upload, offset: offset, piece: piece, final: final)
    }

    func deleteSound(named name: String) async throws {
        try await client.deleteSound(named: name)
    }

    /// What happened to the alarms lately (rang, stopped, missed...), everyone's.
    func history() async throws -> [HistoryEntry] {
        try await client.history(all: true)
    }

    func schedule(id: Alarm.ID, definition: AlarmDefinition) async throws {
        _ = try await client.schedule(id: id, definition: definition)
    }

    /// The page's own alarm `id` with a new definition, under the same id.
    func replace(id: Alarm.ID, definition: AlarmDefinition) async throws {
        _ = try await client.replace(id: id, definition: definition)
    }

    /// How one of the page's own alarms wakes.
    func setWake(_ wake: AlarmWake, id: Alarm.ID) async throws {
        try await client.setWake(wake, id: id)
    }

    /// An action on one of the page's own alarms (`cancel`, `pause`, `disable`...).
    func perform(_ action: ControlEndpoint<AlarmIDParameters, NullAnswer>, id: Alarm.ID) async throws {
        _ = try await client.call(action, AlarmIDParameters(id: id))
    }

    /// STOP or SNOOZE on anyone's ringing alarm, as the device's buttons would.
    /// Sets the clock to the phone's time (alarmd refuses what NTP contradicts, or nonsense).
    func setTime(_ time: Date) async throws -> SetTimeReport {
        try await client.setTime(time, from: .phone)
    }

    func deviceAction(_ action: AlarmAction, id: Alarm.ID, owner: UInt32) async throws {
        try await client.deviceAction(action, id: id, owner: owner)
    }

    /// Something changed on the device.
    func changes() -> AsyncStream<DeviceChange> {
        client.deviceChanges()
    }

    /// Asks the person at the clock: "Pair phone NAME? Code CODE".
    func askToPair(name: String, code: String) async -> PairingAnswer {
        do {
            let reply = try await questions.requestPairing(name: name, code: code)
            switch reply.answer {
            case .allowed: return .allowed
            case .refused: return .refused
            case .withdrawn: return .withdrawn
            case .tooSoon: return .tooSoon(retryAfter: reply.retryAfter ?? 60)
            case .unanswered: return .unanswered
            }
        } catch {
            return .failed("\(error)")
        }
    }
}

/// What the person at the clock answered.
enum PairingAnswer: Sendable {
    case allowed
    case refused
    case unanswered
    /// An alarm rang before anyone answered: the question was taken off the display.
    case withdrawn
    /// The clock asked about a phone less than a minute ago and does not light its display for
    /// another one yet.
    case tooSoon(retryAfter: Int)
    /// The question could not be asked (alarmd unreachable, or too old for pairing).
    case failed(String)
}
