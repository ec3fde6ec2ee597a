import AlarmHardware

extension BoardProfile {
    /// An HD44780 character LCD behind a PCF8574 backpack on an I2C bus.
    public struct Display: Hashable, Sendable {
        /// The N of `/dev/i2c-N`.
        public var bus: Int
        public var address: DisplayAddress
        public var size: DisplaySize
        /// The backpack's pins: `wiring = "common"` or `"alternate"`, or a `[display.pins]` table.
        public var wiring: PCF8574Wiring
        /// Slower HD44780 timings for clone controllers that garble text at the datasheet's.
        public var compatibilityMode: Bool

        public init(bus: Int, address: DisplayAddress = .auto, size: DisplaySize = .sixteenByTwo, wiring: PCF8574Wiring = .common, compatibilityMode: Bool = false) {
            self.bus = bus
            self.address = address
            self.size = size
            self.wiring = wiring
            self.compatibilityMode = compatibilityMode
        }
    }

    /// The backpack's 7-bit I2C address.
    public enum DisplayAddress: Hashable, Sendable, CustomStringConvertible {
        /// The display backend looks for the backpack at the two factory addresses, 0x27
        /// (PCF8574T) then 0x3F (PCF8574AT) (see `board/README.md`).
        case auto
        case fixed(UInt8)

        public var description: String {
            switch self {
            case .auto: "auto"
            case .fixed(let address): hexAddress(Int(address))
            }
        }
    }
}

/// `0x27`.
func hexAddress(_ address: Int) -> String {
    let hex = String(address, radix: 16)
    return "0x" + (hex.count < 2 ? "0" : "") + hex
}
