/// The `:id` path segment of `/api/character/:id`, read by the Rick and Morty API's rules
/// (`routes/middlewares.js`, `validateArrayParams`, and `handlers/operations.js`).
enum IDSegment: Equatable, Sendable {
    /// One id: the record, or 404.
    case one(Int)
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
        if segment.hasSuffix("]"), let open = segment.firstIndex(of: "["), segment.distance(from: open, to: segment.endIndex) > 2 {
            // `[…]` at the end: JSON.parse of the whole segment must give an array of ids.
            guard segment.first == "[", let ids = Self.jsonIDs(segment.dropFirst().dropLast()) else {
                self = .badArray
                return
            }
            self = .many(ids)
        } else if segment.contains(","), !hasBracket, segment.count > 1 {
            // `1,2,3`: each part as JavaScript's Number reads it ("" is 0, which no record has).
            var ids: [Int] = []
            for part in segment.split(separator: ",", omittingEmptySubsequences: false) {
                let text = String(part).trimmingWhitespace
                guard let id = text.isEmpty ? 0 : Int(text) else {
                    self = .badID
                    return
                }
                ids.append(id)
            }
            self = .many(ids)
        } else if hasBracket {
            self = .badArray
        } else if let id = Int(segment.trimmingWhitespace) {
            self = .one(id)
        } else {
            self = .badID
        }
    }

    /// The integers of a JSON array's inside (`1, 2,3`), or nil when it is not one.
    private static func jsonIDs(_ inside: Substring) -> [Int]? {
        let parts = inside.split(separator: ",", omittingEmptySubsequences: false)
        var ids: [Int] = []
        for part in parts {
            guard let id = Int(String(part).trimmingWhitespace) else { return nil }
            ids.append(id)
        }
        return ids
    }
}
