/// How long an HD44780 needs after each step, and how much of that the I2C bus already covers.
///
/// Waits are asked of the driver's ``Delay`` only when longer than ``coveredByBus``: between the
/// falling edge of E that starts an instruction and the rising edge that sends the next nibble
/// lies at least one whole SMBus transaction, which the bus needs no matter what.
public struct HD44780Timing: Hashable, Sendable {
    /// After the backpack first drives E low, before the first nibble: the controller needs
    /// more than 40 ms after its supply reaches 2.7 V (HD44780U datasheet, figure 24).
    public var powerOn: Duration
    /// After the first 0x3 nibble of the reset sequence (datasheet: more than 4.1 ms).
    public var firstReset: Duration
    /// After the second 0x3 nibble (datasheet: more than 100 µs).
    public var secondReset: Duration
    /// After an ordinary instruction or a character (datasheet: 37 µs at 270 kHz, plus tADD,
    /// 4 µs, before the address counter may be relied on).
    public var instruction: Duration
    /// After Clear Display (datasheet: 1.52 ms; the older HD44780A00 sheet says 1.64 ms).
    public var clear: Duration
    /// What one SMBus transaction is sure to take, so waits up to this are left out. 45 µs: a
    /// send byte is about 20 bit times, 50 µs at 400 kHz, beyond which no PCF8574 is specified
    /// (the figure Bill Perry's hd44780 library relies on too). Zero makes every wait explicit.
    public var coveredByBus: Duration

    public init(
        powerOn: Duration, firstReset: Duration, secondReset: Duration, instruction: Duration,
        clear: Duration, coveredByBus: Duration
    ) {
        self.powerOn = powerOn
        self.firstReset = firstReset
        self.secondReset = secondReset
        self.instruction = instruction
        self.clear = clear
        self.coveredByBus = coveredByBus
    }

    /// The HD44780U datasheet's figures with a margin. On any PCF8574 bus only the reset sequence
    /// and Clear Display need an explicit wait.
    public static let datasheet = HD44780Timing(
        powerOn: .milliseconds(50), firstReset: .milliseconds(5), secondReset: .microseconds(150),
        instruction: .microseconds(41), clear: .milliseconds(2), coveredByBus: .microseconds(45))

    /// Four times ``datasheet``, for controllers slower than the 270 kHz the datasheet assumes:
    /// the Arduino forum reports an HD44780A00 20x4 that dropped characters until clear got 2.5 ms
    /// and instructions 140 µs ("LCD from Axman"), and clones carry no timing guarantee. Every
    /// instruction then waits explicitly: a full 20x4 frame (82 instructions) waits 13.4 ms more,
    /// plus the kernel's timer slack on each sleep.
    public static let compatibility = HD44780Timing(
        powerOn: .milliseconds(200), firstReset: .milliseconds(20), secondReset: .microseconds(600),
        instruction: .microseconds(164), clear: .milliseconds(8), coveredByBus: .microseconds(45))
}
