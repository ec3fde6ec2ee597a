import AlarmAppliance
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
    private let current: Mutex<(runtime: AlarmRuntime, appliance: Appliance, wakeUps: Int)>
    /// The store's simulated fault, which outlives a restart as a broken card does.
    private let storageFailure = Mutex<Int32?>(nil)

    public init(
        start: Date, zone: TimeZoneRules, displaySize: DisplaySize = .sixteenByTwo, ledHasColor: Bool = false,
        settings: ApplianceSettings = ApplianceSettings(), policy: EnginePolicy = .default,
        storeDirectory: String, logger: Logger
    ) async throws {
        clock = ManualWallClock(now: start)
        zones = ManualTimeZoneProvider(zone)
        indicator = FakeIndicator(hasColor: ledHasColor)
        audio = FakeAudioOutput(clock: clock)
        display = FakeCharacterDisplay(size: displaySize)
        buttons = FakeButtonInput(clock: clock)
        self.settings = settings
        self.policy = policy
        self.storeDirectory = storeDirectory
        self.logger = logger
        let (runtime, appliance) = try Self.boot(
            clock: clock, zones: zones, policy: policy, storeDirectory: storeDirectory, logger: logger,
            hardware: ApplianceHardware(buttons: buttons, indicator: indicator, audio: audio, display: display),
            settings: settings)
        current = Mutex((runtime, appliance, 0))
        await appliance.start()
    }

    private static func boot(
        clock: ManualWallClock, zones: ManualTimeZoneProvider, policy: EnginePolicy, storeDirectory: String,
        logger: Logger, hardware: ApplianceHardware, settings: ApplianceSettings
    ) throws -> (AlarmRuntime, Appliance) {
        let runtime = try AlarmRuntime(
            configuration: .init(policy: policy, clockTrust: .always, storeDirectory: storeDirectory),
            clock: clock, timeZones: zones, authorizer: FixedAuthorization(.authorized), logger: logger)
        let appliance = Appliance(runtime: runtime, hardware: hardware, clock: clock, settings: settings, logger: logger)
        return (runtime, appliance)
    }

    public var runtime: AlarmRuntime { current.withLock { $0.runtime } }
    public var appliance: Appliance { current.withLock { $0.appliance } }
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
        let (runtime, appliance) = try Self.boot(
            clock: clock, zones: zones, policy: policy, storeDirectory: storeDirectory, logger: logger,
            hardware: ApplianceHardware(buttons: buttons, indicator: indicator, audio: audio, display: display),
            settings: settings)
        runtime.store.simulateWriteFailure(storageFailure.withLock { $0 })
        current.withLock { $0 = (runtime, appliance, $0.wakeUps) }
        await appliance.start()
    }
}
