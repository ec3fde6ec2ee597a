/// The seam between the GPIO backends and libgpiod: everything below it is C (``LibgpiodChipAccess``
/// over the `CGPIOShim` functions), so tests replace it with an in-memory fake and exercise the
/// backends' threads, retries, debouncing and timing with no GPIO chip.
///
/// Errors are the C library's errno values (``GPIOErrno``); the backends turn them into
/// `HardwareError`s naming the chip and line. Handles are not `Sendable`: each is used on the
/// thread that opened it.
protocol GPIOChipAccess: Sendable {
    /// Whether inputs can be debounced by the kernel (libgpiod 2); otherwise the backend
    /// debounces in software and passes a debounce period of zero.
    var supportsKernelDebounce: Bool { get }

    /// Opens a chip given as a path, number, name (`gpiochip0`) or label (`pinctrl-bcm2711`).
    /// - Throws: `ENOENT` when there is no such chip.
    func openChip(_ chip: String) throws(GPIOErrno) -> any GPIOChip
}

/// An open GPIO chip; closed when released. Lines requested from it keep it open.
protocol GPIOChip: AnyObject {
    /// The kernel's name, e.g. `gpiochip0`.
    var name: String { get }
    var lineCount: Int { get }

    /// The offset of the line called `name`. - Throws: `ENOENT` if the chip has none.
    func lineOffset(named name: String) throws(GPIOErrno) -> UInt32

    /// Requests line `offset` as an input reporting both edges, as `settings` say.
    /// - Throws: `EBUSY` if another consumer holds it.
    func requestInput(offset: UInt32, settings: GPIOInputSettings, consumer: String) throws(GPIOErrno) -> any GPIOInputLine

    /// Requests line `offset` as an output driven to `value` (logical: active-low applied).
    /// - Throws: `EBUSY` if another consumer holds it.
    func requestOutput(offset: UInt32, activeLow: Bool, value: Bool, consumer: String) throws(GPIOErrno) -> any GPIOOutputLine
}

/// A requested input line with edge events; released by ``release()`` or when deallocated.
protocol GPIOInputLine: AnyObject {
    /// Readable while edge events are pending.
    var eventDescriptor: Int32 { get }
    /// Every pending edge, oldest first, without blocking; empty if none.
    func readEvents() throws(GPIOErrno) -> [GPIOEdge]
    /// `true` when active.
    func value() throws(GPIOErrno) -> Bool
    func release()
}

/// A requested output line; released by ``release()`` or when deallocated.
protocol GPIOOutputLine: AnyObject {
    /// Drives the line to `value` (logical: active-low applied).
    func setValue(_ value: Bool) throws(GPIOErrno)
    func release()
}

struct GPIOInputSettings: Hashable, Sendable {
    var bias: GPIOBias
    var activeLow: Bool
    /// Kernel debounce period; zero for none (always zero on libgpiod 1).
    var debounce: Duration
}

/// One edge as the kernel reports it.
struct GPIOEdge: Hashable, Sendable {
    /// Inactive to active (a press, when active-low matches the wiring).
    var rising: Bool
    /// The kernel's timestamp, `CLOCK_MONOTONIC`.
    var timestamp: Duration
}

/// An errno value from the C library (positive, e.g. `ENOENT`).
struct GPIOErrno: Error, Hashable, Sendable {
    var code: Int32

    init(_ code: Int32) {
        self.code = code
    }
}
