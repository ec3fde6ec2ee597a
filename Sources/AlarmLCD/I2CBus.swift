import AlarmHardware

/// An I2C bus that speaks the two SMBus transfers a PCF8574 backpack needs. Backends:
/// ``LinuxI2CBus``; the tests' scripted bus.
///
/// Both calls block until the transfer is over (about 0.2 ms at 100 kHz): call them from a
/// thread of your own, as ``HD44780Display`` does, never from Swift's cooperative pool.
public protocol I2CBus: Sendable {
    /// The bus as errors and logs name it, e.g. `"/dev/i2c-1"`.
    var name: String { get }
    /// SMBus "send byte": start, `address` + write, `byte`, stop.
    /// - Throws: ``HardwareError``: `.noAcknowledge` when nothing answers at `address`,
    ///   `.deviceUnavailable` when the bus is not there, `.busy` or `.io`.
    func sendByte(_ byte: UInt8, to address: UInt8) throws(HardwareError)
    /// SMBus "receive byte": start, `address` + read, one byte back, stop. A PCF8574 answers with
    /// the levels of its pins and changes nothing, which makes this a safe probe.
    /// - Throws: as ``sendByte(_:to:)``.
    func receiveByte(from address: UInt8) throws(HardwareError) -> UInt8
}

extension I2CBus {
    /// `"/dev/i2c-1@0x27"`: the `device` of a ``HardwareError`` about one chip on this bus.
    public func deviceName(_ address: UInt8) -> String {
        "\(name)@\(I2CAddressFormat.hex(address))"
    }
}

/// Addresses as I2C tools print them: `0x27`, `0x3F`.
enum I2CAddressFormat {
    static func hex(_ address: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(address >> 4)]) + String(digits[Int(address & 0xF)])
    }
}
