import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials

extension AlarmRuntime {
    public func alarms(for client: ClientID) -> [Alarm] {
        scheduler.alarms(of: client)
    }

    /// The client's whole list as it is when the subscription takes effect, then after every
    /// change.
    public nonisolated func alarmUpdates(for client: ClientID) -> AsyncStream<[Alarm]> {
        alarmLists.subscribe(client)
    }

    /// Schedules an alarm for `client`, asking for authorization first if it is not determined.
    /// Returns once the alarm is durable. Its intents go to `app`, the app of `client`'s that
    /// schedules it (``IntentRecipient``).
    public func schedule(id: Alarm.ID, definition: AlarmDefinition, client: ClientID, app: String? = nil) async throws -> Alarm {
        let authorization = try await requestAuthorization(for: client)
        guard authorization == .authorized else { throw AlarmOperationError.notAuthorized(authorization) }
        catchUp()
        let checkpoint = scheduler.checkpoint(for: AlarmKey(owner: client, id: id))
        let (alarm, outcome) = try scheduler.schedule(id: id, owner: client, definition: definition, now: clock.now, app: app)
        try commitClientChange(outcome, undo: checkpoint)
        return alarm
    }

    /// Performs `command` on one of `client`'s alarms. Returns once the change is durable, with
    /// one exception: a command that silences an alerting alarm (stop, snooze, cancel) takes
    /// effect even when the store cannot be written, and is written when it can. A command that
    /// asks for what already holds (disabling a disabled alarm) writes nothing.
    public func perform(_ command: AlarmCommand, id: Alarm.ID, client: ClientID) throws {
        catchUp()
        let key = AlarmKey(owner: client, id: id)
        let wasAlerting = scheduler.record(for: key)?.phase.isAlerting ?? false
        let checkpoint = scheduler.checkpoint(for: key)
        let outcome = try scheduler.perform(command, id: id, owner: client, now: clock.now)
        let stillAlerting = scheduler.record(for: key)?.phase.isAlerting ?? false
        if wasAlerting && !stillAlerting {
            commitSilencing(outcome)
        } else if outcome.hasChanges {
            try commitClientChange(outcome, undo: checkpoint)
        }
    }

    /// Sets how one of `client`'s alarms wakes (``AlarmWake``). Returns once the change is durable.
    public func setWake(_ wake: AlarmWake, id: Alarm.ID, client: ClientID) throws {
        let key = AlarmKey(owner: client, id: id)
        let checkpoint = scheduler.checkpoint(for: key)
        let outcome = try scheduler.setWake(wake, id: id, owner: client)
        if outcome.hasChanges { try commitClientChange(outcome, undo: checkpoint) }
    }

    /// A person pressed `press` on an alarm at the device or on its page, whoever owns it: performs
    /// what that button does (``AlarmRecord/response(to:)``) and then delivers the button's intent
    /// to the app that scheduled the alarm. The change is made as ``perform(_:id:client:)`` makes it (a silenced
    /// alert stays silenced even if the store cannot be written); the intent goes only once the
    /// change is made, and never waits for the app.
    ///
    /// - Parameter required: the change the caller stands for, if it stands for one only (the
    ///   page's Snooze: `.countdown`); a press that would make another is refused.
    /// - Returns: the change made.
    /// - Throws: ``AlarmPressRefusal`` when the alarm shows no such button now (or it would not
    ///   make the `required` change), ``AlarmOperationError/notFound(_:)``, or what
    ///   ``perform(_:id:client:)`` throws.
    @discardableResult
    public func press(_ press: AlarmPress, on key: AlarmKey, requiring required: AlarmAction? = nil) throws -> AlarmAction {
        catchUp()
        guard let record = scheduler.record(for: key) else { throw AlarmOperationError.notFound(key.id) }
        let response = try record.response(to: press)
        if let required, response.action != required {
            throw AlarmPressRefusal(alarmID: key.id, press: press, state: record.phase.state, required: required)
        }
        try perform(AlarmCommand(response.action), id: key.id, client: key.owner)
        if let intent = response.intent {
            intents.post(intent, button: response.button, alarm: key.id, owner: key.owner, app: record.app)
        }
        return response.action
    }

    /// Gives one of `client`'s alarms a new definition under the same id, in one durable step:
    /// one journal entry, so after a crash the store holds the old alarm or the new one, never
    /// neither; a store that cannot be written leaves the old one in effect and throws
    /// ``AlarmOperationError/storageFailure(_:)``. A client whose authorization was revoked is
    /// refused as `schedule` refuses it (no question is asked: the alarm is there already).
    /// ``AlarmScheduler/replace(id:owner:definition:now:)`` says what else it refuses.
    public func replace(id: Alarm.ID, definition: AlarmDefinition, client: ClientID) throws -> Alarm {
        // An id the client does not use is not found, whatever its authorization, as for the actions.
        guard scheduler.record(for: AlarmKey(owner: client, id: id)) != nil else { throw AlarmOperationError.notFound(id) }
        let authorization = authorizationState(for: client)
        guard authorization == .authorized else { throw AlarmOperationError.notAuthorized(authorization) }
        catchUp()
        let checkpoint = scheduler.checkpoint(for: AlarmKey(owner: client, id: id))
        let (alarm, outcome) = try scheduler.replace(id: id, owner: client, definition: definition, now: clock.now)
        try commitClientChange(outcome, undo: checkpoint)
        return alarm
    }

    /// Applies what became due since the last wake before a client's change, so the change acts
    /// on the alarm as it is now (a timer that just ended can no longer be paused).
    func catchUp() {
        commitTimeDriven(scheduler.evaluate(now: clock.now))
    }

    // MARK: - For the appliance

