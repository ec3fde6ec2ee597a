import AlarmKitCore
import AlarmModel
import AlarmProtocol
import FoundationEssentials

extension ControlClient {
    /// Calls `endpoint` with `parameters` and returns its answer, decoded straight from the
    /// response line: every typed method below is one line over this.
    ///
    /// - Throws: the ``AlarmOperationError`` or ``AlarmManager/AlarmError`` the daemon reported,
    ///   a ``ControlError`` for a protocol refusal (`forbidden`, `unknownOperation`, ...) or an
    ///   answer that is not the endpoint's, or ``AlarmOperationError/serviceUnavailable(_:)`` if
    ///   the daemon cannot be reached.
    public func call<Parameters, Answer>(_ endpoint: ControlEndpoint<Parameters, Answer>, _ parameters: Parameters) async throws -> Answer {
        try await request(endpoint.operation.name, parameters, as: Answer.self)
    }

    /// Calls an operation that takes no parameters.
    public func call<Answer>(_ endpoint: ControlEndpoint<NoParameters, Answer>) async throws -> Answer {
        try await call(endpoint, NoParameters())
    }

    // MARK: - The AlarmKit operations

    public func alarms() async throws -> [Alarm] {
        try await call(.alarms)
    }

    /// Schedules an alarm; returns it once the daemon made it durable.
    public func schedule(id: Alarm.ID, definition: AlarmDefinition) async throws -> Alarm {
        try await call(.schedule, ScheduleParameters(id: id, definition: definition))
    }

    /// Gives one of the caller's alarms a new definition under the same id, in one durable step
    /// (beyond AlarmKit: ``ControlOperation/replace``); returns it once durable.
    public func replace(id: Alarm.ID, definition: AlarmDefinition) async throws -> Alarm {
        try await call(.replace, ScheduleParameters(id: id, definition: definition))
    }

    /// Stops, snoozes, pauses, resumes or cancels one of the caller's alarms, or disables, enables
    /// or skips it (the device's extensions to AlarmKit: ``AlarmCommand`` says what each does and
    /// refuses). `alarmRecords` shows the result (`enabled`, `skippedDate`), and `alarmUpdates`
    /// subscribers hear of it.
    public func perform(_ command: AlarmCommand, id: Alarm.ID) async throws {
        _ = try await call(.command(command), AlarmIDParameters(id: id))
    }

    /// `disable`, `enable` or `skip` on `owner`'s alarm (administrators only): what the
    /// household's bridge does to the alarms it shows.
    public func perform(_ command: AlarmCommand, id: Alarm.ID, owner: UInt32) async throws {
        _ = try await call(.command(command), AlarmIDParameters(id: id, owner: owner))
    }

    /// Sets how one of the caller's alarms wakes: its fade-in and loudest volume, each `nil` for
    /// the household's (beyond AlarmKit: ``AlarmWake``). `alarmRecords` shows it (`wake`).
    public func setWake(_ wake: AlarmWake, id: Alarm.ID) async throws {
        _ = try await call(.setWake, SetWakeParameters(id: id, wake: wake))
    }

    public func authorizationState() async throws -> AlarmManager.AuthorizationState {
        try await call(.authorizationState)
    }

    /// Asks the device's owner (only while not determined); may take as long as the prompt.
    public func requestAuthorization() async throws -> AlarmManager.AuthorizationState {
        try await call(.requestAuthorization)
    }

    /// Takes a delivery to run it: `true` on exactly one connection of the app. The take lasts
    /// until the delivery is acknowledged or this connection closes.
    public func takeIntent(_ id: UUID) async throws -> Bool {
        try await call(.takeIntent, AlarmIDParameters(id: id)).taken
    }

    /// Marks a delivery handled, so it is not delivered again.
    public func acknowledgeIntent(_ id: UUID) async throws {
        _ = try await call(.acknowledgeIntent, AlarmIDParameters(id: id))
    }

    // MARK: - The administrators' operations

    /// Every client's alarms with their owners. Administrators only (else `forbidden`).
    public func allAlarms() async throws -> [OwnedAlarm] {
        try await call(.allAlarms)
    }

    /// Every recorded authorization. Administrators only.
    public func authorizations() async throws -> [ClientAuthorization] {
        try await call(.authorizations)
    }

