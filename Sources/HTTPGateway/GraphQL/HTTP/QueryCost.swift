import GraphQL

/// What a GraphQL document would cost, measured before it is validated or run, as execution
/// would expand it: every fragment spread counts its fragment again (a fragment spread by two
/// others that are both spread counts four times), aliases count once each, and an
/// introspection field counts the objects it can visit (``IntrospectionFanOut``).
///
/// Why fragments multiply: GraphQL 4.3.0's `collectFields` (`Execute.swift`) copies its
/// visited-fragments set per spread (`var visitedFragmentNames = visitedFragmentNames`), so a
/// "diamond" of fragments is walked once per path, 2^n for n levels (issue 35, finding 1). The
/// fix in the library is one line (pass the `inout` set through instead of copying it); until
/// then the cost counts the paths and refuses what is past ``GraphQLLimits/maxCost``. Each
/// fragment is measured once (memoized), so measuring is linear in the document.
struct QueryCost {
    /// Levels of fields: `{ character(id: 1) { name } }` is 2. Introspection fields (`__…`)
    /// count 0 and are not descended, as `graphql-depth-limit` (the API's server) counts.
    private(set) var depth = 0
    /// Aliased fields, as expanded.
    private(set) var aliases = 0
    /// Fields as execution expands them, and introspection objects by the schema's fan-out at
    /// a tenth of a field each: measured in one run (debug build), GraphiQL's introspection
    /// query (39,123 objects here) took 62 ms, 1.6 µs an object; the diamond at 14 levels
    /// (16,384 paths) 242 ms, 15 µs a path.
    private(set) var cost = 0
    /// What an introspection object costs beside a field (see ``cost``).
    static let introspectionObjectsPerField = 10

    private let fanOut: IntrospectionFanOut
    private var fragments: [String: SelectionSet] = [:]
    private var measured: [Key: Measure] = [:]
    private var measuring: Set<Key> = []

    private struct Key: Hashable {
        let name: String
        let introspecting: Bool
    }

    private struct Measure {
        var depth = 0
        var aliases = 0
        /// Fields, introspection objects apart.
        var fields = 0
        var objects = 0
    }

    init(_ document: Document, fanOut: IntrospectionFanOut = .none) {
        self.fanOut = fanOut
        for case let fragment as FragmentDefinition in document.definitions {
            fragments[fragment.name.value] = fragment.selectionSet
        }
        for case let operation as OperationDefinition in document.definitions {
            let measure = measure(operation.selectionSet, introspecting: false)
            depth = max(depth, measure.depth)
            aliases = max(aliases, measure.aliases)
            cost = max(cost, Self.add(measure.fields, measure.objects / Self.introspectionObjectsPerField))
        }
    }

    private mutating func measure(_ set: SelectionSet, introspecting: Bool) -> Measure {
        var total = Measure()
        var deepest = 0
        for selection in set.selections {
            var inner = Measure()
            switch selection {
            case let field as Field:
                let name = field.name.value
                let meta = name.hasPrefix("__")
                let within = introspecting || name == "__schema" || name == "__type"
                if field.alias != nil { inner.aliases = 1 }
                if let subselection = field.selectionSet {
                    let below = measure(subselection, introspecting: within)
                    // graphql-depth-limit: an introspection field neither counts nor is descended.
                    inner.depth = meta || within ? 0 : below.depth
                    inner.aliases = Self.add(inner.aliases, below.aliases)
                    let times = within ? fanOut.objects(under: name) : 1
                    inner.fields = Self.multiply(below.fields, times)
                    inner.objects = Self.multiply(below.objects, times)
                }
                if within {
                    inner.objects = Self.add(inner.objects, 1)
                } else {
                    inner.fields = Self.add(inner.fields, 1)
                }
            case let fragment as InlineFragment:
                // The same level as its parent: its fields are the parent's.
                inner = measure(fragment.selectionSet, introspecting: introspecting)
                inner.depth = max(0, inner.depth - 1)
            case let spread as FragmentSpread:
                inner = measureFragment(spread.name.value, introspecting: introspecting)
                inner.depth = max(0, inner.depth - 1)
            default:
                break
            }
            deepest = max(deepest, inner.depth)
            total.aliases = Self.add(total.aliases, inner.aliases)
            total.fields = Self.add(total.fields, inner.fields)
            total.objects = Self.add(total.objects, inner.objects)
        }
        total.depth = deepest + 1
        return total
    }

