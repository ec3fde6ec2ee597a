import AlarmKitCore
import FoundationEssentials
import Synchronization
import Testing

/// The API surface itself: shapes, Codable round trips, and what a manager checks before its
/// backend sees anything.
@Suite struct AlarmKitTests {
    struct Recipe: AlarmMetadata {
        var dish: String
    }

    static let presentation = AlarmPresentation(
        alert: .init(title: "Eggs are ready!", stopButton: .stop, secondaryButton: .repeat, secondaryButtonBehavior: .countdown),
        countdown: .init(title: "Eggs are cooking", pauseButton: .pause),
        paused: .init(title: "Timer paused", resumeButton: .resume))

    @Test func timerConfigurationCountsDownAndRepeatsWithTheSameDuration() {
        let configuration = AlarmManager.AlarmConfiguration.timer(
            duration: 300, attributes: AlarmAttributes<Recipe>(presentation: Self.presentation, metadata: .init(dish: "eggs"), tintColor: .blue))
        #expect(configuration.schedule == nil)
        #expect(configuration.countdownDuration == Alarm.CountdownDuration(preAlert: 300, postAlert: 300))
        #expect(configuration.sound == .default)
    }

    @Test func alarmConfigurationHasAScheduleAndNoCountdown() {
        let schedule = Alarm.Schedule.relative(.init(time: .init(hour: 6, minute: 0), repeats: .weekly([.monday, .friday])))
        let configuration = AlarmManager.AlarmConfiguration.alarm(
            schedule: schedule, attributes: AlarmAttributes<NoAlarmMetadata>(presentation: Self.presentation, tintColor: .red),
            sound: .named("birds.wav"))
        #expect(configuration.schedule == schedule)
        #expect(configuration.countdownDuration == nil)
        #expect(configuration.sound == .named("birds.wav"))
    }

    /// A refused sound name is shown escaped and clipped: one readable line (found by the fuzzer).
    @Test(arguments: ["a\nb/c", "../" + String(repeating: "x", count: 300)])
    func aRefusedSoundNameIsOneReadableLine(_ name: String) throws {
        let configuration = AlarmManager.AlarmConfiguration.alarm(
            schedule: .relative(.init(time: .init(hour: 6, minute: 0), repeats: .never)),
            attributes: AlarmAttributes<NoAlarmMetadata>(presentation: Self.presentation, tintColor: .red), sound: .named(name))
        let error = #expect(throws: AlarmOperationError.self) { try AlarmDefinition(configuration).validate() }
        let message = try #require(error.map { "\($0)" })
        #expect(message.contains("is not a plain file name"), "\(message)")
        #expect(!message.contains { $0.isNewline }, "\(message)")
        #expect(message.count < 160, "\(message)")
    }

    @Test func definitionKeepsTheMetadataAsJSON() throws {
        let configuration = AlarmManager.AlarmConfiguration.timer(
            duration: 60, attributes: AlarmAttributes(presentation: Self.presentation, metadata: Recipe(dish: "tea"), tintColor: .green))
        let definition = try AlarmDefinition(configuration)
        let metadata = try #require(definition.metadata)
        #expect(try JSONDecoder().decode(Recipe.self, from: metadata) == Recipe(dish: "tea"))
        #expect(definition.tintColor == .green)
        #expect(definition.postAlertCountdown == 60)
    }

