import Messaging

/// Every method of docs/PROTOCOL.md §6.
public enum RPCMethods {
    // CharacterService
    public static let charactersList = RPCMethod<CharacterListParams, Fresh<Page<Character>>>(
        "characters.list", .characters)
    public static let charactersGet = RPCMethod<IDParams, Fresh<CharacterDetail>>("characters.get", .characters)
    public static let charactersGetMany = RPCMethod<IDsParams, Fresh<CharacterBatch>>("characters.getMany", .characters)
    public static let charactersRefresh = RPCMethod<CharacterListParams, Fresh<Page<Character>>>(
        "characters.refresh", .characters)
    public static let charactersSync = RPCMethod<NoParams, SyncResult>("characters.sync", .characters)
    public static let charactersStats = RPCMethod<NoParams, Fresh<CharacterStats>>("characters.stats", .characters)
    public static let charactersImage = RPCMethod<IDParams, Fresh<CharacterImage>>("characters.image", .characters)
    public static let charactersHealth = RPCMethod<NoParams, ServiceHealth>("characters.health", .characters)
    public static let charactersMetrics = RPCMethod<NoParams, MetricsReport>("characters.metrics", .characters)
    public static let charactersChanges = RPCMethod<NoParams, DataVersion>("characters.changes", .characters)
    public static let locationsList = RPCMethod<LocationListParams, Fresh<Page<Location>>>(
        "locations.list", .characters)
    public static let locationsGet = RPCMethod<IDParams, Fresh<LocationDetail>>("locations.get", .characters)
    public static let locationsGetMany = RPCMethod<IDsParams, Fresh<Batch<Location>>>("locations.getMany", .characters)
    public static let episodesList = RPCMethod<EpisodeListParams, Fresh<Page<Episode>>>("episodes.list", .characters)
    public static let episodesGet = RPCMethod<IDParams, Fresh<EpisodeDetail>>("episodes.get", .characters)
    public static let episodesGetMany = RPCMethod<IDsParams, Fresh<Batch<Episode>>>("episodes.getMany", .characters)
    public static let favoritesAdd = RPCMethod<IDParams, FavoriteState>("favorites.add", .characters)
    public static let favoritesRemove = RPCMethod<IDParams, FavoriteState>("favorites.remove", .characters)
    public static let favoritesList = RPCMethod<NoParams, FavoriteList>("favorites.list", .characters)

    // UniversityService
    public static let universitiesList = RPCMethod<UniversityListParams, Fresh<UniversityList>>(
        "universities.list", .universities)
    public static let universitiesGet = RPCMethod<UniversityGetParams, Fresh<UniversityDetail>>(
        "universities.get", .universities)
    public static let universitiesRefresh = RPCMethod<UniversityListParams, Fresh<UniversityList>>(
        "universities.refresh", .universities)
    public static let universitiesHealth = RPCMethod<NoParams, ServiceHealth>("universities.health", .universities)
    public static let universitiesSync = RPCMethod<NoParams, UniversitySyncResult>("universities.sync", .universities)
    public static let universitiesMetrics = RPCMethod<NoParams, MetricsReport>(
        "universities.metrics", .universities)
    public static let universitiesChanges = RPCMethod<NoParams, DataVersion>("universities.changes", .universities)

    // Gateway
    public static let gatewayHealth = RPCMethod<NoParams, GatewayHealth>("gateway.health", .gateway)
    public static let gatewayHello = RPCMethod<GatewayHello, GatewayLinkMode>("gateway.hello", .gateway)
    public static let gatewayMetrics = RPCMethod<NoParams, MetricsReport>("gateway.metrics", .gateway)

