import AlarmKitCore
import FoundationEssentials
import Synchronization
import Testing

/// An app's intents: kept as a name and text parameters, rebuilt in the app's process, and run by
/// `handleIntents` once per delivery.
@Suite(.timeLimit(.minutes(5))) struct LiveActivityIntentTests {
    struct StopIntent: LiveActivityIntent {
        var alarmID: String
        var reason: Reason

        enum Reason: String, Codable { case pressed, slept }

        static let performed = AsyncStream.makeStream(of: String.self)

        func perform() throws -> some IntentResult {
            Self.performed.continuation.yield(alarmID)
            return .result()
        }
    }

    struct FailingIntent: LiveActivityIntent {
        static let intentName = "failing"
        static let performed = AsyncStream.makeStream(of: Void.self)

        func perform() async throws -> EmptyIntentResult {
            Self.performed.continuation.yield()
            throw AlarmOperationError.serviceUnavailable("the coffee machine is off")
        }
    }

    struct CountedIntent: LiveActivityIntent {
        var count: Int
        func perform() -> some IntentResult { .result() }
    }

    struct ReminderIntent: LiveActivityIntent {
        var note: String
        static let performed = AsyncStream.makeStream(of: String.self)

        func perform() -> some IntentResult {
            Self.performed.continuation.yield(note)
            return .result()
        }
    }

    static let attributes = AlarmAttributes<NoAlarmMetadata>(presentation: AlarmPresentation(alert: .init(title: "Wake")), tintColor: .blue)

    @Test func aConfigurationKeepsTheAppsIntentByNameWithItsPropertiesAsText() throws {
        let id = UUID()
        let configuration = AlarmManager.AlarmConfiguration.alarm(
            schedule: .fixed(Date(timeIntervalSince1970: 1_800_000_000)), attributes: Self.attributes,
            stopIntent: StopIntent(alarmID: id.uuidString, reason: .pressed), secondaryIntent: AlarmIntent("open"))
        let definition = try AlarmDefinition(configuration)
        #expect(definition.stopIntent == AlarmIntent("StopIntent", parameters: ["alarmID": id.uuidString, "reason": "pressed"]))
        #expect(definition.secondaryIntent == AlarmIntent("open"))
        let rebuilt = try StopIntent(try #require(definition.stopIntent))
        #expect(rebuilt.alarmID == id.uuidString && rebuilt.reason == .pressed)
        #expect(throws: DecodingError.self) { try StopIntent(AlarmIntent("StopIntent", parameters: ["alarmID": "x", "reason": "bored"])) }
    }

    @Test func anIntentWhosePropertiesAreNotTextIsRefusedBeforeScheduling() {
        let configuration = AlarmManager.AlarmConfiguration.timer(duration: 60, attributes: Self.attributes, stopIntent: CountedIntent(count: 3))
        #expect(throws: AlarmOperationError.invalidConfiguration("intent CountedIntent: every property must encode as a string")) {
            try AlarmDefinition(configuration)
        }
        var empty = AlarmDefinition(schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: nil), presentation: Self.attributes.presentation)
        empty.stopIntent = AlarmIntent("")
        #expect(throws: AlarmOperationError.self) { try empty.validate() }
    }

    @Test func handleIntentsRunsEachDeliveryOnceAcknowledgesItAndLeavesOthersTypes() async throws {
        let backend = DeliveringBackend()
        let manager = AlarmManager(backend: backend)
        let alarm = UUID()
        let stop = AlarmIntentDelivery(
            alarmID: alarm, button: .stop, intent: AlarmIntent("StopIntent", parameters: ["alarmID": alarm.uuidString, "reason": "pressed"]),
            date: Date())
        let other = AlarmIntentDelivery(alarmID: alarm, button: .secondary, intent: AlarmIntent("coffee"), date: Date())
        let failing = AlarmIntentDelivery(alarmID: alarm, button: .secondary, intent: AlarmIntent("failing"), date: Date())
        backend.deliver(stop)
        manager.handleIntents(StopIntent.self, FailingIntent.self)

        var performed = StopIntent.performed.stream.makeAsyncIterator()
        var acknowledged = backend.acknowledgements.makeAsyncIterator()
        #expect(await performed.next() == alarm.uuidString)
        #expect(await acknowledged.next() == stop.id)
        // Sent again (a reconnection before the acknowledgement arrived): acknowledged, not run.
        backend.deliver(stop)
        #expect(await acknowledged.next() == stop.id)
        // Another program's intent is left waiting; a failing one is acknowledged all the same.
        backend.deliver(other)
        backend.deliver(failing)
        var failed = FailingIntent.performed.stream.makeAsyncIterator()
        await failed.next()
        #expect(await acknowledged.next() == failing.id)
        backend.finish()
        StopIntent.performed.continuation.finish()
        #expect(await performed.next() == nil, "the repeated delivery did not run again")
    }

    /// Two processes of one app both get every delivery; only the one that took it runs it.
    @Test func handleIntentsRunsOnlyTheDeliveriesThisProcessTook() async throws {
        let backend = DeliveringBackend()
        let manager = AlarmManager(backend: backend)
        let theirs = AlarmIntentDelivery(
            alarmID: UUID(), button: .stop, intent: AlarmIntent("ReminderIntent", parameters: ["note": "theirs"]), date: Date())
        let mine = AlarmIntentDelivery(
            alarmID: UUID(), button: .stop, intent: AlarmIntent("ReminderIntent", parameters: ["note": "mine"]), date: Date())
        backend.takenElsewhere([theirs.id])
        backend.deliver(theirs)
        backend.deliver(mine)
        manager.handleIntents(ReminderIntent.self)

        var performed = ReminderIntent.performed.stream.makeAsyncIterator()
        var acknowledged = backend.acknowledgements.makeAsyncIterator()
        #expect(await performed.next() == "mine")
        #expect(await acknowledged.next() == mine.id, "what another process took is neither run nor acknowledged here")
        #expect(backend.takes == [theirs.id, mine.id])
        // The other process went away without acknowledging it: it comes again, and runs here.
        backend.takenElsewhere([])
        backend.deliver(theirs)
        #expect(await performed.next() == "theirs")
        #expect(await acknowledged.next() == theirs.id)
        backend.finish()
    }
}

