import GraphQL

/// What a GraphQL document would cost, measured before it is validated or run: its depth and its
/// aliases with fragments expanded (a fragment measured once however often it is spread).
struct QueryCost {
    /// Nesting of selections: `{ character(id: 1) { name } }` is 2.
    private(set) var depth = 0
    /// Aliased fields.
    private(set) var aliases = 0

    private var fragments: [String: SelectionSet] = [:]
    private var measured: [String: (depth: Int, aliases: Int)] = [:]
    private var measuring: Set<String> = []

    init(_ document: Document) {
        for definition in document.definitions {
            if let fragment = definition as? FragmentDefinition {
                fragments[fragment.name.value] = fragment.selectionSet
            }
        }
        for case let operation as OperationDefinition in document.definitions {
            let cost = measure(operation.selectionSet)
            depth = max(depth, cost.depth)
            aliases = max(aliases, cost.aliases)
        }
    }

    private mutating func measure(_ set: SelectionSet) -> (depth: Int, aliases: Int) {
        var deepest = 0
        var aliases = 0
        for selection in set.selections {
            let inner: (depth: Int, aliases: Int)
            switch selection {
            case let field as Field:
                if field.alias != nil { aliases = Self.add(aliases, 1) }
                inner = field.selectionSet.map { measure($0) } ?? (0, 0)
            case let fragment as InlineFragment:
                // The same level as its parent: its fields are the parent's.
                let cost = measure(fragment.selectionSet)
                inner = (max(0, cost.depth - 1), cost.aliases)
            case let spread as FragmentSpread:
                let cost = measureFragment(spread.name.value)
                inner = (max(0, cost.depth - 1), cost.aliases)
            default:
                inner = (0, 0)
            }
            deepest = max(deepest, inner.depth)
            aliases = Self.add(aliases, inner.aliases)
        }
        return (deepest + 1, aliases)
    }

    /// A fragment's cost, once. One that spreads itself costs nothing here: validation rejects it
    /// (`NoFragmentCycles`) with its own message.
    private mutating func measureFragment(_ name: String) -> (depth: Int, aliases: Int) {
        if let cost = measured[name] { return cost }
        guard let set = fragments[name], measuring.insert(name).inserted else { return (0, 0) }
        let cost = measure(set)
        measuring.remove(name)
        measured[name] = cost
        return cost
    }

    private static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// How deep brackets (`{`, `(`, `[`) nest in `text`, outside strings and comments: a
    /// document nested thousands deep is refused before the (recursive) parser sees it.
    static func nesting(of text: String) -> Int {
        var depth = 0
        var deepest = 0
        var bytes = text.utf8[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "#"):
                // A comment ends at a line feed or a carriage return, as the GraphQL lexer ends it.
                while let next = bytes.popFirst(), next != UInt8(ascii: "\n"), next != UInt8(ascii: "\r") {}
            case UInt8(ascii: "\""):
                skipString(&bytes)
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                depth = max(0, depth - 1)
            default:
                break
            }
        }
        return deepest
    }

    /// Past a string whose opening quote was just read: `"…"` with escapes, or `"""…"""`.
    private static func skipString(_ bytes: inout Substring.UTF8View) {
        let quote = UInt8(ascii: "\"")
        if bytes.starts(with: [quote, quote]) {
            bytes.removeFirst(2)
            while !bytes.isEmpty, !bytes.starts(with: [quote, quote, quote]) {
                if bytes.first == UInt8(ascii: "\\") { bytes.removeFirst() }
                if !bytes.isEmpty { bytes.removeFirst() }
            }
            bytes = bytes.dropFirst(3)
            return
        }
        while let byte = bytes.popFirst(), byte != quote, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") {
            if byte == UInt8(ascii: "\\"), !bytes.isEmpty { bytes.removeFirst() }
        }
    }
}
