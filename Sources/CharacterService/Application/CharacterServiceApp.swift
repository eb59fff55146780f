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

    static func build(
        configuration: CachingServiceConfiguration, settings: CharacterSettings = CharacterSettings(),
        logger: Logger, onListening: (@Sendable () async -> Void)? = nil
    ) throws -> [any Service] {
        let (router, services) = try parts(configuration: configuration, settings: settings, logger: logger)
        // The favorites' client first: a service group stops its services last to first, so the
        // server finishes its requests (a favorite being written) before the client closes.
        return services + [
            configuration.makeServer(.characters, handler: router, logger: logger, onListening: onListening)
        ]
    }

    /// The service's methods over its database and upstream (the route table's test reads them).
    static func router(
        configuration: CachingServiceConfiguration, settings: CharacterSettings = CharacterSettings(), logger: Logger
    ) throws -> RPCRouter {
        try parts(configuration: configuration, settings: settings, logger: logger).router
    }

    /// The methods, and what must run beside the server (a PostgreSQL client for the favorites).
    static func parts(
        configuration: CachingServiceConfiguration, settings: CharacterSettings, logger: Logger
    ) throws -> (router: RPCRouter, services: [any Service]) {
        try DefaultPaths.createDirectory(for: configuration.databasePath)
        let (database, cacheOpening) = try CharacterDatabase.openSettingAsideDamage(
            path: configuration.databasePath, logger: logger)
        let favorites = try FavoritesSetup.open(
            configuration: configuration, settings: settings, cache: database, cacheOpening: cacheOpening,
            logger: logger)
        let upstream = RickAndMortyAPI(
            fetcher: configuration.makeFetcher(for: .characters), maxRecords: settings.maxRecords)
        let policy = configuration.makePolicy(
            for: .characters, staleWhileRevalidate: settings.staleWhileRevalidate, logger: logger
        ) {
            () async throws(UpstreamError) in try await upstream.probe()
        }
        policy.storage.note(cacheOpening)
        let catalog = CharacterCatalog(
            database: database, favoritesStore: favorites.store, favoritesStorage: favorites.storage,
            upstream: upstream, policy: policy, logger: logger, maxFilteredPages: settings.maxListPages,
            absentIDs: AbsentIDs(capacity: settings.maxAbsentIDs))
        // Finished replies of fresh reads, answered again without the database. No reply that
        // holds favorites is ever kept, here or in front (`favorites.list` is not a cached method;
        // the HTTP front's micro-cache keeps no web page, and `favorites.*` have no REST route):
        // with a shared store another replica changes the list, and no commit here would say so.
        // The SQLite file's commits still empty the cache, as before, for a favorite's sake in
        // any reply that may come to hold one.
        let changes = DataChanges()
        let replyCache = configuration.makeReplyCache(invalidatedBy: database, counting: changes)
        if let replyCache, let file = favorites.store as? FavoritesDatabase { file.invalidateOnCommit(replyCache) }
        var router = CharacterRoutes.router(
            catalog: catalog, syncConcurrency: syncConcurrency,
            maxParamBytes: configuration.maxParamBytes, replyCache: replyCache)
        router.registerChanges(RPCMethods.charactersChanges, changes, maxAge: policy.maxAge)
        router.registerMetrics(
            RPCMethods.charactersMetrics, of: .characters, instruments: configuration.instruments,
            databases: [("characters", configuration.databasePath)]
                + (favorites.file.map { [("favorites", $0)] } ?? []),
            health: catalog.healthReport)
        return (router, favorites.services)
    }
}
