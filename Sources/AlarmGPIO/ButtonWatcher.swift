import AlarmHardware
import Glibc
import LinuxSupport

/// The loop of a ``GPIODButtonInput``'s thread: request the lines, wait for edges, debounce,
/// send; on a failure release everything, report it, and try again when a chip node appears or
/// after the backoff's wait.
///
/// Made and used on that thread only, with the chip and line handles it owns.
final class ButtonWatcher {
    private let configuration: GPIODButtonInput.Configuration
    private let access: any GPIOChipAccess
    private let clock: any GPIOThreadClock
    private let lifecycle: BackendLifecycle
    private let feed: EventFeed<ButtonEvent>

    private struct WatchedLine {
        var button: Button
        /// How errors name it: `"gpiochip0 line GPIO17 (stop)"`.
        var device: String
        var line: any GPIOInputLine
    }

    private var chip: (any GPIOChip)?
    private var lines: [WatchedLine] = []
    /// The software stage on libgpiod 1; `nil` where the kernel debounces.
    private var debouncer: ButtonDebouncer?
    /// Buttons whose last event sent was a press.
    private var held: Set<Button> = []

    init(
        configuration: GPIODButtonInput.Configuration, access: any GPIOChipAccess, clock: any GPIOThreadClock,
        lifecycle: BackendLifecycle, feed: EventFeed<ButtonEvent>
    ) {
        self.configuration = configuration
        self.access = access
        self.clock = clock
        self.lifecycle = lifecycle
        self.feed = feed
    }

    func run() {
        var failures = 0
        var appearance: ChipAppearanceWatch?
        while !lifecycle.isStopRequested {
            do throws(HardwareError) {
                try acquire()
                failures = 0
                appearance = nil
                lifecycle.report(.ready)
                try watch()
            } catch {
                failures += 1
                // The deadline is fixed and the watch made before the failure is reported:
                // whoever reacts to the report (a test advancing its clock or adding a chip)
                // cannot make the wait start later or miss the chip.
                let retryAt = clock.now() + gpioRetryBackoff.delay(afterFailures: failures)
                if appearance == nil { appearance = ChipAppearanceWatch(directory: configuration.deviceDirectory) }
                releaseAll(reportingHeldButtons: true)
                lifecycle.report(.failed(error))
                waitForRetry(until: retryAt, appearance: appearance)
            }
        }
        releaseAll(reportingHeldButtons: false)
        lifecycle.markFinished()
    }

    // MARK: - Requesting

    private func acquire() throws(HardwareError) {
        let chip: any GPIOChip
        do {
            chip = try access.openChip(configuration.chip)
        } catch {
            throw .gpio(error, device: configuration.chip)
        }
        self.chip = chip
        let settings = GPIOInputSettings(
            bias: configuration.bias, activeLow: configuration.activeLow,
            debounce: access.supportsKernelDebounce ? configuration.debounce : .zero)
        for button in Button.allCases {
            let selector = configuration.line(for: button)
            let device = gpioLineDevice(chip: chip.name, line: selector, role: button.rawValue)
            do {
                let offset = try chip.offset(of: selector)
                let line = try chip.requestInput(offset: offset, settings: settings, consumer: gpioConsumer)
                lines.append(WatchedLine(button: button, device: device, line: line))
            } catch {
                throw .gpio(error, device: device)
            }
        }
        debouncer = access.supportsKernelDebounce ? nil : ButtonDebouncer(interval: configuration.debounce)
    }

    private func releaseAll(reportingHeldButtons: Bool) {
        if reportingHeldButtons, !held.isEmpty {
            let now = clock.now() + clock.boottimeOffset()
            for button in Button.allCases where held.contains(button) {
                feed.send(ButtonEvent(button, .released, at: now))
            }
        }
        held = []
        lines.forEach { $0.line.release() }
        lines = []
        chip = nil
        debouncer = nil
    }

    /// Sleeps until `deadline`, a stop, or a chip node appearing.
    private func waitForRetry(until deadline: Duration, appearance: ChipAppearanceWatch?) {
        let descriptors = [lifecycle.wake.descriptor] + (appearance.map { [$0.descriptor] } ?? [])
        while !lifecycle.isStopRequested {
            let readiness: [Int16]
            do {
                readiness = try clock.wait(for: descriptors, until: deadline)
            } catch {
                sleepThread(for: .milliseconds(100))  // poll itself failed (it does not): never spin
                return
            }
            guard readiness.count > 1, readiness[1] != 0, readiness[0] == 0 else { return }
            if appearance?.chipChanged() == true { return }
        }
    }

    // MARK: - Watching

    private func watch() throws(HardwareError) {
        let descriptors = lines.map(\.line.eventDescriptor) + [lifecycle.wake.descriptor]
        while !lifecycle.isStopRequested {
            let readiness: [Int16]
            do {
                readiness = try clock.wait(for: descriptors, until: nextConfirmation())
            } catch {
                throw .gpio(error, device: chip?.name ?? configuration.chip)
            }
            for (index, watched) in lines.enumerated() where readiness[index] != 0 {
                try read(watched, readiness: readiness[index])
            }
            try confirmDue()
        }
    }

    private func read(_ watched: WatchedLine, readiness: Int16) throws(HardwareError) {
        let edges: [GPIOEdge]
        do {
            edges = try watched.line.readEvents()
        } catch {
            throw .gpio(error, device: watched.device)
        }
        if edges.isEmpty, readiness & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
            // The chip went away under the line; without this the loop would spin on it.
            throw HardwareError(.deviceUnavailable, device: watched.device, errno: ENODEV)
        }
        let offset = clock.boottimeOffset()
        for edge in edges {
            let raw = ButtonEvent(watched.button, edge.rising ? .pressed : .released, at: edge.timestamp)
            if debouncer == nil {
                send(raw, boottimeOffset: offset)
            } else if let accepted = debouncer?.accept(raw) {
                send(accepted, boottimeOffset: offset)
            }
        }
    }

    /// The earliest time a line must be read back after dropped edges (libgpiod 1 only).
    private func nextConfirmation() -> Duration? {
        guard let debouncer else { return nil }
        return Button.allCases.compactMap { debouncer.confirmationDeadline(for: $0) }.min()
    }

    private func confirmDue() throws(HardwareError) {
        guard debouncer != nil else { return }
        let now = clock.now()
        for watched in lines {
            guard let due = debouncer?.confirmationDeadline(for: watched.button), due <= now else { continue }
            let active: Bool
            do {
                active = try watched.line.value()
            } catch {
                throw .gpio(error, device: watched.device)
            }
            if let event = debouncer?.confirm(watched.button, level: active ? .pressed : .released, at: due) {
                send(event, boottimeOffset: clock.boottimeOffset())
            }
        }
    }

    /// Sends `event` (kernel time, `CLOCK_MONOTONIC`) with its time moved to `CLOCK_BOOTTIME`.
    private func send(_ event: ButtonEvent, boottimeOffset: Duration) {
        if event.edge == .pressed { held.insert(event.button) } else { held.remove(event.button) }
        feed.send(ButtonEvent(event.button, event.edge, at: event.timestamp + boottimeOffset))
    }
}

extension GPIOChip {
    /// The offset of the selected line. - Throws: `ENOENT` if the chip has no such line.
    func offset(of selector: GPIOLineSelector) throws(GPIOErrno) -> UInt32 {
        switch selector {
        case .name(let name):
            return try lineOffset(named: name)
        case .offset(let offset):
            guard Int(offset) < lineCount else { throw GPIOErrno(ENOENT) }
            return offset
        }
    }
}