    /// A fragment's measure, computed once. One that spreads itself costs nothing here:
    /// validation rejects it (`NoFragmentCycles`) with its own message.
    private mutating func measureFragment(_ name: String, introspecting: Bool) -> Measure {
        let key = Key(name: name, introspecting: introspecting)
        if let known = measured[key] { return known }
        guard let set = fragments[name], measuring.insert(key).inserted else { return Measure() }
        let result = measure(set, introspecting: introspecting)
        measuring.remove(key)
        measured[key] = result
        return result
    }

    private static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    private static func multiply(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : product
    }
}

/// How many objects an introspection field can visit in this schema: `types` lists every type,
/// `fields` the most fields of a type, and so on. The schema never changes at run time, so
/// it is read once; a query's introspection then costs what its widest walk could cost.
struct IntrospectionFanOut: Sendable {
    private var counts: [String: Int] = [:]

    /// No fan-out (every field counts one): for measuring without a schema.
    static let none = IntrospectionFanOut()

    private init() {}

    init(schema: GraphQLSchema) {
        var fields = 1
        var arguments = 1
        var enumValues = 1
        var interfaces = 1
        var inputFields = 1
        for type in schema.typeMap.values {
            if let object = type as? GraphQLObjectType, let map = try? object.fields() {
                fields = max(fields, map.count)
                arguments = max(arguments, map.values.map(\.args.count).max() ?? 0)
                interfaces = max(interfaces, (try? object.interfaces().count) ?? 0)
            }
            if let enumeration = type as? GraphQLEnumType { enumValues = max(enumValues, enumeration.values.count) }
            if let input = type as? GraphQLInputObjectType, let map = try? input.fields() {
                inputFields = max(inputFields, map.count)
            }
        }
        let directiveArguments = schema.directives.map(\.args.count).max() ?? 1
        counts = [
            "types": schema.typeMap.count, "possibleTypes": schema.typeMap.count, "fields": fields,
            "args": max(arguments, directiveArguments), "enumValues": enumValues, "interfaces": interfaces,
            "inputFields": inputFields, "directives": schema.directives.count,
        ]
    }

    /// The objects one `name` field yields (1 for a field that yields one object, as `ofType`).
    func objects(under name: String) -> Int {
        counts[name] ?? 1
    }
}

extension QueryCost {
    /// How deep brackets (`{`, `(`, `[`) nest in `text`, and how many tokens it holds, outside
    /// strings and comments, in one pass before the (recursive) parser sees it: a document
    /// nested thousands deep, or one of a hundred thousand names, is refused unparsed. Tokens
    /// are counted as the GraphQL lexer reads them (punctuators, names, numbers, strings; a run
    /// of dots is one, so `...` is one), within a token or two of it for odd numbers.
    static func scan(_ text: String) -> (nesting: Int, tokens: Int) {
        var depth = 0
        var deepest = 0
        var tokens = 0
        var bytes = text.utf8[...]
        var inWord = false
        while let byte = bytes.popFirst() {
            let word = isWordByte(byte)
            if word, !inWord { tokens += 1 }
            inWord = word
            switch byte {
            case UInt8(ascii: "#"):
                // A comment ends at a line feed or a carriage return, as the GraphQL lexer ends it.
                while let next = bytes.popFirst(), next != UInt8(ascii: "\n"), next != UInt8(ascii: "\r") {}
            case UInt8(ascii: "\""):
                tokens += 1
                skipString(&bytes)
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                tokens += 1
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                tokens += 1
                depth = max(0, depth - 1)
            case UInt8(ascii: "."):
                while bytes.first == UInt8(ascii: ".") { bytes.removeFirst() }
                tokens += 1
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: ":"), UInt8(ascii: "="),
                UInt8(ascii: "@"), UInt8(ascii: "|"):
                tokens += 1
            default:
                break
            }
        }
        return (deepest, tokens)
    }

    /// Bytes of names and numbers.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+"),
            0x80...0xFF:
            return true
        default:
            return false
        }
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
