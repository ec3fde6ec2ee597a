import AlarmAppliance
import AlarmDaemon
import AlarmEngine
import AlarmHardware
import AlarmKitCore
import AlarmModel
import AlarmSimulator
import AlarmTime
import FoundationEssentials
import Logging
import Synchronization

/// The whole appliance on the simulated board, in virtual time, stepped deterministically: the
/// engine and the appliance run no tasks of their own; ``advance(to:)`` moves the manual clock
/// from one wake-up to the next and lets each happen in turn, exactly as the running device would,
/// but with no thread timing involved. Scenario scripts and whole-morning tests run on it.
///
/// ```swift
/// let device = try await SimulatedDevice(start: sixFiftyEight, zone: berlin, storeDirectory: dir, logger: logger)
/// try await device.schedule(wakeUpAtSeven)      // an AlarmDefinition
/// await device.advance(by: 120)                 // 07:00: ringing
/// await device.tap(.snooze)
/// ```
public final class SimulatedDevice: Sendable {
    public let clock: ManualWallClock
    public let zones: ManualTimeZoneProvider
    public let indicator: FakeIndicator
    public let audio: FakeAudioOutput
    public let display: FakeCharacterDisplay
    public let buttons: FakeButtonInput
    public let settings: ApplianceSettings
    public let policy: EnginePolicy
    public let storeDirectory: String
    /// The person setting alarms in scenarios.
    public let client = ClientID(rawValue: 1000)
    let logger: Logger
    private let current: Mutex<(device: AlarmDevice<SimulatedBoard>, wakeUps: Int)>
    /// The store's simulated fault, which outlives a restart as a broken card does.
    private let storageFailure = Mutex<Int32?>(nil)
    /// The machine's clock state, for a device whose time nothing confirmed yet; `nil`: the
    /// engine reads no machine and believes every jump.
    public let machine: SimulatedMachineClock?

    public init(
        start: Date, zone: TimeZoneRules, displaySize: DisplaySize = .sixteenByTwo, ledHasColor: Bool = false,
        settings: ApplianceSettings = ApplianceSettings(), policy: EnginePolicy = .default, timeUnconfirmed: Bool = false,
        storeDirectory: String, logger: Logger
    ) async throws {
        clock = ManualWallClock(now: start)
        machine = timeUnconfirmed ? SimulatedMachineClock(clock: clock) : nil
        zones = ManualTimeZoneProvider(zone)
        indicator = FakeIndicator(hasColor: ledHasColor)
        audio = FakeAudioOutput(clock: clock)
        display = FakeCharacterDisplay(size: displaySize)
        buttons = FakeButtonInput(clock: clock)
        self.settings = settings
        self.policy = policy
        self.storeDirectory = storeDirectory
        self.logger = logger
        let device = try await Self.boot(
            clock: clock, zones: zones, policy: policy, storeDirectory: storeDirectory, logger: logger,
            hardware: ApplianceHardware(buttons: buttons, indicator: indicator, audio: audio, display: display),
            settings: settings, machine: machine)
        current = Mutex((device, 0))
        await device.appliance.start()
    }

    /// The device as the service assembles it, on the fakes, trusting the clock from the start.
    private static func boot(
        clock: ManualWallClock, zones: ManualTimeZoneProvider, policy: EnginePolicy, storeDirectory: String,
        logger: Logger, hardware: ApplianceHardware, settings: ApplianceSettings, machine: SimulatedMachineClock?
    ) async throws -> AlarmDevice<SimulatedBoard> {
        var configuration = DaemonConfiguration()
        configuration.engine = policy
        configuration.clockTrust = .always
        configuration.appliance = settings
        configuration.stateDirectory = storeDirectory
        var readings: (@Sendable () -> ClockReadings)?
        if let machine { readings = { machine.readings() } }
        return try await AlarmDevice(
            configuration: configuration, clock: clock, timeZones: zones, authorizer: FixedAuthorization(.authorized),
            logger: logger, clockReadings: readings
        ) { _ in SimulatedBoard(hardware: hardware) }
    }

    public var runtime: AlarmRuntime { current.withLock { $0.device.runtime } }
    public var appliance: Appliance { current.withLock { $0.device.appliance } }
    /// How many times the device woke by itself (engine deadlines and appliance timers), as the
    /// real process would.
    public var wakeUps: Int { current.withLock { $0.wakeUps } }

    // MARK: - Time

    /// Moves virtual time to `target`, waking the device at every instant it would wake on its own.
    public func advance(to target: Date) async {
        while true {
            let now = clock.now
            let engineDeadline = await runtime.nextDeadline
            let applianceWake = await appliance.nextWake
            guard let next = [engineDeadline, applianceWake].compactMap({ $0 }).min(), next <= target else { break }
            // A deadline already reached must not stall the loop: time moves at least a millisecond.
            clock.advance(to: max(next, now.addingTimeInterval(0.001)))
            current.withLock { $0.wakeUps += 1 }
            await appliance.refresh()
        }
        if target > clock.now { clock.advance(to: target) }
        await appliance.refresh()
    }

