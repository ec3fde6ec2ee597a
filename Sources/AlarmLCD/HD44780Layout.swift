import AlarmHardware

/// Where an HD44780's cells live in its display RAM, and which writes turn one frame into another.
///
/// Rows start at 0x00 and 0x40 (16x2, 20x2); a four-row display continues the first two lines:
/// rows 3 and 4 start at 0x00 + columns and 0x40 + columns (0x14 and 0x54 on a 20x4). So on a 20x4
/// row 1 runs on into row 3 and row 2 into row 4 without a cursor move.
struct HD44780Layout {
    /// One run of characters written after a single Set DDRAM Address (or none, when the
    /// address counter is already there).
    struct Write: Hashable {
        var address: UInt8
        var codes: [UInt8]
    }

    struct Cell {
        var row: Int
        var column: Int
        var address: UInt8
    }

    let size: DisplaySize
    /// In address order.
    let cells: [Cell]

    /// Up to 4 rows; up to 40 columns on one or two rows, 20 on four (one controller's 80 cells).
    static func supports(_ size: DisplaySize) -> Bool {
        (1...4).contains(size.rows) && (1...(size.rows > 2 ? 20 : 40)).contains(size.columns)
    }

    init(size: DisplaySize) {
        precondition(Self.supports(size), "an HD44780 drives up to 4 rows of 80 cells in all, not \(size)")
        self.size = size
        var cells: [Cell] = []
        for row in 0..<size.rows {
            for column in 0..<size.columns {
                cells.append(Cell(row: row, column: column, address: Self.address(row: row, column: column, columns: size.columns)))
            }
        }
        self.cells = cells.sorted { $0.address < $1.address }
    }

    static func address(row: Int, column: Int, columns: Int) -> UInt8 {
        UInt8((row % 2 == 0 ? 0x00 : 0x40) + (row >= 2 ? columns : 0) + column)
    }

    /// Unchanged cells between two changed ones that are rewritten rather than skipped with a
    /// cursor move. A character is 4 bus bytes (two nibbles, E high then low); a cursor move is
    /// 4 bytes plus one when RS drops to send it and one when RS rises again for the characters
    /// that follow, 6 in all. One unchanged cell (4 bytes) is cheaper to rewrite; two (8) are
    /// not. In time the sums agree: each character and each move is one instruction.
    static let bridgedCells = 1

    /// The writes that turn `old` (nil: unknown, everything is written) into `new`, in address
    /// order, each a run of consecutive addresses. `new` and `old` are `size.rows` rows of
    /// `size.columns` codes.
    func writes(from old: [[UInt8]]?, to new: [[UInt8]]) -> [Write] {
        var writes: [Write] = []
        var lastChanged: Int?  // index into `cells` of the last cell written
        for (index, cell) in cells.enumerated() {
            let code = new[cell.row][cell.column]
            if let old, old[cell.row][cell.column] == code { continue }
            if let last = lastChanged, index - last - 1 <= Self.bridgedCells,
               Int(cell.address) - Int(cells[last].address) == index - last {
                // Same stretch of RAM and a short gap: rewrite the unchanged cells in between.
                for between in (last + 1)...index {
                    writes[writes.count - 1].codes.append(new[cells[between].row][cells[between].column])
                }
            } else {
                writes.append(Write(address: cell.address, codes: [code]))
            }
            lastChanged = index
        }
        return writes
    }

    /// `frame`'s codes cut or padded with spaces to this size: a frame of another size shows
    /// its top-left corner rather than failing.
    func fit(_ frame: DisplayFrame) -> [[UInt8]] {
        if frame.size == size { return frame.codes }
        return (0..<size.rows).map { row in
            (0..<size.columns).map { column in
                row < frame.size.rows && column < frame.size.columns ? frame.codes[row][column] : HD44780Text.space
            }
        }
    }

    /// All spaces: what Clear Display leaves.
    var blank: [[UInt8]] {
        Array(repeating: Array(repeating: HD44780Text.space, count: size.columns), count: size.rows)
    }
}
