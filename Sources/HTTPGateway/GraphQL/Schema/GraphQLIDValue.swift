/// GraphQL's `ID`: sent as a string, read from a string or an integer (`character(id: 1)` and
/// `character(id: "1")` are the same request, as the GraphQL spec has it).
struct GraphQLIDValue: Codable, Sendable, Hashable {
    let text: String

    init(_ id: Int) { text = String(id) }

    init(text: String) { self.text = text }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.text = text
        } else {
            text = String(try container.decode(Int.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
