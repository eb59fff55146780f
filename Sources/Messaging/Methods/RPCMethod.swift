/// A method of the protocol: its wire name and its param and result types, defined once
/// and shared by the CLI, the Gateway and the services.
public struct RPCMethod<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    /// The wire name, e.g. `characters.get`.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    /// The part before the first dot, which the Gateway routes by.
    public var prefix: Substring { name.prefix { $0 != "." } }
}

/// Params of a method that takes none.
public struct NoParams: Codable, Sendable, Equatable {
    public init() {}
}

/// Every method of docs/PROTOCOL.md §6.
public enum RPCMethods {
    // CharacterService
    public static let charactersList = RPCMethod<CharacterListParams, Fresh<Page<Character>>>("characters.list")
    public static let charactersGet = RPCMethod<IDParams, Fresh<CharacterDetail>>("characters.get")
    public static let charactersGetMany = RPCMethod<IDsParams, Fresh<CharacterBatch>>("characters.getMany")
    public static let charactersRefresh = RPCMethod<CharacterListParams, Fresh<Page<Character>>>("characters.refresh")
    public static let charactersSync = RPCMethod<NoParams, SyncResult>("characters.sync")
    public static let charactersStats = RPCMethod<NoParams, Fresh<CharacterStats>>("characters.stats")
    public static let charactersImage = RPCMethod<IDParams, Fresh<CharacterImage>>("characters.image")
    public static let charactersHealth = RPCMethod<NoParams, ServiceHealth>("characters.health")
    public static let locationsList = RPCMethod<LocationListParams, Fresh<Page<Location>>>("locations.list")
    public static let locationsGet = RPCMethod<IDParams, Fresh<LocationDetail>>("locations.get")
    public static let episodesList = RPCMethod<EpisodeListParams, Fresh<Page<Episode>>>("episodes.list")
    public static let episodesGet = RPCMethod<IDParams, Fresh<EpisodeDetail>>("episodes.get")
    public static let favoritesAdd = RPCMethod<IDParams, FavoriteState>("favorites.add")
    public static let favoritesRemove = RPCMethod<IDParams, FavoriteState>("favorites.remove")
    public static let favoritesList = RPCMethod<NoParams, FavoriteList>("favorites.list")

    // UniversityService
    public static let universitiesList = RPCMethod<UniversityListParams, Fresh<UniversityList>>("universities.list")
    public static let universitiesGet = RPCMethod<UniversityGetParams, Fresh<UniversityDetail>>("universities.get")
    public static let universitiesRefresh = RPCMethod<UniversityListParams, Fresh<UniversityList>>("universities.refresh")
    public static let universitiesHealth = RPCMethod<NoParams, ServiceHealth>("universities.health")

    // Gateway
    public static let gatewayHealth = RPCMethod<NoParams, GatewayHealth>("gateway.health")

    /// The service each method prefix belongs to (docs/PROTOCOL.md §6).
    public static func service(forPrefix prefix: Substring) -> ServiceName? {
        switch prefix {
        case "characters", "locations", "episodes", "favorites": .characters
        case "universities": .universities
        case "gateway": .gateway
        default: nil
        }
    }
}

/// The three processes that answer requests, by the name used in `error.data.service`.
public enum ServiceName: String, Sendable, Codable, CaseIterable {
    case gateway, characters, universities
}
