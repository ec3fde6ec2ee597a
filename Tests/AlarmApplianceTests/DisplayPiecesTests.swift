import AlarmAppliance
import AlarmHardware
import Testing

@Suite struct DisplayPiecesTests {
    static let remaining: [(Double, String)] = [
        (300, "05:00"), (299.2, "05:00"), (298.9, "04:59"), (65, "01:05"), (0.2, "00:01"), (0, "00:00"),
        (-3, "00:00"), (3599, "59:59"), (3600, "1:00:00"), (3723, "1:02:03"), (36_000, "10:00:00"), (.nan, "00:00"),
    ]

    @Test(arguments: remaining)
    func remainingTimeRoundsUpAndGrowsHoursPastAnHour(_ seconds: Double, _ text: String) {
        #expect(RemainingTimeText.format(seconds) == text)
    }

    @Test func everyIconIsAValidGlyphInItsOwnSlot() {
        #expect(Set(DisplayIcon.allCases.map(\.code)).count == DisplayIcon.allCases.count)
        #expect(DisplayIcon.allCases.allSatisfy { $0.code < 8 && $0.glyph.rows.count == 8 })
        #expect(DisplayIcon.bell.glyph.rows == [0b00100, 0b01110, 0b01110, 0b01110, 0b11111, 0, 0b00100, 0])
    }

    @Test func buttonSymbolsMapToIcons() {
        #expect(DisplayIcon(systemImageName: "zzz") == .snooze)
        #expect(DisplayIcon(systemImageName: "pause.fill") == .pause)
        #expect(DisplayIcon(systemImageName: "play.circle") == .play)
        #expect(DisplayIcon(systemImageName: "repeat") == .play)
        #expect(DisplayIcon(systemImageName: "alarm") == .bell)
        #expect(DisplayIcon(systemImageName: "stop.circle") == nil)
    }
}
