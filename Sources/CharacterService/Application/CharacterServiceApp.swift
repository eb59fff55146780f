import Foundation
import Logging
import Messaging
import ServiceLifecycle

/// Everything the CharacterService needs to start.
struct CharacterServiceConfiguration: Sendable {
    var socketPath: String
    var maxFrameBytes: Int
}

/// Builds the CharacterService from its configuration; tests call this with test settings.
enum CharacterServiceApp {
    static let service = ServiceName.characters.rawValue

    static func build(configuration: CharacterServiceConfiguration, logger: Logger,
                      onListening: (@Sendable () async -> Void)? = nil) throws -> [any Service] {
        let started = Date()
        var router = RPCRouter(service: service)
        router.register(RPCMethods.charactersHealth) { _, _ in
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
