import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

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
    var maxFrameBytes: Int = 1_048_576
    /// How long a started frame may stay incomplete (`RNM_FRAME_TIMEOUT_MS`).
    var frameTimeout: Duration = .seconds(10)
}

/// Builds the CharacterService; tests call this with test settings and dependencies.
enum CharacterServiceApp {
    static func build(configuration: CharacterServiceConfiguration, logger: Logger,
                      fetcher: (any HTTPFetching)? = nil, clock: any WallClock = SystemWallClock(),
                      onListening: (@Sendable () async -> Void)? = nil) throws -> [any Service] {
        try DefaultPaths.createDirectory(for: configuration.databasePath)
        let database = try CharacterDatabase(path: configuration.databasePath)
        let upstream = RickAndMortyAPI(fetcher: fetcher ?? URLSessionFetcher(
            baseURL: configuration.upstreamURL, timeoutMilliseconds: configuration.upstreamTimeoutMilliseconds))
        let catalog = CharacterCatalog(database: database, upstream: upstream, clock: clock,
                                       maxAge: Double(configuration.maxAgeSeconds), health: UpstreamHealth(), logger: logger)
        let router = CharacterRoutes.router(catalog: catalog, syncConcurrency: configuration.syncConcurrency, started: Date())
        let server = RPCServer(
            configuration: .init(socketPath: configuration.socketPath, maxFrameBytes: configuration.maxFrameBytes,
                                 frameTimeout: configuration.frameTimeout,
                                 service: ServiceName.characters.rawValue),
            handler: router, logger: logger, onListening: onListening
        )
        return [server]
    }
}
