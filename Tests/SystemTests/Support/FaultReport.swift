import Foundation
import Synchronization
import TestSupport
import Testing

/// What the fault suite measured, printed as one table when the suite ends.
enum FaultReport {
    struct Row: Sendable {
        var scenario: String
        var measured: String
    }

    private static let rows = Mutex<[Row]>([])

    /// Adds a line to the table (and prints it at once, for a run followed live).
    static func record(_ scenario: String, _ measured: String) {
        rows.withLock { $0.append(Row(scenario: scenario, measured: measured)) }
        print("[fault-suite] \(scenario): \(measured)")
    }

    /// The table so far, as Markdown.
    static func table() -> String {
        let rows = self.rows.withLock { $0 }
        let width = max(8, rows.map(\.scenario.count).max() ?? 0)
        var lines = [
            "| \("scenario".padding(toLength: width, withPad: " ", startingAt: 0)) | measured |",
            "| \(String(repeating: "-", count: width)) | -------- |",
        ]
        for row in rows {
            lines.append("| \(row.scenario.padding(toLength: width, withPad: " ", startingAt: 0)) | \(row.measured) |")
        }
        return lines.joined(separator: "\n")
    }
}

/// Prints the fault report once the suite it is attached to has run.
struct PrintsFaultReport: SuiteTrait, TestScoping {
    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        defer {
            print("\nSystem fault suite: what was measured\n\(FaultReport.table())\n")
        }
        try await function()
    }
}

extension Trait where Self == PrintsFaultReport {
    /// Prints the table of measured figures after the suite.
    static var printsFaultReport: Self { PrintsFaultReport() }
}

/// The system fault suite (issue 8): real processes hurt the way production will hurt them.
/// Its scenarios run one at a time so that their timings are their own.
@Suite("System fault suite", .serialized, .printsFaultReport, .cleansUp, .tags(.timing))
enum FaultSuite {}

/// Milliseconds, for the report.
func ms(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    return value < 10 ? String(format: "%.1f ms", value) : String(format: "%.0f ms", value)
}

/// Megabytes, for the report.
func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
