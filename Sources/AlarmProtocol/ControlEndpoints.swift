import AlarmKitCore
import AlarmModel

// Each operation's endpoint: `ControlEndpoint.status` is `status` taking nothing and answering a
// `StatusReport`, so `client.call(.status)` is typed at both ends. One constant per operation, in
// an extension per type pair.

extension ControlEndpoint where Parameters == ControlHelloParameters, Answer == ControlHello {
    public static var hello: Self { .init(.hello) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == [Alarm] {
    public static var alarms: Self { .init(.alarms) }
}

extension ControlEndpoint where Parameters == ScheduleParameters, Answer == Alarm {
    public static var schedule: Self { .init(.schedule) }
    public static var replace: Self { .init(.replace) }
}

extension ControlEndpoint where Parameters == AlarmIDParameters, Answer == NullAnswer {
    /// One of the commands on an alarm: `stop`, `countdown`, `pause`, `resume`, `cancel`,
    /// `disable`, `enable` or `skip`.
    public static func command(_ command: AlarmCommand) -> Self { .init(ControlOperation(command)) }
    public static var acknowledgeIntent: Self { .init(.acknowledgeIntent) }
}

extension ControlEndpoint where Parameters == SetWakeParameters, Answer == NullAnswer {
    public static var setWake: Self { .init(.setWake) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == ControlSubscription {
    public static var subscribeAlarms: Self { .init(.subscribeAlarms) }
    public static var subscribeAuthorization: Self { .init(.subscribeAuthorization) }
    public static var subscribeIntents: Self { .init(.subscribeIntents) }
    public static var subscribeDevice: Self { .init(.subscribeDevice) }
}

extension ControlEndpoint where Parameters == UnsubscribeParameters, Answer == NullAnswer {
    public static var unsubscribe: Self { .init(.unsubscribe) }
}

extension ControlEndpoint where Parameters == AlarmIDParameters, Answer == ControlIntentTaken {
    public static var takeIntent: Self { .init(.takeIntent) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == AlarmManager.AuthorizationState {
    public static var authorizationState: Self { .init(.authorizationState) }
    public static var requestAuthorization: Self { .init(.requestAuthorization) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == [OwnedAlarm] {
    public static var allAlarms: Self { .init(.allAlarms) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == [ClientAuthorization] {
    public static var authorizations: Self { .init(.authorizations) }
}

extension ControlEndpoint where Parameters == SetAuthorizationParameters, Answer == NullAnswer {
    public static var setAuthorization: Self { .init(.setAuthorization) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == StatusReport {
    public static var status: Self { .init(.status) }
}

extension ControlEndpoint where Parameters == HistoryParameters, Answer == [HistoryEntry] {
    public static var history: Self { .init(.history) }
}

extension ControlEndpoint where Parameters == RecordsParameters, Answer == [AlarmRecord] {
    public static var alarmRecords: Self { .init(.alarmRecords) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == SettingsReport {
    public static var settings: Self { .init(.settings) }
}

extension ControlEndpoint where Parameters == HouseholdSettings, Answer == HouseholdSettings {
    public static var setSettings: Self { .init(.setSettings) }
}

extension ControlEndpoint where Parameters == TrySoundParameters, Answer == NullAnswer {
    public static var trySound: Self { .init(.trySound) }
}

extension ControlEndpoint where Parameters == DeviceActionParameters, Answer == NullAnswer {
    public static var deviceAction: Self { .init(.deviceAction) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == [String] {
    public static var sounds: Self { .init(.sounds) }
}

extension ControlEndpoint where Parameters == NoParameters, Answer == [SoundFileInfo] {
    public static var soundFiles: Self { .init(.soundFiles) }
}

extension ControlEndpoint where Parameters == UploadSoundParameters, Answer == UploadSoundReport {
    public static var uploadSound: Self { .init(.uploadSound) }
}

extension ControlEndpoint where Parameters == SoundNameParameters, Answer == NullAnswer {
    public static var deleteSound: Self { .init(.deleteSound) }
}

extension ControlEndpoint where Parameters == PairingParameters, Answer == PairingReply {
    public static var requestPairing: Self { .init(.requestPairing) }
}

extension ControlEndpoint where Parameters == SelfTestParameters, Answer == SelfTestReport {
    public static var selfTest: Self { .init(.selfTest) }
}

extension ControlEndpoint where Parameters == SetTimeParameters, Answer == SetTimeReport {
    public static var setTime: Self { .init(.setTime) }
}

extension ControlEndpoint where Parameters == SetLightParameters, Answer == NullAnswer {
    public static var setLight: Self { .init(.setLight) }
}

extension ControlOperation {
    /// The operation of a command on an alarm (each is named by its raw value).
    public init(_ command: AlarmCommand) {
        switch command {
        case .stop: self = .stop
        case .countdown: self = .countdown
        case .pause: self = .pause
        case .resume: self = .resume
        case .cancel: self = .cancel
        case .disable: self = .disable
        case .enable: self = .enable
        case .skip: self = .skip
        }
    }
}
