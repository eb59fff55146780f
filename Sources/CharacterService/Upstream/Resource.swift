/// The three record kinds of the Rick and Morty API.
enum Resource: String, Sendable, CaseIterable {
    case character, location, episode

    /// The SQLite table holding this kind.
    var table: String { rawValue }

    /// The filters the API accepts for this kind, in a fixed order.
    var filterNames: [String] {
        switch self {
        case .character: ["name", "status", "species", "type", "gender"]
        case .location: ["name", "type", "dimension"]
        case .episode: ["name", "episode"]
        }
    }

    /// Plural, for messages.
    var plural: String { rawValue + "s" }
}
