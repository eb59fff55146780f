#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import RnmAPI

/// The `:id` path segment of `/api/character/:id`, read by the Rick and Morty API's rules
/// (`routes/middlewares.js` `validateArrayParams`, `handlers/operations.js` `queryById`): the
/// JavaScript of `JSON.parse`, `Number` and `parseInt`, then MongoDB's cast to a number.
enum IDSegment: Equatable, Sendable {
    /// One id: the record, or 404.
    case one(Int)
    /// A single id that no record can have (`1.5`, one past 64 bits): 404.
    case absent
    /// A list (`1,2,3` or `[1,2,3]`): a JSON array of the records found.
    case many([Int])
    /// 500 `{"error": "Bad... bad array :/"}`.
    case badArray
    /// 500 `{"error": "Hey! you must provide an id"}`.
    case badID

    static let badArrayMessage = "Bad... bad array :/"
    static let badIDMessage = "Hey! you must provide an id"

    init(_ segment: String) {
        let hasBracket = segment.contains("[") || segment.contains("]")
        if segment.hasSuffix("]"), let open = segment.firstIndex(of: "["),
            segment.distance(from: open, to: segment.endIndex) > 2
        {
            // `/\[.+\]$/`: JSON.parse of the whole segment; its elements cast to numbers.
            guard let elements = try? JSONDecoder().decode([Element].self, from: Data(segment.utf8)) else {
                self = .badArray
                return
            }
            self = .many(elements.compactMap(\.id))
        } else if segment.contains(","), !hasBracket, segment.count > 1 {
            // `id.split(',').map(Number)`: "" is 0, fractions match nothing, words fail the cast.
            var ids: [Int] = []
            for part in segment.split(separator: ",", omittingEmptySubsequences: false) {
                guard let number = Self.number(String(part)) else {
                    self = .badID
                    return
                }
                if let id = Self.integer(number) { ids.append(id) }
            }
            self = .many(ids)
        } else if hasBracket {
            self = .badArray
        } else if !Self.startsLikeAnInteger(segment) {
            self = .badID  // `parseInt` gives NaN
        } else if let number = Self.number(segment) {
            self = Self.integer(number).map(IDSegment.one) ?? .absent
        } else {
            self = .badID  // `12abc`: the database's cast to a number fails
        }
    }

    /// An element of a JSON id array, as MongoDB casts it to a number: numbers and numeric
    /// strings count, anything else matches no record.
    private enum Element: Decodable {
        case number(Double)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let text = try? container.decode(String.self), let number = IDSegment.number(text) {
                self = .number(number)
            } else {
                self = .other
            }
        }

        var id: Int? {
            if case .number(let number) = self { IDSegment.integer(number) } else { nil }
        }
    }

    /// JavaScript's `Number(text)`: white space trimmed, empty is 0; nil for NaN.
    static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace
        if trimmed.isEmpty { return 0 }
        guard let number = Double(trimmed), number.isFinite else { return nil }
        return number
    }

    /// A whole number in the API's id range, or nil.
    static func integer(_ number: Double) -> Int? {
        guard number == number.rounded(), number >= 0, number <= Double(RecordKind.ids.upperBound) else { return nil }
        return Int(number)
    }

    /// Whether `parseInt(text)` is a number: optional white space and sign, then a digit.
    static func startsLikeAnInteger(_ text: String) -> Bool {
        var rest = Substring(text.trimmingWhitespace)
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        return rest.first?.isASCII == true && rest.first?.isNumber == true
    }
}
