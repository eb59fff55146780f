import Foundation
import Logging
import Messaging
import NIOCore
import RnmAPI
import ServiceKit
import ServiceLifecycle
import ServiceRuntime

/// Builds the CharacterService; tests call this with test settings.
enum CharacterServiceApp {
    /// Upstream requests in flight at once during `characters.sync`.
    static let syncConcurrency = 4

    static func build(configuration: CachingServiceConfiguration, maxListPages: Int = Defaults.charactersMaxListPages,
                      staleWhileRevalidate: Int = Defaults.charactersStaleWhileRevalidate,
                      logger: Logger, onListening: (@Sendable () async -> Void)? = nil) throws -> [any Service] {
        try DefaultPaths.createDirectory(for: configuration.databasePath)
        let database = try CharacterDatabase(path: configuration.databasePath)
        let upstream = RickAndMortyAPI(fetcher: configuration.makeFetcher())
        let health = UpstreamHealth(retry: configuration.retry, probe: { () async throws(UpstreamError) in try await upstream.probe() })
        let catalog = CharacterCatalog(database: database, upstream: upstream,
                                       policy: CachePolicy(maxAge: Double(configuration.maxAgeSeconds),
                                                           staleWhileRevalidate: Double(staleWhileRevalidate),
                                                           health: health),
                                       logger: logger,
                                       maxFilteredPages: maxListPages)
        // Finished replies of fresh reads, emptied by every change to the database.
        let replyCache = configuration.makeReplyCache()
        if let replyCache { database.invalidateOnCommit(replyCache) }
        let router = CharacterRoutes.router(catalog: catalog, syncConcurrency: syncConcurrency,
                                            maxParamBytes: configuration.maxParamBytes, replyCache: replyCache)
        return [configuration.makeServer(.characters, handler: router, logger: logger, onListening: onListening)]
    }
}
