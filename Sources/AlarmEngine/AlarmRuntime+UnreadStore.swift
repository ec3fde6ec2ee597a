import AlarmKitCore
import AlarmModel
import FoundationEssentials
import LinuxSupport
import Logging

/// A store that could not be read at start (a failing SD card, a USB disk not ready yet).
///
/// The files that could not be read are left exactly as they are: nothing is written to the store
/// (see ``AlarmStore``), client changes are refused with ``StoreUnreadable``'s message, and the
/// alarms that could be read ring. STOP and SNOOZE still silence, in memory, as while saves fail.
/// The store is read again on the engine's timer, after 2 s and then twice as long each time up to
/// 30 s; once every file reads, its alarms come back and ring.
///
/// What the engine did meanwhile is reconciled alarm by alarm: where the whole store holds the
/// same alarm the engine started from, the engine's version is kept (an alert silenced meanwhile
/// stays silenced, a one-time alarm that rang and was stopped stays gone, a repeating one keeps
/// its next occurrence). Where the store holds a version the engine never saw (a change that only
/// the unreadable copy had), that version is kept, and evaluated as after a restart: if it fell
/// due meanwhile it rings within the grace period, or is recorded as missed. Alarms only the
/// store had are added the same way; authorizations are the store's (none could change
/// meanwhile); missed alarms are the store's, less those acknowledged meanwhile, plus those missed
/// meanwhile. The result is then written as a snapshot.
extension AlarmRuntime {
    struct UnreadStore {
        /// Since when, and why, as the display and `status` show it.
        var fault: StorageFault
        /// The error changes are refused with: the files the last read failed on.
        var refusal: StoreUnreadable
        /// What the load could read: what the engine started from.
        var known: StoredState?
        /// When the store is read again, and the wait before that.
        var retryAt: Date
        var interval: TimeInterval
        /// The read under way, on a thread of its own, while there is one.
        var readStarted: Task<Void, Never>?

        init(failures: [StoreError], known: StoredState?, now: Date) {
            refusal = StoreUnreadable(failures: failures)
            fault = StorageFault(refusal, since: now)
            self.known = known
            interval = AlarmRuntime.firstStoreReadRetry
            retryAt = now.addingTimeInterval(interval)
        }
    }

    /// The first wait before the store is read again, and the longest.
    static let firstStoreReadRetry: TimeInterval = 2
    static let longestStoreReadRetry: TimeInterval = 30

    static let unreadStoreMessage: Logger.Message =
        "Alarm store could not be read; its files are left as they are, the alarms that could be read ring, and changes are refused until it can be read"

    /// Refuses a save while the store cannot be read: what changed meanwhile is found again by
    /// comparing with what the engine started from, once the store is read.
    func refuseWhileStoreUnread() throws {
        guard let unreadStore else { return }
        scheduler.clearChangedIDs()
        throw unreadStore.refusal
    }

    /// Reads the store again, on a thread of its own: a failing card can take seconds over one
    /// read while the kernel retries it, and meanwhile the engine must ring and answer STOP.
    func startReadingStoreAgain() {
        guard unreadStore != nil, unreadStore?.readStarted == nil else { return }
        let store = self.store
        unreadStore?.readStarted = Task {
            let loaded = await DetachedThread.run { store.load() }
            self.storeRead(loaded)
        }
    }

