import AlarmKitCore
import AlarmProtocol
import AlarmTime
import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// The intents on their way to the clients that own their alarms, kept in `intents.json` in the
/// state directory until each is acknowledged.
///
/// A press at the device posts the alarm's intent here after the alarm's own change is made; it
/// goes at once to every subscription of the owner, and waits for the owner's next one if there
/// is none. Nothing here waits for a client, and the daemon never runs an intent itself.
///
/// Bounded, so a client that never connects cannot fill the disk: at most
/// ``capacityPerClient`` deliveries wait per client (the oldest go first), none longer than
/// ``lifetime``. The file is replaced durably on every change; when it cannot be written (a full
/// or read-only disk) the deliveries still go out, and the next change tries again. A file that
/// exists but could not be read at start is left as it is, and read again at each change until it
/// can be; meanwhile deliveries go out, and are kept in memory only.
public final class IntentMailbox: Sendable {
    public static let capacityPerClient = 16
    public static let lifetime: TimeInterval = 24 * 60 * 60

    private struct State {
        var waiting: [ClientID: [AlarmIntentDelivery]] = [:]
        var failingToSave = false
        /// The file exists but could not be read: replacing it would lose what it holds.
        var unread: StoreError?
    }

    /// The file's content: every waiting delivery with its owner, oldest first.
    private struct Stored: Codable {
        var version = 1
        var deliveries: [Owned]
    }

    private struct Owned: Codable {
        var owner: ClientID
        var delivery: AlarmIntentDelivery
    }

    let path: String
    private let directory: String
    private let files: DurableFile
    private let clock: any WallClock
    private let logger: Logger
    /// Held while a delivery is posted and while a subscription starts, so that a new
    /// subscription gets each delivery once: waiting when it starts, or sent after.
    private let state = Mutex(State())
    private let subscriptions = Broadcaster<ClientID, AlarmIntentDelivery>(replaysLatest: false)

    /// Loads what was waiting; a damaged file is set aside and logged, one that could not be read
    /// is left as it is (and read again at the next change).
    init(directory: String, clock: any WallClock, logger: Logger, files: DurableFile = .system) {
        self.directory = directory
        self.path = directory + "/intents.json"
        self.files = files
        self.clock = clock
        self.logger = logger
        state.withLock { state in
            do throws(StoreError) {
                state.waiting = try readFile() ?? [:]
            } catch {
                state.unread = error
                logger.error("Waiting intents could not be read; left as they are, and read again at the next change", metadata: [
                    "intents.error": "\(error)",
                ])
            }
        }
    }

    /// What the file holds; `nil` if there is none or it was damaged (then it is set aside).
    ///
    /// - Throws: ``StoreError`` when the file exists but could not be read.
    private func readFile() throws(StoreError) -> [ClientID: [AlarmIntentDelivery]]? {
        do {
            guard let bytes = try files.read(path) else { return nil }
            let stored = try ControlProtocol.makeDecoder().decode(Stored.self, from: Data(bytes))
            var waiting: [ClientID: [AlarmIntentDelivery]] = [:]
            for owned in stored.deliveries { waiting[owned.owner, default: []].append(owned.delivery) }
            return waiting
        } catch let error as StoreError where !error.notARegularFile {
            throw error
        } catch {
            let aside = try? files.moveAside(
                path, to: "\(path).bad-\(Int(clock.now.timeIntervalSince1970))", directory: directory)
            logger.error("Waiting intents unusable; kept aside, none delivered", metadata: [
                "intents.error": "\(error)", "intents.kept": "\(aside ?? "left in place")",
            ])
            return nil
        }
    }

    /// Reads a file that could not be read before, and adds what it holds to what waits.
    private func readAgainIfUnread(_ state: inout State) {
        guard state.unread != nil else { return }
        let stored: [ClientID: [AlarmIntentDelivery]]
        do throws(StoreError) {
            stored = try readFile() ?? [:]
        } catch {
            state.unread = error
            return
        }
        state.unread = nil
        for (owner, deliveries) in stored {
            let meanwhile = state.waiting[owner] ?? []
            let known = Set(meanwhile.map(\.id))
            var merged = deliveries.filter { !known.contains($0.id) } + meanwhile
            merged.sort { $0.date < $1.date }
            if merged.count > Self.capacityPerClient { merged.removeFirst(merged.count - Self.capacityPerClient) }
            state.waiting[owner] = merged
        }
        logger.notice("Waiting intents read again", metadata: ["intents.file": "\(path)"])
    }

