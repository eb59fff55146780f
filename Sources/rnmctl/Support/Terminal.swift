import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the terminal allows: colour only on a terminal and never with NO_COLOR.
enum Terminal {
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1
    static let colorAllowed = ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    static func bold(_ text: String) -> String {
        stdoutIsTTY && colorAllowed ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }

    static func warning(_ text: String) -> String {
        stderrIsTTY && colorAllowed ? "\u{1B}[33m\(text)\u{1B}[0m" : text
    }

    /// Writes a line to stderr.
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

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

/// Labelled fields, one per line, labels aligned.
struct Fields {
    var pairs: [(String, String)]

    func render(indent: String = "  ") -> String {
        let width = (pairs.map(\.0.count).max() ?? 0) + 1
        return pairs.map { "\(indent)\(($0.0 + ":").padding(toLength: width, withPad: " ", startingAt: 0))  \($0.1.isEmpty ? "-" : $0.1)" }
            .joined(separator: "\n")
    }
}
