import AlarmAppliance
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmScenario
import AlarmSimulator
import FoundationEssentials
import Glibc

// The appliance's targets: a button silences the alarm within 1 ms (p99), an idle clock wakes at
// most 10 times in 10 minutes, and what a frame and an alerting minute cost. Everything runs on
// fakes and a manual clock, in this process: the ALSA writer, GPIO and I2C are not included.

/// Alarms the appliance benchmarks use.
enum ApplianceWorkload {
    static let client = ClientID(rawValue: 1000)
    /// Long enough to scroll on both displays (57 characters), as a person's note might be.
    static let longTitle = "Good morning: the 07:42 to Hamburg leaves from platform 4"

    static func presentation(_ title: String) -> AlarmPresentation {
        AlarmPresentation(
            alert: .init(title: title, stopButton: .stop, secondaryButton: .snooze, secondaryButtonBehavior: .countdown),
            countdown: .init(title: title, pauseButton: .pause),
            paused: .init(title: title, resumeButton: .resume))
    }

    /// A one-shot alarm at `date`: stopped, it is deleted.
    static func alarm(at date: Date, title: String = "Wake up") -> AlarmDefinition {
        AlarmDefinition(
            schedule: .fixed(date), countdownDuration: .init(preAlert: nil, postAlert: 540), presentation: presentation(title))
    }

    /// Tomorrow 06:30 in Berlin, seen from ``Workload/now`` (07:00:30).
    static let tomorrow = alarm(at: Workload.now.addingTimeInterval(86_400 - 30 * 60 - 30))

    static func timer(_ seconds: TimeInterval, title: String = "Pasta") -> AlarmDefinition {
        AlarmDefinition(schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: seconds), presentation: presentation(title))
    }
}

// MARK: - 1. Button to silence

/// What the stop-latency rig's own parts report, in the order it happened.
enum RigSignal: Sendable {
    case played
    /// `stop()` was entered at this instant.
    case stopped(ContinuousClock.Instant)
    case frame(DisplayFrame)

    var isPlayed: Bool { if case .played = self { true } else { false } }
    var isFrame: Bool { if case .frame = self { true } else { false } }
}

/// An audio output that reports when `play` and `stop` are entered; `stop` reads the clock first.
final class SignallingAudioOutput: AudioOutput, Sendable {
    private let signals: AsyncStream<RigSignal>.Continuation

    init(signals: AsyncStream<RigSignal>.Continuation) {
        self.signals = signals
    }

    func play(_ source: SoundSource, gain: GainRamp, looping: Bool) async throws {
        signals.yield(.played)
    }

    func prepare(_ source: SoundSource, for duration: Duration) async {}

    func stop() async {
        let entered = ContinuousClock.now
        signals.yield(.stopped(entered))
    }

    func failures() -> AsyncStream<HardwareError> { AsyncStream { _ in } }
}

/// A display that reports every frame it is asked to show.
final class SignallingDisplay: CharacterDisplay, Sendable {
    let size: DisplaySize
    private let signals: AsyncStream<RigSignal>.Continuation

    init(size: DisplaySize, signals: AsyncStream<RigSignal>.Continuation) {
        self.size = size
        self.signals = signals
    }

    func show(_ frame: DisplayFrame) async throws { signals.yield(.frame(frame)) }
    func setBacklight(_ on: Bool) async throws {}
    func define(_ glyph: Glyph, slot: Int) async throws {}
}

/// Reads the rig's signals in order.
struct SignalReader {
    private var iterator: AsyncStream<RigSignal>.Iterator
    /// Signals passed over while waiting for another kind (frames while waiting for `stop`).
    private(set) var skipped = 0

    init(_ signals: AsyncStream<RigSignal>) {
        iterator = signals.makeAsyncIterator()
    }

    /// The next signal that `matches`.
    mutating func next(_ matches: (RigSignal) -> Bool) async throws -> RigSignal {
        while let signal = await iterator.next() {
            if matches(signal) { return signal }
            skipped += 1
        }
        throw BenchmarkError("the rig's signal stream ended")
    }

    /// When `stop()` was next entered.
    mutating func nextStop() async throws -> ContinuousClock.Instant {
        if case .stopped(let instant) = try await next({ if case .stopped = $0 { true } else { false } }) { return instant }
        throw BenchmarkError("unreachable: not a stop")
    }
}

