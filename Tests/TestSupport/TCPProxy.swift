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

    private init(port: Int, target: (host: String, port: Int)) {
        self.port = port
        self.target = target
    }

    /// A relay to `host:port`, listening.
    public static func start(to host: String, port: Int) async throws -> TCPProxy {
        // Held until the listener binds it: the window another test's bind could take it in is
        // the release and the bind, not the whole start.
        let reserved = try ReservedPort()
        let proxy = TCPProxy(port: reserved.port, target: (host, port))
        reserved.release()
        try await proxy.up()
        return proxy
    }

    /// Listens again (after ``down()``).
    public func up() async throws {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // The child channel reads only once this is done: its first bytes find the relay.
            .childChannelInitializer { [self] inbound in connect(inbound) }
            .bind(host: "127.0.0.1", port: port).get()
        state.withLock { $0.listener = listener }
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
