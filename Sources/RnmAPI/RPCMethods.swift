import Messaging

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
    public static let locationsGetMany = RPCMethod<IDsParams, Fresh<Batch<Location>>>("locations.getMany")
    public static let episodesList = RPCMethod<EpisodeListParams, Fresh<Page<Episode>>>("episodes.list")
    public static let episodesGet = RPCMethod<IDParams, Fresh<EpisodeDetail>>("episodes.get")
    public static let episodesGetMany = RPCMethod<IDsParams, Fresh<Batch<Episode>>>("episodes.getMany")
    public static let favoritesAdd = RPCMethod<IDParams, FavoriteState>("favorites.add")
    public static let favoritesRemove = RPCMethod<IDParams, FavoriteState>("favorites.remove")
    public static let favoritesList = RPCMethod<NoParams, FavoriteList>("favorites.list")

    // UniversityService
    public static let universitiesList = RPCMethod<UniversityListParams, Fresh<UniversityList>>("universities.list")
    public static let universitiesGet = RPCMethod<UniversityGetParams, Fresh<UniversityDetail>>("universities.get")
    public static let universitiesRefresh = RPCMethod<UniversityListParams, Fresh<UniversityList>>("universities.refresh")
    public static let universitiesHealth = RPCMethod<NoParams, ServiceHealth>("universities.health")
    public static let universitiesSync = RPCMethod<NoParams, UniversitySyncResult>("universities.sync")

    // Gateway
    public static let gatewayHealth = RPCMethod<NoParams, GatewayHealth>("gateway.health")

    /// The service that answers `method`: by the part of its name before the first dot
    /// (docs/PROTOCOL.md §6), which must be followed by a name; nil when no service has
    /// that prefix.
    public static func service(answering method: String) -> ServiceName? {
        let prefix = method.prefix(while: { $0 != "." })
        guard method.count > prefix.count + 1 else { return nil }
        switch prefix {
        case "characters", "locations", "episodes", "favorites": return .characters
        case "universities": return .universities
        case "gateway": return .gateway
        default: return nil
        }
    }

    /// The health method of `service`.
    public static func health(of service: ServiceName) -> RPCMethod<NoParams, ServiceHealth>? {
        switch service {
        case .characters: charactersHealth
        case .universities: universitiesHealth
        case .gateway: nil
        }
    }
}
