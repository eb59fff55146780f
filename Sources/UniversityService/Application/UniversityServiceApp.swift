import Foundation
import Logging
import Messaging
import NIOCore
import RnmAPI
import ServiceKit
import ServiceLifecycle
import ServiceRuntime

/// Builds the UniversityService; tests call this with test settings.
enum UniversityServiceApp {
    static func build(
        configuration: CachingServiceConfiguration,
        syncTimeoutMilliseconds: Int = Defaults.universitiesSyncTimeoutMilliseconds, logger: Logger,
        onListening: (@Sendable () async -> Void)? = nil
    ) throws -> [any Service] {
        let router = try router(
            configuration: configuration, syncTimeoutMilliseconds: syncTimeoutMilliseconds, logger: logger)
        return [configuration.makeServer(.universities, handler: router, logger: logger, onListening: onListening)]
    }

    /// The service's methods over its database and upstream (the route table's test reads them).
    static func router(
        configuration: CachingServiceConfiguration,
        syncTimeoutMilliseconds: Int = Defaults.universitiesSyncTimeoutMilliseconds, logger: Logger
    ) throws -> RPCRouter {
        try DefaultPaths.createDirectory(for: configuration.databasePath)
        let (database, opening) = try UniversityDatabase.openSettingAsideDamage(
            path: configuration.databasePath, logger: logger)
        let upstream = HipoUpstream(
            fetcher: configuration.makeFetcher(for: .universities), syncTimeoutMilliseconds: syncTimeoutMilliseconds)
        let policy = configuration.makePolicy(for: .universities, logger: logger) { () async throws(UpstreamError) in
            try await upstream.probe()
        }
        policy.storage.note(opening)
        let catalog = UniversityCatalog(database: database, upstream: upstream, policy: policy, logger: logger)
        // Finished replies of fresh reads, answered again without the database.
        let changes = DataChanges()
        let replyCache = configuration.makeReplyCache(invalidatedBy: database, counting: changes)
        var router = UniversityRoutes.router(
            catalog: catalog, maxParamBytes: configuration.maxParamBytes, replyCache: replyCache)
        router.registerChanges(RPCMethods.universitiesChanges, changes, maxAge: policy.maxAge)
        router.registerMetrics(
            RPCMethods.universitiesMetrics, of: .universities, instruments: configuration.instruments,
            databases: [("universities", configuration.databasePath)], health: catalog.healthReport)
        return router
    }
}
