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
        let router = try router(configuration: configuration, settings: settings, logger: logger)
        return [configuration.makeServer(.characters, handler: router, logger: logger, onListening: onListening)]
    }

    /// The service's methods over its database and upstream (the route table's test reads them).
    static func router(
        configuration: CachingServiceConfiguration, settings: CharacterSettings = CharacterSettings(), logger: Logger
    ) throws -> RPCRouter {
        try DefaultPaths.createDirectory(for: configuration.databasePath)
        let (database, cacheOpening) = try CharacterDatabase.openSettingAsideDamage(
            path: configuration.databasePath, logger: logger)
        let favoritesPath = try FavoritesDatabase.checkedPath(
            settings.favoritesPath ?? FavoritesDatabase.path(besideCache: configuration.databasePath),
            cachePath: configuration.databasePath)
        try DefaultPaths.createDirectory(for: favoritesPath)
        let (favorites, favoritesOpening) = try FavoritesDatabase.openSettingAsideDamage(
            path: favoritesPath, logger: logger)
        try favorites.adopt(from: database)
        if let setAside = cacheOpening.setAside {
            do {
                try favorites.adopt(fromSetAside: setAside)
            } catch {
                logger.warning("favorites in the damaged cache \(setAside) could not be read: \(error)")
            }
        }
        let upstream = RickAndMortyAPI(
            fetcher: configuration.makeFetcher(for: .characters), maxRecords: settings.maxRecords)
        let policy = configuration.makePolicy(
            for: .characters, staleWhileRevalidate: settings.staleWhileRevalidate, logger: logger
        ) {
            () async throws(UpstreamError) in try await upstream.probe()
        }
        policy.storage.note(cacheOpening)
        let favoritesStorage = StorageHealth(path: favoritesPath, logger: logger)
        favoritesStorage.note(favoritesOpening)
        let catalog = CharacterCatalog(
            database: database, favoritesDatabase: favorites, favoritesStorage: favoritesStorage, upstream: upstream,
            policy: policy, logger: logger, maxFilteredPages: settings.maxListPages,
            absentIDs: AbsentIDs(capacity: settings.maxAbsentIDs))
        // Finished replies of fresh reads, answered again without the database.
        let replyCache = configuration.makeReplyCache(invalidatedBy: database)
        if let replyCache { favorites.invalidateOnCommit(replyCache) }
        var router = CharacterRoutes.router(
            catalog: catalog, syncConcurrency: syncConcurrency,
            maxParamBytes: configuration.maxParamBytes, replyCache: replyCache)
        router.registerMetrics(
            RPCMethods.charactersMetrics, of: .characters, instruments: configuration.instruments,
            databases: [("characters", configuration.databasePath), ("favorites", favoritesPath)],
            health: catalog.healthReport)
        return router
    }
}
