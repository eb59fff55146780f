import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit
import ServiceLifecycle
import ServiceRuntime

/// Builds the UniversityService; tests call this with test settings.
enum UniversityServiceApp {
    static func build(configuration: CachingServiceConfiguration, logger: Logger,
                      onListening: (@Sendable () async -> Void)? = nil) throws -> [any Service] {
        try DefaultPaths.createDirectory(for: configuration.databasePath)
        let database = try UniversityDatabase(path: configuration.databasePath)
        let catalog = UniversityCatalog(database: database, upstream: HipoUpstream(fetcher: configuration.makeFetcher()),
                                        maxAge: Double(configuration.maxAgeSeconds), health: UpstreamHealth(), logger: logger)
        let router = UniversityRoutes.router(catalog: catalog, maxParamBytes: configuration.maxParamBytes)
        return [configuration.makeServer(.universities, handler: router, logger: logger, onListening: onListening)]
    }
}
