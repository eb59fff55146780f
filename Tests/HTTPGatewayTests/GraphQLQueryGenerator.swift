import Foundation
import ServiceRuntime
import Telemetry

/// Queries of the Rick and Morty schema made from a seed, for ``GraphQLExecutorDifferentialTests``:
/// each kind's three root fields with arguments right and wrong (ids as numbers, strings, bad
/// strings and lists; pages past both ends of `Int`; the kind's filters), selections nested up to
/// `RNM_GRAPHQL_MAX_DEPTH`, aliases and keys asked twice, named and inline fragments, `@skip` and
/// `@include` with literals and variables, and variables whose JSON is of the right type or not.
/// Most are valid; some are refused by validation or by the library's coercion, which both
/// executors must then answer alike.
struct GraphQLQueryGenerator {
    typealias Case = GraphQLExecutorDifferentialTests.Case

    var random: SplitMix64
    private let maxDepth = Defaults.graphqlMaxDepth
    /// Records a selection may fan out to (a page of 20, each with its episodes, …): past it no
    /// more lists, so most queries stay under the record budget.
    private let maxFan = 400

    // One query's parts.
    var definitions: [String] = []
    var variables: [String: Any] = [:]
    private var fragments: [String] = []
    /// Fragments made so far, by their type: reused below the root.
    private var made: [String: [Made]] = [:]
    var names = 0

    private struct Made {
        let name: String
        let height: Int
        let fan: Int
    }

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// The next query.
    mutating func next() -> Case {
        definitions = []
        variables = [:]
        fragments = []
        made = [:]
        names = 0
        let root = rootSelection()
        let name = chance(0.3) ? "Q\(int(0..<9))" : nil
        let header = definitions.isEmpty ? "" : "(" + definitions.joined(separator: ", ") + ")"
        var query =
            name == nil && header.isEmpty && chance(0.5) ? "{ \(root) }" : "query \(name ?? "")\(header) { \(root) }"
        var operationName: String? = nil
        if chance(name == nil ? 0.01 : 0.1) {
            query += " query Other { character(id: 2) { name } }"
            operationName = chance(0.85) ? name : nil
        } else if let name, chance(0.3) {
            operationName = chance(0.9) ? name : "Nope"
        }
        query += fragments.map { " " + $0 }.joined()
        return Case(query: query, variables: variables.isEmpty ? nil : variables, operationName: operationName)
    }

    // MARK: - Selections

    private enum Returned {
        case scalar
        case object(String, fan: Int)
        case list(String, fan: Int)

        var isScalar: Bool {
            if case .scalar = self { return true }
            return false
        }
    }

    /// Each object type's fields; a list's fan is about how many records it holds.
    private static let types: [String: [(String, Returned)]] = [
        "Character": [
            ("id", .scalar), ("name", .scalar), ("status", .scalar), ("species", .scalar), ("type", .scalar),
            ("gender", .scalar), ("image", .scalar), ("created", .scalar),
            ("origin", .object("Location", fan: 1)), ("location", .object("Location", fan: 1)),
            ("episode", .list("Episode", fan: 10)),
        ],
        "Location": [
            ("id", .scalar), ("name", .scalar), ("type", .scalar), ("dimension", .scalar), ("created", .scalar),
            ("residents", .list("Character", fan: 15)),
        ],
        "Episode": [
            ("id", .scalar), ("name", .scalar), ("air_date", .scalar), ("episode", .scalar), ("created", .scalar),
            ("characters", .list("Character", fan: 30)),
        ],
        "Info": [("count", .scalar), ("pages", .scalar), ("next", .scalar), ("prev", .scalar)],
        "Characters": [("info", .object("Info", fan: 1)), ("results", .list("Character", fan: 20))],
        "Locations": [("info", .object("Info", fan: 1)), ("results", .list("Location", fan: 20))],
        "Episodes": [("info", .object("Info", fan: 1)), ("results", .list("Episode", fan: 20))],
    ]

    private static let kinds: [(name: String, type: String, filters: [String])] = [
        ("character", "Character", ["name", "status", "species", "type", "gender"]),
        ("location", "Location", ["name", "type", "dimension"]),
        ("episode", "Episode", ["name", "episode"]),
    ]

    /// The root's entries: 1 to 3 root fields, with `__typename`, repeats and fragments on Query.
    private mutating func rootSelection() -> String {
        var items: [String] = []
        var keys: [(key: String, head: String)] = []  // each key's field and arguments, for a repeat
        for index in 0..<int(1..<4) {
            if chance(0.08) { items.append(chance(0.5) ? "__typename" : "t\(index): __typename") }
            if let (key, head) = keys.randomElement(using: &random), chance(0.15) {
                // The same key again, its field and arguments alike: merged with the first.
                items.append("\(key): \(head)\(directive()) { \(selection(of: type(of: head), level: 2).text) }")
                continue
            }
            let kind = Self.kinds[int(0..<3)]
            let (field, arguments, type, fan) = rootField(kind)
            let head = field + arguments
            let key = !keys.contains { $0.key == field } && chance(0.6) ? field : "r\(index)"
            keys.append((key, head))
            let body = "\(head)\(directive()) { \(selection(of: type, level: 2, fan: fan).text) }"
            let item = key == field ? body : "\(key): \(body)"
            switch int(0..<10) {
            case 0:
                // In a fragment on Query, each spread once: GraphQL 4.3.0 lists a root field's
                // locations once per path to it (its visited set is copied per spread), rnm's
                // executor once, as the spec has it.
                let name = fresh("R")
                fragments.append("fragment \(name) on Query { \(item) }")
                items.append("...\(name)\(directive())")
            case 1: items.append("...\(chance(0.5) ? " on Query" : "")\(directive()) { \(item) }")
            default: items.append(item)
            }
        }
        return items.joined(separator: " ")
    }

