import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit
import ServiceLifecycle
import ServiceRuntime

/// Everything the CharacterService needs to start.
struct CharacterServiceConfiguration: Sendable {
    var socketPath: String
    var databasePath: String
    var upstreamURL: String = "https://rickandmortyapi.com/api"
    var upstreamTimeoutMilliseconds: Int = 5000
    /// Seconds a cached answer is served without asking the upstream (default 600).
    var maxAgeSeconds: Int = 600
    /// Upstream requests in flight at once during `characters.sync`.
    var syncConcurrency: Int = 4
    var maxFrameBytes: Int = Defaults.maxFrameBytes
    /// How long a started frame may stay incomplete (`RNM_FRAME_TIMEOUT_MS`).
    var frameTimeout: Duration = .seconds(10)
    var maxInFlightPerConnection: Int = Defaults.serviceMaxInFlightPerConnection
    var connectionBufferBytes: Int = Defaults.connectionBufferBytes
    /// The longest string parameter (`RNM_MAX_PARAM_BYTES`).
    var maxParamBytes: Int = Defaults.maxParamBytes
    /// The largest upstream body (`RNM_UPSTREAM_MAX_BYTES`).
    var upstreamMaxBytes: Int = Defaults.upstreamMaxBytes
    /// Cached pages of filtered lists kept (`RNM_CHARACTERS_MAX_LIST_PAGES`).
    var maxListPages: Int = Defaults.charactersMaxListPages
}

/// Builds the CharacterService; tests call this with test settings.
enum CharacterServiceApp {
    static func build(configuration: CharacterServiceConfiguration, logger: Logger,
                      onListening: (@Sendable () async -> Void)? = nil) throws -> [any Service] {
        try DefaultPaths.createDirectory(for: configuration.databasePath)
        let database = try CharacterDatabase(path: configuration.databasePath)
        let upstream = RickAndMortyAPI(fetcher: URLSessionFetcher(
            baseURL: configuration.upstreamURL, timeoutMilliseconds: configuration.upstreamTimeoutMilliseconds,
            maxBodyBytes: configuration.upstreamMaxBytes))
        let catalog = CharacterCatalog(database: database, upstream: upstream,
                                       maxAge: Double(configuration.maxAgeSeconds), health: UpstreamHealth(), logger: logger,
                                       maxFilteredPages: configuration.maxListPages)
        let router = CharacterRoutes.router(catalog: catalog, syncConcurrency: configuration.syncConcurrency,
                                            maxParamBytes: configuration.maxParamBytes)
        let server = RPCServer(
            configuration: .init(socketPath: configuration.socketPath, maxFrameBytes: configuration.maxFrameBytes,
                                 frameTimeout: configuration.frameTimeout,
                                 service: ServiceName.characters.rawValue,
                                 maxInFlightPerConnection: configuration.maxInFlightPerConnection,
                                 connectionBufferBytes: configuration.connectionBufferBytes),
            handler: router, logger: logger, onListening: onListening
        )
        return [ServerService(server)]
    }
}
