/// Params of `episodes.list`.
public struct EpisodeListParams: ListParams {
    public var page: Int?
    public var name: String?
    /// An episode code or part of one, e.g. `S01`.
    public var episode: String?

    public init(page: Int? = nil, name: String? = nil, episode: String? = nil) {
        self.page = page
        self.name = name
        self.episode = episode
    }

    public init() {}

    public static let kind = RecordKind.episode
    public static var filterFields: [(name: String, field: WritableKeyPath<Self, String?>)] {
        [("name", \.name), ("episode", \.episode)]
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

/// `episodes.get`: the episode and its characters.
public struct EpisodeDetail: Codable, Sendable, Equatable {
    public var episode: Episode
    public var characters: [Character]
}
