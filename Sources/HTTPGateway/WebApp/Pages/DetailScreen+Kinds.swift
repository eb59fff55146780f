import RnmAPI

extension DetailScreen {
    /// A character: its avatar, every field, origin and location as links, every episode, and
    /// the favorite button (none when whether it is a favorite is unknown: the favorites' store
    /// does not answer).
    init(_ detail: Fresh<CharacterDetail>, favorite: Bool?, csrf: String) {
        let character = detail.character
        func place(_ place: PlaceRef) -> String? {
            place.id.map { "\(RecordKind.location.appPath)/\($0)" }
        }
        self.init(
            frame: PageFrame(
                title: character.name, current: .list(.character), freshness: [detail.freshness],
                csrf: csrf),
            heading: character.name, image: Card.Image(src: WebApp.avatarPath(character.id), alt: character.name),
            fields: [
                Field("Status", StatusLabel.text(character.status)), Field("Species", character.species),
                Field("Type", character.type.isEmpty ? "—" : character.type), Field("Gender", character.gender),
                Field("Origin", character.origin.name, href: place(character.origin)),
                Field("Last known location", character.location.name, href: place(character.location)),
                Field("Created", time: character.created),
            ],
            favorite: favorite.map { FavoriteForm(id: character.id, isFavorite: $0) },
            related: Related(
                heading: "Episodes (\(detail.episodes.count))", episodes: detail.episodes.map(EpisodeRow.init)))
    }

    /// A location with its residents as cards.
    init(_ detail: Fresh<LocationDetail>, csrf: String) {
        let location = detail.location
        self.init(
            frame: PageFrame(
                title: location.name, current: .list(.location), freshness: [detail.freshness],
                csrf: csrf),
            heading: location.name,
            fields: [
                Field("Type", location.type.isEmpty ? "—" : location.type), Field("Dimension", location.dimension),
                Field("Created", time: location.created),
            ],
            related: Related(
                heading: "Residents (\(detail.residents.count))", none: "Nobody lives here.",
                cards: detail.residents.map(\.card)))
    }

    /// An episode with its characters as cards.
    init(_ detail: Fresh<EpisodeDetail>, csrf: String) {
        let episode = detail.episode
        let heading = "\(episode.code): \(episode.name)"
        self.init(
            frame: PageFrame(
                title: heading, current: .list(.episode), freshness: [detail.freshness], csrf: csrf),
            heading: heading, fields: [Field("Air date", episode.airDate), Field("Created", time: episode.created)],
            related: Related(
                heading: "Characters (\(detail.characters.count))", cards: detail.characters.map(\.card)))
    }

    /// One university, from the cache (the list's data: no second upstream request).
    init(_ detail: Fresh<UniversityDetail>, csrf: String) {
        let university = detail.university
        // Only web links: a page from the upstream could hold anything.
        let webPages = university.webPages.filter { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
        self.init(
            frame: PageFrame(
                title: university.name, current: .universities, freshness: [detail.freshness],
                service: .universities, csrf: csrf),
            heading: university.name,
            fields: [
                Field(
                    "Country", university.country,
                    href: WebApp.link(WebRoute.universities.path, [("country", university.country)])),
                Field("State or province", university.stateProvince ?? "—"),
                Field("Domains", university.domains.map { Value(text: $0) }),
                Field("Web pages", webPages.map { Value(text: $0, href: $0, external: true) }),
            ])
    }
}
