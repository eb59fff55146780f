import Foundation
import Logging
import Messaging
import ServiceLifecycle

/// Everything the UniversityService needs to start.
struct UniversityServiceConfiguration: Sendable {
    var socketPath: String
    var maxFrameBytes: Int
}

/// Builds the UniversityService from its configuration; tests call this with test settings.
enum UniversityServiceApp {
    static let service = ServiceName.universities.rawValue

    static func build(configuration: UniversityServiceConfiguration, logger: Logger,
                      onListening: (@Sendable () async -> Void)? = nil) throws -> [any Service] {
        let started = Date()
        var router = RPCRouter(service: service)
        router.register(RPCMethods.universitiesHealth) { _, _ in
            ServiceHealth(service: service, status: "ok", version: rnmVersion,
                          uptimeSeconds: Date().timeIntervalSince(started), cache: [:],
                          upstream: .init(url: ""))
        }
        let server = RPCServer(
            configuration: .init(socketPath: configuration.socketPath, maxFrameBytes: configuration.maxFrameBytes, service: service),
            handler: router, logger: logger, onListening: onListening
        )
        return [server]
    }
}
