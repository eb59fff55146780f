import Foundation

/// A text table whose columns are as wide as their longest value: nothing is ever cut (a line
/// longer than the terminal wraps).
struct Table {
    var headers: [String]
    var rows: [[String]]

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([Terminal.bold(line(headers))] + rows.map(line)).joined(separator: "\n")
    }
}
