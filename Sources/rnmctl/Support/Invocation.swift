/// A command line a user can run again: `rnmctl characters list --status alive --page 2`.
struct Invocation {
    var words: [String]

    init(_ command: String) {
        words = [command]
    }

    /// Adds `--name value` when there is a value.
    func option(_ name: String, _ value: (any CustomStringConvertible)?) -> Invocation {
        guard let value else { return self }
        var copy = self
        copy.words += ["--\(name)", Self.quoted(String(describing: value))]
        return copy
    }

    var text: String { words.joined(separator: " ") }

    /// A shell word: as it is when safe, else in single quotes.
    static func quoted(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:,@+=".contains($0) }
        return safe && !word.isEmpty ? word : "'" + word.replacing("'", with: "'\\''") + "'"
    }
}
