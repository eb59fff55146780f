import Messaging
import NIOCore
import NIOPosix

/// A connection that sends arbitrary bytes and reads frames back, for protocol abuse tests.
/// A plain channel (NIO's `NIOAsyncChannel` outside `executeThenClose` is deprecated): frames
/// arrive through a handler into a stream, bytes go out with `writeAndFlush`.
public final class RawConnection: Sendable {
    public let channel: any Channel
    private let frames: AsyncStream<Envelope?>

    public init(socketPath: String) async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: Envelope?.self)
        frames = stream
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(FrameDecoder(maxFrameBytes: 1 << 24)),
                        FrameCollector(continuation: continuation))
                }
            }
            .connect(unixDomainSocketPath: socketPath).get()
    }

    /// Writes bytes as they are (no framing added).
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Writes one frame around `json`.
    public func send(_ json: String) async throws {
        try await sendFrame(ByteBuffer(string: json))
    }

    /// Writes one frame around `payload`, whatever it holds.
    public func sendFrame(_ payload: ByteBuffer) async throws {
        try await channel.writeAndFlush(FrameBuilder.frame(payload: payload))
    }

    /// The next frame received; nil when the connection closed first.
    public func next(seconds: Double = 5) async throws -> Envelope? {
        let frames = self.frames
        return try await within(seconds, "next frame") {
            var iterator = frames.makeAsyncIterator()
            return await iterator.next() ?? nil
        }
    }

    /// Waits until the peer closes the connection.
    public func waitForClose(seconds: Double = 5) async throws {
        let channel = self.channel
        try await within(seconds, "connection closed") { try? await channel.closeFuture.get() }
    }

    deinit {
        channel.close(promise: nil)
    }

    public func close() {
        channel.close(promise: nil)
    }
}

/// Each frame's payload into the stream (nil for one that does not parse); the stream ends
/// when the connection does.
private final class FrameCollector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let continuation: AsyncStream<Envelope?>.Continuation

    init(continuation: AsyncStream<Envelope?>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(try? Envelope(parsing: unwrapInboundIn(data)))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish()
        context.close(promise: nil)
    }
}

extension Envelope {
    /// The error object, decoded.
    public var rpcError: RPCError? {
        error.flatMap { try? JSONCoding.decode(RPCError.self, from: $0) }
    }
}
