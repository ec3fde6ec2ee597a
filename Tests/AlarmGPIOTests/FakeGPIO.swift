@testable import AlarmGPIO
import AlarmHardware
import Glibc
import LinuxSupport
import Synchronization

/// GPIO chips in memory, below the C library seam: the ``GPIOChipAccess`` of the backend tests.
///
/// ```swift
/// let gpio = FakeGPIO(clock: clock, kernelDebounce: false)        // libgpiod 1 behaviour
/// gpio.addChip(name: "gpiochip0", label: "pinctrl-test", lines: ["GPIO17", "GPIO27"])
/// gpio.drive("GPIO17", high: false, at: .seconds(100))             // a button to ground pressed
/// ```
///
/// It keeps real state: lines' physical levels (inputs pulled up: high), who holds which line,
/// which chips exist. Like the kernel it applies active-low, queues an edge for each level change
/// of a requested input (and wakes its descriptor, a real eventfd), refuses a held or busy line
/// with `EBUSY`, a missing chip or line with `ENOENT`, and fails a removed chip's lines with
/// `ENODEV`. Everything done to it arrives on ``events()``; ``heldLines`` and ``openChips`` are
/// the leftovers a closed backend must not leave.
final class FakeGPIO: GPIOChipAccess, Sendable {
    enum Event: Hashable, Sendable {
        case requestedInput(line: String, settings: GPIOInputSettings, consumer: String)
        /// `high` is the physical level it starts at.
        case requestedOutput(line: String, activeLow: Bool, high: Bool)
        /// A physical level written, at the manual clock's time.
        case set(line: String, high: Bool, at: Duration)
        case read(line: String, at: Duration)
        case released(line: String)
    }

    struct Chip {
        var name: String
        var label: String
        var lines: [String?]
        var busy: Set<String> = []
    }

    private struct Request {
        var chip: String
        var line: String
        var activeLow: Bool
        var output: Bool
        var pending: [GPIOEdge] = []
        var signal: EventSignal?
        var broken = false
    }

    private struct State {
        var chips: [String: Chip] = [:]
        var levels: [String: Bool] = [:]
        var requests: [Int: Request] = [:]
        var nextRequest = 0
        var openChips = 0
        var openAttempts = 0
        var reads = 0
    }

    let supportsKernelDebounce: Bool
    private let clock: ManualGPIOClock
    private let state = Mutex(State())
    private let feed = EventFeed<Event>()

    init(clock: ManualGPIOClock, kernelDebounce: Bool) {
        self.clock = clock
        self.supportsKernelDebounce = kernelDebounce
    }

    func events() -> AsyncStream<Event> {
        feed.subscribe()
    }

    // MARK: - Knobs

    /// A chip appears (is plugged in, or gpio-sim creates it). Line names are unique across chips.
    func addChip(name: String = "gpiochip0", label: String = "pinctrl-test", lines: [String?]) {
        state.withLock { $0.chips[name] = Chip(name: name, label: label, lines: lines) }
    }

    /// The chip disappears: its requested lines fail with `ENODEV`, and their descriptors wake.
    func removeChip(_ name: String = "gpiochip0") {
        let signals = state.withLock { state in
            state.chips[name] = nil
            var signals: [EventSignal] = []
            for key in state.requests.keys where state.requests[key]?.chip == name {
                state.requests[key]?.broken = true
                signals += state.requests[key]?.signal.map { [$0] } ?? []
            }
            return signals
        }
        signals.forEach { $0.signal() }
    }

    /// Another consumer holds (or lets go of) `line`.
    func setBusy(_ line: String, _ busy: Bool, chip: String = "gpiochip0") {
        state.withLock { state in
            if busy { state.chips[chip]?.busy.insert(line) } else { state.chips[chip]?.busy.remove(line) }
        }
    }

    /// The physical level of input `line` changes at `time` (kernel time, `CLOCK_MONOTONIC`).
    func drive(_ line: String, high: Bool, at time: Duration) {
        let signal = state.withLock { state -> EventSignal? in
            let previous = state.levels[line] ?? true
            state.levels[line] = high
            guard previous != high,
                let key = state.requests.first(where: { $0.value.line == line && !$0.value.output })?.key,
                let request = state.requests[key]
            else { return nil }
            let active = request.activeLow ? !high : high
            state.requests[key]?.pending.append(GPIOEdge(rising: active, timestamp: time))
            return request.signal
        }
        signal?.signal()
    }

    /// Lines requested and not released, by name.
    var heldLines: [String] { state.withLock { $0.requests.values.map(\.line).sorted() } }

    /// Chip handles opened and not yet closed.
    var openChips: Int { state.withLock { $0.openChips } }

    /// How many times anyone tried to open a chip.
    var openAttempts: Int { state.withLock { $0.openAttempts } }

    /// How many times a line's value was read.
    var reads: Int { state.withLock { $0.reads } }

    // MARK: - GPIOChipAccess

    func openChip(_ chip: String) throws(GPIOErrno) -> any GPIOChip {
        let found = state.withLock { state -> Chip? in
            state.openAttempts += 1
            let match = state.chips.values.first { "/dev/\($0.name)" == chip || $0.name == chip || $0.label == chip }
            if match != nil { state.openChips += 1 }
            return match
        }
        guard let found else { throw GPIOErrno(ENOENT) }
        return FakeChipHandle(gpio: self, chip: found)
    }

    fileprivate func closeChip() {
        state.withLock { $0.openChips -= 1 }
    }

