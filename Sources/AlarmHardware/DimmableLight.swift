import Glibc

/// A dimmable lamp by the bed, the sunrise light: an LED strip or lamp switched by a MOSFET from
/// a PWM output. Backends: `SysfsPWMLight` (the kernel's `/sys/class/pwm`), ``FakeLight`` in
/// `AlarmSimulator`.
public protocol DimmableLight: Sendable {
    /// Sets the lamp's output, 0 (off) to 1 (full): the fraction of each period it is driven,
    /// which an LED's light follows in proportion. Setting what is set already is harmless.
    /// - Throws: ``HardwareError`` if the output cannot be driven; it may keep its last level.
    func setOutput(_ output: Double) async throws
}

/// Brightness as the eye sees it. Light that rises in equal steps of output looks as if it
/// jumped on and then stalled: the eye's lightness grows roughly with the cube root of luminance.
/// CIE 1976 L* maps a perceived lightness, 0 to 1, to the output (relative luminance) that looks
/// that bright, so a sunrise in equal steps of lightness brightens evenly to the eye.
public enum PerceivedLightness {
    /// The output, 0 to 1, that looks `lightness` (0 to 1, clamped) as bright as full output.
    public static func output(lightness: Double) -> Double {
        let l = min(max(lightness, 0), 1) * 100
        // CIE L*: linear below L* = 8, where the cube law would fall under the eye's own floor.
        return l > 8 ? pow((l + 16) / 116, 3) : l / 903.3
    }

    /// The perceived lightness, 0 to 1, of `output` (0 to 1, clamped): the inverse of
    /// ``output(lightness:)``.
    public static func lightness(output: Double) -> Double {
        let y = min(max(output, 0), 1)
        let l = y > 0.008856 ? 116 * cbrt(y) - 16 : 903.3 * y
        return l / 100
    }
}
