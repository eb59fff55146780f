/// A text table that fits the terminal without cutting any value: columns are as wide as
/// their longest value; on a narrow terminal long values wrap at word boundaries onto more
/// lines, and the least important columns are left out (unless `--wide`) only when wrapping
/// values down to ``wrapsBefore`` characters is not enough.
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
    /// A wrapped value's continuation lines start this far in: the rest of a university's
    /// name must not read as a university of its own.
    static let continuationIndent = 2
    /// Values longer than this wrap before a column is left out to make room for them.
    static let wrapsBefore = 30

    /// The table four spaces in, under a heading of a record's details (`  Episodes (31):`),
    /// fitted to the terminal's width less those spaces.
    func renderNested(wide: Bool) -> String {
        render(width: Terminal.width.map { $0 - 4 }, wide: wide)
            .split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
    }

    /// The table as lines of at most `width` characters where that is possible without
    /// breaking a word; all columns and no wrapping when `width` is nil or `wide`.
    func render(width: Int? = Terminal.width, wide: Bool = false) -> String {
        var shown = Array(columns.indices)
        var widths = columns.indices.map { index in
            rows.reduce(columns[index].header.count) { max($0, $1.indices.contains(index) ? $1[index].count : 0) }
        }
        func total(_ widths: [Int], _ shown: [Int]) -> Int {
            shown.reduce(0) { $0 + widths[$1] } + Self.gap * max(0, shown.count - 1)
        }
        if let width, !wide {
            // The narrowest a column goes: its longest word, indented when it may continue a
            // line (a value is wrapped, never cut).
            let floors = columns.indices.map { index in
                rows.reduce(columns[index].header.count) { floor, row in
                    guard row.indices.contains(index) else { return floor }
                    let words = row[index].split(separator: " ").map(\.count)
                    return max(floor, (words.max() ?? 0) + (words.count > 1 ? Self.continuationIndent : 0))
                }
            }
            // Leave out the least important columns while the table does not fit even with its
            // long values wrapped at `wrapsBefore` characters: one long name wraps onto a second
            // line rather than take the other columns off every row.
            let soft = columns.indices.map { min(widths[$0], max(floors[$0], Self.wrapsBefore)) }
            let droppable = shown.filter { columns[$0].dropPriority > 0 }.sorted {
                columns[$0].dropPriority > columns[$1].dropPriority
            }
            var dropped: [Int] = []
            for index in droppable where total(soft, shown) > width {
                shown.removeAll { $0 == index }
                dropped.append(index)
            }
            // A less important column left out early may fit beside the ones kept.
            for index in dropped.reversed() where total(soft, (shown + [index]).sorted()) <= width {
                shown = (shown + [index]).sorted()
            }
            // Then narrow the widest columns, never below their longest word.
            while total(widths, shown) > width,
                let widest = shown.filter({ widths[$0] > floors[$0] }).max(by: { widths[$0] < widths[$1] })
            {
                widths[widest] -= 1
            }
        }
        var lines = [Terminal.bold(line(shown.map { columns[$0].header }, shown: shown, widths: widths))]
        for row in rows {
            let wrapped = shown.map { index in
                Self.wrap(row.indices.contains(index) ? row[index] : "", width: widths[index])
            }
            for lineIndex in 0..<(wrapped.map(\.count).max() ?? 1) {
                lines.append(
                    line(wrapped.map { lineIndex < $0.count ? $0[lineIndex] : "" }, shown: shown, widths: widths))
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

    /// `text` in lines of at most `width` characters, broken at spaces only, the lines after
    /// the first indented by ``continuationIndent`` (a word longer than the room gets a line of
    /// its own, whole).
    static func wrap(_ text: String, width: Int) -> [String] {
        guard text.count > width, width > 0 else { return [text] }
        let indent = String(repeating: " ", count: continuationIndent)
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if current.isEmpty || current == indent {
                current += word
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = indent + word
            }
        }
        lines.append(current)
        return lines
    }
}
