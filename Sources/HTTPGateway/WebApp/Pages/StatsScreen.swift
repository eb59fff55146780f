import RnmAPI

/// Characters per status, as numbers and a bar chart (SVG: no inline style, which the page's
/// Content-Security-Policy forbids).
struct StatsScreen {
    struct Row {
        var status: String
        var count: Int
        var percent: String
        var barWidth: String
        /// The row's distance from the chart's top.
        var offset: Int
    }

    var frame: PageFrame
    var total: Int
    var rows: [Row]
    var chartHeight: Int
    var chartLabel: String

    init(_ stats: Fresh<CharacterStats>, csrf: String) {
        frame = PageFrame(title: "Statistics", current: "/app/stats", freshness: [stats.freshness], csrf: csrf)
        total = stats.total
        let counts = [
            ("alive", stats.byStatus.alive), ("dead", stats.byStatus.dead), ("unknown", stats.byStatus.unknown),
        ]
        let largest = max(1, counts.map(\.1).max() ?? 1)
        rows = counts.enumerated().map { index, pair in
            // Labels take 26 of the chart's 120 units, the count after the bar up to 14.
            let width = 76 * Double(pair.1) / Double(largest)
            let share = stats.total > 0 ? 100 * Double(pair.1) / Double(stats.total) : 0
            return Row(
                status: pair.0, count: pair.1, percent: String(format1: share),
                barWidth: String(format1: max(width, 0.5)), offset: 2 + index * 10)
        }
        chartHeight = counts.count * 10 + 2
        chartLabel = counts.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }
}

extension String {
    /// `value` with one decimal (`12.5`).
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
