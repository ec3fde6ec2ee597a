import AlarmKitCore
import AlarmModel
import FoundationEssentials

/// Every operation of protocol version 1, by its `op` name: the AlarmKit ones every server
/// answers and the daemon's own (`status`, `settings`, ...), which alarmd registers.
///
/// Each has one ``endpoint``: its parameter and answer types, which a client calls
/// (`ControlClient.call(_:_:)`) and a handler serves (`ControlHandlers.register(_:_:)`), so both
/// ends encode and decode the same types.
///
/// | op | params | result |
/// |---|---|---|
/// | `hello` | ``ControlHelloParameters`` | ``ControlHello`` |
/// | `alarms` | none | the caller's `[Alarm]` |
/// | `schedule`, `replace` (beyond AlarmKit: same id) | ``ScheduleParameters`` | the `Alarm` |
/// | `stop`, `countdown`, `pause`, `resume`, `cancel` (``AlarmCommand``, as AlarmKit's) | `id` | `null` |
/// | `disable`, `enable`, `skip` (beyond AlarmKit: ``AlarmCommand``) | `id` | `null` |
/// | `setWake` (beyond AlarmKit: ``AlarmWake``) | ``SetWakeParameters`` | `null` |
/// | `subscribeAlarms`, `subscribeAuthorization`, `subscribeIntents` | none | ``ControlSubscription``; then events |
/// | `subscribeDevice` (administrators) | none | ``ControlSubscription``; then `device` events |
/// | `unsubscribe` | `subscription` | `null` (also for an unknown number) |
/// | `takeIntent` | `id` (the delivery's) | ``ControlIntentTaken``: `true` for one connection of the app |
/// | `acknowledgeIntent` | `id` (the delivery's) | `null` (also for an unknown id) |
/// | `authorizationState`, `requestAuthorization` | none | `"notDetermined"`, `"denied"` or `"authorized"` |
/// | `allAlarms` (administrators) | none | `[OwnedAlarm]` |
/// | `authorizations` (administrators) | none | `[ClientAuthorization]` |
/// | `setAuthorization` (administrators) | `uid`, `state` | `null` |
/// | `status` | none | ``StatusReport`` |
/// | `history` | ``HistoryParameters`` | `[HistoryEntry]` |
/// | `alarmRecords` | ``RecordsParameters`` | `[AlarmRecord]` |
/// | `settings` | none | ``SettingsReport`` |
/// | `setSettings` (administrators) | ``HouseholdSettings`` | ``HouseholdSettings`` |
/// | `trySound` (administrators) | ``TrySoundParameters`` | `null` |
/// | `deviceAction` (administrators) | ``DeviceActionParameters`` | `null` |
/// | `sounds` | none | `[String]` |
/// | `soundFiles` | none | `[SoundFileInfo]` |
/// | `uploadSound` (administrators) | ``UploadSoundParameters`` | ``UploadSoundReport`` |
/// | `deleteSound` (administrators) | ``SoundNameParameters`` | `null` |
/// | `requestPairing` (administrators) | ``PairingParameters`` | ``PairingReply`` |
/// | `selfTest` (administrators) | ``SelfTestParameters`` | ``SelfTestReport`` |
/// | `setTime` (administrators) | ``SetTimeParameters`` | ``SetTimeReport`` |
/// | `setLight` (administrators) | ``SetLightParameters`` | `null` |
///
/// To add an operation: a case here (and its arm in ``endpoint``, and in
/// ``requiresAdministrator`` if it is for administrators), its parameter and answer types with
/// a `ControlEndpoint` constant for them (`ControlEndpoints.swift`), and one handler registered
/// for that constant; `ControlClient` then calls it with `call(.name, parameters)`, and a typed
/// method is one line over that.
public enum ControlOperation: String, CaseIterable, Hashable, Sendable {
    case hello, alarms, schedule, replace
    case stop, countdown, pause, resume, cancel
    case disable, enable, skip, setWake
    case subscribeAlarms, subscribeAuthorization, subscribeIntents, subscribeDevice, unsubscribe
    case takeIntent, acknowledgeIntent
    case authorizationState, requestAuthorization
    case allAlarms, authorizations, setAuthorization
    case status, history, alarmRecords, settings, setSettings, trySound, deviceAction, sounds, requestPairing, selfTest
    case setTime, soundFiles, uploadSound, deleteSound, setLight

