import AlarmAppliance
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmSimulator
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization
import Testing

// The phases' memberwise initialisers are internal: the renderer tests build them by hand.
@testable import AlarmEngine

/// Shared values for the appliance tests: Monday 23 November 2026 in Berlin.
enum Scene {
    static let berlin: TimeZoneRules = {
        do {
            return try TimeZoneDatabase().rules(named: "Europe/Berlin")
        } catch {
            fatalError("tzdata must provide Europe/Berlin: \(error)")
        }
    }()

    static let owner = ClientID(rawValue: 1000)

    /// The scene owner's alarm `id`, as the engine keys it.
    static func key(_ id: Alarm.ID) -> AlarmKey { AlarmKey(owner: owner, id: id) }
    static let logger = Logger(label: "appliance-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An instant from ISO 8601 text; a typo in a test is a programmer error.
    static func at(_ text: String) -> Date {
        guard let date = ISO8601.parse(text) else { fatalError("bad instant in test: \(text)") }
        return date
    }

    /// A time on Monday 23 November 2026, Berlin (UTC+1).
    static func monday(_ hour: Int, _ minute: Int, _ second: Double = 0) -> Date {
        at("2026-11-23T00:00:00+01:00").addingTimeInterval(Double(hour * 3600 + minute * 60) + second)
    }

    static func presentation(
        _ title: String = "Wake up", secondary: AlarmButton? = .snooze,
        behavior: AlarmPresentation.Alert.SecondaryButtonBehavior? = .countdown, pauseButton: AlarmButton? = .pause,
        pausedTitle: String? = nil
    ) -> AlarmPresentation {
        AlarmPresentation(
            alert: .init(title: title, stopButton: .stop, secondaryButton: secondary, secondaryButtonBehavior: behavior),
            countdown: .init(title: title, pauseButton: pauseButton),
            paused: .init(title: pausedTitle ?? title, resumeButton: .resume))
    }

    /// A one-time wall-clock alarm at `hour:minute` with a 9-minute snooze.
    static func alarm(
        _ hour: Int, _ minute: Int, title: String = "Wake up", weekly days: [Locale.Weekday]? = nil,
        presentation: AlarmPresentation? = nil, tint: Color = .white, sound: AlertSound = .default,
        stopIntent: AlarmIntent? = nil, secondaryIntent: AlarmIntent? = nil
    ) -> AlarmDefinition {
        AlarmDefinition(
            schedule: .relative(.init(time: .init(hour: hour, minute: minute), repeats: days.map { .weekly($0) } ?? .never)),
            countdownDuration: .init(preAlert: nil, postAlert: 9 * 60),
            presentation: presentation ?? Self.presentation(title),
            tintColor: tint, stopIntent: stopIntent, secondaryIntent: secondaryIntent, sound: sound)
    }

    /// A timer of `seconds` that can be paused from the device.
    static func timer(
        _ seconds: TimeInterval, title: String = "Tea", tint: Color = .white, stopIntent: AlarmIntent? = nil
    ) -> AlarmDefinition {
        AlarmDefinition(
            schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: seconds),
            presentation: presentation(title, secondary: .repeat), tintColor: tint, stopIntent: stopIntent)
    }

    // MARK: - Records built by hand, for the renderer

    static func record(
        _ phase: AlarmPhase, title: String = "Wake up", presentation: AlarmPresentation? = nil,
        schedule: Alarm.Schedule? = .relative(.init(time: .init(hour: 7, minute: 0), repeats: .never)),
        sequence: UInt64 = 1
    ) -> AlarmRecord {
        AlarmRecord(
            id: Alarm.ID(), owner: owner,
            definition: AlarmDefinition(
                schedule: schedule, countdownDuration: .init(preAlert: nil, postAlert: 540),
                presentation: presentation ?? Self.presentation(title)),
            phase: phase, createdAt: monday(6, 0), sequenceNumber: sequence)
    }

    static func alerting(at hour: Int, _ minute: Int, since: Date) -> AlarmPhase {
        .alerting(AlertingPhase(since: since, dueDate: since, time: .init(hour: hour, minute: minute), occurrence: .fixed(since)))
    }

    /// A running timer with `remaining` seconds left at `now`.
    static func countingDown(remaining: TimeInterval, total: TimeInterval = 3600 * 2, now: Date) -> AlarmPhase {
        .countdown(CountdownPhase(
            kind: .timer, startDate: now.addingTimeInterval(remaining - total), previouslyElapsed: 0, total: total,
            occurrence: nil))
    }

