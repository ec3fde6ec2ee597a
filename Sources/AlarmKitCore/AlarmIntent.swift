import FoundationEssentials

/// An intent as the device keeps and delivers it: a name, and parameters as text.
///
/// On Apple's platforms an alarm's `stopIntent` and `secondaryIntent` are App Intents that the
/// system runs in the app's process. `alarmd` never runs an app's code: when a person presses
/// one of the alarm's buttons (STOP, SNOOZE, STOP held on a countdown, at the device or on its
/// page), it delivers the button's intent to the app that scheduled the alarm as an
/// ``AlarmIntentDelivery``, at once if it is connected, else when it next connects. One process
/// of the app runs its ``LiveActivityIntent`` (``AlarmManager/handleIntents(_:)``); a shell
/// script can react to the name (`alarmctl watch --json`).
public struct AlarmIntent: Codable, Hashable, Sendable, AlarmIntentConvertible {
    /// A name the owning client recognises, for example `"StopIntent"` or `"coffee"`.
    public var name: String
    public var parameters: [String: String]

    public init(_ name: String, parameters: [String: String] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    public func alarmIntent() -> AlarmIntent { self }
}

/// What a configuration's `stopIntent` and `secondaryIntent` accept: an app's
/// ``LiveActivityIntent``, or a bare ``AlarmIntent``.
public protocol AlarmIntentConvertible: Sendable {
    /// The form the device keeps and delivers.
    /// - Throws: `.invalidConfiguration` if the intent cannot be kept as one.
    func alarmIntent() throws(AlarmOperationError) -> AlarmIntent
}

/// An app's code for an alarm's button, as App Intents' `LiveActivityIntent`: the owning app's
/// process runs `perform()` when the person presses the button at the device.
///
/// ```swift
/// struct StopIntent: LiveActivityIntent {
///     var alarmID: String
///     func perform() throws -> some IntentResult {
///         print("Good morning: \(alarmID) stopped")
///         return .result()
///     }
/// }
///
/// AlarmManager.shared.handleIntents(StopIntent.self)
/// let configuration = AlarmManager.AlarmConfiguration(..., stopIntent: StopIntent(alarmID: id.uuidString))
/// ```
///
/// Where Linux differs from App Intents: the parameters are the type's `Codable` properties (no
/// `@Parameter` wrappers), and each must encode as a string (`String`, `UUID`, a `String` enum),
/// for they travel as text; and the process that runs intents names their types in
/// ``AlarmManager/handleIntents(_:)``, as there is no app metadata to find them in.
public protocol LiveActivityIntent: AlarmIntentConvertible, Codable {
    associatedtype PerformResult: IntentResult
    /// The name the intent is kept and delivered under; by default the type's name.
    static var intentName: String { get }
    func perform() async throws -> PerformResult
}

extension LiveActivityIntent {
    public static var intentName: String { String(describing: Self.self) }

    public func alarmIntent() throws(AlarmOperationError) -> AlarmIntent {
        do {
            let parameters = try JSONDecoder().decode([String: String].self, from: JSONEncoder().encode(self))
            return AlarmIntent(Self.intentName, parameters: parameters)
        } catch {
            throw .invalidConfiguration("intent \(Self.intentName): every property must encode as a string")
        }
    }

    /// The app's intent again, from what the device delivered.
    /// - Throws: `DecodingError` if the parameters do not fit this type.
    public init(_ intent: AlarmIntent) throws {
        self = try JSONDecoder().decode(Self.self, from: JSONEncoder().encode(intent.parameters))
    }
}

/// What an intent's `perform()` returns, as in App Intents: `return .result()`.
public protocol IntentResult: Sendable {}

/// The result of an intent that returns nothing.
public struct EmptyIntentResult: IntentResult {
    public init() {}
}

extension IntentResult where Self == EmptyIntentResult {
    public static func result() -> Self { EmptyIntentResult() }
}

/// An alarm's intent on its way to the client that owns the alarm: the person pressed a button.
public struct AlarmIntentDelivery: Codable, Hashable, Sendable, Identifiable {
    /// Which button of the alert was pressed.
    public enum Button: String, Codable, Hashable, Sendable {
        case stop, secondary
    }

    /// This delivery's own id: the client acknowledges it once handled, and it is not delivered
    /// again.
    public var id: UUID
    public var alarmID: Alarm.ID
    public var button: Button
    public var intent: AlarmIntent
    /// When the button was pressed.
    public var date: Date

    public init(id: UUID = UUID(), alarmID: Alarm.ID, button: Button, intent: AlarmIntent, date: Date) {
        self.id = id
        self.alarmID = alarmID
        self.button = button
        self.intent = intent
        self.date = date
    }
}