/// An engine and an appliance on a manual clock, with signalling audio and display.
struct StopLatencyRig {
    let directory: BenchmarkDirectory
    let clock: ManualWallClock
    let buttons: FakeButtonInput
    let runtime: AlarmRuntime
    let appliance: Appliance
    var signals: SignalReader

    init(parent: String, name: String) throws {
        directory = try BenchmarkDirectory(parent: parent, name: name)
        clock = ManualWallClock(now: Workload.now)
        buttons = FakeButtonInput(clock: clock)
        let (stream, continuation) = AsyncStream.makeStream(of: RigSignal.self)
        signals = SignalReader(stream)
        runtime = try AlarmRuntime(
            configuration: .init(policy: .default, clockTrust: .always, storeDirectory: directory.path),
            clock: clock, timeZones: ManualTimeZoneProvider(Workload.berlin), authorizer: FixedAuthorization(.authorized),
            logger: silentLogger)
        let hardware = ApplianceHardware(
            buttons: buttons, indicator: FakeIndicator(), audio: SignallingAudioOutput(signals: continuation),
            display: SignallingDisplay(size: .sixteenByTwo, signals: continuation))
        appliance = Appliance(runtime: runtime, hardware: hardware, clock: clock, logger: silentLogger)
    }

    func schedule(at deadline: Date) async throws {
        _ = try await runtime.schedule(id: UUID(), definition: ApplianceWorkload.alarm(at: deadline), client: ApplianceWorkload.client)
    }

    func checkNoAlarmsLeft() async throws {
        let left = await runtime.alarms(for: ApplianceWorkload.client)
        guard left.isEmpty else { throw BenchmarkError("\(left.count) alarms still set: a STOP did not stop its alarm") }
    }
}

struct StopLatencyResult {
    let label: String
    let timed: String
    let latency: Summary
}

/// (a) `Appliance.handle` called directly while an alarm alerts: from just before the call to the
/// moment `stop()` is entered; also until `handle` returns (the stop is durable then: fsync).
func benchmarkDirectStop(samples: Int, warmup: Int, parent: String) async throws -> [StopLatencyResult] {
    var rig = try StopLatencyRig(parent: parent, name: "appliance-direct")
    await rig.appliance.start()
    var toStop = Sampler(warmup: warmup, capacity: samples), toReturn = Sampler(warmup: warmup, capacity: samples)
    for _ in 0..<(warmup + samples) {
        let deadline = rig.clock.now.addingTimeInterval(60)
        try await rig.schedule(at: deadline)
        await rig.appliance.refresh()
        rig.clock.advance(to: deadline)
        await rig.appliance.refresh()
        _ = try await rig.signals.next(\.isPlayed)
        let press = ButtonEvent(.stop, .pressed, at: rig.clock.monotonicNow)
        let start = ContinuousClock.now
        await rig.appliance.handle(press)
        let end = ContinuousClock.now
        let stopped = try await rig.signals.nextStop()
        toStop.record(stopped - start)
        toReturn.record(end - start)
        await rig.appliance.handle(ButtonEvent(.stop, .released, at: rig.clock.monotonicNow))
    }
    try await rig.checkNoAlarmsLeft()
    return [
        StopLatencyResult(label: "(a) direct", timed: "Appliance.handle(press STOP) called -> stop() entered", latency: toStop.summary),
        StopLatencyResult(label: "(a) direct", timed: "Appliance.handle(press STOP) called -> returned (stop made durable: fsync)",
                          latency: toReturn.summary),
    ]
}