    @Test func everyPublicValueRoundTripsThroughJSON() throws {
        let alarm = Alarm(
            id: Alarm.ID(), schedule: .fixed(Date(timeIntervalSince1970: 1_800_000_000)),
            countdownDuration: .init(preAlert: nil, postAlert: 540), state: .alerting)
        #expect(try Self.roundTrip(alarm) == alarm)
        let state = AlarmPresentationState(alarmID: alarm.id, mode: .countdown(.init(
            totalCountdownDuration: 300, previouslyElapsedDuration: 20,
            startDate: Date(timeIntervalSince1970: 1_800_000_000), fireDate: Date(timeIntervalSince1970: 1_800_000_280))))
        #expect(try Self.roundTrip(state) == state)
        #expect(try Self.roundTrip(Self.presentation) == Self.presentation)
        #expect(try Self.roundTrip(AlarmOperationError.invalidTransition(alarm.id, action: .pause, from: .alerting))
                == .invalidTransition(alarm.id, action: .pause, from: .alerting))
    }

    @Test func colorComponentsAreClampedAlsoWhenDecoded() throws {
        #expect(Color(red: 2, green: -1, blue: .nan) == Color(red: 1, green: 0, blue: 0))
        let decoded = try JSONDecoder().decode(Color.self, from: Data(#"{"red":7,"green":0.5,"blue":-3}"#.utf8))
        #expect(decoded == Color(red: 1, green: 0.5, blue: 0))
    }

    @Test func errorsSayWhatWasRefused() {
        let id = Alarm.ID()
        #expect("\(AlarmOperationError.invalidTransition(id, action: .pause, from: .alerting))"
                == "cannot pause alarm \(id) while it is alerting")
        #expect("\(AlarmManager.AlarmError.maximumLimitReached)" == "the device's limit on alarms is reached")
    }

    @Test func theManagerRefusesAnInvalidConfigurationBeforeTheBackendSeesIt() async throws {
        let backend = RecordingBackend()
        let manager = AlarmManager(backend: backend)
        let noSchedule = AlarmManager.AlarmConfiguration<NoAlarmMetadata>(
            attributes: AlarmAttributes(presentation: Self.presentation, tintColor: .white))
        await #expect(throws: AlarmOperationError.self) {
            try await manager.schedule(id: Alarm.ID(), configuration: noSchedule)
        }
        #expect(backend.calls.isEmpty)

        let id = Alarm.ID()
        try await manager.schedule(id: id, configuration: .timer(
            duration: 90, attributes: AlarmAttributes<NoAlarmMetadata>(presentation: Self.presentation, tintColor: .white)))
        try await manager.perform(.pause, id: id)
        try await manager.perform(.resume, id: id)
        try await manager.perform(.countdown, id: id)
        try await manager.perform(.stop, id: id)
        try await manager.perform(.cancel, id: id)
        #expect(backend.calls == ["schedule \(id)", "pause \(id)", "resume \(id)", "countdown \(id)", "stop \(id)", "cancel \(id)"])
    }

    /// Apple declares the five actions synchronous only: written as Apple's code writes them,
    /// they compile unchanged inside an `async` function (no `async` overload wins and demands
    /// `await`) and reach the backend's synchronous path.
    @Test func theSynchronousActionsCompileUnchangedInAsyncCode() async throws {
        let backend = RecordingBackend()
        let manager = AlarmManager(backend: backend)
        let id = Alarm.ID()
        try manager.pause(id: id)
        try manager.resume(id: id)
        try manager.countdown(id: id)
        try manager.stop(id: id)
        try manager.cancel(id: id)
        _ = try await RecordingIntent(manager: manager, alarmID: id).perform()
        #expect(backend.calls == [
            "pause \(id) (blocking)", "resume \(id) (blocking)", "countdown \(id) (blocking)", "stop \(id) (blocking)",
            "cancel \(id) (blocking)", "stop \(id) (blocking)",
        ])
    }

    static func roundTrip<Value: Codable>(_ value: Value) throws -> Value {
        try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
    }
}

/// An intent whose `perform()` is `async`, as Apple's examples write them, calling a synchronous
/// action without `await`.
struct RecordingIntent: LiveActivityIntent {
    var alarmID: Alarm.ID
    private var manager: AlarmManager?

    init(manager: AlarmManager, alarmID: Alarm.ID) {
        self.manager = manager
        self.alarmID = alarmID
    }

    enum CodingKeys: CodingKey { case alarmID }

    func perform() async throws -> some IntentResult {
        try manager?.stop(id: alarmID)
        return .result()
    }
}

/// Records what reaches it.
final class RecordingBackend: AlarmBackend {
    private let log = Mutex<[String]>([])

    var calls: [String] { log.withLock { $0 } }

    func authorizationState() -> AlarmManager.AuthorizationState { .authorized }
    func authorizationUpdates() -> AsyncStream<AlarmManager.AuthorizationState> { AsyncStream { $0.finish() } }
    func requestAuthorization() async throws -> AlarmManager.AuthorizationState { .authorized }
    func schedule(id: Alarm.ID, definition: AlarmDefinition) async throws -> Alarm {
        log.withLock { $0.append("schedule \(id)") }
        return Alarm(id: id, schedule: definition.schedule, countdownDuration: definition.countdownDuration, state: .countdown)
    }
    func perform(_ action: AlarmAction, id: Alarm.ID) async throws {
        log.withLock { $0.append("\(action.rawValue) \(id)") }
    }
    func performBlocking(_ action: AlarmAction, id: Alarm.ID) throws {
        log.withLock { $0.append("\(action.rawValue) \(id) (blocking)") }
    }
    func alarms() throws -> [Alarm] { [] }
    func alarmUpdates() -> AsyncStream<[Alarm]> { AsyncStream { $0.finish() } }
    func intentDeliveries() -> AsyncStream<AlarmIntentDelivery> { AsyncStream { $0.finish() } }
    func takeIntent(_ id: UUID) async throws -> Bool {
        log.withLock { $0.append("take \(id)") }
        return true
    }
    func acknowledgeIntent(_ id: UUID) async throws {
        log.withLock { $0.append("acknowledge \(id)") }
    }
}