    public func advance(by seconds: TimeInterval) async {
        await advance(to: clock.now.addingTimeInterval(seconds))
    }

    /// Sets the wall clock (NTP, a person), without moving monotonic time.
    public func setWallClock(to instant: Date) async {
        clock.setWallClock(to: instant)
        await appliance.refresh()
    }

    public func setTimeZone(_ zone: TimeZoneRules) async {
        zones.set(zone)
        await runtime.timeZoneMayHaveChanged()
        await appliance.refresh()
    }

    // MARK: - Buttons

    public func press(_ button: Button) async {
        await appliance.handle(ButtonEvent(button, .pressed, at: clock.monotonicNow))
    }

    public func release(_ button: Button) async {
        await appliance.handle(ButtonEvent(button, .released, at: clock.monotonicNow))
    }

    /// A short press: down, up 150 ms later, then the finger away for 100 ms (a press sooner
    /// after a release would be contact chatter, which the appliance ignores).
    public func tap(_ button: Button) async {
        await press(button)
        await advance(by: 0.15)
        await release(button)
        await advance(by: 0.1)
    }

    /// Holds `button` for `seconds` of virtual time, lets go, and waits 100 ms as ``tap(_:)`` does.
    public func hold(_ button: Button, for seconds: TimeInterval) async {
        await press(button)
        await advance(by: seconds)
        await release(button)
        await advance(by: 0.1)
    }

    // MARK: - Faults

    /// The sound device fails while playing (unplugged, gone); the appliance hears of it.
    public func failSoundNow(_ error: HardwareError) async {
        audio.failWhilePlaying(with: error)
        await appliance.soundFailed(error)
    }

    public func setSoundUnavailable(_ error: HardwareError?) async {
        audio.setUnavailable(error)
        await appliance.refresh()
    }

    /// The display stops answering (`error`) or answers again (`nil`).
    public func setDisplayUnavailable(_ error: HardwareError?) async {
        display.setUnavailable(error)
        await appliance.refresh()
    }

    /// Every write of the store fails with `errno` (a full disk, `ENOSPC`; a card remounted
    /// read-only, `EROFS`), or works again for `nil`. Reads go on. The engine notices at its next
    /// save or retry, as on a real card.
    public func setStorageFailing(_ errno: Int32?) async {
        storageFailure.withLock { $0 = errno }
        runtime.store.simulateWriteFailure(errno)
        await appliance.refresh()
    }

    // MARK: - Alarms

    /// Schedules an alarm for the scenario's person; returns once it is durable.
    @discardableResult
    public func schedule(_ definition: AlarmDefinition, id: Alarm.ID = UUID()) async throws -> Alarm {
        let alarm = try await runtime.schedule(id: id, definition: definition, client: client)
        await appliance.refresh()
        return alarm
    }

    /// Performs an action as the person's client would (through the API, not the buttons).
    public func perform(_ action: AlarmAction, id: Alarm.ID) async throws {
        try await runtime.perform(AlarmCommand(action), id: id, client: client)
        await appliance.refresh()
    }

    public func alarms() async -> [Alarm] {
        await runtime.alarms(for: client)
    }

    // MARK: - Restarts

    /// The process restarts: a new engine loads the store, a new appliance takes over the same
    /// board. The board's parts keep their state, as real ones do across a process restart.
    public func restart() async throws {
        await appliance.shutdown()
        let device = try await Self.boot(
            clock: clock, zones: zones, policy: policy, storeDirectory: storeDirectory, logger: logger,
            hardware: ApplianceHardware(buttons: buttons, indicator: indicator, audio: audio, display: display),
            settings: settings, machine: machine)
        device.runtime.store.simulateWriteFailure(storageFailure.withLock { $0 })
        current.withLock { $0 = (device, $0.wakeUps) }
        await device.appliance.start()
    }
}

/// The simulated board's fakes, kept across a restart as real parts are.
struct SimulatedBoard: DeviceBoard {
    let hardware: ApplianceHardware
    var soundProblemAtStart: HardwareError? { nil }

    func close() async {}
}

/// A machine whose clock nothing has confirmed (no NTP yet, no RTC, no clock file: the time is
/// its best guess), until ``synchronize()``.
public final class SimulatedMachineClock: Sendable {
    private let clock: ManualWallClock
    private let synchronized = Atomic(false)
    private let bootedAt: Date

    init(clock: ManualWallClock) {
        self.clock = clock
        bootedAt = clock.now
    }

    /// NTP synchronises the clock from now on.
    public func synchronize() {
        synchronized.store(true, ordering: .relaxed)
    }

    func readings() -> ClockReadings {
        ClockReadings(
            now: clock.now, bootedAt: bootedAt, ntpSynchronized: synchronized.load(ordering: .relaxed), rtc: nil,
            savedClockAt: nil)
    }
}
