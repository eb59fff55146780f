import RnmAPI

/// A request's query as the Rick and Morty API's Express server reads it: `&`-separated
/// pairs, `+` and percent escapes decoded, keys in the order given (the first of a repeated
/// key wins), values trimmed (its `express-validator` sanitizer trims every filter).
struct PublicQuery: Sendable {
    /// The pairs in the order they came.
    let pairs: [(key: String, value: String)]

    init(_ query: String?) {
        var pairs: [(key: String, value: String)] = []
        for part in (query ?? "").split(separator: "&") {
            let halves = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.decode(halves[0])
            guard !key.isEmpty, !pairs.contains(where: { $0.key == key }) else { continue }
            pairs.append((key, Self.decode(halves.count > 1 ? halves[1] : "")))
        }
        self.pairs = pairs
    }

    subscript(key: String) -> String? {
        pairs.first { $0.key == key }?.value
    }

    /// A filter's value: trimmed, nil when empty.
    func filter(_ key: String) -> String? {
        guard let value = self[key]?.trimmingWhitespace, !value.isEmpty else { return nil }
        return value
    }

    /// `page` as the API reads it: a number of 1 or more (its whole part), else 1. Huge ones are
    /// kept huge (capped to fit an `Int`): they are past the end, not page 1.
    var page: Int {
        guard let text = self["page"]?.trimmingWhitespace, let number = Double(text), number >= 1 else { return 1 }
        return number >= 1e15 ? Int(1e15) : Int(number)
    }

    /// Whether this query of a list of `kind` can match nothing (``RecordKind/matchesNothing(page:filter:)``).
    func matchesNothing(in kind: RecordKind) -> Bool {
        kind.matchesNothing(page: page) { filter($0) }
    }

    /// `&name=rick&status=alive`: the allowed filters present, in the request's order, as the
    /// API repeats them in `next` and `prev` (decoded and trimmed, not re-encoded: as it does).
    func repeated(_ allowed: [String]) -> String {
        pairs.compactMap { pair in
            guard allowed.contains(pair.key), let value = filter(pair.key) else { return nil }
            return "&\(pair.key)=\(value)"
        }.joined()
    }

    /// Percent escapes (and in a query, `+` as a space) decoded; invalid escapes kept as they are.
    static func decode<Text: StringProtocol>(_ text: Text, plusAsSpace: Bool = true) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "+"), plusAsSpace {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), input.count >= 2,
                let high = hexValue(input[input.startIndex]), let low = hexValue(input[input.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                input.removeFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    /// Without leading and trailing white space (JavaScript's `trim`).
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
