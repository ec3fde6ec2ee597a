import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization

/// The bedside device: turns the engine's alarms into light, sound and text, and the buttons into
/// alarm actions.
///
/// It is level-triggered: every wake-up (a button, an engine event, a sound fault, its own timer)
/// reads the engine's whole ``DeviceSnapshot`` and brings each part in line with it, so a lost
/// event or a part that failed once can never leave the device showing the wrong thing. Between
/// wake-ups it sleeps: once a minute for an idle clock, once a second for a countdown, plus
/// scrolling titles and the backlight's timeout; with the display failed, only for its retries,
/// which back off to one every five minutes. No polling.
///
/// What to do is decided by ``ApplianceCore``, a value with no clock and no parts; this actor
/// feeds it the time, the engine's snapshots and the buttons, carries out the ``PartCommand``s it
/// returns on the parts and the engine, and reports each one's outcome back.
///
/// ```swift
/// let appliance = Appliance(runtime: runtime, hardware: hardware, clock: clock,
///                           settings: ApplianceSettings(), logger: logger)
/// async let device: Void = appliance.run()   // until cancelled; then LED off, sound stopped
/// ```
///
/// Tests and the scenario runner drive it step by step instead of `run()`: ``start()``,
/// ``handle(_:)`` for button events, ``refresh()`` when time has moved, ``nextWake`` to know when.
public actor Appliance {
    let runtime: AlarmRuntime
    let hardware: ApplianceHardware
    let clock: any WallClock
    let logger: Logger
    var core: ApplianceCore

    /// The callers waiting for their questions' answers, by the question's number.
    var waitingAnswers: [UInt64: CheckedContinuation<PromptAnswer, Never>] = [:]
    /// The run loop's input, so work that arrives from outside (a question) wakes it.
    var loopInput: AsyncStream<Input>.Continuation?
    /// The wait while a self-test shows a part, cancelled by an alert.
    var selfTestWait: Task<Void, any Error>?
    /// How many samples ``playSample(volume:source:for:)`` has started: a sample's end stops only itself.
    var samplesStarted = 0
    /// The generation of the household's sound list last taken (``householdSoundsChanged(_:generation:)``).
    var householdSoundsGeneration = 0
    private let presses = EventFeed<Button>()

    public init(
        runtime: AlarmRuntime,
        hardware: ApplianceHardware,
        clock: any WallClock,
        settings: ApplianceSettings = ApplianceSettings(),
        logger: Logger
    ) {
        self.runtime = runtime
        self.hardware = hardware
        self.clock = clock
        self.logger = logger
        self.core = ApplianceCore(settings: settings, displaySize: hardware.display.size, hasLight: hardware.light != nil)
    }

    /// How the appliance behaves (the household's volume and crescendo included).
    public var settings: ApplianceSettings { core.settings }
    /// Why the last attempt to play failed; cleared by the next sound that plays.
    public var soundFault: HardwareError? { core.soundFault }
    /// Why the display last failed; cleared once it answers.
    public var displayFault: HardwareError? { core.displayFault }
    /// Why the LED last failed; cleared once it shows a pattern.
    public var indicatorFault: HardwareError? { core.indicatorFault }
    /// Whether the backlight is on, as last set.
    public var isBacklightOn: Bool { core.isBacklightOn }
    /// Why the sunrise light last failed; cleared once it takes an output.
    public var lightFault: HardwareError? { core.lightFault }

    /// When the appliance next needs to wake by itself (see ``ApplianceCore/nextWake(at:)``).
    public var nextWake: Date? { core.nextWake(at: moment) }

    var moment: ApplianceMoment {
        ApplianceMoment(wall: clock.now, monotonic: clock.monotonicNow)
    }

    // MARK: - Running

    /// Runs the device until the task is cancelled, then leaves it dark and silent.
    public func run() async {
        // Subscribe before the first look, so nothing that happens in between is missed.
        let buttonEvents = hardware.buttons.events()
        let engineSnapshots = runtime.deviceSnapshots()
        let soundFailures = hardware.audio.failures()
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        loopInput = feed
        await start()
        logger.info("Appliance started", metadata: ["display.size": "\(core.renderer.size.columns)x\(core.renderer.size.rows)"])
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in buttonEvents { feed.yield(.button(event)) }
            }
            group.addTask {
                for await snapshot in engineSnapshots { feed.yield(.engineChanged(snapshot)) }
            }
            group.addTask {
                for await failure in soundFailures { feed.yield(.soundFailed(failure)) }
            }
            group.addTask {
                await self.process(inputs, feed: feed)
            }
        }
        loopInput = nil
        await shutdown()
        logger.info("Appliance stopped")
    }

    enum Input: Sendable {
        case button(ButtonEvent)
        /// The engine published a change, and the device's view right after it.
        case engineChanged(DeviceSnapshot)
        /// A client asks the person a question: the display shows it.
        case promptAdded
        case soundFailed(HardwareError)
        case timer
    }

    /// Handles inputs one at a time, with one timer armed for ``nextWake``.
    private func process(_ inputs: AsyncStream<Input>, feed: AsyncStream<Input>.Continuation) async {
        var timer: (deadline: Date, cancel: @Sendable () -> Void)?
        func arm(_ wake: Date?) {
            // With nothing due, still sleep on the clock: a clock set ends the sleep, and the
            // screen must follow it (`--:--` becomes the time once NTP has set the clock).
            let deadline = wake ?? SystemWallClock.latestArmableDeadline
            guard timer?.deadline != deadline else { return }
            timer?.cancel()
            // Fed from the clock's own thread: the idle clock's minute wakes one worker, not two.
            timer = (deadline, clock.wake(at: deadline) { _ in feed.yield(.timer) })
        }
        arm(nextWake)
        for await input in inputs {
            switch input {
            case .button(let event):
                await handle(event)
            case .engineChanged(let snapshot):
                await refresh(publishedSnapshot: snapshot)
            case .promptAdded:
                await refresh()
            case .soundFailed(let failure):
                await soundFailed(failure)
            case .timer:
                timer = nil
                await refresh()
            }
            arm(nextWake)
        }
        timer?.cancel()
    }

    /// Loads the display's glyphs and brings every part in line with the engine.
    public func start() async {
        await refresh()
    }

    /// Leaves the device dark and silent: sound stopped, LED off, display cleared, backlight off.
    public func shutdown() async {
        await perform(core.shutdown())
    }

    /// Handles one debounced button event (see ``ApplianceCore/buttonEvent(_:at:)``), then
    /// brings the parts in line.
    public func handle(_ event: ButtonEvent) async {
        if core.needsFreshSnapshot(for: event) {
            core.observe(await runtime.deviceSnapshot())
        }
        await perform(core.buttonEvent(event, at: moment))
        if event.edge == .pressed { presses.send(event.button) }
        await refresh()
    }

    /// Turns the sunrise light on by hand at `output` (0 to 1), or off (`nil`), as a bedside
    /// lamp: until it is turned off, an alarm rings, or STOP is pressed with nothing ringing; a
    /// sunrise brighter than it shows through. `false` on a clock without a light.
    public func setLight(byHand output: Double?) async -> Bool {
        guard hasLight else { return false }
        core.setLightByHand(output)
        await refresh()
        // Set by hand, every change is reported, not only tenths.
        await runtime.publishDeviceSnapshot()
        return true
    }

    /// What the sunrise light shows now, 0 to 1; `nil` without a light or while unknown.
    public var lightOutput: Double? { core.lightOutput }

    /// Every press of a button from now on, after the appliance acted on it (a STOP that
    /// silences has silenced): what the household's automations may follow (alarm-mqtt's
    /// button events). Each call returns a new stream.
    public nonisolated func buttonPresses() -> AsyncStream<Button> {
        presses.subscribe()
    }

    /// Catches the engine up with the clock and brings sound, display and LED in line with it, in
    /// that order: a due alarm's sound starts before anything is drawn.
    ///
    /// `publishedSnapshot`, the one the engine published with a change, is used as it is unless
    /// a newer one was seen already: an alert's sound then starts without a call into the engine,
    /// which may still be busy making the change durable.
    public func refresh(publishedSnapshot: DeviceSnapshot? = nil) async {
        await perform(core.beginRefresh(at: moment))
        let snapshot: DeviceSnapshot
        if let publishedSnapshot, core.isCurrent(publishedSnapshot) {
            snapshot = publishedSnapshot
        } else {
            snapshot = await runtime.deviceSnapshot()
        }
        await perform(core.refreshSound(with: snapshot, at: moment))
        await perform(core.refreshDisplay())
        await perform(core.refreshLight())
        await perform(core.refreshIndicator())
    }

    // MARK: - Sound outside the refresh

    /// The sound device was found missing while nothing plays (a probe at start): shown at once
    /// (LED pattern, "No sound" on the clock screen) rather than only when an alarm fails to
    /// play. The next alert still tries to play, and a playback that works clears it.
    public func soundUnavailable(_ error: HardwareError) async {
        guard core.soundUnavailable(error) else { return }
        await refresh()
    }

    /// A failure that ended playback (the device went away mid-alert): fall back and retry.
    public func soundFailed(_ error: HardwareError) async {
        guard let commands = core.soundFailed(error) else { return }
        await perform(commands)
        await refresh()
    }

    /// Changes how the appliance behaves (the household's volume, fade-in, night hours, sunrise
    /// light), from the next alert on for the sound; the LED, display and light follow at once.
    public func updateSettings(_ change: @Sendable (inout ApplianceSettings) -> Void) async {
        change(&core.settings)
        await refresh()
    }

    /// Plays `source` (the built-in tone unless a sound file is given) at `volume` for `length`,
    /// so a person hears a volume or a sound before keeping it. Refused (`false`) while an alarm
    /// rings; an alert that begins meanwhile takes the sound over, and a later sample replaces
    /// this one (its own length counts from then).
    public func playSample(
        volume: Double, source: SoundSource = .builtInTone, for length: Duration = .seconds(3)
    ) async throws(HardwareError) -> Bool {
        guard core.isSoundQuiet else { return false }
        do {
            try await hardware.audio.play(source, gain: .constant(volume), looping: true)
        } catch {
            throw Self.hardwareError(error, device: "audio")
        }
        guard core.isSoundQuiet else {
            core.sampleOverlappedAlert()
            await refresh()
            return false
        }
        core.toneStarted(provesSound: false)
        samplesStarted += 1
        let sample = samplesStarted
        let until = clock.now.addingTimeInterval(length / .seconds(1))
        Task {
            _ = try? await clock.sleep(until: until)
            await self.endSample(sample)
        }
        return true
    }

    private func endSample(_ sample: Int) async {
        guard core.isSoundQuiet, sample == samplesStarted else { return }
        await hardware.audio.stop()
        await refresh()
    }

    /// Tells the appliance which sounds the household's directory holds now (after an upload or
    /// a deletion): an alarm naming one of them rings from there. Lists arrive in any order: one
    /// older than the last taken (`generation`) is ignored.
    public func householdSoundsChanged(_ names: Set<String>, generation: Int) async {
        guard generation > householdSoundsGeneration else { return }
        householdSoundsGeneration = generation
        core.settings.householdSounds = names
    }

    /// `error` as the HAL's error, `.io` on `device` for anything else a backend threw.
    static func hardwareError(_ error: any Error, device: String) -> HardwareError {
        error as? HardwareError ?? HardwareError(.io, device: device, errno: nil)
    }
}
