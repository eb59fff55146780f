#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Logging
import Messaging
import RnmAPI
import ServiceLifecycle
import ServiceRuntime
import Telemetry

/// Everything the Gateway needs to start.
struct GatewayConfiguration: Sendable {
    var socketPath: String
    var charactersSocketPath: String
    var universitiesSocketPath: String
    /// Deadline of one request (restarted by progress notifications).
    var requestTimeout: Duration = .milliseconds(Defaults.requestTimeoutMilliseconds)
    /// How long `gateway.health` waits for each service's health (`RNM_HEALTH_TIMEOUT_MS`).
    var healthTimeout: Duration = .milliseconds(Defaults.healthTimeoutMilliseconds)
    /// Requests in flight over all clients (at most a service's per-connection limit).
    var maxInFlight: Int = Defaults.gatewayMaxInFlight
    /// Limits per client connection; a connection's requests in flight are its fair share of
    /// a service link.
    var limits = ServerLimits(
        maxInFlightPerConnection: Defaults.gatewayMaxInFlightPerConnection,
        connectionBufferBytes: Defaults.connectionBufferBytes)
    /// Its metrics (`gateway.metrics`).
    var instruments = Instruments()
}

/// Builds the Gateway from its configuration; tests call this with test settings.
enum GatewayApp {
    static func build(
        configuration: GatewayConfiguration, logger: Logger,
        onListening: (@Sendable () async -> Void)? = nil
    ) -> [any Service] {
        let links = [
            ServiceLink(
                service: .characters, socketPath: configuration.charactersSocketPath,
                maxFrameBytes: configuration.limits.maxFrameBytes, logger: logger),
            ServiceLink(
                service: .universities, socketPath: configuration.universitiesSocketPath,
                maxFrameBytes: configuration.limits.maxFrameBytes, logger: logger),
        ]
        let handler = GatewayHandler(
            links: links, requestTimeout: configuration.requestTimeout, healthTimeout: configuration.healthTimeout,
            maxInFlight: configuration.maxInFlight, instruments: configuration.instruments)
        // Its clients are anyone: replies a client leaves unread past its buffer are dropped.
        let server = RPCServer(
            configuration: configuration.limits.server(
                .gateway, socketPath: configuration.socketPath,
                dropsUnreadReplies: true, instruments: configuration.instruments),
            handler: handler, logger: logger, onListening: onListening)
        // Shut down in reverse: the server drains its requests first, then the links close.
        return links + [ServerService(server)]
    }
}
