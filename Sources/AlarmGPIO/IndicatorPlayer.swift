import AlarmHardware
import LinuxSupport

/// The loop of a ``GPIODIndicator``'s thread: take the latest pattern, set the level it calls
/// for now, sleep until its next change or the next request; on a failure release the line,
/// report it, and try again when a chip node appears or after the backoff's wait.
///
/// Made and used on that thread only, with the chip and line handles it owns.
final class IndicatorPlayer {
    private let configuration: GPIODIndicator.Configuration
    private let access: any GPIOChipAccess
    private let clock: any GPIOThreadClock
    private let lifecycle: BackendLifecycle
    private let mailbox: IndicatorMailbox

    private var chip: (any GPIOChip)?
    private var line: (any GPIOOutputLine)?
    private var written: Bool?
    private var timeline: IndicatorTimeline
    /// Why the line is not held; `nil` while it is.
    private var failure: HardwareError?
    /// When to try for the line again while it is not held.
    private var retryAt: Duration?
    private var failures = 0
    /// Chip nodes appearing, watched while the line is not held.
    private var appearance: ChipAppearanceWatch?

    init(
        configuration: GPIODIndicator.Configuration, access: any GPIOChipAccess, clock: any GPIOThreadClock,
        lifecycle: BackendLifecycle, mailbox: IndicatorMailbox
    ) {
        self.configuration = configuration
        self.access = access
        self.clock = clock
        self.lifecycle = lifecycle
        self.mailbox = mailbox
        timeline = IndicatorTimeline(steps: .steady(false), start: clock.now())
    }

    func run() {
        acquire(at: clock.now())
        while !lifecycle.isStopRequested {
            // One reading of the clock per round: the level written and the deadline slept
            // towards must come from the same moment, or a step boundary crossed between two
            // readings would be slept past without being written.
            let now = clock.now()
            if let request = mailbox.take() {
                timeline = IndicatorTimeline(steps: request.pattern, start: now)
                if line == nil {
                    // Requested at the pattern's first level. Asked for, not a retry of its own:
                    // it does not lengthen the backoff.
                    acquire(at: now, retrying: false)
                } else {
                    // Written even when the level is already on the line, so a line lost since
                    // (its chip removed) is noticed now and reported to whoever asked.
                    play(at: now, force: true)
                }
                let outcome = failure
                for waiter in request.waiters {
                    if let outcome { waiter.resume(throwing: outcome) } else { waiter.resume() }
                }
            } else if line == nil, let retryAt, now >= retryAt {
                acquire(at: now)
            } else if line != nil {
                play(at: now)
            }
            wait(after: now)
        }
        let unshown = mailbox.close()
        let closed = HardwareError(.deviceUnavailable, device: configuration.device)
        unshown.forEach { $0.resume(throwing: closed) }
        if let line {
            // Dark before letting go: a released line keeps the level it was last driven to.
            if written != false { try? line.setValue(false) }
            line.release()
        }
        line = nil
        chip = nil
        lifecycle.markFinished()
    }

    /// Requests the line, driven to the level the pattern calls for now.
    private func acquire(at now: Duration, retrying: Bool = true) {
        do throws(HardwareError) {
            let chip: any GPIOChip
            do {
                chip = try access.openChip(configuration.chip)
            } catch {
                throw .gpio(error, device: configuration.chip)
            }
            let device = gpioLineDevice(chip: chip.name, line: configuration.line, role: "LED")
            let level = timeline.level(at: now)
            do {
                let offset = try chip.offset(of: configuration.line)
                line = try chip.requestOutput(
                    offset: offset, activeLow: configuration.activeLow, value: level, consumer: gpioConsumer)
            } catch {
                throw .gpio(error, device: device)
            }
            self.chip = chip
            written = level
            failure = nil
            retryAt = nil
            failures = 0
            appearance = nil
            lifecycle.report(.ready)
        } catch {
            fail(error, at: now, retrying: retrying)
        }
    }

    /// Writes the level the pattern calls for now, if it is not already on the line (or `force`).
    private func play(at now: Duration, force: Bool = false) {
        guard let line, let chip else { return }
        let level = timeline.level(at: now)
        guard force || level != written else { return }
        do {
            try line.setValue(level)
            written = level
        } catch {
            fail(.gpio(error, device: gpioLineDevice(chip: chip.name, line: configuration.line, role: "LED")), at: now)
        }
    }

    private func fail(_ error: HardwareError, at now: Duration, retrying: Bool = true) {
        if retrying || failures == 0 { failures += 1 }
        retryAt = now + gpioRetryBackoff.delay(afterFailures: failures)
        // Made before the failure is reported, so a chip added in reaction to it is seen.
        if appearance == nil { appearance = ChipAppearanceWatch(directory: configuration.deviceDirectory) }
        line?.release()
        line = nil
        chip = nil
        written = nil
        failure = error
        lifecycle.report(.failed(error))
    }

    /// Sleeps until the pattern's next change after `now` (or the next retry), a new request,
    /// a stop, or a chip node appearing while the line is not held.
    private func wait(after now: Duration) {
        let deadline = line != nil ? timeline.nextChange(after: now) : retryAt
        let watching = line == nil ? appearance : nil
        let descriptors = [lifecycle.wake.descriptor] + (watching.map { [$0.descriptor] } ?? [])
        do {
            let readiness = try clock.wait(for: descriptors, until: deadline)
            if readiness[0] != 0 { lifecycle.wake.drain() }
            if readiness.count > 1, readiness[1] != 0, watching?.chipChanged() == true { retryAt = now }
        } catch {
            sleepThread(for: .milliseconds(100))  // poll itself failed (it does not): never spin
        }
    }
}
