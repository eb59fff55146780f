/// The three record kinds of the Rick and Morty API.
enum Resource: String, Sendable, CaseIterable {
    case character, location, episode

    /// The SQLite table holding this kind.
    var table: String { rawValue }

    /// Plural, for messages.
    var plural: String { rawValue + "s" }
}