    /// The root field's name and arguments, the type it returns and how many records it holds.
    private mutating func rootField(
        _ kind: (name: String, type: String, filters: [String])
    ) -> (String, String, String, Int) {
        switch int(0..<3) {
        case 0: return (kind.name, "(id: \(id()))", kind.type, 1)
        case 1:
            var arguments: [String] = []
            if chance(0.6) { arguments.append("page: \(page())") }
            if chance(0.6) { arguments.append("filter: \(filter(kind))") }
            let list = arguments.isEmpty ? "" : "(" + arguments.joined(separator: ", ") + ")"
            return (kind.name + "s", list, kind.type + "s", 1)
        default:
            return (kind.name + "sByIds", "(ids: \(ids()))", kind.type, 4)
        }
    }

    /// The type a root field's head (`characters(page: 2)`) returns.
    private func type(of head: String) -> String {
        let name = head.prefix { $0.isLetter }
        let kind = Self.kinds.first { name.hasPrefix($0.name) } ?? Self.kinds[0]
        return name == kind.name + "s" ? kind.type + "s" : kind.type
    }

    /// A selection of `type`'s fields at `level` (the root's fields are level 1): its text, how
    /// many levels of fields it holds and how many records it can fan out to.
    private mutating func selection(of type: String, level: Int, fan: Int = 1) -> (text: String, height: Int, fan: Int)
    {
        let fields = Self.types[type] ?? []
        var items: [String] = []
        var height = 1
        var widest = fan
        for _ in 0..<int(1..<5) {
            switch int(0..<20) {
            case 0: items.append(chance(0.5) ? "__typename" : "tn: __typename")
            case 1, 2:
                let inner = selection(of: type, level: level, fan: fan)
                height = max(height, inner.height)
                widest = max(widest, inner.fan)
                let condition = chance(0.6) ? " on \(type)" : ""
                items.append("...\(condition)\(directive()) { \(inner.text) }")
            case 3, 4:
                let reusable = (made[type] ?? []).filter { level + $0.height - 1 <= maxDepth && fan * $0.fan <= maxFan }
                if let reused = reusable.randomElement(using: &random), chance(0.5) {
                    items.append("...\(reused.name)\(directive())")
                    height = max(height, reused.height)
                    continue
                }
                let name = fresh("F")
                let inner = selection(of: type, level: level, fan: fan)
                fragments.append("fragment \(name) on \(type) { \(inner.text) }")
                made[type, default: []].append(Made(name: name, height: inner.height, fan: max(1, inner.fan / fan)))
                height = max(height, inner.height)
                widest = max(widest, inner.fan)
                items.append("...\(name)\(directive())")
            default:
                guard !fields.isEmpty else { continue }
                var (name, returned) = fields[int(0..<fields.count)]
                var below = 1
                switch returned {
                case .scalar: break
                case .object(_, let more), .list(_, let more):
                    below = more
                    // A level past the limit, now and then: refused by both.
                    let tooDeep = level >= maxDepth && !chance(0.02)
                    if tooDeep || fan * more > maxFan, let scalar = fields.first(where: { $0.1.isScalar }) {
                        (name, returned) = scalar
                    }
                }
                let key = aliasedKey(name)
                switch returned {
                case .scalar: items.append(key + directive())
                case .object(let target, _), .list(let target, _):
                    let inner = selection(of: target, level: level + 1, fan: fan * below)
                    height = max(height, inner.height + 1)
                    widest = max(widest, inner.fan)
                    items.append("\(key)\(directive()) { \(inner.text) }")
                }
            }
        }
        if items.isEmpty { items.append("__typename") }
        return (items.joined(separator: " "), height, widest)
    }

    /// The field's name, or an alias for it; now and then an alias another field may share
    /// (`x: name` and `x: status`: refused by validation).
    private mutating func aliasedKey(_ name: String) -> String {
        if chance(0.02) { return "x: \(name)" }
        return chance(0.25) ? "\(name)\(int(1..<3)): \(name)" : name
    }

    /// Nothing, mostly; else `@skip` or `@include` with a literal or a variable.
    private mutating func directive() -> String {
        guard chance(0.15) else { return "" }
        let name = chance(0.5) ? "skip" : "include"
        guard chance(0.4) else { return " @\(name)(if: \(chance(0.5)))" }
        let value = pick([true, false], or: ["true", 1, NSNull(), nil])
        let type =
            switch int(0..<30) {
            case 0..<18: "Boolean!"
            case 18..<29: "Boolean = \(chance(0.5))"
            default: "Boolean"  // nullable without a default: refused by validation
            }
        return " @\(name)(if: \(variable(type, value)))"
    }
}
