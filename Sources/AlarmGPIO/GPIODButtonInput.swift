import AlarmHardware
import AlarmTime
import Glibc
import LinuxSupport

/// The device's buttons on GPIO lines, through libgpiod: the ``ButtonInput`` of a real board.
///
/// A thread of its own `poll`s both lines' edge events, so nothing blocks Swift's cooperative
/// pool. Edges are debounced by the kernel on libgpiod 2 and by ``ButtonDebouncer`` on libgpiod 1,
/// which has none. Timestamps move from `CLOCK_MONOTONIC` (the only clock libgpiod 1 reports;
/// libgpiod 2 has no `CLOCK_BOOTTIME` either) to `CLOCK_BOOTTIME`, the clock of
/// `SystemWallClock.monotonicNow`; the two differ by the time spent suspended.
///
/// A chip or line that is missing or busy does not fail the initialiser: ``status`` becomes
/// ``GPIOStatus/failed(_:)`` naming it (`"gpiochip0 line GPIO17 (stop)"`), and the thread tries
/// again when a chip node appears in ``Configuration/deviceDirectory`` or after the backoff. A
/// line that fails in use is retried the same way, and a button held then is reported released,
/// so no press is left hanging.
///
/// - Important: Active-low is the wiring's business: a button to ground on a pulled-up line is
///   active-low, and with the wrong setting every press arrives as a release.
public final class GPIODButtonInput: ButtonInput, Sendable {
    /// Where the buttons are and how they are wired, from the board profile.
    public struct Configuration: Hashable, Sendable {
        /// The chip: a path (`/dev/gpiochip0`), number, name (`gpiochip0`) or label
        /// (`pinctrl-bcm2711`).
        public var chip: String
        public var stop: GPIOLineSelector
        public var snooze: GPIOLineSelector
        public var bias: GPIOBias
        /// Whether a pressed button reads low (a button to ground with a pull-up).
        public var activeLow: Bool
        /// How long after an edge further edges are bounce. The kernel's debounce period on
        /// libgpiod 2, ``ButtonDebouncer/interval`` on libgpiod 1.
        public var debounce: Duration
        /// A new or changed `gpiochip*` here starts a try at once.
        public var deviceDirectory = "/dev"

        public init(
            chip: String, stop: GPIOLineSelector, snooze: GPIOLineSelector, bias: GPIOBias = .pullUp,
            activeLow: Bool = true, debounce: Duration = .milliseconds(30)
        ) {
            self.chip = chip
            self.stop = stop
            self.snooze = snooze
            self.bias = bias
            self.activeLow = activeLow
            self.debounce = debounce
        }

        func line(for button: Button) -> GPIOLineSelector {
            switch button {
            case .stop: stop
            case .snooze: snooze
            }
        }
    }

    public let configuration: Configuration
    private let lifecycle: BackendLifecycle
    private let feed = EventFeed<ButtonEvent>()

    /// Starts watching the buttons on a thread of its own; the lines are requested there, and
    /// failing to get them is reported on ``statusUpdates()``, not thrown.
    ///
    /// - Throws: ``HardwareError`` `.io` only when the process has no descriptor or thread to
    ///   spare (an eventfd or `pthread_create` failed).
    public convenience init(configuration: Configuration) throws(HardwareError) {
        try self.init(configuration: configuration, access: LibgpiodChipAccess(), clock: SystemGPIOClock())
    }

    /// For tests: the C library and the clock replaced.
    init(configuration: Configuration, access: any GPIOChipAccess, clock: any GPIOThreadClock) throws(HardwareError) {
        self.configuration = configuration
        let feed = self.feed
        lifecycle = try BackendLifecycle.start(device: configuration.chip) { lifecycle in
            ButtonWatcher(configuration: configuration, access: access, clock: clock, lifecycle: lifecycle, feed: feed).run()
        }
    }

    deinit {
        lifecycle.requestStop()
    }

    /// A new stream of every debounced press and release from now on.
    ///
    /// - Important: A stream has one consumer; call again for another. Streams do not end at
    ///   ``close()``; cancelling the consuming task ends them.
    public func events() -> AsyncStream<ButtonEvent> {
        feed.subscribe()
    }

    /// Whether the lines are requested, missing or busy (being retried), or released.
    public var status: GPIOStatus { lifecycle.status }

    public func statusUpdates() -> AsyncStream<GPIOStatus> {
        lifecycle.statusUpdates()
    }

    /// Returns once both lines are released. Harmless twice.
    public func close() async {
        await lifecycle.stop()
    }
}
