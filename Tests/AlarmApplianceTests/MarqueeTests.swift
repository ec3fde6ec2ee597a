import AlarmAppliance
import AlarmHardware
import Testing

@Suite struct MarqueeTests {
    /// 14 characters in a field of 10: 4 steps, a cycle of 1.5 + 3 x 0.4 + 1.5 = 4.2 s.
    static let text = HD44780Text.encode("ABCDEFGHIJKLMN")

    static func shown(_ elapsed: Double, width: Int = 10) -> (text: String, next: Double?) {
        let (codes, next) = Marquee.window(text, width: width, elapsed: elapsed)
        return (HD44780Text.preview(codes), next)
    }

    static let cycle: [(elapsed: Double, text: String, next: Double)] = [
        (0, "ABCDEFGHIJ", 1.5), (1.0, "ABCDEFGHIJ", 0.5),
        (1.6, "BCDEFGHIJK", 0.3), (2.0, "CDEFGHIJKL", 0.3), (2.4, "DEFGHIJKLM", 0.3),
        (2.8, "EFGHIJKLMN", 1.4), (4.1, "EFGHIJKLMN", 0.1),
        (4.3, "ABCDEFGHIJ", 1.4), (4.2 + 1.6, "BCDEFGHIJK", 0.3),
    ]

    @Test(arguments: cycle)
    func theWindowMovesOneCharacterPerStepThenStartsOver(_ elapsed: Double, _ text: String, _ next: Double) throws {
        let (shown, nextChange) = Self.shown(elapsed)
        #expect(shown == text)
        let seconds = try #require(nextChange)
        #expect(abs(seconds - next) < 1e-9, "at \(elapsed) s the window changes in \(seconds) s, not \(next) s")
    }

    @Test func theStartAndTheEndEachHoldForTheHoldTime() {
        for elapsed in stride(from: 0.0, to: Marquee.hold, by: 0.1) {
            #expect(Self.shown(elapsed).text == "ABCDEFGHIJ", "at \(elapsed) s")
        }
        // The end shows from the last step (1.5 + 3 x 0.4 = 2.7 s) until the cycle ends (4.2 s).
        let endStart = Marquee.hold + 3 * Marquee.step
        for elapsed in stride(from: endStart + 0.01, to: endStart + Marquee.hold, by: 0.1) {
            #expect(Self.shown(elapsed).text == "EFGHIJKLMN", "at \(elapsed) s")
        }
        let endHold = (Self.shown(endStart + 0.01).next ?? 0) + 0.01
        #expect(abs(endHold - Marquee.hold) < 1e-9)
    }

    @Test func steppingToEachAnnouncedChangeShowsTheNextWindow() {
        // What the appliance does: sleep exactly until nextChange, then look again. Each look must
        // show a new window and announce a change strictly later, or the device wakes again at once.
        var elapsed = 0.0
        var previous = Self.shown(elapsed).text
        for _ in 0..<20 {
            guard let next = Self.shown(elapsed).next else { break }
            #expect(next > 0)
            elapsed += next
            let now = Self.shown(elapsed)
            #expect(now.text != previous, "no change at \(elapsed) s")
            previous = now.text
        }
    }

    @Test func textThatFitsIsPaddedAndNeverChanges() {
        let (codes, next) = Marquee.window(HD44780Text.encode("Tea"), width: 6, elapsed: 12.3)
        #expect(HD44780Text.preview(codes) == "Tea   ")
        #expect(next == nil)
        let exact = Marquee.window(HD44780Text.encode("Wake up"), width: 7, elapsed: 0)
        #expect(HD44780Text.preview(exact.codes) == "Wake up")
        #expect(exact.nextChange == nil)
        let empty = Marquee.window([], width: 3, elapsed: 0)
        #expect(empty.codes == [HD44780Text.space, HD44780Text.space, HD44780Text.space])
        #expect(empty.nextChange == nil)
    }

    @Test func aFieldOfNoWidthShowsNothingAndNeverChanges() {
        for width in [0, -1] {
            let (codes, next) = Marquee.window(Self.text, width: width, elapsed: 2)
            #expect(codes.isEmpty)
            #expect(next == nil)
        }
    }

    @Test func oneStepTooLongHoldsEachEnd() {
        let (start, startNext) = Self.shown(0, width: 13)
        #expect(start == "ABCDEFGHIJKLM")
        #expect(startNext == Marquee.hold)
        let (end, endNext) = Self.shown(Marquee.hold + 0.5, width: 13)
        #expect(end == "BCDEFGHIJKLMN")
        #expect(abs((endNext ?? 0) - (Marquee.hold - 0.5)) < 1e-9)
    }

    @Test func timeBeforeTheTextAppearedCountsAsTheStart() {
        #expect(Self.shown(-5).text == "ABCDEFGHIJ")
    }
}
