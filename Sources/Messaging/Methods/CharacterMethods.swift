/// Params of `characters.list` and `characters.refresh`.
public struct CharacterListParams: Codable, Sendable, Equatable {
    /// Page from 1 (default 1).
    public var page: Int?
    public var name: String?
    /// `alive`, `dead` or `unknown`.
    public var status: String?
    public var species: String?
    public var type: String?
    /// `female`, `male`, `genderless` or `unknown`.
    public var gender: String?

    public init(page: Int? = nil, name: String? = nil, status: String? = nil, species: String? = nil,
                type: String? = nil, gender: String? = nil) {
        self.page = page
        self.name = name
        self.status = status
        self.species = species
        self.type = type
        self.gender = gender
    }

    /// The statuses the API knows.
    public static let statuses = ["alive", "dead", "unknown"]
    /// The genders the API knows.
    public static let genders = ["female", "male", "genderless", "unknown"]
}

/// Params of `locations.list`.
public struct LocationListParams: Codable, Sendable, Equatable {
    public var page: Int?
    public var name: String?
    public var type: String?
    public var dimension: String?

    public init(page: Int? = nil, name: String? = nil, type: String? = nil, dimension: String? = nil) {
        self.page = page
        self.name = name
        self.type = type
        self.dimension = dimension
    }
}

/// Params of `episodes.list`.
public struct EpisodeListParams: Codable, Sendable, Equatable {
    public var page: Int?
    public var name: String?
    /// An episode code or part of one, e.g. `S01`.
    public var episode: String?

    public init(page: Int? = nil, name: String? = nil, episode: String? = nil) {
        self.page = page
        self.name = name
        self.episode = episode
    }
}

/// `characters.getMany`: the characters in the order asked, the ids that do not exist, and
/// the ids that could not be checked (not cached, and the upstream failed).
public struct CharacterBatch: Codable, Sendable, Equatable {
    public var items: [Character]
    /// Ids the upstream says do not exist.
    public var missingIds: [Int]
    /// Ids neither cached nor checked because the upstream failed: they may exist.
    public var uncheckedIds: [Int]

    public init(items: [Character], missingIds: [Int], uncheckedIds: [Int] = []) {
        self.items = items
        self.missingIds = missingIds
        self.uncheckedIds = uncheckedIds
    }
}

/// `characters.sync`: what was mirrored.
public struct SyncResult: Codable, Sendable, Equatable {
    public var characters: Int
    public var locations: Int
    public var episodes: Int
    /// Upstream requests made.
    public var requests: Int
    public var durationMs: Int

    public init(characters: Int, locations: Int, episodes: Int, requests: Int, durationMs: Int) {
        self.characters = characters
        self.locations = locations
        self.episodes = episodes
        self.requests = requests
        self.durationMs = durationMs
    }
}

/// `characters.stats`: counts per status.
public struct CharacterStats: Codable, Sendable, Equatable {
    public struct ByStatus: Codable, Sendable, Equatable {
        public var alive: Int
        public var dead: Int
        public var unknown: Int
        public init(alive: Int, dead: Int, unknown: Int) {
            self.alive = alive
            self.dead = dead
            self.unknown = unknown
        }
    }

    public var total: Int
    public var byStatus: ByStatus

    public init(total: Int, byStatus: ByStatus) {
        self.total = total
        self.byStatus = byStatus
    }
}

/// `characters.image`: the avatar's bytes.
public struct CharacterImage: Codable, Sendable, Equatable {
    public var id: Int
    /// From the bytes, not the URL (`image/png`, `image/jpeg`, ...).
    public var contentType: String
    /// The image, base64.
    public var bytes: String

    public init(id: Int, contentType: String, bytes: String) {
        self.id = id
        self.contentType = contentType
        self.bytes = bytes
    }
}

/// `locations.get`: the location and its residents.
public struct LocationDetail: Codable, Sendable, Equatable {
    public var location: Location
    public var residents: [Character]

    public init(location: Location, residents: [Character]) {
        self.location = location
        self.residents = residents
    }
}

/// `episodes.get`: the episode and its characters.
public struct EpisodeDetail: Codable, Sendable, Equatable {
    public var episode: Episode
    public var characters: [Character]

    public init(episode: Episode, characters: [Character]) {
        self.episode = episode
        self.characters = characters
    }
}

/// `favorites.add` / `favorites.remove`.
public struct FavoriteState: Codable, Sendable, Equatable {
    public var id: Int
    public var favorite: Bool

    public init(id: Int, favorite: Bool) {
        self.id = id
        self.favorite = favorite
    }
}

/// `favorites.list`.
public struct FavoriteList: Codable, Sendable, Equatable {
    public var items: [Character]

    public init(items: [Character]) {
        self.items = items
    }
}
