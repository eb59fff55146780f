import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on 127.0.0.1 to another address, that a test can take down (every connection
/// closed, new ones refused, as a stopped server's) and bring back on the same port: a
/// database outage without stopping the database other tests use.
public final class TCPProxy: Sendable {
    public let port: Int
    private let target: (host: String, port: Int)
    private let state = Mutex<(listener: (any Channel)?, connections: [any Channel])>((nil, []))

    private init(port: Int, target: (host: String, port: Int), listener: any Channel) {
        self.port = port
        self.target = target
        state.withLock { $0.listener = listener }
    }

    /// A relay to `host:port`, listening on a port the kernel picks (one chosen beforehand could
    /// be another test's by the time it is bound).
    public static func start(to host: String, port: Int) async throws -> TCPProxy {
        let relay = Mutex<TCPProxy?>(nil)
        let listener = try await listen(port: 0) { inbound in
            guard let proxy = relay.withLock({ $0 }) else { return inbound.close() }
            return proxy.connect(inbound)
        }
        let proxy = TCPProxy(port: listener.localAddress?.port ?? 0, target: (host, port), listener: listener)
        relay.withLock { $0 = proxy }
        return proxy
    }

    /// Listens again (after ``down()``), on the same port.
    public func up() async throws {
        let listener = try await Self.listen(port: port) { [self] inbound in connect(inbound) }
        state.withLock { $0.listener = listener }
    }

    private static func listen(
        port: Int, _ accept: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // The child channel reads only once this is done: its first bytes find the relay.
            .childChannelInitializer(accept)
            .bind(host: "127.0.0.1", port: port).get()
    }

    /// Closes the listener and every relayed connection.
    public func down() async {
        let channels = state.withLock { state in
            defer { state = (nil, []) }
            return [state.listener].compactMap { $0 } + state.connections
        }
        for channel in channels { try? await channel.close() }
    }

    private func connect(_ inbound: any Channel) -> EventLoopFuture<Void> {
        ClientBootstrap(group: inbound.eventLoop).connect(host: target.host, port: target.port)
            .flatMap { outbound in
                self.state.withLock { $0.connections += [inbound, outbound] }
                return inbound.pipeline.addHandler(Relay(peer: outbound)).flatMap {
                    outbound.pipeline.addHandler(Relay(peer: inbound))
                }
            }
    }
}

/// Writes what one side reads to the other; closes the other when one closes.
private final class Relay: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let peer: any Channel

    init(peer: any Channel) { self.peer = peer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
