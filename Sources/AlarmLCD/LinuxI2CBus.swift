import AlarmHardware
import CI2C
import Glibc
import Synchronization

/// An I2C bus of the Linux kernel, through its i2c-dev character device (`/dev/i2c-N`; bus 1 is
/// the Pi's header pins 3 and 5).
///
/// The device is opened on first use, so a daemon that starts before `i2c-dev` is loaded finds
/// the bus later, and reopened after any failed call, so an adapter that went away and came back
/// works again without a restart. Transfers are SMBus "send byte" and "receive byte", which a
/// PCF8574 accepts and the kernel's `i2c-stub` emulates (a plain `write(2)` fails there).
///
/// - Important: The process needs read-write access to the device: on Raspberry Pi OS, membership
///   of the `i2c` group. Without it every call fails with `.io` (errno `EACCES`).
public final class LinuxI2CBus: I2CBus {
    public let name: String

    private struct State {
        var descriptor: Int32 = -1
        /// The address the descriptor's transfers go to (`I2C_SLAVE`), if set.
        var address: UInt8?
    }

    private let state = Mutex(State())

    /// The bus at `path`, e.g. `"/dev/i2c-1"`. Nothing is opened yet.
    public init(path: String) {
        name = path
    }

    public convenience init(number: Int) {
        self.init(path: "/dev/i2c-\(number)")
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { _ = close(state.descriptor) }
        }
    }

    /// The corresponding C call is `ioctl(fd, I2C_SMBUS, ...)` with `I2C_SMBUS_WRITE` and
    /// `I2C_SMBUS_BYTE`.
    /// - Throws: ``HardwareError`` naming `"/dev/i2c-N@0xAA"`: `.deviceUnavailable` (no such bus,
    ///   or not an I2C bus), `.noAcknowledge` (`ENXIO`, `EREMOTEIO`, or `ENODEV` from `i2c-stub`),
    ///   `.busy` (a kernel driver claimed the address; arbitration lost), or `.io`.
    public func sendByte(_ byte: UInt8, to address: UInt8) throws(HardwareError) {
        _ = try transfer(address) { descriptor in alarmd_i2c_send_byte(descriptor, byte) }
    }

    /// The corresponding C call is `ioctl(fd, I2C_SMBUS, ...)` with `I2C_SMBUS_READ` and
    /// `I2C_SMBUS_BYTE`. Throws as ``sendByte(_:to:)``.
    public func receiveByte(from address: UInt8) throws(HardwareError) -> UInt8 {
        UInt8(truncatingIfNeeded: try transfer(address) { descriptor in alarmd_i2c_receive_byte(descriptor) })
    }

    /// Opens the device and selects `address` if need be, then runs `body` (a C helper returning a
    /// value or `-errno`) under the lock, so two threads never interleave address and transfer.
    private func transfer(_ address: UInt8, _ body: (Int32) -> Int32) throws(HardwareError) -> Int32 {
        // The device name is built only for an error: this runs for every byte of a frame.
        return try state.withLock { state throws(HardwareError) -> Int32 in
            if state.descriptor < 0 {
                let opened = alarmd_i2c_open(name)
                guard opened >= 0 else { throw Self.openError(-opened, device: deviceName(address)) }
                state.descriptor = opened
                state.address = nil
            }
            if state.address != address {
                let selected = alarmd_i2c_set_address(state.descriptor, address)
                guard selected == 0 else {
                    Self.reset(&state)
                    throw Self.addressError(-selected, device: deviceName(address))
                }
                state.address = address
            }
            let result = body(state.descriptor)
            guard result >= 0 else {
                // Even a "missing acknowledge" may be an adapter that went away (i2c-stub's ENODEV
                // is also what a removed adapter answers): the next call opens the device afresh.
                Self.reset(&state)
                throw Self.transferError(-result, device: deviceName(address))
            }
            return result
        }
    }

    private static func reset(_ state: inout State) {
        if state.descriptor >= 0 { _ = close(state.descriptor) }
        state.descriptor = -1
        state.address = nil
    }

    static func openError(_ code: Int32, device: String) -> HardwareError {
        let kind: HardwareError.Kind = switch code {
        case ENOENT, ENODEV, ENXIO: .deviceUnavailable
        case EBUSY: .busy
        default: .io
        }
        return HardwareError(kind, device: device, errno: code)
    }

    static func addressError(_ code: Int32, device: String) -> HardwareError {
        let kind: HardwareError.Kind = switch code {
        // ENOTTY: the path is not an I2C adapter; EINVAL: the adapter refuses the address.
        case ENOTTY, EINVAL, ENODEV: .deviceUnavailable
        case EBUSY: .busy
        default: .io
        }
        return HardwareError(kind, device: device, errno: code)
    }

    static func transferError(_ code: Int32, device: String) -> HardwareError {
        let kind: HardwareError.Kind = switch code {
        // Adapters disagree on a missing acknowledge: i2c-bcm2835 and most say EREMOTEIO, some
        // ENXIO, and i2c-stub answers ENODEV for an address it does not emulate.
        case ENXIO, EREMOTEIO, ENODEV: .noAcknowledge
        // EAGAIN is a lost arbitration on a multi-master bus: another user, try again later.
        case EBUSY, EAGAIN: .busy
        default: .io
        }
        return HardwareError(kind, device: device, errno: code)
    }
}
