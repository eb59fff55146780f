import Foundation

/// The generator's argument values and variables: right, and now and then of a type or value
/// that validation or the library's coercion refuses.
extension GraphQLQueryGenerator {
    mutating func id() -> String {
        switch int(0..<10) {
        case 0, 1, 2: return String(Self.someIDs[int(0..<Self.someIDs.count)])
        case 3, 4:
            let texts = ["1", "12", "abc", "1,2", "[1", "", " 3", "1.5", "07", "-4"]
            return quoted(texts[int(0..<texts.count)])
        case 5: return chance(0.5) ? "99999999999" : "2147483648"
        default:
            let value = pick(
                [3, "4", 183, "x", 7, "20", 51.0, -0.0, 1e3],
                or: [1.5, true, NSNull(), [1], nil, 9_007_199_254_740_993.0, ["id": 1]])
            switch int(0..<6) {
            case 0: return variable("ID = 5", value)
            case 1 where chance(0.3): return variable("ID", value)  // nullable for a non-null argument: refused
            default: return variable("ID!", value)
            }
        }
    }

    static let someIDs = [1, 2, 3, 5, 20, 27, 51, 126, 183, 826, 827, 9999, 0, -1]

    mutating func ids() -> String {
        switch int(0..<10) {
        case 0, 1, 2, 3:
            let count = int(0..<5)
            let items = (0..<count).map { _ in
                chance(0.7) ? String(Self.someIDs[int(0..<8)]) : quoted(["2", "x", ""][int(0..<3)])
            }
            return "[" + items.joined(separator: ", ") + "]"
        case 4: return chance(0.5) ? "3" : quoted("7")
        case 5: return "[1, \(variable("ID = 4", pick([6, "8", nil], or: [NSNull(), 2.5])))]"
        default:
            let value = pick(
                [[1, 2], ["3", 4], [5], 6, "7", [20, 2.0], [], ["1", "x"]],
                or: [[NSNull()], ["1", 2.5], NSNull(), nil, [true], [[1]], ["a": 1]])
            switch int(0..<5) {
            case 0: return variable("[ID!] = [1]", value)
            case 1 where chance(0.3): return variable("[ID]!", value)  // nullable items: refused by validation
            default: return variable("[ID!]!", value)
            }
        }
    }

    mutating func page() -> String {
        if chance(0.6) {
            let pages = [0, -3, 1, 1, 2, 3, 7, 42, 9999, 2_147_483_647, 2_147_483_648, -2_147_483_649]
            return String(pages[int(0..<pages.count)])
        }
        let value = pick([2, 3, 3.0, 0, -1, 2_147_483_647, NSNull(), nil], or: ["2", 2.5, 1e12, true, [2]])
        return variable(chance(0.7) ? "Int" : "Int = 2", value)
    }

    mutating func filter(_ kind: (name: String, type: String, filters: [String])) -> String {
        let values = [
            "rick", "Alive", "dead", "Human", "Earth", "S01", "S02E0", "Pilot", "zzzz", " Female ", "", "unknown",
        ]
        if chance(0.25) {
            var given: [String: Any] = [:]
            for name in kind.filters where chance(0.4) { given[name] = values[int(0..<values.count)] }
            if chance(0.05) { given["page"] = "2" }  // no such input field: refused by the coercion
            if chance(0.05) { given[kind.filters[0]] = 5 }
            given[kind.filters[0]] = chance(0.1) ? NSNull() : given[kind.filters[0]]
            let value = pick([given, nil, NSNull()], or: ["name", [given]])
            let type = "Filter" + kind.name.prefix(1).uppercased() + kind.name.dropFirst()
            return variable(type, value)
        }
        var fields: [String] = []
        for name in kind.filters where chance(0.35) {
            switch int(0..<8) {
            case 0: fields.append("\(name): null")
            case 1:
                let given = pick(["smith", "Dead", "", NSNull(), nil], or: [3, ["Dead"], true])
                fields.append("\(name): \(variable("String", given))")
            default: fields.append("\(name): \(quoted(values[int(0..<values.count)]))")
            }
        }
        if chance(0.03) { fields.append("nope: \"x\"") }  // no such field: refused by validation
        return "{ " + fields.joined(separator: ", ") + " }"
    }

    /// A new variable of `type` given `value` (nil: not given), as `$name`.
    mutating func variable(_ type: String, _ value: Any?) -> String {
        let name = fresh("v")
        definitions.append("$\(name): \(type)")
        if let value { variables[name] = value }
        return "$" + name
    }

    // MARK: - Randomness

    mutating func fresh(_ prefix: String) -> String {
        names += 1
        return prefix + String(names)
    }

    func quoted(_ text: String) -> String {
        "\"" + text + "\""
    }

    /// One of `good`, or now and then one of `bad` (a JSON type or value the variable's type refuses).
    mutating func pick(_ good: [Any?], or bad: [Any?]) -> Any? {
        let from = chance(0.1) ? bad : good
        return from[int(0..<from.count)]
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double(random.next() >> 11) / Double(1 << 53) < probability
    }

    mutating func int(_ range: Range<Int>) -> Int {
        Int.random(in: range, using: &random)
    }
}
