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

/// A location with its residents as cards.
struct LocationScreen {
    struct Field {
        var label: String
        var value: String
    }

    var frame: PageFrame
    var name: String
    var fields: [Field]
    var residentCount: Int
    var cards: [Card]

    init(_ detail: Fresh<LocationDetail>, csrf: String) {
        let location = detail.location
        frame = PageFrame(
            title: location.name, current: RecordKind.location.appPath, freshness: [detail.freshness], csrf: csrf)
        name = location.name
        fields = [
            Field(label: "Type", value: location.type.isEmpty ? "—" : location.type),
            Field(label: "Dimension", value: location.dimension),
            Field(label: "Created", value: location.created),
        ]
        residentCount = detail.residents.count
        cards = detail.residents.map(\.card)
    }
}

/// An episode with its characters as cards.
struct EpisodeScreen {
    var frame: PageFrame
    var code: String
    var name: String
    var fields: [LocationScreen.Field]
    var characterCount: Int
    var cards: [Card]

    init(_ detail: Fresh<EpisodeDetail>, csrf: String) {
        let episode = detail.episode
        frame = PageFrame(
            title: "\(episode.code): \(episode.name)", current: RecordKind.episode.appPath,
            freshness: [detail.freshness], csrf: csrf)
        code = episode.code
        name = episode.name
        fields = [
            .init(label: "Air date", value: episode.airDate), .init(label: "Created", value: episode.created),
        ]
        characterCount = detail.characters.count
        cards = detail.characters.map(\.card)
    }
}

/// The favorites, as cards.
struct FavoritesScreen {
    var frame: PageFrame
    var cards: [Card]

    init(_ list: FavoriteList, csrf: String) {
        frame = PageFrame(title: "Favorites", current: "/app/favorites", csrf: csrf)
        cards = list.items.map(\.card)
    }
}

/// Characters per status, as numbers and a bar chart (SVG: no inline style, which the page's
/// Content-Security-Policy forbids).
struct StatsScreen {
    struct Row {
        var status: String
        var count: Int
        var percent: String
        var barWidth: String
        var barY: Int
        var textY: Int
        var countX: String
    }

    var frame: PageFrame
    var total: Int
    var rows: [Row]
    var chartHeight: Int
    var chartLabel: String

    init(_ stats: Fresh<CharacterStats>, csrf: String) {
        frame = PageFrame(title: "Statistics", current: "/app/stats", freshness: [stats.freshness], csrf: csrf)
        total = stats.total
        let counts = [
            ("alive", stats.byStatus.alive), ("dead", stats.byStatus.dead), ("unknown", stats.byStatus.unknown),
        ]
        let largest = max(1, counts.map(\.1).max() ?? 1)
        rows = counts.enumerated().map { index, pair in
            let width = 80 * Double(pair.1) / Double(largest)
            let share = stats.total > 0 ? 100 * Double(pair.1) / Double(stats.total) : 0
            return Row(
                status: pair.0, count: pair.1, percent: String(format1: share),
                barWidth: String(format1: max(width, 0.5)), barY: 2 + index * 10, textY: 7 + index * 10,
                countX: String(format1: 24 + max(width, 0.5)))
        }
        chartHeight = counts.count * 10 + 2
        chartLabel = counts.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    }
}

extension String {
    /// `value` with one decimal (`12.5`).
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