    static func paused(remaining: TimeInterval, total: TimeInterval = 600) -> AlarmPhase {
        .paused(PausedPhase(kind: .timer, previouslyElapsed: total - remaining, total: total, occurrence: nil))
    }

    static func missed(_ title: String, due: Date, occurrences: Int = 1) -> MissedAlarm {
        MissedAlarm(
            alarmID: Alarm.ID(), owner: owner, title: title, dueDate: due, reason: .tooLate, occurrences: occurrences,
            recordedAt: due)
    }

    static func snapshot(
        now: Date, trusted: Bool = true, alerting: [AlarmRecord] = [], countdowns: [AlarmRecord] = [],
        next: (title: String, due: Date, repeats: [Locale.Weekday]?)? = nil, missed: [MissedAlarm] = []
    ) -> DeviceSnapshot {
        let upcoming = next.map { next in
            let local = berlin.localDateTime(at: next.due).time
            let schedule = Alarm.Schedule.relative(.init(
                time: .init(hour: local.hour, minute: local.minute), repeats: next.repeats.map { .weekly($0) } ?? .never))
            return UpcomingAlarm(
                record: record(.scheduled(.fixed(next.due)), title: next.title, schedule: schedule), dueDate: next.due)
        }
        return DeviceSnapshot(
            now: now, timeZone: berlin, isClockTrusted: trusted, alerting: alerting, countdowns: countdowns,
            nextAlarm: upcoming, missedAlarms: missed)
    }
}

/// The appliance on fakes, on a manual clock, with its engine's store in a temporary directory,
/// driven step by step (no `run()`): each step moves the clock and then lets the appliance look.
///
/// ```swift
/// let rig = try await ApplianceRig()
/// let id = try await rig.schedule(Scene.alarm(7, 0))
/// try await rig.advanceToNextDeadline()        // 07:00: ringing
/// await rig.tap(.snooze)
/// ```
final class ApplianceRig: Sendable {
    let clock: ManualWallClock
    let zones: ManualTimeZoneProvider
    let directory: TemporaryDirectory
    let runtime: AlarmRuntime
    let audio = FakeAudioOutput()
    /// Every call the appliance made on the audio output, in order.
    let audioLog: RecordingAudioOutput
    let indicator: FakeIndicator
    let display: FakeCharacterDisplay
    let buttons: FakeButtonInput
    /// The sunrise light, on a rig made `withLight`.
    let light: FakeLight?
    let settings: ApplianceSettings
    let appliance: Appliance

    init(
        now: Date = Scene.monday(6, 59), displaySize: DisplaySize = .sixteenByTwo, ledHasColor: Bool = false,
        settings: ApplianceSettings = ApplianceSettings(), policy: EnginePolicy = .default,
        clockTrust: ClockTrustPolicy = .always, authorizer: (any AuthorizationPrompter)? = nil, withLight: Bool = false
    ) async throws {
        clock = ManualWallClock(now: now)
        zones = ManualTimeZoneProvider(Scene.berlin)
        directory = try TemporaryDirectory()
        runtime = try AlarmRuntime(
            configuration: .init(policy: policy, clockTrust: clockTrust, storeDirectory: directory.path),
            clock: clock, timeZones: zones, authorizer: authorizer ?? FixedAuthorization(.authorized), logger: Scene.logger)
        audioLog = RecordingAudioOutput(audio)
        indicator = FakeIndicator(hasColor: ledHasColor)
        display = FakeCharacterDisplay(size: displaySize)
        buttons = FakeButtonInput(clock: clock)
        light = withLight ? FakeLight() : nil
        self.settings = settings
        appliance = Appliance(
            runtime: runtime,
            hardware: ApplianceHardware(buttons: buttons, indicator: indicator, audio: audioLog, display: display, light: light),
            clock: clock, settings: settings, logger: Scene.logger)
        await appliance.start()
    }

    /// Whatever a test armed on the fakes and the appliance never used is a test that did not
    /// test what it meant to.
    deinit {
        let fakes: [any FakePart] = [audio, indicator, buttons] + (light.map { [$0] } ?? [])
        for leftover in fakes.flatMap({ $0.leftovers() }) {
            Issue.record("leftover on a fake: \(leftover)")
        }
    }

