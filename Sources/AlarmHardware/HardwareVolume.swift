/// A volume the sound card sets itself, in dB where 0 is the card's unity gain. Backends:
/// `ALSAMixerVolume`, `FakeHardwareVolume`.
public protocol HardwareVolume: Sendable {
    /// The settable range in dB.
    func range() throws(HardwareError) -> ClosedRange<Double>
    /// Sets the volume to the step nearest `decibels`, clamped to ``range()``.
    func set(decibels: Double) throws(HardwareError)
}
