import AlarmAppliance
import AlarmHardware
import AlarmLCD
import Synchronization

/// 6. The HD44780 driver over a counting I2C bus (no hardware here): how many SMBus "send byte"
/// transactions a full 20x4 frame and a one-second countdown update cost, their time on a
/// 100 kHz bus, and the driver's own time per `show`.
func runDisplayBenchmarks(quick: Bool) async throws {
    let bus = CountingBus()
    // One SMBus send byte: start, address + W, ack, data, ack, stop: about 20 bit times.
    let busMicrosecondsPerByte = 200.0

    func frame(_ size: DisplaySize, _ rows: [String]) -> DisplayFrame {
        var frame = DisplayFrame(size: size)
        for (index, row) in rows.enumerated() { frame.write(HD44780Text.encode(row), row: index) }
        return frame
    }
    let big = DisplaySize.twentyByFour
    let display20 = HD44780Display(size: big, bus: bus, address: .fixed(0x27), delay: NoDelay())
    try await display20.show(frame(big, ["", "", "", ""]))  // initialisation, then a blank screen
    let full = frame(big, ["ABCDEFGHIJKLMNOPQRST", "abcdefghijklmnopqrst", "0123456789!?#%&*+-=@", "Wake up       07:00 "])
    bus.reset()
    try await display20.show(full)
    let fullBytes = bus.count

    let small = DisplaySize.sixteenByTwo
    let display16 = HD44780Display(size: small, bus: bus, address: .fixed(0x27), delay: NoDelay())
    try await display16.show(frame(small, ["Tea", "05:00     Pause"]))
    bus.reset()
    try await display16.show(frame(small, ["Tea", "04:59     Pause"]))
    let tickBytes = bus.count

    // The driver's time per show (thread hop included), alternating two frames so every call writes.
    let samples = quick ? 200 : 2_000
    var fullTimes = Sampler(warmup: samples / 10, capacity: samples), tickTimes = Sampler(warmup: samples / 10, capacity: samples)
    let other = frame(big, ["abcdefghijklmnopqrst", "ABCDEFGHIJKLMNOPQRST", "=-+*&%#?!9876543210@", "Snooze        07:09 "])
    for index in 0..<samples {
        let start = ContinuousClock.now
        try await display20.show(index.isMultiple(of: 2) ? other : full)
        fullTimes.record(ContinuousClock.now - start)
        let tickStart = ContinuousClock.now
        try await display16.show(frame(small, ["Tea", index.isMultiple(of: 2) ? "04:58     Pause" : "04:59     Pause"]))
        tickTimes.record(ContinuousClock.now - tickStart)
    }
    let fullSummary = fullTimes.summary, tickSummary = tickTimes.summary

    print("== 6. HD44780 over PCF8574 (counting I2C bus; bus time modelled at 100 kHz, \(Int(busMicrosecondsPerByte)) µs per SMBus send byte)")
    printTable(
        [["update", "I2C transactions", "bus time ms", "driver p50 µs", "driver p99 µs"]],
        [
            ["full 20x4 frame over a blank screen", "\(fullBytes)", fixed(Double(fullBytes) * busMicrosecondsPerByte / 1000, 1),
             fixed(fullSummary.p50, 1), fixed(fullSummary.p99, 1)],
            ["countdown tick on 16x2 (05:00 -> 04:59)", "\(tickBytes)", fixed(Double(tickBytes) * busMicrosecondsPerByte / 1000, 1),
             fixed(tickSummary.p50, 1), fixed(tickSummary.p99, 1)],
        ])
    print("(driver time: show() called -> returned, on the display's own thread, with a bus that only counts: the CPU the driver spends; the real bus adds its transfer time)")
}

/// An I2C bus that counts what it is sent and answers every probe.
private final class CountingBus: I2CBus {
    let name = "counting"
    private let sent = Atomic<Int>(0)

    var count: Int { sent.load(ordering: .relaxed) }
    func reset() { sent.store(0, ordering: .relaxed) }

    func sendByte(_ byte: UInt8, to address: UInt8) throws(HardwareError) {
        sent.add(1, ordering: .relaxed)
    }

    func receiveByte(from address: UInt8) throws(HardwareError) -> UInt8 { 0xFF }
}

private struct NoDelay: Delay {
    func delay(for duration: Duration) {}
}
