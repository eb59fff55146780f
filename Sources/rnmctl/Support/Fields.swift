#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Labelled fields, one per line, labels aligned.
struct Fields {
    var pairs: [(String, String)]

    func render(indent: String = "  ") -> String {
        let width = (pairs.map(\.0.count).max() ?? 0) + 1
        return pairs.map { "\(indent)\(($0.0 + ":").padded(to: width))  \($0.1.isEmpty ? "-" : $0.1)" }
            .joined(separator: "\n")
    }
}

extension String {
    /// The string with spaces after it up to `width` characters.
    func padded(to width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(0, width - count))
    }
}
