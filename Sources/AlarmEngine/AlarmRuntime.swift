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
        /// What the machine says of its clock (``SystemClockReadings`` on a board), for the time
        /// source; `nil` where there is no machine to ask (tests, scenarios): no source is reported.
        public var clockReadings: (@Sendable () -> ClockReadings)?

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
    let clockReadings: (@Sendable () -> ClockReadings)?
    /// Where the clock's time came from, decided at each wake from ``clockReadings``.
    var timeSourceTracker = TimeSourceTracker(releaseDate: ClockTrustPolicy.firmwareReleaseDate)
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
    /// What became due while alarmd was not running, found at start: recorded in the history
    /// once the engine runs.
    var eventsAtStart: [SchedulerEvent] = []

    /// Loads the store and resumes every alarm in wall time: countdowns count as if the process
    /// had never stopped, paused ones stay paused, alerts resume within auto-silence, and missed
    /// ones follow the grace policy. A bad state directory or file never stops the engine: bad
    /// files are set aside and logged, and a store that cannot be written shows as a fault (see
    /// ``storageHealth``). A store file that could not be read is left as it is and read again
    /// until it can be; meanwhile the alarms that could be read ring and changes are refused.
    ///
    /// - Throws: ``EngineConfigurationError`` for a bad policy.
    public init(
        configuration: Configuration, clock: any WallClock, timeZones: any TimeZoneProvider,
        authorizer: any AuthorizationPrompter, logger: Logger
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
        self.clockReadings = configuration.clockReadings
        self.authorizer = authorizer
        self.logger = logger

        let loaded = store.load()
        self.storeProblemsAtStart = Self.problemsAtStart(loaded.problems, history: history, logger: logger)
        let zone = Self.startingZone(timeZones, logger: logger)
        let now = clock.now
        let trusted = configuration.clockTrust.isTrusted(now: now)
        var scheduler = AlarmScheduler(
            policy: configuration.policy, timeZone: zone, clockTrusted: trusted,
            snapshot: loaded.state?.scheduler ?? SchedulerSnapshot())
        let authorizations = Self.authorizations(in: loaded.state)
        Self.logStart(
            alarms: scheduler.alarmCount, zone: zone, trusted: trusted, now: now,
            storeDirectory: configuration.storeDirectory, logger: logger)
        let outcome = scheduler.evaluate(now: now)
        eventsAtStart = outcome.events
        Self.log(outcome.events, to: logger)
        Self.logResumedAlerts(of: scheduler, besides: outcome.events, now: now, to: logger)
        if !loaded.unreadable.isEmpty {
            // Nothing is written over what could not be read: what happened at start waits, with
            // every other change, until the store has been read whole.
            if outcome.hasChanges { durability = .unsaved }
            let unread = UnreadStore(failures: loaded.unreadable, known: loaded.state, now: now)
            unreadStore = unread
            unread.logAtStart(to: logger)
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
        Self.publish(scheduler, authorizations, to: alarmLists, authorizationStates)
    }

    /// The stored authorization of each client (the last one, should a client appear twice).
    private static func authorizations(in state: StoredState?) -> [ClientID: AlarmManager.AuthorizationState] {
        Dictionary((state?.authorizations ?? []).map { ($0.client, $0.state) }, uniquingKeysWith: { _, last in last })
    }

    /// Runs the timer and the time-zone watch until the task is cancelled.
    public func run() async {
        // Subscribe before anything else runs, then look once: no zone change can slip between.
        let zoneChanges = timeZones.changes()
        timeZoneMayHaveChanged()
        if updateTimeSource() { publishDeviceSnapshot() }
        recordHistory(eventsAtStart, because: .notRunning)
        eventsAtStart = []
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

    /// The store's problems found at start, with the history's, each logged.
    private static func problemsAtStart(_ storeProblems: [String], history: AlarmHistory, logger: Logger) -> [String] {
        var problems = storeProblems
        if let problem = history.problem {
            logger.error("Alarm history unusable; kept aside, starting a new one", metadata: ["history.error": "\(problem)"])
            problems.append("\(history.path): \(problem)")
        }
        if let failure = history.unread {
            logger.warning("Alarm history could not be read; left as it is and read again with the next entry", metadata: [
                "history.error": "\(failure)",
            ])
        }
        return problems
    }

    /// Every client's alarms and authorization as loaded, for the subscribers to come.
    private static func publish(
        _ scheduler: AlarmScheduler, _ authorizations: [ClientID: AlarmManager.AuthorizationState],
        to alarmLists: Broadcaster<ClientID, [Alarm]>,
        _ authorizationStates: Broadcaster<ClientID, AlarmManager.AuthorizationState>
    ) {
        for (client, state) in authorizations {
            authorizationStates.publish(state, for: client)
        }
        for owner in Set(scheduler.records.values.map(\.owner)) {
            alarmLists.publish(scheduler.alarms(of: owner), for: owner)
        }
    }

    /// The system's zone, or UTC while it cannot be read (logged; a change of zone is watched for).
    private static func startingZone(_ timeZones: any TimeZoneProvider, logger: Logger) -> TimeZoneRules {
        do {
            return try timeZones.currentZone()
        } catch {
            logger.error("Time zone unreadable; using UTC until it is fixed", metadata: ["timezone.error": "\(error)"])
            return .utc
        }
    }

    private static func logStart(
        alarms: Int, zone: TimeZoneRules, trusted: Bool, now: Date, storeDirectory: String, logger: Logger
    ) {
        logger.info("Alarm engine started", metadata: [
            "alarms.count": "\(alarms)", "timezone": "\(zone.identifier)",
            "clock.trusted": "\(trusted)", "store.directory": "\(storeDirectory)",
        ])
        if !trusted {
            logger.warning("Wall clock not trusted yet; scheduled alarms wait for it", metadata: ["clock.now": "\(now)"])
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
