import AlarmKitCore
import AlarmModel
import FoundationEssentials

/// A machine-readable error code on the wire: the ``AlarmOperationError`` cases one to one,
/// `maximumLimitReached`, and the protocol's own.
///
/// A struct rather than an enum so that a client can carry a code a newer daemon invents.
public struct ControlErrorCode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    // ``AlarmOperationError`` and ``AlarmManager/AlarmError``.
    public static let notFound = Self(rawValue: "notFound")
    public static let invalidTransition = Self(rawValue: "invalidTransition")
    public static let noCountdownDuration = Self(rawValue: "noCountdownDuration")
    public static let duplicateID = Self(rawValue: "duplicateID")
    public static let invalidConfiguration = Self(rawValue: "invalidConfiguration")
    public static let notAuthorized = Self(rawValue: "notAuthorized")
    public static let storageFailure = Self(rawValue: "storageFailure")
    public static let serviceUnavailable = Self(rawValue: "serviceUnavailable")
    public static let maximumLimitReached = Self(rawValue: "maximumLimitReached")

    // The protocol's own.
    /// Not a JSON object, not UTF-8, a field missing or of the wrong type.
    public static let malformed = Self(rawValue: "malformed")
    /// A line longer than ``ControlProtocol/maximumRequestSize``; the connection is closed after it.
    public static let tooLarge = Self(rawValue: "tooLarge")
    public static let unknownOperation = Self(rawValue: "unknownOperation")
    public static let unsupportedVersion = Self(rawValue: "unsupportedVersion")
    /// An administrator's operation from someone who is not one.
    public static let forbidden = Self(rawValue: "forbidden")
    /// Too many clients, requests in flight or subscriptions; try again later.
    public static let busy = Self(rawValue: "busy")
    /// The daemon will not do it, for the reason in the message (a time NTP contradicts).
    public static let refused = Self(rawValue: "refused")
}

/// The `error` object of a failed response: a code, one readable line, and the fields that let a
/// client rebuild the exact ``AlarmOperationError``.
public struct ControlErrorBody: Codable, Hashable, Sendable {
    public var code: ControlErrorCode
    public var message: String
    /// The alarm concerned (`notFound`, `invalidTransition`, `noCountdownDuration`, `duplicateID`).
    public var alarm: Alarm.ID?
    /// The refused action (`invalidTransition`).
    public var action: AlarmAction?
    /// The alarm's state at the time (`invalidTransition`).
    public var alarmState: Alarm.State?
    /// The caller's authorization (`notAuthorized`).
    public var authorization: AlarmManager.AuthorizationState?
    /// The reason text of `invalidConfiguration`, `storageFailure`, `serviceUnavailable`.
    public var reason: String?

    public init(
        code: ControlErrorCode, message: String, alarm: Alarm.ID? = nil, action: AlarmAction? = nil,
        alarmState: Alarm.State? = nil, authorization: AlarmManager.AuthorizationState? = nil, reason: String? = nil
    ) {
        self.code = code
        self.message = message
        self.alarm = alarm
        self.action = action
        self.alarmState = alarmState
        self.authorization = authorization
        self.reason = reason
    }

    /// The wire form of an error a handler threw. An ``AlarmChangeRefusal`` is `invalidTransition`
    /// with its description. Errors that are neither that, an ``AlarmOperationError``, an
    /// ``AlarmManager/AlarmError`` nor a ``ControlError`` become `serviceUnavailable` with their
    /// description.
    public init(_ error: any Error) {
        switch error {
        case let error as AlarmOperationError:
            self.init(error)
        case let error as AlarmManager.AlarmError:
            switch error {
            case .maximumLimitReached: self.init(code: .maximumLimitReached, message: error.description)
            }
        case let error as ControlError:
            self.init(code: error.code, message: error.message)
        case let refusal as AlarmChangeRefusal:
            self.init(code: .invalidTransition, message: refusal.description)
        default:
            let text = "\(error)"
            self.init(code: .serviceUnavailable, message: AlarmOperationError.serviceUnavailable(text).description, reason: text)
        }
    }

    package init(_ error: AlarmOperationError) {
        let message = error.description
        switch error {
        case .notFound(let id):
            self.init(code: .notFound, message: message, alarm: id)
        case .invalidTransition(let id, let action, let state):
            self.init(code: .invalidTransition, message: message, alarm: id, action: action, alarmState: state)
        case .noCountdownDuration(let id):
            self.init(code: .noCountdownDuration, message: message, alarm: id)
        case .duplicateID(let id):
            self.init(code: .duplicateID, message: message, alarm: id)
        case .invalidConfiguration(let reason):
            self.init(code: .invalidConfiguration, message: message, reason: reason)
        case .notAuthorized(let state):
            self.init(code: .notAuthorized, message: message, authorization: state)
        case .storageFailure(let reason):
            self.init(code: .storageFailure, message: message, reason: reason)
        case .serviceUnavailable(let reason):
            self.init(code: .serviceUnavailable, message: message, reason: reason)
        }
    }

    /// The error a client throws for this body: the exact ``AlarmOperationError`` or
    /// ``AlarmManager/AlarmError`` it came from, else a ``ControlError``.
    public var error: any Error {
        switch code {
        case .notFound: if let alarm { return AlarmOperationError.notFound(alarm) }
        case .invalidTransition:
            if let alarm, let action, let alarmState {
                return AlarmOperationError.invalidTransition(alarm, action: action, from: alarmState)
            }
        case .noCountdownDuration: if let alarm { return AlarmOperationError.noCountdownDuration(alarm) }
        case .duplicateID: if let alarm { return AlarmOperationError.duplicateID(alarm) }
        case .invalidConfiguration: return AlarmOperationError.invalidConfiguration(reason ?? message)
        case .notAuthorized: if let authorization { return AlarmOperationError.notAuthorized(authorization) }
        case .storageFailure: return AlarmOperationError.storageFailure(reason ?? message)
        case .serviceUnavailable: return AlarmOperationError.serviceUnavailable(reason ?? message)
        case .maximumLimitReached: return AlarmManager.AlarmError.maximumLimitReached
        default: break
        }
        return ControlError(code, message)
    }
}

/// A refusal of the protocol itself (``ControlErrorCode/malformed``, `forbidden`, `busy`, ...), or
/// an error a client received whose code has no richer type: an ``AlarmChangeRefusal``
/// (`invalidTransition` without an AlarmKit action), or a code this build does not know.
public struct ControlError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ControlErrorCode
    /// One readable line.
    public var message: String

    public init(_ code: ControlErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (\(code))" }
}