    /// The alerting alarms, the one to present first at the front.
    public var alertingOrder: [AlarmKey] { scheduler.alertingOrder }

    /// What to show for an alarm now.
    public func presentationState(for key: AlarmKey) -> AlarmPresentationState? {
        scheduler.presentationState(for: key)
    }

    /// An alarm's full record: presentation, sound, tint.
    public func record(for key: AlarmKey) -> AlarmRecord? {
        scheduler.record(for: key)
    }

    /// Missed alarms waiting to be seen.
    public var missedAlarms: [MissedAlarm] { scheduler.missedAlarms }

    /// Whether scheduled alarms can ring (the wall clock is believed).
    public var isClockTrusted: Bool { scheduler.isClockTrusted }

    /// The zone relative alarms are resolved in, for showing local times consistently with them.
    public var timeZone: TimeZoneRules { scheduler.timeZone }

    /// The next instant the engine will act: an alarm's, or a retry of a store that fails.
    public var nextDeadline: Date? {
        // While the store is being read, its retry waits for the read: not due again meanwhile.
        [scheduler.nextDeadline, storageRetryAt, unreadStore.flatMap { $0.readStarted == nil ? $0.retryAt : nil }]
            .compactMap { $0 }.min()
    }

    /// Forgets the missed alarms once a person has seen them, and marks the store's problems at
    /// start as seen (they stay in ``storageHealth`` for `status`).
    public func acknowledgeMissedAlarms() {
        if storageHealth.hasUnseenProblems {
            storeProblemsAcknowledged = true
            revision += 1
        }
        commitTimeDriven(scheduler.acknowledgeMissedAlarms())
    }

    // MARK: - Authorization

    public func authorizationState(for client: ClientID) -> AlarmManager.AuthorizationState {
        authorizations[client] ?? .notDetermined
    }

    /// The client's authorization now, then every change.
    public nonisolated func authorizationUpdates(for client: ClientID) -> AsyncStream<AlarmManager.AuthorizationState> {
        authorizationStates.subscribe(client)
    }

    /// Asks the owner about `client` if its state is `.notDetermined`; concurrent requests of one
    /// client share one prompt. A decision is durable before it is returned.
    public func requestAuthorization(for client: ClientID) async throws -> AlarmManager.AuthorizationState {
        let current = authorizationState(for: client)
        guard current == .notDetermined else { return current }
        // The client may well be authorized in what could not be read: no question for the owner.
        if let unreadStore { throw AlarmOperationError.storageFailure(unreadStore.refusal.description) }
        let prompt: Task<AlarmManager.AuthorizationState, Never>
        if let pending = pendingPrompts[client] {
            prompt = pending
        } else {
            prompt = Task { [authorizer] in await authorizer.requestAuthorization(for: client) }
            pendingPrompts[client] = prompt
        }
        let decision = await prompt.value
        pendingPrompts[client] = nil
        // Another request of the same client may have recorded the decision meanwhile.
        if authorizationState(for: client) == .notDetermined, decision != .notDetermined {
            try setAuthorization(decision, for: client)
        }
        return authorizationState(for: client)
    }

    /// Records a decision about a client (also for an administrator revoking one).
    public func setAuthorization(_ state: AlarmManager.AuthorizationState, for client: ClientID) throws {
        let previous = authorizations[client]
        authorizations[client] = state
        do {
            try saveState()
        } catch {
            authorizations[client] = previous
            throw AlarmOperationError.storageFailure("\(error)")
        }
        logger.info("Client authorization set", metadata: ["client": "\(client)", "authorization": "\(state.rawValue)"])
        authorizationStates.publish(state, for: client)
    }
}

// MARK: - The device's view

extension AlarmRuntime {
    /// Every client's alarms with their owners, oldest first: for administrators.
    public func allAlarms() -> [OwnedAlarm] {
        allRecords().map { OwnedAlarm(owner: $0.owner, alarm: $0.alarm) }
    }

    /// How many alarms `client` has (every client's for `nil`), how many of them ring, and which
    /// is due next, after catching up with the clock.
    public func alarmSummary(for client: ClientID?) -> AlarmSummary {
        catchUpWithClock()
        return scheduler.summary(of: client)
    }

    /// Every alarm's full record (title, sound, countdown ends), oldest first.
    public func allRecords() -> [AlarmRecord] {
        scheduler.snapshot.alarms
    }

    /// What rang, was snoozed, stopped, silenced or missed (the latest 500 events, oldest first):
    /// one client's, or everyone's for `nil`.
    /// The device rang the built-in tone for `key` because its own sound, `sound`, could not
    /// play: recorded in the history, so the household finds out why it heard the tone.
    public func recordSoundFallback(for key: AlarmKey, sound: String) {
        guard let title = scheduler.record(for: key)?.definition.presentation.alert.title else { return }
        appendHistory([HistoryEntry(date: clock.now, kind: .soundFailed, alarmID: key.id, owner: key.owner, title: title, detail: sound)])
    }

    public func history(for client: ClientID?) -> [HistoryEntry] {
        guard let client else { return history.entries }
        return history.entries.filter { $0.owner == client }
    }

    /// Every client with a recorded decision.
    public func allAuthorizations() -> [ClientID: AlarmManager.AuthorizationState] {
        authorizations
    }

    /// Brings every alarm up to the clock now, as the timer would on waking: a clock jump, a
    /// change of trust, anything due. The appliance calls it before it reads the state, so what
    /// it shows never lags the engine's own timer; harmless early or twice.
    public func catchUpWithClock() {
        handleWake(.deadlineReached)
    }

    /// Everything the device shows, after catching up with the clock.
    public func deviceSnapshot() -> DeviceSnapshot {
        catchUpWithClock()
        return currentDeviceSnapshot()
    }
}
