import RnmAPI

/// Characters per status, as numbers and a bar chart. The chart is HTML (each status's label
/// and number at the page's text size) with a bar per status drawn by SVG at a percentage of
/// its track, so it fits any width; no inline style, which the page's Content-Security-Policy
/// forbids. Each status has its colour, and its label and number beside it.
struct StatsScreen {
    struct Row {
        /// As the cards show it (``StatusLabel``).
        var label: String
        var className: String
        var count: Int
        var percent: String
        /// The bar's share of its track, the largest status filling it (`63.2%`).
        var barWidth: String
    }

    var frame: PageFrame
    var total: Int
    var rows: [Row]
    var chartLabel: String

    init(_ stats: Fresh<CharacterStats>, csrf: String) {
        frame = PageFrame(screen: .stats, freshness: [stats.freshness], csrf: csrf)
        total = stats.total
        let counts = stats.byStatus.rows
        let largest = max(1, counts.map(\.1).max() ?? 1)
        rows = counts.map { status, count in
            let share = stats.total > 0 ? 100 * Double(count) / Double(stats.total) : 0
            return Row(
                label: StatusLabel.text(status), className: StatusLabel.className(status), count: count,
                percent: String(format1: share),
                // A sliver for none, so that the track still shows where the bar would be.
                barWidth: String(format1: max(100 * Double(count) / Double(largest), 0.5)) + "%")
        }
        chartLabel = rows.map { "\($0.label): \($0.count)" }.joined(separator: ", ")
    }
}

extension String {
    /// `value` with one decimal (`12.5`).
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
