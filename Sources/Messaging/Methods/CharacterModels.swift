/// A place named by a character's `origin` or `location`; `id` is null when the API gives no URL.
public struct PlaceRef: Codable, Sendable, Equatable {
    public var name: String
    public var id: Int?
    public init(name: String, id: Int?) {
        self.name = name
        self.id = id
    }
}

/// A Rick and Morty character (docs/PROTOCOL.md §6).
public struct Character: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var status: String
    public var species: String
    public var type: String
    public var gender: String
    public var origin: PlaceRef
    public var location: PlaceRef
    /// The avatar's URL as the API gives it (fetch the bytes with `characters.image`).
    public var image: String
    public var episodeIds: [Int]
    public var created: String

    public init(id: Int, name: String, status: String, species: String, type: String, gender: String,
                origin: PlaceRef, location: PlaceRef, image: String, episodeIds: [Int], created: String) {
        self.id = id
        self.name = name
        self.status = status
        self.species = species
        self.type = type
        self.gender = gender
        self.origin = origin
        self.location = location
        self.image = image
        self.episodeIds = episodeIds
        self.created = created
    }
}

/// A location (docs/PROTOCOL.md §6).
public struct Location: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var type: String
    public var dimension: String
    public var residentIds: [Int]
    public var created: String

    public init(id: Int, name: String, type: String, dimension: String, residentIds: [Int], created: String) {
        self.id = id
        self.name = name
        self.type = type
        self.dimension = dimension
        self.residentIds = residentIds
        self.created = created
    }
}

/// An episode (docs/PROTOCOL.md §6).
public struct Episode: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
    public var airDate: String
    /// The season and episode code, e.g. `S01E01`.
    public var code: String
    public var characterIds: [Int]
    public var created: String

    public init(id: Int, name: String, airDate: String, code: String, characterIds: [Int], created: String) {
        self.id = id
        self.name = name
        self.airDate = airDate
        self.code = code
        self.characterIds = characterIds
        self.created = created
    }
}

/// An episode as listed in a character's detail.
public struct EpisodeSummary: Codable, Sendable, Equatable {
    public var id: Int
    public var code: String
    public var name: String
    public var airDate: String

    public init(id: Int, code: String, name: String, airDate: String) {
        self.id = id
        self.code = code
        self.name = name
        self.airDate = airDate
    }
}

/// `characters.get`: the character, with its episodes inside the same object.
public struct CharacterDetail: Codable, Sendable, Equatable {
    public var character: Character
    public var episodes: [EpisodeSummary]

    public init(character: Character, episodes: [EpisodeSummary]) {
        self.character = character
        self.episodes = episodes
    }

    private enum CodingKeys: String, CodingKey { case character }
    private enum EpisodesKey: String, CodingKey { case episodes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let nested = try container.superDecoder(forKey: .character)
        character = try Character(from: nested)
        episodes = try nested.container(keyedBy: EpisodesKey.self).decode([EpisodeSummary].self, forKey: .episodes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let nested = container.superEncoder(forKey: .character)
        try character.encode(to: nested)
        var episodesContainer = nested.container(keyedBy: EpisodesKey.self)
        try episodesContainer.encode(episodes, forKey: .episodes)
    }
}
