import RnmAPI

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
