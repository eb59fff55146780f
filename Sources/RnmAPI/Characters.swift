/// Params of `characters.list` and `characters.refresh`.
public struct CharacterListParams: ListParams {
    /// Page from 1 (default 1).
    public var page: Int?
    public var name: String?
    /// `alive`, `dead` or `unknown`.
    public var status: String?
    public var species: String?
    public var type: String?
    /// `female`, `male`, `genderless` or `unknown`.
    public var gender: String?

    public init(
        page: Int? = nil, name: String? = nil, status: String? = nil, species: String? = nil,
        type: String? = nil, gender: String? = nil
    ) {
        self.page = page
        self.name = name
        self.status = status
        self.species = species
        self.type = type
        self.gender = gender
    }

    public init() {}

    public static let kind = RecordKind.character
    public static var filterFields: [(name: String, field: WritableKeyPath<Self, String?>)] {
        [("name", \.name), ("status", \.status), ("species", \.species), ("type", \.type), ("gender", \.gender)]
    }
    public static var fixedValues: [String: [String]] { ["status": statuses, "gender": genders] }

    /// The statuses the API knows.
    public static let statuses = ["alive", "dead", "unknown"]
    /// The genders the API knows.
    public static let genders = ["female", "male", "genderless", "unknown"]
}

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

    public init(
        id: Int, name: String, status: String, species: String, type: String, gender: String,
        origin: PlaceRef, location: PlaceRef, image: String, episodeIds: [Int], created: String
    ) {
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

/// `characters.get`: the character, with its episodes inside the same object.
public struct CharacterDetail: Codable, Sendable, Equatable {
    public var character: Character
    public var episodes: [EpisodeSummary]

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

/// `characters.getMany`, `locations.getMany`, `episodes.getMany`: the records in the order
/// asked, the ids that do not exist, and the ids that could not be checked (not cached, and
/// the upstream failed).
public struct Batch<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var items: [Item]
    /// Ids the upstream says do not exist.
    public var missingIds: [Int]
    /// Ids neither cached nor checked because the upstream failed: they may exist.
    public var uncheckedIds: [Int]
}

/// `characters.getMany`.
public typealias CharacterBatch = Batch<Character>

/// `characters.sync`: what was mirrored.
public struct SyncResult: Codable, Sendable, Equatable {
    public var characters: Int
    public var locations: Int
    public var episodes: Int
    /// Upstream requests made.
    public var requests: Int
    public var durationMs: Int
    /// Avatars fetched (those already held are not fetched again).
    public var avatars: Int?

    public init(characters: Int, locations: Int, episodes: Int, requests: Int, durationMs: Int, avatars: Int? = nil) {
        self.characters = characters
        self.locations = locations
        self.episodes = episodes
        self.requests = requests
        self.durationMs = durationMs
        self.avatars = avatars
    }
}

/// `characters.stats`: counts per status.
public struct CharacterStats: Codable, Sendable, Equatable {
    public struct ByStatus: Codable, Sendable, Equatable {
        public var alive: Int
        public var dead: Int
        public var unknown: Int
        /// Each status of ``CharacterListParams/statuses`` with its count, in that order: what a
        /// table, a chart or a JSON object of the counts lists.
        public var rows: [(status: String, count: Int)] {
            CharacterListParams.statuses.map { ($0, self[$0] ?? 0) }
        }

        public init(alive: Int, dead: Int, unknown: Int) {
            self.alive = alive
            self.dead = dead
            self.unknown = unknown
        }
    }

    public var total: Int
    public var byStatus: ByStatus
}

extension CharacterStats.ByStatus {
    /// The count of one of ``CharacterListParams/statuses`` (nil for another word).
    public subscript(status: String) -> Int? {
        switch status.lowercased() {
        case "alive": alive
        case "dead": dead
        case "unknown": unknown
        default: nil
        }
    }
}

/// `characters.image`: the avatar's bytes.
public struct CharacterImage: Codable, Sendable, Equatable {
    public var id: Int
    /// From the bytes, not the URL (`image/png`, `image/jpeg`, ...).
    public var contentType: String
    /// The image, base64.
    public var bytes: String
}