    /// Schedules for the scene's owner, then lets the appliance look (as the engine's event would).
    @discardableResult
    func schedule(_ definition: AlarmDefinition, id: Alarm.ID = Alarm.ID()) async throws -> Alarm.ID {
        _ = try await runtime.schedule(id: id, definition: definition, client: Scene.owner)
        await appliance.refresh()
        return id
    }

    /// Moves the clock to the engine's next deadline and lets the appliance look.
    func advanceToNextDeadline() async throws {
        let deadline = try #require(await runtime.nextDeadline)
        clock.advance(to: deadline)
        await appliance.refresh()
    }

    func advance(by seconds: TimeInterval) async {
        clock.advance(by: seconds)
        await appliance.refresh()
    }

    func advance(to instant: Date) async {
        clock.advance(to: instant)
        await appliance.refresh()
    }

    func press(_ button: Button) async {
        await appliance.handle(ButtonEvent(button, .pressed, at: clock.monotonicNow))
    }

    func release(_ button: Button) async {
        await appliance.handle(ButtonEvent(button, .released, at: clock.monotonicNow))
    }

    /// A short press as a finger makes it: down, up 150 ms later, and the finger away for 100 ms.
    func tap(_ button: Button) async {
        await press(button)
        await advance(by: 0.15)
        await release(button)
        await advance(by: 0.1)
    }

    /// STOP and SNOOZE held together past the long-press time, then let go: a question's yes.
    func holdBoth() async {
        await press(.stop)
        await advance(by: 0.1)
        await press(.snooze)
        await advance(by: 2.1)
        await release(.snooze)
        await release(.stop)
        await advance(by: 0.1)
    }

    func state(of id: Alarm.ID) async -> Alarm.State? {
        await runtime.record(for: Scene.key(id))?.phase.state
    }

    /// An intent as the appliance delivered it.
    struct Delivered: Hashable {
        var intent: AlarmIntent
        var alarm: Alarm.ID
        var button: AlarmIntentDelivery.Button
    }

    /// The intents waiting for `owner`, oldest first.
    func delivered(to owner: ClientID = Scene.owner) -> [Delivered] {
        runtime.intents.waiting(for: owner).map { Delivered(intent: $0.intent, alarm: $0.alarmID, button: $0.button) }
    }

    /// The display's rows as text (custom glyphs as ①...).
    var lines: [String] { display.lines }
}

/// An audio output in front of a ``FakeAudioOutput`` that logs each call, and at each `stop()`
/// what the engine says about a watched alarm at that moment (to check the sound stops first).
final class RecordingAudioOutput: AudioOutput {
    enum Call: Hashable, Sendable {
        /// A play attempt and whether it started.
        case play(SoundSource, GainRamp, started: Bool)
        /// A stop, with the watched alarm's state when it happened.
        case stop(watched: Alarm.State?)
    }

    let fake: FakeAudioOutput
    private let log = Mutex<[Call]>([])
    private let watched = Mutex<(runtime: AlarmRuntime, id: Alarm.ID)?>(nil)

    init(_ fake: FakeAudioOutput) {
        self.fake = fake
    }

    var calls: [Call] { log.withLock { $0 } }

    /// The sources of the plays that started.
    var started: [SoundSource] {
        calls.compactMap { if case .play(let source, _, true) = $0 { source } else { nil } }
    }

    var stops: Int {
        calls.count { if case .stop = $0 { true } else { false } }
    }

    func watch(_ id: Alarm.ID, on runtime: AlarmRuntime) {
        watched.withLock { $0 = (runtime, id) }
    }

    func play(_ source: SoundSource, gain: GainRamp, looping: Bool) async throws {
        do {
            try await fake.play(source, gain: gain, looping: looping)
            log.withLock { $0.append(.play(source, gain, started: true)) }
        } catch {
            log.withLock { $0.append(.play(source, gain, started: false)) }
            throw error
        }
    }

    func prepare(_ source: SoundSource, for duration: Duration) async {
        await fake.prepare(source, for: duration)
    }

    func stop() async {
        var state: Alarm.State?
        if let (runtime, id) = watched.withLock({ $0 }) {
            state = await runtime.record(for: Scene.key(id))?.phase.state
        }
        await fake.stop()
        log.withLock { $0.append(.stop(watched: state)) }
    }

    func failures() -> AsyncStream<HardwareError> { fake.failures() }
}

extension AsyncIteratorProtocol where Failure == Never {
    /// The next element of a sequence that cannot fail.
    mutating func nextElement() async -> Element? {
        await next(isolation: nil)
    }
}
