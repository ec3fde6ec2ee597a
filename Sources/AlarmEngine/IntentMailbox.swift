import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// The intents on their way to the apps that own their alarms, kept in `intents.json` in the
/// state directory until each is acknowledged.
///
/// A press posts the alarm's intent here after the alarm's own change is made
/// (``AlarmRuntime/press(_:on:requiring:)``); it goes at once to every subscription of the alarm's app
/// (``IntentRecipient``), and waits for the app's next one if there is none. Every subscription
/// sees it, but only one process runs it: the one that ``take(_:for:by:)``s it first holds it
/// until it acknowledges it, or until it goes away (its connection closes, see
/// ``release(takenBy:)``), when the delivery goes out again to the app's other subscriptions.
/// Nothing here waits for a client, and the daemon never runs an intent itself.
///
/// Bounded, so a client that never connects cannot fill the disk: at most
/// ``capacityPerClient`` deliveries wait per user (the oldest go first), none longer than
/// ``lifetime``. The file is replaced durably on every change; when it cannot be written (a full
/// or read-only disk) the deliveries still go out, and the next change tries again. A file that
/// exists but could not be read at start is left as it is, and read again at each change until it
/// can be; meanwhile deliveries go out, and are kept in memory only. Takes are not kept: after a
/// restart every delivery not acknowledged goes out again, to be taken afresh.
public final class IntentMailbox: Sendable {
    public static let capacityPerClient = 16
    public static let lifetime: TimeInterval = 24 * 60 * 60

    private struct State {
        var waiting: [ClientID: [Waiting]] = [:]
        /// Who holds each delivery taken and not yet acknowledged.
        var taken: [UUID: IntentTaker] = [:]
        var failingToSave = false
        /// The file exists but could not be read: replacing it would lose what it holds.
        var unread: StoreError?
    }

    /// A delivery waiting, with the app it is for (`nil`: any of its user's).
    private struct Waiting: Codable, Hashable, Sendable {
        var app: String?
        var delivery: AlarmIntentDelivery
    }

    /// The file's content: every waiting delivery with its owner and app, oldest first.
    struct Stored: Codable {
        var version = 1
        var deliveries: [Owned]
    }

    struct Owned: Codable {
        var owner: ClientID
        /// Absent in files written before deliveries went to one app.
        var app: String?
        var delivery: AlarmIntentDelivery
    }

