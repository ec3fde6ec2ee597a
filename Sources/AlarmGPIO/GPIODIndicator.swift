import AlarmHardware
import AlarmTime
import Glibc
import LinuxSupport
import Synchronization

/// The indicator LED on a GPIO output line, through libgpiod: the ``Indicator`` of a real board.
///
/// A thread of its own times the pattern towards absolute `CLOCK_MONOTONIC` deadlines counted
/// from the pattern's start (no drift, no busy loop). A plain LED cannot dim, so `breathe` is a
/// slow blink and any colour but black lights it.
///
/// A chip or line that is missing or busy does not fail the initialiser: ``status`` reports it
/// (`"gpiochip0 line GPIO22 (LED)"`) and the thread tries again when a chip node appears in
/// ``Configuration/deviceDirectory``, on the next ``show(_:)``, or after the backoff; then it
/// shows the latest pattern.
public final class GPIODIndicator: Indicator, Sendable {
    /// Where the LED is and how it is wired, from the board profile.
    public struct Configuration: Hashable, Sendable {
        /// As in ``GPIODButtonInput/Configuration/chip``.
        public var chip: String
        public var line: GPIOLineSelector
        /// Whether the LED lights when the line is low (wired from 3.3 V to the pin).
        public var activeLow: Bool
        /// A new or changed `gpiochip*` here starts a try at once.
        public var deviceDirectory = "/dev"

        public init(chip: String, line: GPIOLineSelector, activeLow: Bool = false) {
            self.chip = chip
            self.line = line
            self.activeLow = activeLow
        }

        /// How errors name the LED before its chip is open: `"gpiochip0 line GPIO22 (LED)"`.
        var device: String { gpioLineDevice(chip: chip, line: line, role: "LED") }
    }

    public let configuration: Configuration
    private let lifecycle: BackendLifecycle
    private let mailbox: IndicatorMailbox

    /// Starts the LED's thread, which requests the line (dark) at once; failing to get it is
    /// reported on ``statusUpdates()`` and by ``show(_:)``, not thrown here.
    ///
    /// - Throws: ``HardwareError`` `.io` only when the process has no descriptor or thread to
    ///   spare (an eventfd or `pthread_create` failed).
    public convenience init(configuration: Configuration) throws(HardwareError) {
        try self.init(configuration: configuration, access: LibgpiodChipAccess(), clock: SystemGPIOClock())
    }

    /// For tests: the C library and the clock replaced.
    init(configuration: Configuration, access: any GPIOChipAccess, clock: any GPIOThreadClock) throws(HardwareError) {
        self.configuration = configuration
        let mailbox = IndicatorMailbox()
        self.mailbox = mailbox
        lifecycle = try BackendLifecycle.start(device: configuration.chip) { lifecycle in
            IndicatorPlayer(
                configuration: configuration, access: access, clock: clock, lifecycle: lifecycle, mailbox: mailbox
            ).run()
        }
    }

    deinit {
        lifecycle.requestStop()
    }

    /// `false`: one plain LED, which lights for any colour but black.
    public var hasColor: Bool { false }

    /// Replaces the pattern shown, from its first step now; returns once the LED shows that step.
    ///
    /// - Throws: ``HardwareError`` naming the chip or line (`.deviceUnavailable`, `.busy`, `.io`)
    ///   when the line cannot be driven now. The pattern is kept all the same, and shown once a
    ///   retry gets the line. After ``close()``, `.deviceUnavailable`.
    public func show(_ pattern: IndicatorPattern) async throws {
        let request = IndicatorSteps(pattern)
        let closedDevice = configuration.device
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            if mailbox.post(request, waiter: continuation) {
                lifecycle.wake.signal()
            } else {
                continuation.resume(throwing: HardwareError(.deviceUnavailable, device: closedDevice))
            }
        }
    }

    /// Whether the line is requested, missing or busy (being retried), or released.
    public var status: GPIOStatus { lifecycle.status }

    public func statusUpdates() -> AsyncStream<GPIOStatus> {
        lifecycle.statusUpdates()
    }

    /// Turns the LED off and releases the line; returns once it is released. Harmless twice.
    public func close() async {
        await lifecycle.stop()
    }
}

/// The latest pattern asked for and who waits for it to be shown; the thread takes it.
final class IndicatorMailbox: Sendable {
    private let state = Mutex(State())

    private struct State {
        var pattern: IndicatorSteps?
        var waiters: [CheckedContinuation<Void, any Error>] = []
        var closed = false
    }

    /// Posts `pattern`, replacing one not yet taken (whose waiter then learns how this one went);
    /// `false` once closed.
    func post(_ pattern: IndicatorSteps, waiter: CheckedContinuation<Void, any Error>) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.pattern = pattern
            state.waiters.append(waiter)
            return true
        }
    }

    /// The pattern posted since the last take, and its waiters.
    func take() -> (pattern: IndicatorSteps, waiters: [CheckedContinuation<Void, any Error>])? {
        state.withLock { state in
            guard let pattern = state.pattern else { return nil }
            defer {
                state.pattern = nil
                state.waiters = []
            }
            return (pattern, state.waiters)
        }
    }

    /// Refuses further posts; returns the waiters of a pattern never taken.
    func close() -> [CheckedContinuation<Void, any Error>] {
        state.withLock { state in
            state.closed = true
            state.pattern = nil
            defer { state.waiters = [] }
            return state.waiters
        }
    }
}