    /// Once every file reads, brings the store's alarms in and saves the whole; else waits longer
    /// before the next read.
    private func storeRead(_ loaded: AlarmStore.Loaded) {
        guard var unread = unreadStore else { return }
        unread.readStarted = nil
        let now = clock.now
        // Damaged files this read set aside, each once (a directory that stays unusable is one).
        let problems = loaded.problems.filter { !storeProblemsAtStart.contains($0) }
        if !problems.isEmpty {
            storeProblemsAtStart += problems
            storeProblemsAcknowledged = false
        }
        guard loaded.unreadable.isEmpty else {
            unread.interval = min(unread.interval * 2, Self.longestStoreReadRetry)
            unread.retryAt = now.addingTimeInterval(unread.interval)
            unread.refusal = StoreUnreadable(failures: loaded.unreadable)
            unreadStore = unread
            logger.debug("Alarm store still cannot be read", metadata: [
                "store.error": "\(unread.refusal)", "store.retryIn": "\(Int(unread.interval))",
            ])
            rearmTimer()
            return
        }
        let formerOwners = Set(scheduler.records.values.map(\.owner))
        let alertingAlready = Set(scheduler.alertingOrder)
        let merged = Self.reconcile(
            stored: loaded.state, known: unread.known,
            engine: Self.storedState(scheduler, authorizations: authorizations, savedAt: now),
            missedLimit: scheduler.policy.missedHistoryLimit)
        var rebuilt = AlarmScheduler(
            policy: scheduler.policy, timeZone: scheduler.timeZone, clockTrusted: scheduler.isClockTrusted,
            snapshot: merged.state.scheduler)
        var outcome = rebuilt.evaluate(now: now)
        Self.logResumedAlerts(of: rebuilt, besides: outcome.events, excluded: alertingAlready, now: now, to: logger)
        scheduler = rebuilt
        authorizations = Dictionary(
            merged.state.authorizations.map { ($0.client, $0.state) }, uniquingKeysWith: { _, last in last })
        unreadStore = nil
        logger.notice("Alarm store read again; its alarms are back and changes are accepted", metadata: [
            "store.faultSince": "\(unread.fault.since)", "alarms.count": "\(scheduler.alarmCount)",
        ])
        // What the store does not hold yet: the engine's own versions, and what starting did.
        unsavedAlarms = merged.keptFromEngine
        do {
            try trackingStorageHealth {
                unsavedAlarms.formUnion(scheduler.changedIDs)
                scheduler.clearChangedIDs()
                try store.save(Self.storedState(scheduler, authorizations: authorizations, savedAt: now))
                unsavedAlarms.removeAll()
            }
            durability.markSaved()
        } catch {
            durability.markUnsaved()
        }
        for (client, state) in authorizations {
            authorizationStates.publish(state, for: client)
        }
        outcome.changedOwners.formUnion(formerOwners.union(scheduler.records.values.map(\.owner)))
        publish(outcome)
        publishDeviceSnapshot()
    }

    /// The state after the store could be read again: `stored` (what it holds) with what the
    /// engine did meanwhile, from `known` (what it could read at first) to `engine`. No client
    /// change was accepted meanwhile, so every difference between `known` and `engine` is the
    /// engine's doing. See the extension's documentation for the rules.
    ///
    /// - Returns: the state, and the alarms whose version there is the engine's, not the store's.
    static func reconcile(
        stored: StoredState?, known: StoredState?, engine: StoredState, missedLimit: Int
    ) -> (state: StoredState, keptFromEngine: Set<AlarmKey>) {
        var alarms = Dictionary((stored?.scheduler.alarms ?? []).map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        let knownAlarms = Dictionary((known?.scheduler.alarms ?? []).map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        let engineAlarms = Dictionary(engine.scheduler.alarms.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        var keptFromEngine: Set<AlarmKey> = []
        for key in Set(knownAlarms.keys).union(engineAlarms.keys)
        where alarms[key] == knownAlarms[key] && alarms[key] != engineAlarms[key] {
            alarms[key] = engineAlarms[key]
            keptFromEngine.insert(key)
        }
        let knownMissed = known?.scheduler.missedAlarms ?? []
        let engineMissed = engine.scheduler.missedAlarms
        var missed = (stored?.scheduler.missedAlarms ?? []).filter { !knownMissed.contains($0) || engineMissed.contains($0) }
        missed += engineMissed.filter { !knownMissed.contains($0) && !missed.contains($0) }
        missed.sort { $0.recordedAt < $1.recordedAt }
        if missed.count > missedLimit { missed.removeFirst(missed.count - missedLimit) }
        let state = StoredState(
            scheduler: SchedulerSnapshot(alarms: alarms.values.sorted(by: AlarmScheduler.creationOrder), missedAlarms: missed),
            authorizations: stored?.authorizations ?? engine.authorizations, savedAt: engine.savedAt)
        return (state, keptFromEngine)
    }
}