/// (b) Through the running device: `runtime.run()` and `appliance.run()` as tasks, an alert begun
/// by the engine's own timer, then `FakeButtonInput.press(.stop)`; from the press to `stop()`
/// entered. `afterFrame` presses once the alert's frame reached the display instead of as soon
/// as `play` was entered (the appliance may still be lighting the LED and drawing then).
func benchmarkRunLoopStop(samples: Int, warmup: Int, parent: String, afterFrame: Bool) async throws -> StopLatencyResult {
    var rig = try StopLatencyRig(parent: parent, name: "appliance-run")
    let (runtime, appliance) = (rig.runtime, rig.appliance)
    let engine = Task { await runtime.run() }
    let device = Task { await appliance.run() }
    // A deadlock here would hang the whole run: fail loudly instead.
    let watchdog = Task {
        try await Task.sleep(for: .seconds(120))
        print("alarm-benchmarks: the appliance run-loop benchmark made no progress for 120 s")
        exit(1)
    }
    // The first frame: the appliance has subscribed to the buttons and drawn the clock.
    _ = try await rig.signals.next(\.isFrame)
    var latency = Sampler(warmup: warmup, capacity: samples)
    for _ in 0..<(warmup + samples) {
        // Every step waits for the one frame it causes, so the appliance is not still busy with
        // an earlier step when the alert begins: the press should find it idle but for the alert.
        let deadline = rig.clock.now.addingTimeInterval(60)
        // Past the minute and the backlight's timeout: the appliance's own timer, a new minute.
        rig.clock.advance(to: deadline.addingTimeInterval(-5))
        _ = try await rig.signals.next(\.isFrame)
        try await rig.schedule(at: deadline)
        _ = try await rig.signals.next(\.isFrame)  // the next alarm on the clock screen
        guard let armed = await runtime.nextDeadline else { throw BenchmarkError("the engine has no deadline") }
        await rig.clock.waitForSleeper(until: armed)
        rig.clock.advance(to: deadline)  // the engine's timer wakes; the appliance hears of the alert
        _ = try await rig.signals.next(\.isPlayed)
        if afterFrame { _ = try await rig.signals.next(\.isFrame) }
        let start = ContinuousClock.now
        rig.buttons.press(.stop)
        let stopped = try await rig.signals.nextStop()
        latency.record(stopped - start)
        rig.buttons.release(.stop)
        _ = try await rig.signals.next(\.isFrame)  // the clock screen again
    }
    watchdog.cancel()
    device.cancel()
    engine.cancel()
    await device.value
    await engine.value
    try await rig.checkNoAlarmsLeft()
    // One frame per step, each awaited: only the alert's frame is passed over, and only when the
    // press does not wait for it. Anything else means the steps overlapped.
    let expectedSkips = afterFrame ? 0 : warmup + samples
    if rig.signals.skipped != expectedSkips {
        print("NOTE: \(rig.signals.skipped) signals passed over, \(expectedSkips) expected: some steps overlapped")
    }
    return StopLatencyResult(
        label: afterFrame ? "(b) run loops, alert drawn" : "(b) run loops",
        timed: "FakeButtonInput.press(.stop) -> stop() entered, pressed once "
            + (afterFrame ? "the alert frame was shown" : "play() was entered"),
        latency: latency.summary)
}

func printStopLatencyTable(_ results: [StopLatencyResult]) {
    printTable(
        [["button to silence (µs)", "what was timed", "n", "p50", "p99", "max"]],
        results.map { [$0.label, $0.timed, grouped($0.latency.count), micros($0.latency.p50), micros($0.latency.p99), micros($0.latency.max)] })
}

// MARK: - 2. Wake-ups

/// Counts what reaches a simulated device's display while `body` runs.
func countDisplayWrites(_ device: SimulatedDevice, during body: () async throws -> Void) async throws -> (frames: Int, backlight: Int) {
    var events = device.display.events().makeAsyncIterator()
    try await body()
    // The fake's events are buffered as they happen; a glyph rewritten with itself (a no-op the
    // appliance never does after start) marks the end of what `body` caused.
    guard let bell = device.display.glyphs[0] else { throw BenchmarkError("the appliance loaded no glyphs") }
    try await device.display.define(bell, slot: 0)
    var counts = (frames: 0, backlight: 0)
    while let event = await events.next() {
        switch event {
        case .frame: counts.frames += 1
        case .backlight: counts.backlight += 1
        case .glyph(slot: 0, bell): return counts
        case .glyph, .forgotten: break
        }
    }
    throw BenchmarkError("the display's event stream ended")
}

struct WakeUpResult {
    let label: String
    let wakeUps: Int, frames: Int, backlight: Int
    let wallMicroseconds: Double, cpuMicroseconds: Double
}

