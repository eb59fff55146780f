import RnmAPI

/// rnm's records in the public APIs' own shapes: the Rick and Morty API's keys in its order
/// (afuh/rick-and-morty-api, `models/`), every URL on this server's base, and Hipo's
/// universities with their snake-case keys.
struct PublicShapes: Sendable {
    /// `RNM_PUBLIC_URL` + `/api`: what every Rick and Morty URL starts with.
    let apiBase: String

    func url(_ kind: RecordKind, _ id: Int) -> String {
        "\(apiBase)/\(kind.rawValue)/\(id)"
    }

    /// `{name, url}` of an origin or location; an unknown one has an empty URL, as upstream.
    func place(_ place: PlaceRef) -> JSONValue {
        .object([("name", .string(place.name)), ("url", .string(place.id.map { url(.location, $0) } ?? ""))])
    }

    /// The character's avatar on this server (`/api/character/avatar/1.jpeg`): it keeps its file
    /// name; only the base moves here, so the image is cached and offline too.
    func avatarURL(_ character: Character) -> String {
        // The last non-empty part between slashes, found from the end: `split` made an array
        // of every part for each record (12% of the CPU of a GraphQL query of 9,860 images).
        // Over the UTF-8 bytes: a `String` index steps by grapheme (`index(before:)` asked the
        // Unicode tables for every character it passed).
        let image = character.image.utf8
        let slash = UInt8(ascii: "/")
        var end = image.endIndex
        while end > image.startIndex, image[image.index(before: end)] == slash { end = image.index(before: end) }
        let head = image[..<end]
        let file = head[(head.lastIndex(of: slash).map { head.index(after: $0) } ?? head.startIndex)...]
        return "\(apiBase)/character/avatar/\(file.isEmpty ? "\(character.id).jpeg" : String(Substring(file)))"
    }

    func character(_ character: Character) -> JSONValue {
        .object([
            ("id", .int(character.id)),
            ("name", .string(character.name)),
            ("status", .string(character.status)),
            ("species", .string(character.species)),
            ("type", .string(character.type)),
            ("gender", .string(character.gender)),
            ("origin", place(character.origin)),
            ("location", place(character.location)),
            ("image", .string(avatarURL(character))),
            ("episode", .array(character.episodeIds.map { .string(url(.episode, $0)) })),
            ("url", .string(url(.character, character.id))),
            ("created", .string(character.created)),
        ])
    }

    func location(_ location: Location) -> JSONValue {
        .object([
            ("id", .int(location.id)),
            ("name", .string(location.name)),
            ("type", .string(location.type)),
            ("dimension", .string(location.dimension)),
            ("residents", .array(location.residentIds.map { .string(url(.character, $0)) })),
            ("url", .string(url(.location, location.id))),
            ("created", .string(location.created)),
        ])
    }

    func episode(_ episode: Episode) -> JSONValue {
        .object([
            ("id", .int(episode.id)),
            ("name", .string(episode.name)),
            ("air_date", .string(episode.airDate)),
            ("episode", .string(episode.code)),
            ("characters", .array(episode.characterIds.map { .string(url(.character, $0)) })),
            ("url", .string(url(.episode, episode.id))),
            ("created", .string(episode.created)),
        ])
    }

    /// A page: `{"info":{"count","pages","next","prev"},"results":[…]}`.
    func page(count: Int, pages: Int, next: String?, prev: String?, results: [JSONValue]) -> JSONValue {
        .object([
            (
                "info",
                .object([
                    ("count", .int(count)), ("pages", .int(pages)), ("next", .string(next)), ("prev", .string(prev)),
                ])
            ),
            ("results", .array(results)),
        ])
    }

    /// A Hipo university, keys as the real server sends them (sorted, as Flask's `jsonify` does).
    static func university(_ university: University) -> JSONValue {
        .object([
            ("alpha_two_code", .string(university.alphaTwoCode)),
            ("country", .string(university.country)),
            ("domains", .array(university.domains.map(JSONValue.string))),
            ("name", .string(university.name)),
            ("state-province", .string(university.stateProvince)),
            ("web_pages", .array(university.webPages.map(JSONValue.string))),
        ])
    }
}
