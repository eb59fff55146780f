import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceKit
import ServiceLifecycle
import ServiceRuntime

/// Everything the UniversityService needs to start.
struct UniversityServiceConfiguration: Sendable {
    var socketPath: String
    var databasePath: String
    var upstreamURL: String = "http://universities.hipolabs.com"
    var upstreamTimeoutMilliseconds: Int = 5000
    /// Seconds a cached list is served without asking the upstream (default 0: always ask).
    var maxAgeSeconds: Int = 0
    var maxFrameBytes: Int = Defaults.maxFrameBytes
    /// How long a started frame may stay incomplete (`RNM_FRAME_TIMEOUT_MS`).
    var frameTimeout: Duration = .seconds(10)
    var maxInFlightPerConnection: Int = Defaults.serviceMaxInFlightPerConnection
    var connectionBufferBytes: Int = Defaults.connectionBufferBytes
    /// The longest string parameter (`RNM_MAX_PARAM_BYTES`).
    var maxParamBytes: Int = Defaults.maxParamBytes
    /// The largest upstream body (`RNM_UPSTREAM_MAX_BYTES`).
    var upstreamMaxBytes: Int = Defaults.upstreamMaxBytes
}

/// Builds the UniversityService; tests call this with test settings.
enum UniversityServiceApp {
    static func build(configuration: UniversityServiceConfiguration, logger: Logger,
                      onListening: (@Sendable () async -> Void)? = nil) throws -> [any Service] {
        try DefaultPaths.createDirectory(for: configuration.databasePath)
        let database = try UniversityDatabase(path: configuration.databasePath)
        let upstream = HipoUpstream(fetcher: URLSessionFetcher(
            baseURL: configuration.upstreamURL, timeoutMilliseconds: configuration.upstreamTimeoutMilliseconds,
            maxBodyBytes: configuration.upstreamMaxBytes))
        let catalog = UniversityCatalog(database: database, upstream: upstream,
                                        maxAge: Double(configuration.maxAgeSeconds), health: UpstreamHealth(), logger: logger)
        let router = UniversityRoutes.router(catalog: catalog, maxParamBytes: configuration.maxParamBytes)
        let server = RPCServer(
            configuration: .init(socketPath: configuration.socketPath, maxFrameBytes: configuration.maxFrameBytes,
                                 frameTimeout: configuration.frameTimeout,
                                 service: ServiceName.universities.rawValue,
                                 maxInFlightPerConnection: configuration.maxInFlightPerConnection,
                                 connectionBufferBytes: configuration.connectionBufferBytes),
            handler: router, logger: logger, onListening: onListening
        )
        return [ServerService(server)]
    }
}