/// A `SimulatedDevice` (stepped, virtual time) after `setUp`, for 10 virtual minutes.
func measureTenMinutes(
    _ label: String, size: DisplaySize, parent: String, setUp: (SimulatedDevice) async throws -> Void
) async throws -> WakeUpResult {
    let directory = try BenchmarkDirectory(parent: parent, name: "appliance-wakeups")
    let device = try await SimulatedDevice(
        start: Workload.now, zone: Workload.berlin, displaySize: size, storeDirectory: directory.path, logger: silentLogger)
    try await setUp(device)
    let before = device.wakeUps
    let clock = ContinuousClock()
    var wall = Duration.zero, cpu = Duration.zero
    let writes = try await countDisplayWrites(device) {
        let cpuStart = processCPUTime()
        let start = clock.now
        await device.advance(by: 600)
        wall = clock.now - start
        cpu = processCPUTime() - cpuStart
    }
    return WakeUpResult(
        label: label, wakeUps: device.wakeUps - before, frames: writes.frames, backlight: writes.backlight,
        wallMicroseconds: microseconds(wall), cpuMicroseconds: microseconds(cpu))
}

func benchmarkWakeUps(parent: String) async throws -> [WakeUpResult] {
    let tomorrow = ApplianceWorkload.tomorrow
    return [
        try await measureTenMinutes("idle 16x2, one alarm tomorrow", size: .sixteenByTwo, parent: parent) { try await $0.schedule(tomorrow) },
        try await measureTenMinutes("idle 20x4, one alarm tomorrow", size: .twentyByFour, parent: parent) { try await $0.schedule(tomorrow) },
        try await measureTenMinutes("idle 20x4, no alarm", size: .twentyByFour, parent: parent) { _ in },
        try await measureTenMinutes("countdown 16x2, 15-minute timer running", size: .sixteenByTwo, parent: parent) {
            try await $0.schedule(ApplianceWorkload.timer(15 * 60))
        },
    ]
}

func printWakeUpTable(_ results: [WakeUpResult]) {
    printTable(
        [["10 virtual minutes, SimulatedDevice", "wake-ups", "frames shown", "backlight sets", "wall ms", "CPU ms"]],
        results.map {
            [$0.label, grouped($0.wakeUps), grouped($0.frames), grouped($0.backlight),
             millis($0.wallMicroseconds), millis($0.cpuMicroseconds)]
        })
}

// MARK: - 3. Rendering and an alerting minute

struct RenderResult {
    let label: String
    /// Nanoseconds per render, one sample per batch.
    let perRender: Summary
}

/// `ScreenRenderer.render`, `batch` renders per sample, cycling through `inputs` (scroll positions
/// or countdown seconds), so the timer's own cost is spread over the batch.
func benchmarkRender(
    _ label: String, renderer: ScreenRenderer, inputs: [ScreenRenderer.Input], batch: Int, samples: Int, warmup: Int
) -> RenderResult {
    let clock = ContinuousClock()
    var sampler = Sampler(warmup: warmup, capacity: samples)
    var index = 0
    for _ in 0..<(warmup + samples) {
        let start = clock.now
        for _ in 0..<batch {
            blackHole(renderer.render(inputs[index % inputs.count]))
            index += 1
        }
        sampler.record((clock.now - start) / batch)
    }
    // Sampler keeps microseconds; the table shows nanoseconds.
    return RenderResult(label: label, perRender: Summary(sampler.samples.map { $0 * 1000 }))
}

