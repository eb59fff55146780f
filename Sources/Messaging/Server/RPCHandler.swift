import Logging
import NIOCore

/// Serves requests. Return the reply, or throw (errors are mapped to wire codes by
/// ``RPCError/init(mapping:service:)``).
public protocol RPCHandler: Sendable {
    func handle(_ request: RPCRequest, context: RPCRequestContext) async throws -> RPCReply

    /// The finished `result` of `request` when it needs no work at all (a reply-cache hit), or
    /// nil. The connection asks before it starts a task for the request and answers a hit
    /// where it read it: this must be quick and must never block.
    func cachedResult(for request: RPCRequest) -> ByteBuffer?

    /// Starts serving `request` without a task of its own, and later calls `reply` exactly
    /// once, from any thread, with what ``handle(_:context:)`` would have returned (or thrown).
    /// Returns false, calling nothing, to have the request served by ``handle(_:context:)`` in
    /// a task instead. Must be quick and never block: the connection calls it where it read
    /// the frame. The Gateway forwards this way.
    func start(
        _ request: RPCRequest, context: RPCRequestContext,
        reply: @escaping @Sendable (Result<RPCReply, any Error>) -> Void
    ) -> Bool

    /// The client of `connection` gave up on its request `requestID` (`rpc.cancel`); its task,
    /// if it has one, is cancelled besides. For work without a task of its own (begun by
    /// ``start(_:context:reply:)``): the Gateway passes it on to the service.
    func cancel(requestID: ByteBuffer, connection: UInt64)

    /// The methods it answers: each gets its own series in the server's metrics (any other
    /// name is counted as `other`).
    var methodNames: Set<String> { get }
}

extension RPCHandler {
    public func cachedResult(for request: RPCRequest) -> ByteBuffer? { nil }

    public func start(
        _ request: RPCRequest, context: RPCRequestContext,
        reply: @escaping @Sendable (Result<RPCReply, any Error>) -> Void
    ) -> Bool { false }

    public func cancel(requestID: ByteBuffer, connection: UInt64) {}

    public var methodNames: Set<String> { [] }
}