    /// Delivers `intent` of `owner`'s alarm, pressed now: to the owner's subscriptions at once,
    /// and kept for its later ones until acknowledged.
    public func post(_ intent: AlarmIntent, button: AlarmIntentDelivery.Button, alarm: Alarm.ID, owner: ClientID) {
        let delivery = AlarmIntentDelivery(alarmID: alarm, button: button, intent: intent, date: clock.now)
        let listeners = state.withLock { state in
            readAgainIfUnread(&state)
            var waiting = state.waiting[owner, default: []]
            waiting.append(delivery)
            if waiting.count > Self.capacityPerClient {
                let dropped = waiting.removeFirst()
                logger.warning("Intent dropped unacknowledged: its client has too many waiting", metadata: [
                    "client": "\(owner)", "intent": "\(dropped.intent.name)", "alarm.id": "\(dropped.alarmID)",
                ])
            }
            state.waiting[owner] = waiting
            save(&state)
            return subscriptions.publish(delivery, for: owner)
        }
        logger.info(listeners > 0 ? "Alarm intent sent to its client" : "Alarm intent kept until its client connects", metadata: [
            "client": "\(owner)", "intent": "\(intent.name)", "alarm.id": "\(alarm)",
        ])
    }

    /// The owner's waiting deliveries at once, then each new one.
    public func deliveries(for owner: ClientID) -> AsyncStream<AlarmIntentDelivery> {
        state.withLock { state in
            let wasUnread = state.unread != nil
            readAgainIfUnread(&state)
            if dropExpired(&state) || (wasUnread && state.unread == nil) { save(&state) }
            return subscriptions.subscribe(owner, startingWith: state.waiting[owner] ?? [])
        }
    }

    /// Forgets a delivery the owner has handled; an unknown id (another process of the owner
    /// acknowledged it first) is no error.
    public func acknowledge(_ id: UUID, for owner: ClientID) {
        state.withLock { state in
            readAgainIfUnread(&state)
            guard let index = state.waiting[owner]?.firstIndex(where: { $0.id == id }) else { return }
            state.waiting[owner]?.remove(at: index)
            if state.waiting[owner]?.isEmpty == true { state.waiting[owner] = nil }
            save(&state)
        }
    }

    /// What waits for `owner`, oldest first.
    public func waiting(for owner: ClientID) -> [AlarmIntentDelivery] {
        state.withLock { $0.waiting[owner] ?? [] }
    }

    func finishAll() {
        subscriptions.finishAll()
    }

    // MARK: - Keeping them

    /// Drops deliveries older than ``lifetime``; `true` if any went.
    private func dropExpired(_ state: inout State) -> Bool {
        let oldest = clock.now.addingTimeInterval(-Self.lifetime)
        var dropped = false
        for (owner, deliveries) in state.waiting where deliveries.contains(where: { $0.date < oldest }) {
            let kept = deliveries.filter { $0.date >= oldest }
            state.waiting[owner] = kept.isEmpty ? nil : kept
            dropped = true
        }
        return dropped
    }

    /// Writes what waits (an empty mailbox as no file); a failure is logged once until a write
    /// works again. Nothing is written over a file that could not be read.
    private func save(_ state: inout State) {
        _ = dropExpired(&state)
        guard state.unread == nil else { return }
        let owned = state.waiting.sorted { $0.key < $1.key }.flatMap { owner, deliveries in
            deliveries.map { Owned(owner: owner, delivery: $0) }
        }
        do {
            if owned.isEmpty {
                if files.calls.unlink(path) != 0, errno != ENOENT { throw StoreError(operation: "unlink", path: path, errno: errno) }
            } else {
                let bytes = try ControlProtocol.makeEncoder().encode(Stored(deliveries: owned))
                try files.replace(path, with: Array(bytes), directory: directory)
            }
            if state.failingToSave {
                state.failingToSave = false
                logger.notice("Waiting intents saved again", metadata: ["intents.file": "\(path)"])
            }
        } catch {
            if !state.failingToSave {
                state.failingToSave = true
                logger.warning("Waiting intents cannot be saved; a restart would lose them", metadata: [
                    "intents.file": "\(path)", "intents.error": "\(error)",
                ])
            }
        }
    }
}
