/// What the self-test tells a person, the same whether `alarmd selftest` drives the board itself
/// or the running service checks the parts it holds.
public enum SelfTestAdvice {
    /// For a volume control that cannot be opened: how to find the control's and the card's names.
    public static let volumeControlHint =
        "`amixer -c CARD scontrols` lists the card's controls, CARD being its id in `aplay -l` (`card 1: Headphones [...]`): set `sound.mixer` to one of them and `sound.card = \"hw:CARD=Headphones\"` (with that id) in the profile, or remove `mixer`"

    /// The volume control's range, as the sound check's detail ends.
    public static func volumeControlNote(_ range: ClosedRange<Double>) -> String {
        "volume control \(Int(range.lowerBound.rounded()))...\(Int(range.upperBound.rounded())) dB"
    }

    /// What to check when the driver took the pattern, frame or tone but the person did not see
    /// or hear it.
    public static let ledNotSeenHint =
        "check the LED's polarity (long leg to the resistor and the GPIO), the resistor, and `led` and `led_active_low` in the profile"
    public static let displayNotReadableHint =
        "turn the contrast potentiometer on the backpack; if the text is garbled, try `wiring = \"alternate\"` or `compatibility_mode = true` in the profile"
    public static let lightNotSeenHint =
        "check the MOSFET's wiring (gate to the PWM pin through 100 ohm, source to GND shared with the Pi, the lamp between its supply and the drain) and `light.chip` and `light.channel` in the profile (board/README.md#sunrise-light)"
    /// For a PWM channel that is not there, or that alarmd may not write.
    public static let lightMissingHint =
        "give the pin to the PWM controller (`dtoverlay=pwm,pin=12,func=4` in config.txt, then reboot: `ls /sys/class/pwm` shows pwmchip0), and check `light.chip` and `light.channel` in the profile"
    public static let lightAccessHint =
        "alarmd may not write the PWM files: the package's udev rule gives /sys/class/pwm to the gpio group; run `sudo udevadm trigger --subsystem-match=pwm`, or reboot"
    public static let toneNotHeardHint =
        "check the speaker and the card's volume (`alsamixer`), and `sound.device` in the profile (`aplay -l` lists cards)"
}
