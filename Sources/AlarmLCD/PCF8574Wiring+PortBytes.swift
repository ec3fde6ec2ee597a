import AlarmHardware

/// The PCF8574 output bytes the driver sends under a wiring.
extension PCF8574Wiring {
    var registerSelectMask: UInt8 { 1 << UInt8(registerSelect) }
    var enableMask: UInt8 { 1 << UInt8(enable) }

    /// The outputs that light the backlight (`on`) or leave it dark.
    func backlightBits(_ on: Bool) -> UInt8 {
        guard let backlight else { return 0 }
        return on != backlightActiveLow ? 1 << UInt8(backlight) : 0
    }

    /// The outputs for each 4-bit value (bit 0 to D4 ... bit 3 to D7).
    func nibbleTable() -> [UInt8] {
        (0..<16).map { (nibble: Int) -> UInt8 in
            var bits: UInt8 = 0
            for (bit, pin) in data.enumerated() where nibble & (1 << bit) != 0 {
                bits |= 1 << UInt8(pin)
            }
            return bits
        }
    }
}
