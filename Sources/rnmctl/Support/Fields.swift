import Foundation

/// Labelled fields, one per line, labels aligned.
struct Fields {
    var pairs: [(String, String)]

    func render(indent: String = "  ") -> String {
        let width = (pairs.map(\.0.count).max() ?? 0) + 1
        return pairs.map { "\(indent)\(($0.0 + ":").padding(toLength: width, withPad: " ", startingAt: 0))  \($0.1.isEmpty ? "-" : $0.1)" }
            .joined(separator: "\n")
    }
}
