import RnmAPI

/// A character: its avatar, every field, origin and location as links, every episode, and
/// the favorite button.
struct CharacterScreen {
    struct Field {
        var label: String
        var value: String
        var href: String?
    }

    var frame: PageFrame
    var id: Int
    var name: String
    var image: String
    var fields: [Field]
    var favorite: Bool
    var episodeCount: Int
    var episodes: [EpisodeSummary]

    init(_ detail: Fresh<CharacterDetail>, favorite: Bool, csrf: String) {
        let character = detail.character
        frame = PageFrame(
            title: character.name, current: RecordKind.character.appPath, freshness: [detail.freshness], csrf: csrf)
        id = character.id
        name = character.name
        image = WebApp.avatarPath(character.id)
        func place(_ place: PlaceRef) -> String? {
            place.id.map { "\(RecordKind.location.appPath)/\($0)" }
        }
        fields = [
            Field(label: "Status", value: character.status, href: nil),
            Field(label: "Species", value: character.species, href: nil),
            Field(label: "Type", value: character.type.isEmpty ? "—" : character.type, href: nil),
            Field(label: "Gender", value: character.gender, href: nil),
            Field(label: "Origin", value: character.origin.name, href: place(character.origin)),
            Field(label: "Last known location", value: character.location.name, href: place(character.location)),
            Field(label: "Created", value: character.created, href: nil),
        ]
        self.favorite = favorite
        episodes = detail.episodes
        episodeCount = detail.episodes.count
    }
}
