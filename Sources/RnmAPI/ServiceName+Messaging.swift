import NIOCore
import Messaging

/// The wire library names services with strings (it serves any protocol); rnm's code names
/// them with ``ServiceName``.
extension RPCError {
    public init(
        _ code: Code, _ message: String, service: ServiceName, detail: String? = nil, upstreamStatus: Int? = nil
    ) {
        self.init(code, message, service: service.rawValue, detail: detail, upstreamStatus: upstreamStatus)
    }
}

extension RPCRouter {
    public init(service: ServiceName, replyCache: ExpiringCache<ByteBuffer>? = nil) {
        self.init(service: service.rawValue, replyCache: replyCache)
    }
}

extension RPCClient {
    /// Connects to `service`'s socket at `socketPath`.
    public static func connect(
        socketPath: String, service: ServiceName, maxFrameBytes: Int = WireLimits.maxFrameBytes
    ) async throws -> RPCClient {
        try await connect(socketPath: socketPath, service: service.rawValue, maxFrameBytes: maxFrameBytes)
    }
}

extension SerialRPCClient {
    /// Connects to `service`'s socket at `socketPath`.
    public static func connect(
        socketPath: String, service: ServiceName, maxFrameBytes: Int = WireLimits.maxFrameBytes
    ) throws -> SerialRPCClient {
        try connect(socketPath: socketPath, service: service.rawValue, maxFrameBytes: maxFrameBytes)
    }
}

extension ServiceName: CustomStringConvertible {
    public var description: String { rawValue }
}
