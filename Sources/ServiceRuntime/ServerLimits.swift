import Messaging
import RnmAPI
import Telemetry

/// The limits every server process applies to its clients (docs/PROTOCOL.md §7).
public struct ServerLimits: Sendable {
    public var maxFrameBytes: Int
    /// How long a started frame may stay incomplete (`RNM_FRAME_TIMEOUT_MS`).
    public var frameTimeout: Duration
    public var maxInFlightPerConnection: Int
    public var connectionBufferBytes: Int
    /// Client connections open at once (`RNM_MAX_CONNECTIONS`).
    public var maxConnections: Int
    /// Bytes of replies waiting unread over all connections (`RNM_MAX_UNREAD_BYTES`).
    public var maxUnreadBytes: Int
    /// How long a client may take none of its replies (`RNM_UNREAD_TIMEOUT_MS`).
    public var sendTimeout: Duration

    public init(
        maxFrameBytes: Int = Defaults.maxFrameBytes,
        frameTimeout: Duration = .milliseconds(Defaults.frameTimeoutMilliseconds),
        maxInFlightPerConnection: Int = Defaults.serviceMaxInFlightPerConnection,
        connectionBufferBytes: Int = Defaults.serviceConnectionBufferBytes,
        maxConnections: Int = WireLimits.maxConnections, maxUnreadBytes: Int = WireLimits.maxUnreadBytes,
        sendTimeout: Duration = .milliseconds(Defaults.unreadTimeoutMilliseconds)
    ) {
        self.sendTimeout = sendTimeout
        self.maxConnections = maxConnections
        self.maxUnreadBytes = maxUnreadBytes
        self.maxFrameBytes = maxFrameBytes
        self.frameTimeout = frameTimeout
        self.maxInFlightPerConnection = maxInFlightPerConnection
        self.connectionBufferBytes = connectionBufferBytes
    }

    /// The server configuration of `service` listening on `socketPath`.
    public func server(
        _ service: ServiceName, socketPath: String, dropsUnreadReplies: Bool = false,
        instruments: Instruments = .disabled
    ) -> RPCServerConfiguration {
        RPCServerConfiguration(
            socketPath: socketPath, maxFrameBytes: maxFrameBytes, frameTimeout: frameTimeout,
            service: service.rawValue, maxInFlightPerConnection: maxInFlightPerConnection,
            connectionBufferBytes: connectionBufferBytes, dropsUnreadReplies: dropsUnreadReplies,
            maxConnections: maxConnections, maxUnreadBytes: maxUnreadBytes, sendTimeout: sendTimeout,
            instruments: instruments)
    }
}