    /// The `op` field.
    public var name: String { rawValue }

    /// Every operation's name: what a version-1 server may answer.
    public static let names: Set<String> = Set(allCases.map(\.rawValue))

    /// Whether only administrators (root or the administrators' group) may call it; others get
    /// `forbidden`, before the parameters are read.
    public var requiresAdministrator: Bool {
        switch self {
        case .subscribeDevice, .allAlarms, .authorizations, .setAuthorization,
            .setSettings, .trySound, .deviceAction, .requestPairing, .selfTest, .setTime, .uploadSound, .deleteSound, .setLight:
            true
        default:
            false
        }
    }

    /// Its parameter and answer types.
    public var endpoint: any ControlEndpointTypes {
        switch self {
        case .hello: ControlEndpoint.hello
        case .alarms: ControlEndpoint.alarms
        case .schedule: ControlEndpoint.schedule
        case .replace: ControlEndpoint.replace
        case .stop, .countdown, .pause, .resume, .cancel, .disable, .enable, .skip, .acknowledgeIntent:
            ControlEndpoint<AlarmIDParameters, NullAnswer>(self)
        case .setWake: ControlEndpoint.setWake
        case .subscribeAlarms: ControlEndpoint.subscribeAlarms
        case .subscribeAuthorization: ControlEndpoint.subscribeAuthorization
        case .subscribeIntents: ControlEndpoint.subscribeIntents
        case .subscribeDevice: ControlEndpoint.subscribeDevice
        case .unsubscribe: ControlEndpoint.unsubscribe
        case .takeIntent: ControlEndpoint.takeIntent
        case .authorizationState: ControlEndpoint.authorizationState
        case .requestAuthorization: ControlEndpoint.requestAuthorization
        case .allAlarms: ControlEndpoint.allAlarms
        case .authorizations: ControlEndpoint.authorizations
        case .setAuthorization: ControlEndpoint.setAuthorization
        case .status: ControlEndpoint.status
        case .history: ControlEndpoint.history
        case .alarmRecords: ControlEndpoint.alarmRecords
        case .settings: ControlEndpoint.settings
        case .setSettings: ControlEndpoint.setSettings
        case .trySound: ControlEndpoint.trySound
        case .deviceAction: ControlEndpoint.deviceAction
        case .sounds: ControlEndpoint.sounds
        case .requestPairing: ControlEndpoint.requestPairing
        case .selfTest: ControlEndpoint.selfTest
        case .setTime: ControlEndpoint.setTime
        case .setLight: ControlEndpoint.setLight
        case .soundFiles: ControlEndpoint.soundFiles
        case .uploadSound: ControlEndpoint.uploadSound
        case .deleteSound: ControlEndpoint.deleteSound
        }
    }
}

/// An operation's types, without saying which: for listing and checking every operation.
public protocol ControlEndpointTypes: Sendable {
    var operation: ControlOperation { get }
    var parametersType: any (Codable & Sendable).Type { get }
    var answerType: any (Codable & Sendable).Type { get }
}

/// One operation with its parameter and answer types: what `ControlClient.call` sends and a
/// registered handler serves. The constants (`.status`, `.history`, ...) are in
/// `ControlEndpoints.swift`; an operation that takes nothing takes ``NoParameters``, and one that
/// returns nothing answers ``NullAnswer`` (`null`).
public struct ControlEndpoint<Parameters: Codable & Sendable, Answer: Codable & Sendable>: ControlEndpointTypes {
    public let operation: ControlOperation

    init(_ operation: ControlOperation) {
        self.operation = operation
    }

    public var parametersType: any (Codable & Sendable).Type { Parameters.self }
    public var answerType: any (Codable & Sendable).Type { Answer.self }
}

/// The result of an operation that returns nothing: `null` on the wire, and only `null` read.
public struct NullAnswer: Codable, Hashable, Sendable {
    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard container.decodeNil() else {
            throw DecodingError.typeMismatch(
                NullAnswer.self, .init(codingPath: decoder.codingPath, debugDescription: "expected null"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}