    /// `intents.json`'s coders: dates as seconds since 1970 and slashes unescaped, as the control
    /// socket sends a delivery, so the file holds each one as its subscribers receive it.
    static func fileEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    static func fileDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    let path: String
    private let directory: String
    private let files: DurableFile
    private let clock: any WallClock
    private let logger: Logger
    /// Held while a delivery is posted and while a subscription starts, so that a new
    /// subscription gets each delivery once: waiting when it starts, or sent after.
    private let state = Mutex(State())
    private let subscriptions = Broadcaster<IntentRecipient, AlarmIntentDelivery>(replaysLatest: false)

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
    private func readFile() throws(StoreError) -> [ClientID: [Waiting]]? {
        do {
            guard let bytes = try files.read(path) else { return nil }
            let stored = try Self.fileDecoder().decode(Stored.self, from: Data(bytes))
            var waiting: [ClientID: [Waiting]] = [:]
            for owned in stored.deliveries {
                waiting[owned.owner, default: []].append(Waiting(app: owned.app, delivery: owned.delivery))
            }
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
        let stored: [ClientID: [Waiting]]
        do throws(StoreError) {
            stored = try readFile() ?? [:]
        } catch {
            state.unread = error
            return
        }
        state.unread = nil
        for (owner, deliveries) in stored {
            let meanwhile = state.waiting[owner] ?? []
            let known = Set(meanwhile.map(\.delivery.id))
            var merged = deliveries.filter { !known.contains($0.delivery.id) } + meanwhile
            merged.sort { $0.delivery.date < $1.delivery.date }
            if merged.count > Self.capacityPerClient { merged.removeFirst(merged.count - Self.capacityPerClient) }
            state.waiting[owner] = merged
        }
        logger.notice("Waiting intents read again", metadata: ["intents.file": "\(path)"])
    }

    /// Delivers `intent` of `owner`'s alarm, pressed now, to the app that scheduled it (`nil`:
    /// any of the owner's): to its subscriptions at once, and kept for its later ones until
    /// acknowledged.
    public func post(
        _ intent: AlarmIntent, button: AlarmIntentDelivery.Button, alarm: Alarm.ID, owner: ClientID, app: String? = nil
    ) {
        let delivery = AlarmIntentDelivery(alarmID: alarm, button: button, intent: intent, date: clock.now)
        let item = Waiting(app: app, delivery: delivery)
        let listeners = state.withLock { state in
            readAgainIfUnread(&state)
            var waiting = state.waiting[owner, default: []]
            waiting.append(item)
            if waiting.count > Self.capacityPerClient {
                let dropped = waiting.removeFirst().delivery
                logger.warning("Intent dropped unacknowledged: its client has too many waiting", metadata: [
                    "client": "\(owner)", "intent": "\(dropped.intent.name)", "alarm.id": "\(dropped.alarmID)",
                ])
            }
            state.waiting[owner] = waiting
            save(&state)
            return publish(item, owner: owner)
        }
        logger.info(listeners > 0 ? "Alarm intent sent to its client" : "Alarm intent kept until its client connects", metadata: [
            "client": "\(owner)", "app": "\(app ?? "")", "intent": "\(intent.name)", "alarm.id": "\(alarm)",
        ])
    }

    /// Sends a waiting delivery to every subscription it is for; returns how many there were.
    private func publish(_ item: Waiting, owner: ClientID) -> Int {
        subscriptions.publish(item.delivery) { $0.owner == owner && $0.accepts(app: item.app) }
    }

    /// The deliveries waiting for `recipient` at once, then each new one, and again each one
    /// released by a process that took it and went away.
    public func deliveries(for recipient: IntentRecipient) -> AsyncStream<AlarmIntentDelivery> {
        state.withLock { state in
            let wasUnread = state.unread != nil
            readAgainIfUnread(&state)
            if dropExpired(&state) || (wasUnread && state.unread == nil) { save(&state) }
            let first = (state.waiting[recipient.owner] ?? []).filter { recipient.accepts(app: $0.app) }
            return subscriptions.subscribe(recipient, startingWith: first.map(\.delivery))
        }
    }

    /// Every delivery of `owner`'s, whatever app it is for (an owner that names no app).
    public func deliveries(for owner: ClientID) -> AsyncStream<AlarmIntentDelivery> {
        deliveries(for: IntentRecipient(owner: owner))
    }

    /// Gives delivery `id` to `taker`, a process of `recipient` that is about to run it: `true`
    /// for the first to ask (and again for it), `false` for every other, and for a delivery
    /// that is not waiting for `recipient` (acknowledged meanwhile, or another app's). The take
    /// lasts until the delivery is acknowledged or ``release(takenBy:)``.
    public func take(_ id: UUID, for recipient: IntentRecipient, by taker: IntentTaker) -> Bool {
        state.withLock { state in
            readAgainIfUnread(&state)
            guard let item = state.waiting[recipient.owner]?.first(where: { $0.delivery.id == id }),
                  recipient.accepts(app: item.app)
            else { return false }
            if let holder = state.taken[id] { return holder == taker }
            state.taken[id] = taker
            return true
        }
    }

    /// `taker` went away (its connection closed): what it took and did not acknowledge goes out
    /// again to the subscriptions it is for, for another process to take.
    public func release(takenBy taker: IntentTaker) {
        state.withLock { state in
            let released = Set(state.taken.filter { $0.value == taker }.keys)
            guard !released.isEmpty else { return }
            for id in released { state.taken[id] = nil }
            for (owner, items) in state.waiting {
                for item in items where released.contains(item.delivery.id) {
                    _ = publish(item, owner: owner)
                }
            }
        }
    }

    /// Forgets a delivery the owner has handled; an unknown id (another process of the owner
    /// acknowledged it first) is no error.
    public func acknowledge(_ id: UUID, for owner: ClientID) {
        state.withLock { state in
            readAgainIfUnread(&state)
            guard let index = state.waiting[owner]?.firstIndex(where: { $0.delivery.id == id }) else { return }
            state.waiting[owner]?.remove(at: index)
            if state.waiting[owner]?.isEmpty == true { state.waiting[owner] = nil }
            state.taken[id] = nil
            save(&state)
        }
    }

    /// What waits for `owner`, oldest first, whatever app it is for.
    public func waiting(for owner: ClientID) -> [AlarmIntentDelivery] {
        state.withLock { ($0.waiting[owner] ?? []).map(\.delivery) }
    }

    func finishAll() {
        subscriptions.finishAll()
    }

    // MARK: - Keeping them

    /// Drops deliveries older than ``lifetime``; `true` if any went.
    private func dropExpired(_ state: inout State) -> Bool {
        let oldest = clock.now.addingTimeInterval(-Self.lifetime)
        var dropped = false
        for (owner, items) in state.waiting where items.contains(where: { $0.delivery.date < oldest }) {
            let kept = items.filter { $0.delivery.date >= oldest }
            state.waiting[owner] = kept.isEmpty ? nil : kept
            dropped = true
        }
        return dropped
    }

    /// Writes what waits (an empty mailbox as no file); a failure is logged once until a write
    /// works again. Nothing is written over a file that could not be read.
    private func save(_ state: inout State) {
        _ = dropExpired(&state)
        if !state.taken.isEmpty {
            let kept = Set(state.waiting.values.joined().map(\.delivery.id))
            state.taken = state.taken.filter { kept.contains($0.key) }
        }
        guard state.unread == nil else { return }
        let owned = state.waiting.sorted { $0.key < $1.key }.flatMap { owner, items in
            items.map { Owned(owner: owner, app: $0.app, delivery: $0.delivery) }
        }
        do {
            if owned.isEmpty {
                if files.calls.unlink(path) != 0, errno != ENOENT { throw StoreError(operation: "unlink", path: path, errno: errno) }
            } else {
                let bytes = try Self.fileEncoder().encode(Stored(deliveries: owned))
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

/// Who an alarm's intents are for: the app that scheduled it, known by its user (as the kernel
/// vouches for it on the socket) and the name the app declares when it connects (AlarmKit's
/// `AlarmManager.shared` declares `$ALARMKIT_APP_ID`, else its executable's file name).
///
/// A subscription that names no app (`alarmctl`) is every app of its user; an alarm scheduled
/// by a client that named none is for every app of its owner.
public struct IntentRecipient: Hashable, Sendable, CustomStringConvertible {
    public var owner: ClientID
    public var app: String?

    public init(owner: ClientID, app: String? = nil) {
        self.owner = owner
        self.app = app
    }

    /// Whether this subscriber's deliveries include those for `deliveryApp`.
    public func accepts(app deliveryApp: String?) -> Bool {
        app == nil || deliveryApp == nil || app == deliveryApp
    }

    public var description: String { app.map { "\(owner) app \($0)" } ?? "\(owner)" }
}

/// A process about to run intents, as the mailbox tells them apart: a control connection, or a
/// manager in the engine's own process. Each value is new and unique.
public struct IntentTaker: Hashable, Sendable {
    private let id = UUID()

    public init() {}
}