func benchmarkRendering(samples: Int, warmup: Int) throws -> [RenderResult] {
    let now = Workload.now
    var alerting = AlarmScheduler(policy: .default, timeZone: Workload.berlin, clockTrusted: true)
    _ = try alerting.schedule(
        id: UUID(), owner: ApplianceWorkload.client, definition: ApplianceWorkload.alarm(at: now, title: ApplianceWorkload.longTitle),
        now: now)
    let alert = alerting.deviceSnapshot(now: now)
    guard !alert.alerting.isEmpty else { throw BenchmarkError("the alarm due now is not alerting") }
    // Every scroll position of the title: content shown 0, 0.4, 0.8 ... s ago.
    let alertInputs = (0..<64).map { ScreenRenderer.Input(snapshot: alert, contentSince: now.addingTimeInterval(-0.4 * Double($0))) }

    var counting = AlarmScheduler(policy: .default, timeZone: Workload.berlin, clockTrusted: true)
    _ = try counting.schedule(id: UUID(), owner: ApplianceWorkload.client, definition: ApplianceWorkload.timer(300), now: now)
    let countdownInputs = (0..<64).map { second -> ScreenRenderer.Input in
        let snapshot = counting.deviceSnapshot(now: now.addingTimeInterval(Double(second) + 0.5))
        return ScreenRenderer.Input(snapshot: snapshot, contentSince: now)
    }
    guard !countdownInputs[0].snapshot.countdowns.isEmpty else { throw BenchmarkError("the timer is not counting down") }

    var idle = AlarmScheduler(policy: .default, timeZone: Workload.berlin, clockTrusted: true)
    _ = try idle.schedule(id: UUID(), owner: ApplianceWorkload.client, definition: ApplianceWorkload.tomorrow, now: now)
    let idleInputs = (0..<64).map { minute in
        ScreenRenderer.Input(snapshot: idle.deviceSnapshot(now: now.addingTimeInterval(60 * Double(minute))), contentSince: now)
    }

    let small = ScreenRenderer(size: .sixteenByTwo), large = ScreenRenderer(size: .twentyByFour)
    let cases: [(String, ScreenRenderer, [ScreenRenderer.Input])] = [
        ("16x2 alert, 57-character title scrolling", small, alertInputs),
        ("20x4 alert, 57-character title scrolling", large, alertInputs),
        ("16x2 countdown (timer, 5 min)", small, countdownInputs),
        ("20x4 countdown (timer, 5 min)", large, countdownInputs),
        ("16x2 idle clock, alarm tomorrow", small, idleInputs),
    ]
    return cases.map { benchmarkRender($0.0, renderer: $0.1, inputs: $0.2, batch: 1_000, samples: samples, warmup: warmup) }
}

func printRenderTable(_ results: [RenderResult]) {
    printTable(
        [["ScreenRenderer.render (ns per render)", "p50", "p99", "max"]],
        results.map { [$0.label, fixed($0.perRender.p50, 0), fixed($0.perRender.p99, 0), fixed($0.perRender.max, 0)] })
}

struct AlertingMinuteResult {
    let label: String
    let cpu: Summary, wall: Summary
    /// Medians over the runs.
    let wakeUps: Int, frames: Int
}

/// One virtual minute of a `SimulatedDevice` alerting with a scrolling title, `runs` times, each
/// with a fresh alert (scheduled, rung, measured, then stopped with the STOP button).
func benchmarkAlertingMinute(size: DisplaySize, runs: Int, warmup: Int, parent: String) async throws -> AlertingMinuteResult {
    let directory = try BenchmarkDirectory(parent: parent, name: "appliance-alerting")
    let device = try await SimulatedDevice(
        start: Workload.now, zone: Workload.berlin, displaySize: size, storeDirectory: directory.path, logger: silentLogger)
    let clock = ContinuousClock()
    var cpu = Sampler(warmup: warmup, capacity: runs), wall = Sampler(warmup: warmup, capacity: runs)
    var wakeUps: [Int] = [], frames: [Int] = []
    for run in 0..<(warmup + runs) {
        try await device.schedule(ApplianceWorkload.alarm(at: device.clock.now.addingTimeInterval(1), title: ApplianceWorkload.longTitle))
        await device.advance(by: 1)
        guard device.audio.nowPlaying != nil else { throw BenchmarkError("the alarm is not ringing") }
        let before = device.wakeUps
        var cpuTime = Duration.zero, wallTime = Duration.zero
        let writes = try await countDisplayWrites(device) {
            let cpuStart = processCPUTime()
            let start = clock.now
            await device.advance(by: 60)
            wallTime = clock.now - start
            cpuTime = processCPUTime() - cpuStart
        }
        guard device.audio.nowPlaying != nil else { throw BenchmarkError("the alarm stopped ringing within its minute") }
        cpu.record(cpuTime)
        wall.record(wallTime)
        if run >= warmup {
            wakeUps.append(device.wakeUps - before)
            frames.append(writes.frames)
        }
        await device.press(.stop)
        await device.release(.stop)
    }
    guard await device.alarms().isEmpty else { throw BenchmarkError("an alarm survived its STOP") }
    return AlertingMinuteResult(
        label: "\(size.columns)x\(size.rows)", cpu: cpu.summary, wall: wall.summary,
        wakeUps: wakeUps.sorted()[wakeUps.count / 2], frames: frames.sorted()[frames.count / 2])
}

