/// A text table that fits the terminal without cutting any value: columns are as wide as
/// their longest value; on a narrow terminal the least important columns are left out
/// (unless `--wide`), then long cells wrap at word boundaries onto more lines.
struct Table {
    /// A column: its header, and how readily it is left out (0: never; higher goes first).
    struct Column {
        var header: String
        var dropPriority = 0

        init(_ header: String, dropPriority: Int = 0) {
            self.header = header
            self.dropPriority = dropPriority
        }
    }

    var columns: [Column]
    var rows: [[String]]

    init(_ columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    init(headers: [String], rows: [[String]]) {
        self.init(headers.map { Column($0) }, rows: rows)
    }

    static let gap = 2

    /// The table as lines of at most `width` characters where that is possible without
    /// breaking a word; all columns and no wrapping when `width` is nil or `wide`.
    func render(width: Int? = Terminal.width, wide: Bool = false) -> String {
        var shown = Array(columns.indices)
        var widths = columns.indices.map { index in
            rows.reduce(columns[index].header.count) { max($0, $1.indices.contains(index) ? $1[index].count : 0) }
        }
        func total() -> Int { shown.reduce(0) { $0 + widths[$1] } + Self.gap * max(0, shown.count - 1) }
        if let width, !wide {
            // Leave out the least important columns first.
            let droppable = shown.filter { columns[$0].dropPriority > 0 }.sorted { columns[$0].dropPriority > columns[$1].dropPriority }
            for index in droppable where total() > width {
                shown.removeAll { $0 == index }
            }
            // Then narrow the widest columns, never below their longest word.
            let floors = columns.indices.map { index in
                rows.reduce(columns[index].header.count) { floor, row in
                    guard row.indices.contains(index) else { return floor }
                    return max(floor, row[index].split(separator: " ").map(\.count).max() ?? 0)
                }
            }
            while total() > width, let widest = shown.filter({ widths[$0] > floors[$0] }).max(by: { widths[$0] < widths[$1] }) {
                widths[widest] -= 1
            }
        }
        var lines = [Terminal.bold(line(shown.map { columns[$0].header }, shown: shown, widths: widths))]
        for row in rows {
            let wrapped = shown.map { index in Self.wrap(row.indices.contains(index) ? row[index] : "", width: widths[index]) }
            for lineIndex in 0..<(wrapped.map(\.count).max() ?? 1) {
                lines.append(line(wrapped.map { lineIndex < $0.count ? $0[lineIndex] : "" }, shown: shown, widths: widths))
            }
        }
        return lines.joined(separator: "\n")
    }

    private func line(_ cells: [String], shown: [Int], widths: [Int]) -> String {
        var text = ""
        for (position, cell) in cells.enumerated() {
            if position == cells.count - 1 {
                text += cell
            } else {
                text += cell + String(repeating: " ", count: max(0, widths[shown[position]] - cell.count) + Self.gap)
            }
        }
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    /// `text` in lines of at most `width` characters, broken at spaces only (a word longer
    /// than `width` gets a line of its own, whole).
    static func wrap(_ text: String, width: Int) -> [String] {
        guard text.count > width, width > 0 else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        lines.append(current)
        return lines
    }
}