    /// The route table: every method of the protocol and the service that answers it. A new
    /// method is its constant above, its row here, and its handler; a test checks that each
    /// service registers exactly its rows and that docs/PROTOCOL.md names every one.
    public static let all: [RPCRoute] = [
        charactersList.route,
        charactersGet.route,
        charactersGetMany.route,
        charactersRefresh.route,
        charactersSync.route,
        charactersStats.route,
        charactersImage.route,
        charactersHealth.route,
        charactersMetrics.route,
        charactersChanges.route,
        locationsList.route,
        locationsGet.route,
        locationsGetMany.route,
        episodesList.route,
        episodesGet.route,
        episodesGetMany.route,
        favoritesAdd.route,
        favoritesRemove.route,
        favoritesList.route,
        universitiesList.route,
        universitiesGet.route,
        universitiesRefresh.route,
        universitiesHealth.route,
        universitiesSync.route,
        universitiesMetrics.route,
        universitiesChanges.route,
        gatewayHealth.route,
        gatewayHello.route,
        gatewayMetrics.route,
    ]

    /// Each method's row of the table, by name.
    private static let routes: [String: RPCRoute] = Dictionary(all.map { ($0.name, $0) }) { first, _ in first }

    /// The row of the method named `name`, if the table has one.
    public static func route(named name: String) -> RPCRoute? { routes[name] }

    /// The smallest params cap of the table: params under it need no look-up (the Gateway's
    /// hot path, where requests are tens of bytes).
    public static let smallestMaxParamsBytes = min(RPCRoute.defaultMaxParamsBytes, all.map(\.maxParamsBytes).min() ?? 0)

    /// The params cap of the method named `name` (a method the table lacks gets the default).
    public static func maxParamsBytes(of name: String) -> Int {
        route(named: name)?.maxParamsBytes ?? RPCRoute.defaultMaxParamsBytes
    }

    /// The service answering each method prefix (`characters`, `locations`, …), from the table.
    /// A short list compared by bytes: the Gateway asks it for every request, and a `Substring`
    /// key (found by `Character`s, then hashed) cost 7 releases a look-up.
    private static let owners: [(prefix: String, service: ServiceName)] = all.reduce(into: []) { owners, method in
        guard !owners.contains(where: { $0.prefix == method.prefix }) else { return }
        owners.append((String(method.prefix), ServiceName(rawValue: method.owner)!))
    }

    /// The service that answers `method`: by the part of its name before the first dot
    /// (docs/PROTOCOL.md §6; found as a byte, so a combining mark after it does not hide it),
    /// which must be followed by a name; nil when no method of the
    /// table has that prefix. (A method of a known prefix that its service lacks is answered
    /// -32601 by that service.)
    public static func service(answering method: String) -> ServiceName? {
        let utf8 = method.utf8
        guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")), utf8.index(after: dot) != utf8.endIndex else {
            return nil
        }
        let length = utf8.distance(from: utf8.startIndex, to: dot)
        return owners.first { $0.prefix.utf8.count == length && utf8.starts(with: $0.prefix.utf8) }?.service
    }

    /// The health method of `service` (the Gateway answers its own from the services').
    public static func health(of service: ServiceName) -> RPCMethod<NoParams, ServiceHealth>? {
        [charactersHealth, universitiesHealth].first { $0.owner == service.rawValue }
    }

    /// The data version method of `service` (nil for the Gateway, which keeps no data).
    public static func changes(of service: ServiceName) -> RPCMethod<NoParams, DataVersion>? {
        [charactersChanges, universitiesChanges].first { $0.owner == service.rawValue }
    }

    /// The metrics method of `service` (each process answers its own).
    public static func metrics(of service: ServiceName) -> RPCMethod<NoParams, MetricsReport> {
        [gatewayMetrics, charactersMetrics, universitiesMetrics].first { $0.owner == service.rawValue }!
    }
}

extension RPCMethod {
    /// A method answered by `owner`.
    public init(_ name: String, _ owner: ServiceName, maxParamsBytes: Int = RPCRoute.defaultMaxParamsBytes) {
        self.init(name, owner: owner.rawValue, maxParamsBytes: maxParamsBytes)
    }
}
