import Glibc
internal import CGPIOShim

/// The real ``GPIOChipAccess``: libgpiod through the `CGPIOShim` C functions, whichever libgpiod
/// API (1 or 2) the package was built against.
struct LibgpiodChipAccess: GPIOChipAccess {
    var supportsKernelDebounce: Bool { LibgpiodVersion.api == 2 }

    /// The corresponding C function is `alarmd_gpio_chip_open`.
    func openChip(_ chip: String) throws(GPIOErrno) -> any GPIOChip {
        var handle: OpaquePointer?
        let result = alarmd_gpio_chip_open(chip, &handle)
        guard result >= 0, let handle else { throw GPIOErrno(result < 0 ? -result : EIO) }
        return LibgpiodChip(handle)
    }
}

/// Which libgpiod the package was built against and runs with.
public enum LibgpiodVersion {
    /// The libgpiod API compiled in: 1 (Debian and Raspberry Pi OS bookworm: software debounce)
    /// or 2 (trixie: kernel debounce). The corresponding C function is `alarmd_gpio_api_version`.
    public static var api: Int { Int(alarmd_gpio_api_version()) }

    /// The libgpiod loaded, e.g. `"1.6.3"` or `"2.2.1"`. The corresponding C function is
    /// `alarmd_gpio_library_version`.
    public static var library: String { String(cString: alarmd_gpio_library_version()) }
}

/// Owns an `alarmd_gpio_chip`; closed in `deinit`, after every line requested from it (they
/// hold it), because libgpiod 1 owns its lines through the chip.
final class LibgpiodChip: GPIOChip {
    private let handle: OpaquePointer
    let name: String
    let lineCount: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        // SAFETY: the strings live as long as the chip; they are copied here.
        name = String(cString: alarmd_gpio_chip_name(handle))
        lineCount = Int(alarmd_gpio_chip_line_count(handle))
    }

    deinit {
        alarmd_gpio_chip_close(handle)
    }

    /// The corresponding C function is `alarmd_gpio_chip_find_line`.
    func lineOffset(named name: String) throws(GPIOErrno) -> UInt32 {
        let result = alarmd_gpio_chip_find_line(handle, name)
        guard result >= 0 else { throw GPIOErrno(-result) }
        return UInt32(result)
    }

    /// The corresponding C function is `alarmd_gpio_request_input`.
    func requestInput(offset: UInt32, settings: GPIOInputSettings, consumer: String) throws(GPIOErrno) -> any GPIOInputLine {
        let microseconds = settings.debounce.components.seconds * 1_000_000
            + settings.debounce.components.attoseconds / 1_000_000_000_000
        var line: OpaquePointer?
        let result = alarmd_gpio_request_input(
            handle, offset, consumer, settings.bias.shimValue, settings.activeLow ? 1 : 0,
            UInt32(clamping: max(microseconds, 0)), &line)
        guard result >= 0, let line else { throw GPIOErrno(result < 0 ? -result : EIO) }
        let descriptor = alarmd_gpio_line_event_fd(line)
        guard descriptor >= 0 else {
            alarmd_gpio_line_release(line)
            throw GPIOErrno(-descriptor)
        }
        return LibgpiodInputLine(line, descriptor: descriptor, chip: self)
    }

    /// The corresponding C function is `alarmd_gpio_request_output`.
    func requestOutput(offset: UInt32, activeLow: Bool, value: Bool, consumer: String) throws(GPIOErrno) -> any GPIOOutputLine {
        var line: OpaquePointer?
        let result = alarmd_gpio_request_output(handle, offset, consumer, activeLow ? 1 : 0, value ? 1 : 0, &line)
        guard result >= 0, let line else { throw GPIOErrno(result < 0 ? -result : EIO) }
        return LibgpiodOutputLine(line, chip: self)
    }
}

/// Owns a requested `alarmd_gpio_line`; released by ``release()`` or in `deinit`.
class LibgpiodLine {
    fileprivate private(set) var handle: OpaquePointer?
    /// Keeps the chip open while the line is requested.
    private let chip: LibgpiodChip

    fileprivate init(_ handle: OpaquePointer, chip: LibgpiodChip) {
        self.handle = handle
        self.chip = chip
    }

    deinit {
        release()
    }

    /// The corresponding C function is `alarmd_gpio_line_release`.
    func release() {
        if let handle {
            alarmd_gpio_line_release(handle)
            self.handle = nil
        }
    }
}

final class LibgpiodInputLine: LibgpiodLine, GPIOInputLine {
    let eventDescriptor: Int32

    fileprivate init(_ handle: OpaquePointer, descriptor: Int32, chip: LibgpiodChip) {
        eventDescriptor = descriptor
        super.init(handle, chip: chip)
    }

    /// The corresponding C function is `alarmd_gpio_line_read_events`.
    func readEvents() throws(GPIOErrno) -> [GPIOEdge] {
        guard let handle else { throw GPIOErrno(EBADF) }
        let capacity = 16
        var edges: [GPIOEdge] = []
        var buffer = [alarmd_gpio_edge_event](repeating: alarmd_gpio_edge_event(), count: capacity)
        while true {
            // SAFETY: the buffer holds `capacity` events for the duration of the call.
            let count = buffer.withUnsafeMutableBufferPointer {
                alarmd_gpio_line_read_events(handle, $0.baseAddress, capacity)
            }
            guard count >= 0 else { throw GPIOErrno(-count) }
            edges += buffer[0..<Int(count)].map {
                GPIOEdge(rising: $0.rising != 0, timestamp: .nanoseconds(Int64(clamping: $0.timestamp_ns)))
            }
            if count < capacity { return edges }
        }
    }

    /// The corresponding C function is `alarmd_gpio_line_get_value`.
    func value() throws(GPIOErrno) -> Bool {
        guard let handle else { throw GPIOErrno(EBADF) }
        let result = alarmd_gpio_line_get_value(handle)
        guard result >= 0 else { throw GPIOErrno(-result) }
        return result != 0
    }
}

final class LibgpiodOutputLine: LibgpiodLine, GPIOOutputLine {
    /// The corresponding C function is `alarmd_gpio_line_set_value`.
    func setValue(_ value: Bool) throws(GPIOErrno) {
        guard let handle else { throw GPIOErrno(EBADF) }
        let result = alarmd_gpio_line_set_value(handle, value ? 1 : 0)
        guard result >= 0 else { throw GPIOErrno(-result) }
    }
}

extension GPIOBias {
    fileprivate var shimValue: Int32 {
        let value = switch self {
        case .asIs: ALARMD_GPIO_BIAS_AS_IS
        case .disabled: ALARMD_GPIO_BIAS_DISABLED
        case .pullUp: ALARMD_GPIO_BIAS_PULL_UP
        case .pullDown: ALARMD_GPIO_BIAS_PULL_DOWN
        }
        return Int32(value.rawValue)
    }
}
