/// Where on the bus the display's PCF8574 answers: `.automatic` when the board profile says
/// `auto`, `.fixed` when it gives an address.
public enum PCF8574Address: Hashable, Sendable {
    case fixed(UInt8)
    /// The first of these that answers an SMBus "receive byte", asked in order at every
    /// (re)initialisation. Reading a PCF8574 changes none of its outputs; a chip of another kind
    /// at a candidate address sees only a read, never a write.
    case probe([UInt8])

    /// 0x27, then 0x3F: a PCF8574 and a PCF8574A with their address pins A0-A2 left open (pulled
    /// up), as LCD backpacks ship. Backpacks with solder bridges closed need ``fixed(_:)``.
    public static let automatic = PCF8574Address.probe([0x27, 0x3F])
}