    /// Grants (`.authorized`), revokes (`.denied`) or resets a client. Administrators only; an
    /// administrator's own state cannot be changed (`forbidden`).
    public func setAuthorization(_ authorization: AlarmManager.AuthorizationState, forUID uid: UInt32) async throws {
        _ = try await call(.setAuthorization, SetAuthorizationParameters(uid: uid, state: authorization))
    }

    // MARK: - The daemon's own operations

    /// The device's parts and clock, and the caller's alarm figures (an administrator's: every
    /// client's).
    public func status() async throws -> StatusReport {
        try await call(.status)
    }

    /// What happened to the caller's alarms lately (rang, stopped, missed...); everyone's with
    /// `all` (administrators only).
    public func history(all: Bool = false) async throws -> [HistoryEntry] {
        try await call(.history, HistoryParameters(all: all ? true : nil))
    }

    /// The caller's alarms as full records (titles, phases, countdown ends), or everyone's with
    /// `all` (administrators only); only those with `id` if given.
    public func alarmRecords(all: Bool = false, id: Alarm.ID? = nil) async throws -> [AlarmRecord] {
        try await call(.alarmRecords, RecordsParameters(all: all ? true : nil, id: id))
    }

    /// The household's settings and how the display writes times.
    public func settings() async throws -> SettingsReport {
        try await call(.settings)
    }

    /// Replaces the household's settings (administrators only); returns them as now in effect.
    @discardableResult
    public func setSettings(_ settings: HouseholdSettings) async throws -> HouseholdSettings {
        try await call(.setSettings, settings)
    }

    /// Plays `sound` (a name ``sounds()`` lists; the built-in tone when `nil`) at `volumeDB` for a
    /// few seconds (administrators only); `busy` while an alarm rings.
    public func trySound(volumeDB: Double, sound: String? = nil) async throws {
        _ = try await call(.trySound, TrySoundParameters(volumeDB: volumeDB, sound: sound))
    }

    /// Sets the clock to `time` (administrators): refused when NTP keeps a time it disagrees
    /// with, or for a time before the firmware's release or years ahead.
    public func setTime(_ time: Date, from setter: SetTimeParameters.Setter) async throws -> SetTimeReport {
        try await call(.setTime, SetTimeParameters(time: time, from: setter))
    }

    /// The sound files an alarm may name.
    public func sounds() async throws -> [String] {
        try await call(.sounds)
    }

    /// The sound files with where each comes from, its size and how many alarms use it.
    public func soundFiles() async throws -> [SoundFileInfo] {
        try await call(.soundFiles)
    }

    /// Sends one piece of a household sound (administrators; ``UploadSoundParameters``).
    public func uploadSound(named name: String, upload: String?, offset: Int, piece: Data, final: Bool) async throws -> UploadSoundReport {
        try await call(.uploadSound, UploadSoundParameters(name: name, upload: upload, offset: offset, data: piece, final: final))
    }

    /// Deletes a household sound no alarm uses (administrators).
    public func deleteSound(named name: String) async throws {
        _ = try await call(.deleteSound, SoundNameParameters(name: name))
    }

    /// STOP (`.stop`) or SNOOZE (`.countdown`) on any client's alarm, as the device's buttons
    /// would (administrators only).
    public func deviceAction(_ action: AlarmAction, id: Alarm.ID, owner: UInt32) async throws {
        _ = try await call(.deviceAction, DeviceActionParameters(owner: owner, id: id, action: action))
    }

    /// Asks the person at the clock whether the phone `name` showing `code` may use it
    /// (administrators only); waits for the answer, up to about a minute.
    public func requestPairing(name: String, code: String) async throws -> PairingReply {
        try await call(.requestPairing, PairingParameters(name: name, code: code))
    }

    /// Turns the sunrise light on by hand at `output` (0 to 1), or off (`nil`) (administrators only).
    public func setLight(output: Double?) async throws {
        _ = try await call(.setLight, SetLightParameters(output: output))
    }

    /// Has the running daemon check its parts (administrators only), in the order asked.
    public func selfTest(_ parameters: SelfTestParameters) async throws -> SelfTestReport {
        try await call(.selfTest, parameters)
    }
}
