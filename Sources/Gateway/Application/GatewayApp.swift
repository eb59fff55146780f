import Foundation
import Logging
import Messaging
import RnmAPI
import ServiceLifecycle
import ServiceRuntime

/// Everything the Gateway needs to start.
struct GatewayConfiguration: Sendable {
    var socketPath: String
    var charactersSocketPath: String
    var universitiesSocketPath: String
    var maxFrameBytes: Int = Defaults.maxFrameBytes
    /// How long a started frame may stay incomplete (`RNM_FRAME_TIMEOUT_MS`).
    var frameTimeout: Duration = .seconds(10)
    /// Deadline of one request (restarted by progress notifications).
    var requestTimeout: Duration = .milliseconds(15000)
    /// Requests in flight on one client connection: its fair share of a service link.
    var maxInFlightPerConnection: Int = Defaults.gatewayMaxInFlightPerConnection
    /// Requests in flight over all clients (at most a service's per-connection limit).
    var maxInFlight: Int = Defaults.gatewayMaxInFlight
    /// Bytes one client connection may hold (`RNM_CONNECTION_BUFFER_BYTES`).
    var connectionBufferBytes: Int = Defaults.connectionBufferBytes
}

/// Builds the Gateway from its configuration; tests call this with test settings.
enum GatewayApp {
    static func build(configuration: GatewayConfiguration, logger: Logger,
                      onListening: (@Sendable () async -> Void)? = nil) -> [any Service] {
        let links = [
            ServiceLink(service: .characters, socketPath: configuration.charactersSocketPath,
                        maxFrameBytes: configuration.maxFrameBytes, logger: logger),
            ServiceLink(service: .universities, socketPath: configuration.universitiesSocketPath,
                        maxFrameBytes: configuration.maxFrameBytes, logger: logger),
        ]
        let handler = GatewayHandler(links: links, requestTimeout: configuration.requestTimeout,
                                     maxInFlight: configuration.maxInFlight)
        let server = RPCServer(
            configuration: .init(socketPath: configuration.socketPath, maxFrameBytes: configuration.maxFrameBytes,
                                 frameTimeout: configuration.frameTimeout,
                                 service: ServiceName.gateway.rawValue,
                                 maxInFlightPerConnection: configuration.maxInFlightPerConnection,
                                 connectionBufferBytes: configuration.connectionBufferBytes,
                                 dropsUnreadReplies: true),
            handler: handler, logger: logger, onListening: onListening
        )
        // Shut down in reverse: the server drains its requests first, then the links close.
        return links + [ServerService(server)]
    }
}
