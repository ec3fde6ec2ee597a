/// A plain-text table: a header row and left-aligned columns two spaces apart, the last one
/// unpadded (titles can be long). Cells are printed through ``TerminalText/escaped(_:)``: they
/// hold text from others, and a newline in one would break the table.
struct TextTable {
    private var rows: [[String]]

    init(header: [String]) {
        rows = [header.map(TerminalText.escaped)]
    }

    mutating func append(_ row: [String]) {
        rows.append(row.map(TerminalText.escaped))
    }

    /// Every row, each ending in a newline.
    var text: String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        var text = ""
        for row in rows {
            var line = ""
            for (index, cell) in row.enumerated() {
                if index == row.count - 1 {
                    line += cell
                } else {
                    line += cell + String(repeating: " ", count: widths[index] - cell.count + 2)
                }
            }
            while line.last == " " { line.removeLast() }
            text += line + "\n"
        }
        return text
    }
}
