import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Logging

/// The engine's imperative shell: owns the ``AlarmScheduler``, the durable ``AlarmStore``, the
/// authorization registry and the one timer, and serves clients through ``AlarmManager``s.
///
/// Every client change is applied, written durably, and only then acknowledged; if it cannot be
/// written it is rolled back and refused. The timer sleeps until the scheduler's next deadline
/// and is re-armed on every change; a clock jump or a time-zone change re-evaluates every alarm
/// at once.
///
/// ```swift
/// let runtime = try AlarmRuntime(configuration: .init(storeDirectory: "/var/lib/alarmd"),
///                                clock: SystemWallClock(), timeZones: SystemTimeZoneProvider(),
///                                authorizer: FixedAuthorization(.authorized), logger: logger)
/// async let engine: Void = runtime.run()        // until cancelled
/// let manager = runtime.manager(for: .currentUser)
/// ```
public actor AlarmRuntime {
    /// Settings the runtime starts with.
    public struct Configuration: Sendable {
        public var policy: EnginePolicy
        public var clockTrust: ClockTrustPolicy
        /// Where the store lives (`/var/lib/alarmd` on the device).
        public var storeDirectory: String
        /// Changes journaled before the next one also writes a snapshot of the whole store (see
        /// ``AlarmStore``).
        public var storeSnapshotEvery: Int
        /// The calls the state files are read and written with: the kernel's, or a test's.
        package var files = DurableFile.system

        public init(
            policy: EnginePolicy = .default, clockTrust: ClockTrustPolicy = .default, storeDirectory: String,
            storeSnapshotEvery: Int = 256
        ) {
            self.policy = policy
            self.clockTrust = clockTrust
            self.storeDirectory = storeDirectory
            self.storeSnapshotEvery = storeSnapshotEvery
        }
    }

    var scheduler: AlarmScheduler
    var authorizations: [ClientID: AlarmManager.AuthorizationState]
    public nonisolated let store: AlarmStore
    /// The intents of presses at the device, on their way to the clients that own the alarms.
    public nonisolated let intents: IntentMailbox
    let clock: any WallClock
    let timeZones: any TimeZoneProvider
    let clockTrust: ClockTrustPolicy
    let authorizer: any AuthorizationPrompter
    let logger: Logger

    let alarmLists = Broadcaster<ClientID, [Alarm]>(replaysLatest: true, initialValue: [])
    let authorizationStates = Broadcaster<ClientID, AlarmManager.AuthorizationState>(
        replaysLatest: true, initialValue: .notDetermined)
    let eventBroadcast = Broadcaster<Int, SchedulerEvent>(replaysLatest: false)
    let snapshotBroadcast = Broadcaster<Int, DeviceSnapshot>(replaysLatest: false)
    /// Counts the changes published, so a device snapshot can be told from an older one.
    var revision: UInt64 = 0

    var pendingPrompts: [ClientID: Task<AlarmManager.AuthorizationState, Never>] = [:]
    /// Wall time minus monotonic time at the last look: a change in it is a clock jump.
    var clockOffset: TimeInterval
    var armedDeadline: Date?
    var sleepTask: Task<WallClockWake, any Error>?
    var durability = Durability.saved
    /// Why saves fail, while they do; logged once when it begins and once when it ends.
    var storageFault: StorageFault?
    /// While saves fail, when the store is next tried (the timer wakes for it).
    var storageRetryAt: Date?
    /// While saves fail (a full or read-only disk), how often the store is tried again: what
    /// could not be written is written once it works, and the fault is shown until then.
    static let storageRetryInterval: Duration = .seconds(30)
    /// While the store cannot be read: why, what could be read, and when it is read again.
    var unreadStore: UnreadStore?
    /// Files found bad when the store was loaded, and whether a person at the device saw them.
    var storeProblemsAtStart: [String]
    var storeProblemsAcknowledged = false
    /// Alarms changed (or removed) since the last durable save: the next journal entry's.
    var unsavedAlarms: Set<AlarmKey> = []
    /// What rang, was snoozed, stopped, silenced or missed, newest last.
    var history: AlarmHistory
    /// Each alarm's title as last seen, for history entries about alarms already gone.
    var lastKnownTitles: [AlarmKey: String] = [:]

    /// Loads the store and resumes every alarm in wall time: countdowns count as if the process
    /// had never stopped, paused ones stay paused, alerts resume within auto-silence, and missed
    /// ones follow the grace policy. A bad state directory or file never stops the engine: bad
    /// files are set aside and logged, and a store that cannot be written shows as a fault (see
    /// ``storageHealth``). A store file that could not be read is left as it is and read again
    /// until it can be; meanwhile the alarms that could be read ring and changes are refused.
    ///
    /// - Throws: ``EngineConfigurationError`` for a bad policy.
    public init(
        configuration: Configuration,
        clock: any WallClock,
        timeZones: any TimeZoneProvider,
        authorizer: any AuthorizationPrompter,
        logger: Logger
    ) throws {
        try configuration.policy.validate()
        self.store = AlarmStore(
            directory: configuration.storeDirectory, logger: logger, compactionEntries: configuration.storeSnapshotEvery,
            files: configuration.files)
        self.history = AlarmHistory(directory: configuration.storeDirectory, files: configuration.files)
        self.intents = IntentMailbox(
            directory: configuration.storeDirectory, clock: clock, logger: logger, files: configuration.files)
        self.clock = clock
        self.timeZones = timeZones
        self.clockTrust = configuration.clockTrust
        self.authorizer = authorizer
        self.logger = logger

        let loaded = store.load()
        var problems = loaded.problems
        if let problem = history.problem {
            logger.error("Alarm history unusable; kept aside, starting a new one", metadata: ["history.error": "\(problem)"])
            problems.append("\(history.path): \(problem)")
        }
        if let failure = history.unread {
            logger.warning("Alarm history could not be read; left as it is and read again with the next entry", metadata: [
                "history.error": "\(failure)",
            ])
        }
        self.storeProblemsAtStart = problems
        let zone: TimeZoneRules
        do {
            zone = try timeZones.currentZone()
        } catch {
            logger.error("Time zone unreadable; using UTC until it is fixed", metadata: ["timezone.error": "\(error)"])
            zone = .utc
        }
        let now = clock.now
        let trusted = configuration.clockTrust.isTrusted(now: now)
        var scheduler = AlarmScheduler(
            policy: configuration.policy, timeZone: zone, clockTrusted: trusted,
            snapshot: loaded.state?.scheduler ?? SchedulerSnapshot())
        let authorizations = Dictionary(
            (loaded.state?.authorizations ?? []).map { ($0.client, $0.state) }, uniquingKeysWith: { _, last in last })
        logger.info("Alarm engine started", metadata: [
            "alarms.count": "\(scheduler.alarmCount)", "timezone": "\(zone.identifier)",
            "clock.trusted": "\(trusted)", "store.directory": "\(configuration.storeDirectory)",
        ])
        if !trusted {
            logger.warning("Wall clock not trusted yet; scheduled alarms wait for it", metadata: ["clock.now": "\(now)"])
        }
        let outcome = scheduler.evaluate(now: now)
        Self.log(outcome.events, to: logger)
        Self.logResumedAlerts(of: scheduler, besides: outcome.events, now: now, to: logger)
        if !loaded.unreadable.isEmpty {
            // Nothing is written over what could not be read: what happened at start waits, with
            // every other change, until the store has been read whole.
            if outcome.hasChanges { durability = .unsaved }
            let unread = UnreadStore(failures: loaded.unreadable, known: loaded.state, now: now)
            unreadStore = unread
            logger.error(Self.unreadStoreMessage, metadata: [
                "store.error": "\(unread.fault)", "store.retryIn": "\(Int(unread.interval))",
            ])
        } else if outcome.hasChanges || !loaded.problems.isEmpty || loaded.journalHasRemovalsWithoutOwner {
            do {
                try store.save(Self.storedState(scheduler, authorizations: authorizations, savedAt: now))
            } catch {
                // The next save may be a journal entry: it carries every alarm, as the snapshot would have.
                unsavedAlarms = scheduler.changedIDs.union(scheduler.snapshot.alarms.map(\.key))
                let fault = StorageFault(error, since: now)
                durability = .unsaved
                storageFault = fault
                storageRetryAt = now.addingTimeInterval(Self.storageRetryInterval.timeInterval)
                logger.error(Self.storageFaultMessage, metadata: ["store.error": "\(fault)"])
            }
        }
        scheduler.clearChangedIDs()
        self.scheduler = scheduler
        self.authorizations = authorizations
        self.clockOffset = Self.offset(now: now, monotonic: clock.monotonicNow)
        for (client, state) in authorizations {
            authorizationStates.publish(state, for: client)
        }
        for owner in Set(scheduler.records.values.map(\.owner)) {
            alarmLists.publish(scheduler.alarms(of: owner), for: owner)
        }
    }

    /// Runs the timer and the time-zone watch until the task is cancelled.
    public func run() async {
        // Subscribe before anything else runs, then look once: no zone change can slip between.
        let zoneChanges = timeZones.changes()
        timeZoneMayHaveChanged()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.runTimer() }
            group.addTask { await self.followTimeZone(zoneChanges) }
        }
        alarmLists.finishAll()
        authorizationStates.finishAll()
        eventBroadcast.finishAll()
        snapshotBroadcast.finishAll()
        intents.finishAll()
        // Every change is durable already; a snapshot now lets the next start read one file.
        if unreadStore != nil {
            if durability.hasUnsavedChanges {
                // Nothing is written over files nobody could read: an alert silenced meanwhile
                // rings again after the restart if it is still within auto-silence.
                logger.error("Changes not written at shutdown: the store could not be read", metadata: [
                    "store.error": "\(unreadStore.map { "\($0.fault)" } ?? "")",
                ])
            }
        } else if store.hasJournalEntries || durability.hasUnsavedChanges {
            do {
                try writeSnapshot()
            } catch where durability.hasUnsavedChanges {
                // What the store could not take all along is lost with the process: after the
                // restart an alert silenced meanwhile rings again if it is within auto-silence.
                logger.error("Changes not written at shutdown: the store cannot be written", metadata: ["store.error": "\(error)"])
            } catch {
                logger.warning("Alarm store snapshot could not be written at shutdown; the journal keeps every change", metadata: ["store.error": "\(error)"])
            }
        }
        logger.info("Alarm engine stopped")
    }

    /// An ``AlarmManager`` acting for `client` on this engine, as `app` (see ``IntentRecipient``).
    public nonisolated func manager(for client: ClientID, app: String? = nil) -> AlarmManager {
        AlarmManager(backend: InProcessAlarmBackend(runtime: self, client: client, app: app))
    }

    /// Everything that happens to any alarm, as it happens (not replayed to new subscribers).
    public nonisolated func events() -> AsyncStream<SchedulerEvent> {
        eventBroadcast.subscribe(0)
    }

    /// The device's view after each change, as it is published (not replayed to new subscribers):
    /// the appliance starts an alert's sound from it without waiting for the engine, which is
    /// still making the change durable.
    public nonisolated func deviceSnapshots() -> AsyncStream<DeviceSnapshot> {
        snapshotBroadcast.subscribe(0)
    }

    // MARK: - Saving and publishing

    /// Makes every change since the last save durable: one journal entry with the changed alarms
    /// (and, when the journal is full, a snapshot of everything).
    func saveState() throws {
        try refuseWhileStoreUnread()
        try trackingStorageHealth { try writeChanges() }
        durability.markSaved()
    }

    /// Runs a write of the store: its failure starts (or continues) the storage fault, logged and
    /// shown once, and its success ends it.
    func trackingStorageHealth(_ write: () throws -> Void) throws {
        do {
            try write()
        } catch {
            storageFailed(error)
            throw error
        }
        if storageFault != nil { storageWorksAgain() }
    }

    private func writeChanges() throws {
        unsavedAlarms.formUnion(scheduler.changedIDs)
        scheduler.clearChangedIDs()
        let savedAt = clock.now
        let entry = StoreJournalEntry(
            savedAt: savedAt,
            upserted: unsavedAlarms.compactMap { scheduler.record(for: $0) }.sorted { $0.sequenceNumber < $1.sequenceNumber },
            removed: unsavedAlarms.filter { scheduler.record(for: $0) == nil }.map(RemovedAlarm.init).sorted(),
            missedAlarms: scheduler.missedAlarms, authorizations: Self.records(of: authorizations))
        try store.commit(entry) { Self.storedState(scheduler, authorizations: authorizations, savedAt: savedAt) }
        unsavedAlarms.removeAll()
    }

    static let storageFaultMessage: Logger.Message =
        "Alarm store cannot be written; STOP and SNOOZE still silence alarms, other changes are refused until it works again"

    private func storageFailed(_ error: any Error) {
        let now = clock.now
        storageRetryAt = now.addingTimeInterval(Self.storageRetryInterval.timeInterval)
        guard storageFault == nil else { return }
        let fault = StorageFault(error, since: now)
        storageFault = fault
        logger.error(Self.storageFaultMessage, metadata: ["store.error": "\(fault)"])
        // After the caller is done: a refused client change is rolled back first, and the device
        // must not see it even for a moment.
        Task { self.publishDeviceSnapshot() }
        rearmTimer()
    }

    private func storageWorksAgain() {
        logger.notice("Alarm store can be written again; every change is durable", metadata: [
            "store.faultSince": "\(storageFault.map { "\($0.since)" } ?? "")",
        ])
        storageFault = nil
        storageRetryAt = nil
        publishDeviceSnapshot()
        rearmTimer()
    }

    /// Whether the store can be read and written, and what was wrong with it at start.
    public var storageHealth: StorageHealth {
        StorageHealth(
            readFault: unreadStore?.fault, fault: storageFault, hasUnsavedChanges: durability.hasUnsavedChanges,
            problemsAtStart: storeProblemsAtStart, problemsAcknowledged: storeProblemsAcknowledged)
    }

    /// The device's view with the store's health in it.
    func currentDeviceSnapshot() -> DeviceSnapshot {
        var snapshot = scheduler.deviceSnapshot(now: clock.now, revision: revision)
        snapshot.storage = storageHealth
        return snapshot
    }

    /// Tells the device that something it shows changed, though no alarm did.
    func publishDeviceSnapshot() {
        revision += 1
        snapshotBroadcast.publish(currentDeviceSnapshot(), for: 0)
    }

    /// Writes a snapshot of the whole state now and empties the journal.
    public func writeSnapshot() throws {
        try refuseWhileStoreUnread()
        try trackingStorageHealth {
            unsavedAlarms.formUnion(scheduler.changedIDs)
            scheduler.clearChangedIDs()
            try store.save(Self.storedState(scheduler, authorizations: authorizations, savedAt: clock.now))
            unsavedAlarms.removeAll()
        }
        durability.markSaved()
    }

    static func storedState(
        _ scheduler: AlarmScheduler, authorizations: [ClientID: AlarmManager.AuthorizationState], savedAt: Date
    ) -> StoredState {
        StoredState(scheduler: scheduler.snapshot, authorizations: records(of: authorizations), savedAt: savedAt)
    }

    static func records(of authorizations: [ClientID: AlarmManager.AuthorizationState]) -> [AuthorizationRecord] {
        authorizations.map { AuthorizationRecord(client: $0.key, state: $0.value) }.sorted { $0.client < $1.client }
    }

    /// Saves (if anything changed, or an earlier save failed) and publishes a change that
    /// happened with time, not at a client's request: an alert, a miss, a zone change.
    func commitTimeDriven(_ outcome: SchedulerOutcome) {
        // Published before it is saved, and saved in a job of its own: an alert has started
        // whether or not it is on disk yet, and neither the sound nor the appliance's next look
        // at the engine may wait for a disk sync (tens of milliseconds on an SD card). A restart
        // before the save rings it again.
        publish(outcome)
        if outcome.hasChanges { durability.markUnsaved() }
        switch durability {
        case .saveQueued:
            break
        case .saved where !isStorageRetryDue:
            break
        case .saved, .unsaved:
            durability = .saveQueued(Task { self.saveTimeDrivenChanges() }, unsaved: durability.hasUnsavedChanges)
        }
    }

    /// Saves after a change that happened with time (an alert, a miss): it has happened whether or
    /// not it can be saved, so a failure only keeps the storage fault until the next retry.
    /// While saves fail, a retry with nothing unsaved writes an empty entry: that is how the
    /// engine learns that storage works again.
    func saveTimeDrivenChanges() {
        guard case .saveQueued(_, let unsaved) = durability else { return }
        durability = unsaved ? .unsaved : .saved
        guard unsaved || isStorageRetryDue else { return }
        try? saveState()
    }

    var isStorageRetryDue: Bool { storageRetryAt.map { clock.now >= $0 } ?? false }

    /// Makes a change that silences an alerting alarm durable if the store allows, and keeps it
    /// in effect either way: a STOP that a read-only or full disk refused would leave the alarm
    /// ringing every morning. What could not be written stays unsaved until a retry, the next
    /// change or the shutdown writes it.
    func commitSilencing(_ outcome: SchedulerOutcome) {
        do {
            try saveState()
        } catch {
            durability.markUnsaved()
            logger.warning("Alarm silenced, but not durable yet: the store cannot be saved now", metadata: [
                "store.error": "\(error)",
            ])
        }
        publish(outcome)
    }

    /// Makes a client's change durable, or undoes it and refuses it.
    func commitClientChange(_ outcome: SchedulerOutcome, undo checkpoint: AlarmScheduler.Checkpoint) throws {
        do {
            try saveState()
        } catch {
            scheduler.rollBack(to: checkpoint)
            logger.error("Alarm change refused: the store could not be saved", metadata: ["store.error": "\(error)"])
            throw AlarmOperationError.storageFailure("\(error)")
        }
        publish(outcome)
    }

    /// Sends changed lists and events to subscribers, logs the events, records the history and
    /// re-arms the timer.
    func publish(_ outcome: SchedulerOutcome) {
        // The device first: the appliance starts the sound on it. Only with events: every look of
        // the appliance at the engine publishes an outcome, and a snapshot for an empty one would
        // have it look again, and again.
        if outcome.hasChanges || !outcome.events.isEmpty { revision += 1 }
        if !outcome.events.isEmpty {
            snapshotBroadcast.publish(currentDeviceSnapshot(), for: 0)
        }
        for event in outcome.events {
            eventBroadcast.publish(event, for: 0)
        }
        for owner in outcome.changedOwners {
            alarmLists.publish(scheduler.alarms(of: owner), for: owner)
        }
        Self.log(outcome.events, to: logger)
        recordHistory(outcome.events)
        rearmTimer()
    }

    private func recordHistory(_ events: [SchedulerEvent]) {
        let now = clock.now
        var entries: [HistoryEntry] = []
        func entry(_ kind: HistoryEntry.Kind, _ key: AlarmKey, at date: Date? = nil) {
            guard let title = scheduler.record(for: key)?.definition.presentation.alert.title ?? lastKnownTitles[key] else {
                return
            }
            entries.append(HistoryEntry(date: date ?? now, kind: kind, alarmID: key.id, owner: key.owner, title: title))
        }
        for event in events {
            switch event {
            case .alertStarted(let key, _): entry(.rang, key)
            case .countdownStarted(let key, _):
                if case .countdown(let countdown)? = scheduler.record(for: key)?.phase, countdown.kind == .postAlert {
                    entry(.snoozed, key)
                }
            case .stopped(let key): entry(.stopped, key)
            case .autoSilenced(let key): entry(.autoSilenced, key)
            case .missed(let missed) where missed.reason == .tooLate:
                entries.append(HistoryEntry(
                    date: missed.dueDate, kind: .missed, alarmID: missed.alarmID, owner: missed.owner, title: missed.title))
            case .disabled(let key): entry(.disabled, key)
            case .enabled(let key): entry(.enabled, key)
            case .skipped(let key): entry(.skipped, key)
            case .removed(let key):
                lastKnownTitles[key] = nil
            case .scheduled, .paused, .resumed, .missed, .rescheduled:
                break
            }
        }
        for event in events {
            if case .scheduled(let key) = event, let record = scheduler.record(for: key) {
                lastKnownTitles[key] = record.definition.presentation.alert.title
            }
        }
        do {
            try history.append(entries)
        } catch {
            logger.warning("Alarm history could not be written", metadata: ["history.error": "\(error)"])
        }
    }

    static func offset(now: Date, monotonic: Duration) -> TimeInterval {
        now.timeIntervalSince1970 - monotonic.timeInterval
    }
}

extension AlarmRuntime {
    /// Whether the changes in effect are on disk, and the job that saves time-driven ones.
    enum Durability {
        /// Every change in effect is on disk.
        case saved
        /// A change in effect is not on disk: its save failed and it stands anyway (an alert's
        /// start, a STOP at the bedside), or it happened with time and waits for its save. The
        /// next save, retry or shutdown writes it.
        case unsaved
        /// A job of its own saves soon: the time-driven changes waiting for it (`unsaved`), or a
        /// retry of a failing store.
        case saveQueued(Task<Void, Never>, unsaved: Bool)

        var hasUnsavedChanges: Bool {
            switch self {
            case .saved: false
            case .unsaved: true
            case .saveQueued(_, let unsaved): unsaved
            }
        }

        /// A save wrote every change in effect; a queued job stays, with nothing of them to write.
        mutating func markSaved() {
            switch self {
            case .saved, .unsaved: self = .saved
            case .saveQueued(let job, _): self = .saveQueued(job, unsaved: false)
            }
        }

        /// A change in effect is not on disk.
        mutating func markUnsaved() {
            switch self {
            case .saved, .unsaved: self = .unsaved
            case .saveQueued(let job, _): self = .saveQueued(job, unsaved: true)
            }
        }
    }
}
