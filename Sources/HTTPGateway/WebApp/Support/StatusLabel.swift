/// A character's status as every screen shows it (cards, a character's page, the statistics):
/// the API says `Alive`, `Dead`, `unknown`; a person reads `Alive`, `Dead`, `Unknown`, each in
/// its own colour (the class), never by colour alone (the word stays beside it).
enum StatusLabel {
    static func text(_ status: String) -> String { status.capitalized }

    /// The status's colour class: `status-alive`, …
    static func className(_ status: String) -> String { "status-\(status.lowercased())" }
}
