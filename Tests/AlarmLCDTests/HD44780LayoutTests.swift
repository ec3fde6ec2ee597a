import AlarmHardware
@testable import AlarmLCD
import Testing

struct HD44780LayoutTests {
    @Test func rowsStartAt0x00And0x40On16x2() {
        #expect(HD44780Layout.address(row: 0, column: 0, columns: 16) == 0x00)
        #expect(HD44780Layout.address(row: 1, column: 0, columns: 16) == 0x40)
        #expect(HD44780Layout.address(row: 1, column: 15, columns: 16) == 0x4F)
    }

    @Test func rowsStartAt0x00_0x40_0x14_0x54On20x4() {
        #expect((0..<4).map { HD44780Layout.address(row: $0, column: 0, columns: 20) } == [0x00, 0x40, 0x14, 0x54])
        #expect(HD44780Layout.address(row: 3, column: 19, columns: 20) == 0x67)
    }

    @Test func cellsAreInAddressOrder() {
        let layout = HD44780Layout(size: .twentyByFour)
        #expect(layout.cells.map(\.row) == Array(repeating: 0, count: 20) + Array(repeating: 2, count: 20)
            + Array(repeating: 1, count: 20) + Array(repeating: 3, count: 20))
    }

    @Test func unknownContentIsWrittenWhole() {
        let layout = HD44780Layout(size: .sixteenByTwo)
        let writes = layout.writes(from: nil, to: layout.blank)
        #expect(writes.map(\.address) == [0x00, 0x40])
        #expect(writes.map(\.codes.count) == [16, 16])
    }

    @Test func writesNeverBridgeRowsThatAreNotNeighboursInMemory() {
        let layout = HD44780Layout(size: .sixteenByTwo)
        var new = layout.blank
        new[0][15] = 0x41
        new[1][0] = 0x42
        #expect(layout.writes(from: layout.blank, to: new) == [
            .init(address: 0x0F, codes: [0x41]), .init(address: 0x40, codes: [0x42]),
        ])
    }

    @Test func on20x4TheEndOfRowOneJoinsTheStartOfRowThree() {
        let layout = HD44780Layout(size: .twentyByFour)
        var new = layout.blank
        new[0][19] = 0x41
        new[2][0] = 0x42
        #expect(layout.writes(from: layout.blank, to: new) == [.init(address: 0x13, codes: [0x41, 0x42])])
    }

    @Test func supportedSizesFitOneController() {
        #expect(HD44780Layout.supports(.sixteenByTwo))
        #expect(HD44780Layout.supports(.twentyByFour))
        #expect(HD44780Layout.supports(DisplaySize(columns: 40, rows: 2)))
        #expect(!HD44780Layout.supports(DisplaySize(columns: 40, rows: 4)))
        #expect(!HD44780Layout.supports(DisplaySize(columns: 16, rows: 0)))
    }
}