    fileprivate func request(
        chip: String, offset: UInt32, activeLow: Bool, output: Bool, value: Bool, event: (String) -> Event
    ) throws(GPIOErrno) -> (key: Int, line: String, signal: EventSignal?) {
        let signal = output ? nil : try? EventSignal.wakingBackend(device: "fake line")
        let result = state.withLock { state -> Result<(Int, String), GPIOErrno> in
            guard let found = state.chips[chip] else { return .failure(GPIOErrno(ENODEV)) }
            guard Int(offset) < found.lines.count, let line = found.lines[Int(offset)] else {
                return .failure(GPIOErrno(EINVAL))
            }
            if found.busy.contains(line) || state.requests.values.contains(where: { $0.line == line }) {
                return .failure(GPIOErrno(EBUSY))
            }
            state.nextRequest += 1
            state.requests[state.nextRequest] = Request(
                chip: chip, line: line, activeLow: activeLow, output: output, signal: signal)
            if output { state.levels[line] = activeLow ? !value : value }
            return .success((state.nextRequest, line))
        }
        switch result {
        case .failure(let error):
            throw error
        case .success(let (key, line)):
            feed.send(event(line))
            return (key, line, signal)
        }
    }

    fileprivate func readEvents(_ key: Int) throws(GPIOErrno) -> [GPIOEdge] {
        let result = state.withLock { state -> [GPIOEdge]? in
            guard let request = state.requests[key], !request.broken else { return nil }
            request.signal?.drain()
            state.requests[key]?.pending = []
            return request.pending
        }
        guard let result else { throw GPIOErrno(ENODEV) }
        return result
    }

    fileprivate func value(_ key: Int) throws(GPIOErrno) -> Bool {
        let result = state.withLock { state -> (line: String, active: Bool)? in
            guard let request = state.requests[key], !request.broken else { return nil }
            let high = state.levels[request.line] ?? true
            state.reads += 1
            return (request.line, request.activeLow ? !high : high)
        }
        guard let result else { throw GPIOErrno(ENODEV) }
        feed.send(.read(line: result.line, at: clock.now()))
        return result.active
    }

    fileprivate func setValue(_ key: Int, _ value: Bool) throws(GPIOErrno) {
        let result = state.withLock { state -> (line: String, high: Bool)? in
            guard let request = state.requests[key], !request.broken else { return nil }
            let high = request.activeLow ? !value : value
            state.levels[request.line] = high
            return (request.line, high)
        }
        guard let result else { throw GPIOErrno(ENODEV) }
        feed.send(.set(line: result.line, high: result.high, at: clock.now()))
    }

    fileprivate func release(_ key: Int) {
        let line = state.withLock { $0.requests.removeValue(forKey: key)?.line }
        if let line { feed.send(.released(line: line)) }
    }
}

/// An open fake chip; "closed" when deallocated, as the real one is.
private final class FakeChipHandle: GPIOChip {
    let gpio: FakeGPIO
    let chip: FakeGPIO.Chip

    init(gpio: FakeGPIO, chip: FakeGPIO.Chip) {
        self.gpio = gpio
        self.chip = chip
    }

    deinit {
        gpio.closeChip()
    }

    var name: String { chip.name }
    var lineCount: Int { chip.lines.count }

    func lineOffset(named name: String) throws(GPIOErrno) -> UInt32 {
        guard let index = chip.lines.firstIndex(of: name) else { throw GPIOErrno(ENOENT) }
        return UInt32(index)
    }

    func requestInput(offset: UInt32, settings: GPIOInputSettings, consumer: String) throws(GPIOErrno) -> any GPIOInputLine {
        let (key, _, signal) = try gpio.request(
            chip: chip.name, offset: offset, activeLow: settings.activeLow, output: false, value: false
        ) { .requestedInput(line: $0, settings: settings, consumer: consumer) }
        return FakeInputLine(gpio: gpio, key: key, signal: signal, chip: self)
    }

    func requestOutput(offset: UInt32, activeLow: Bool, value: Bool, consumer: String) throws(GPIOErrno) -> any GPIOOutputLine {
        let (key, _, _) = try gpio.request(
            chip: chip.name, offset: offset, activeLow: activeLow, output: true, value: value
        ) { .requestedOutput(line: $0, activeLow: activeLow, high: activeLow ? !value : value) }
        return FakeOutputLine(gpio: gpio, key: key, chip: self)
    }
}

private final class FakeInputLine: GPIOInputLine {
    let gpio: FakeGPIO
    let key: Int
    let signal: EventSignal?
    let chip: FakeChipHandle
    var released = false

    init(gpio: FakeGPIO, key: Int, signal: EventSignal?, chip: FakeChipHandle) {
        self.gpio = gpio
        self.key = key
        self.signal = signal
        self.chip = chip
    }

    deinit { release() }

    var eventDescriptor: Int32 { signal?.descriptor ?? -1 }

    func readEvents() throws(GPIOErrno) -> [GPIOEdge] { try gpio.readEvents(key) }

    func value() throws(GPIOErrno) -> Bool { try gpio.value(key) }

    func release() {
        guard !released else { return }
        released = true
        gpio.release(key)
    }
}

private final class FakeOutputLine: GPIOOutputLine {
    let gpio: FakeGPIO
    let key: Int
    let chip: FakeChipHandle
    var released = false

    init(gpio: FakeGPIO, key: Int, chip: FakeChipHandle) {
        self.gpio = gpio
        self.key = key
        self.chip = chip
    }

    deinit { release() }

    func setValue(_ value: Bool) throws(GPIOErrno) { try gpio.setValue(key, value) }

    func release() {
        guard !released else { return }
        released = true
        gpio.release(key)
    }
}
