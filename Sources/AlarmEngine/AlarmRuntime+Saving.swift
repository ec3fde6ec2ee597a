import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Logging

/// Saving changes durably, tracking the store's health, and publishing what changed.
extension AlarmRuntime {
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
        snapshot.timeSource = timeSourceTracker.status?.source
        return snapshot
    }

    /// The device's revision now: what a new subscriber of its changes starts from.
    public var deviceRevision: UInt64 { revision }

    /// Tells the device, and the device's subscribers (the phone page, the MQTT bridge), that
    /// something it shows changed though no alarm did: the store's health, the time source, the
    /// household's settings.
    public func publishDeviceSnapshot() {
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
    func commitTimeDriven(_ outcome: SchedulerOutcome, because reason: HistoryEntry.Reason? = nil) {
        // Published before it is saved, and saved in a job of its own: an alert has started
        // whether or not it is on disk yet, and neither the sound nor the appliance's next look
        // at the engine may wait for a disk sync (tens of milliseconds on an SD card). A restart
        // before the save rings it again.
        publish(outcome, because: reason)
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
    /// re-arms the timer. `reason` is why what rang late or was missed did (the history says it).
    func publish(_ outcome: SchedulerOutcome, because reason: HistoryEntry.Reason? = nil) {
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
        recordHistory(outcome.events, because: reason)
        rearmTimer()
    }

    func recordHistory(_ events: [SchedulerEvent], because reason: HistoryEntry.Reason?) {
        let now = clock.now
        var entries: [HistoryEntry] = []
        func entry(_ kind: HistoryEntry.Kind, _ key: AlarmKey, lateBy: TimeInterval? = nil) {
            guard let title = scheduler.record(for: key)?.definition.presentation.alert.title ?? lastKnownTitles[key] else {
                return
            }
            entries.append(HistoryEntry(
                date: now, kind: kind, alarmID: key.id, owner: key.owner, title: title, lateBy: lateBy,
                reason: lateBy == nil ? nil : reason))
        }
        for event in events {
            switch event {
            // Within a second is on time: the timer's own slack, not a story for the history.
            case .alertStarted(let key, let lateBy): entry(.rang, key, lateBy: lateBy >= 1 ? lateBy : nil)
            case .countdownStarted(let key, _):
                if case .countdown(let countdown)? = scheduler.record(for: key)?.phase, countdown.kind == .postAlert {
                    entry(.snoozed, key)
                }
            case .stopped(let key): entry(.stopped, key)
            case .autoSilenced(let key): entry(.autoSilenced, key)
            case .missed(let missed) where missed.reason == .tooLate:
                entries.append(HistoryEntry(
                    date: missed.dueDate, kind: .missed, alarmID: missed.alarmID, owner: missed.owner, title: missed.title,
                    reason: reason))
            case .disabled(let key): entry(.disabled, key)
            case .enabled(let key): entry(.enabled, key)
            case .skipped(let key): entry(.skipped, key)
            case .removed(let key):
                lastKnownTitles[key] = nil
            case .scheduled, .paused, .resumed, .missed, .rescheduled, .wakeChanged:
                break
            }
        }
        for event in events {
            if case .scheduled(let key) = event, let record = scheduler.record(for: key) {
                lastKnownTitles[key] = record.definition.presentation.alert.title
            }
        }
        appendHistory(entries)
    }

    /// Appends to the history; a failure is logged, never the caller's: the alarm already did it.
    func appendHistory(_ entries: [HistoryEntry]) {
        do {
            try history.append(entries)
        } catch {
            logger.warning("Alarm history could not be written", metadata: ["history.error": "\(error)"])
        }
    }
}