/// Delivers what the test hands it and reports acknowledgements in order.
final class DeliveringBackend: AlarmBackend {
    private let deliveries = AsyncStream.makeStream(of: AlarmIntentDelivery.self)
    private let acknowledged = AsyncStream.makeStream(of: UUID.self)
    private let subscribed = Mutex(false)

    var acknowledgements: AsyncStream<UUID> { acknowledged.stream }
    func deliver(_ delivery: AlarmIntentDelivery) { deliveries.continuation.yield(delivery) }
    func finish() {
        deliveries.continuation.finish()
    }

    func intentDeliveries() -> AsyncStream<AlarmIntentDelivery> {
        let first = subscribed.withLock { subscribed in
            defer { subscribed = true }
            return !subscribed
        }
        precondition(first, "one subscription in this test")
        return deliveries.stream
    }

    func acknowledgeIntent(_ id: UUID) async throws { acknowledged.continuation.yield(id) }

    private let takeState = Mutex((elsewhere: Set<UUID>(), takes: [UUID]()))
    /// The deliveries another process holds: this one's take of them fails.
    func takenElsewhere(_ ids: Set<UUID>) { takeState.withLock { $0.elsewhere = ids } }
    /// Every take asked for, in order.
    var takes: [UUID] { takeState.withLock { $0.takes } }

    func takeIntent(_ id: UUID) async throws -> Bool {
        takeState.withLock { state in
            state.takes.append(id)
            return !state.elsewhere.contains(id)
        }
    }

    func authorizationState() -> AlarmManager.AuthorizationState { .authorized }
    func authorizationUpdates() -> AsyncStream<AlarmManager.AuthorizationState> { AsyncStream { $0.finish() } }
    func requestAuthorization() async throws -> AlarmManager.AuthorizationState { .authorized }
    func schedule(id: Alarm.ID, definition: AlarmDefinition) async throws -> Alarm { throw AlarmOperationError.notFound(id) }
    func perform(_ action: AlarmAction, id: Alarm.ID) async throws {}
    func performBlocking(_ action: AlarmAction, id: Alarm.ID) throws {}
    func alarms() throws -> [Alarm] { [] }
    func alarmUpdates() -> AsyncStream<[Alarm]> { AsyncStream { $0.finish() } }
}
