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
        if let id = Self.plainNumber(segment) {
            self = id <= RecordKind.ids.upperBound ? .one(id) : .absent
            return
        }
        // Bytes, not strings: `contains(_: String)` is Foundation's locale-aware search and
        // `contains(_: Character)` walks graphemes, over every id of a GraphQL list.
        let bytes = segment.utf8
        let hasBracket = bytes.contains(UInt8(ascii: "[")) || bytes.contains(UInt8(ascii: "]"))
        if segment.hasSuffix("]"), let open = segment.firstIndex(of: "["),
            segment.distance(from: open, to: segment.endIndex) > 2
        {
            // `/\[.+\]$/`: JSON.parse of the whole segment; its elements cast to numbers.
            guard let elements = try? JSONDecoder().decode([Element].self, from: Data(segment.utf8)) else {
                self = .badArray
                return
            }
            self = .many(elements.compactMap(\.id))
        } else if bytes.contains(UInt8(ascii: ",")), !hasBracket, segment.utf16.count > 1 {
            // `id.split(',').map(Number)`: "" is 0, fractions match nothing, words fail the cast.
            // (JavaScript's length and split count UTF-16 units and split at the byte, not at a
            // grapheme.)
            var ids: [Int] = []
            for bytes in bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let part = Substring(bytes)
                if let id = Self.plainNumber(part) {
                    if id <= RecordKind.ids.upperBound { ids.append(id) }
                    continue
                }
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

    /// `text` read as the integer it is when it is plain digits, as ids are sent, as the general
    /// path (``number(_:)``, ``integer(_:)``) reads it without its trimming and `Double` parse:
    /// those were 7% of the CPU of a GraphQL query naming 493 ids twenty times.
    private static func plainNumber(_ text: some StringProtocol) -> Int? {
        let digits = text.utf8
        guard (1...18).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
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