func printAlertingMinuteTable(_ results: [AlertingMinuteResult]) {
    printTable(
        [["alerting minute, 57-char title", "runs", "CPU p50 ms", "CPU max ms", "wall p50 ms", "wall max ms", "wake-ups", "frames"]],
        results.map {
            [$0.label, grouped($0.cpu.count), millis($0.cpu.p50), millis($0.cpu.max), millis($0.wall.p50), millis($0.wall.max),
             grouped($0.wakeUps), grouped($0.frames)]
        })
}

// MARK: - The section

/// Runs and prints every appliance benchmark; store files go in fresh directories under `parent`.
func runApplianceBenchmarks(quick: Bool, parent: String) async throws {
    let stopSamples = quick ? 20 : 200
    let stopWarmup = quick ? 5 : 20
    print("== 4. Appliance (AlarmAppliance on fakes, ManualWallClock; store in \(parent))")
    print("")
    print("-- 4a. Button to silence: \(stopSamples) samples after \(stopWarmup) warmup each, a fresh alert per sample "
          + "(fixed alarm 60 s ahead, clock advanced to it, play() entered). stop() is our own AudioOutput, which reads "
          + "ContinuousClock.now as its first statement; the real ALSA writer's drain is not included.")
    var stops = try await benchmarkDirectStop(samples: stopSamples, warmup: stopWarmup, parent: parent)
    stops.append(try await benchmarkRunLoopStop(samples: stopSamples, warmup: stopWarmup, parent: parent, afterFrame: false))
    stops.append(try await benchmarkRunLoopStop(samples: stopSamples, warmup: stopWarmup, parent: parent, afterFrame: true))
    printStopLatencyTable(stops)
    print("")

    print("-- 4b. Wake-ups over 10 virtual minutes (SimulatedDevice.advance(by: 600) from 07:00:30 Berlin; "
          + "a wake-up is an engine deadline or an appliance timer; wall/CPU is the whole stepped simulation)")
    let wakes = try await benchmarkWakeUps(parent: parent)
    printWakeUpTable(wakes)
    print("")

    let renderSamples = quick ? 30 : 300
    let renderWarmup = quick ? 5 : 30
    print("-- 4c. ScreenRenderer.render: \(renderSamples) samples after \(renderWarmup) warmup, each the mean of a batch "
          + "of 1,000 renders over 64 inputs (scroll positions, countdown seconds, minutes)")
    printRenderTable(try benchmarkRendering(samples: renderSamples, warmup: renderWarmup))
    print("")

    let minuteRuns = 10
    let minuteWarmup = quick ? 1 : 2
    print("-- 4d. One virtual alerting minute: SimulatedDevice.advance(by: 60) while a 57-character title scrolls "
          + "(\(minuteRuns) runs after \(minuteWarmup) warmup, a fresh alert each); CPU = CLOCK_PROCESS_CPUTIME_ID, "
          + "all threads. The audio is FakeAudioOutput: the ALSA writer thread's CPU is NOT included.")
    let minutes = [
        try await benchmarkAlertingMinute(size: .sixteenByTwo, runs: minuteRuns, warmup: minuteWarmup, parent: parent),
        try await benchmarkAlertingMinute(size: .twentyByFour, runs: minuteRuns, warmup: minuteWarmup, parent: parent),
    ]
    printAlertingMinuteTable(minutes)
    print("")

    func verdict(_ met: Bool) -> String { met ? "MET   " : "MISSED" }
    let worstStop = stops.filter { $0.timed.contains("-> stop() entered") }.max { $0.latency.p99 < $1.latency.p99 }!
    print("\(verdict(worstStop.latency.p99 < 1_000)) button to stop() p99 < 1 ms, in process: worst p99 "
          + "\(micros(worstStop.latency.p99)) µs (\(worstStop.label))")
    let idle = wakes[0]
    print("\(verdict(idle.wakeUps <= 10)) idle 16x2 wakes <= 10 times in 10 minutes: \(idle.wakeUps) wake-ups, \(idle.frames) frames")
    let tall = wakes[1]
    print("\(verdict(tall.wakeUps <= 10)) idle 20x4 with an alarm set wakes <= 10 times in 10 minutes: \(tall.wakeUps) wake-ups, \(tall.frames) frames")
    let repeats = minutes.map { "\($0.label) \($0.wakeUps - $0.frames)" }.joined(separator: ", ")
    print("INFO   wake-ups that changed no frame in an alerting minute: \(repeats) (of \(minutes.map { grouped($0.wakeUps) }.joined(separator: ", ")))")
}

