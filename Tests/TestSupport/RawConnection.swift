import Messaging
import NIOCore
import NIOPosix

/// A connection that sends arbitrary bytes and reads frames back, for protocol abuse tests.
public final class RawConnection: Sendable {
    public let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private let frames: AsyncStream<Envelope?>
    private let continuation: AsyncStream<Envelope?>.Continuation
    private let reader: Task<Void, Never>

    public init(socketPath: String) async throws {
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: socketPath) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(FrameDecoder(maxFrameBytes: 1 << 24)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let (stream, continuation) = AsyncStream.makeStream(of: Envelope?.self)
        frames = stream
        self.continuation = continuation
        let channel = self.channel
        reader = Task {
            do {
                for try await payload in channel.inbound {
                    continuation.yield(try? Envelope(parsing: payload))
                }
            } catch {}
            continuation.finish()
        }
    }

    /// Writes bytes as they are (no framing added).
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await channel.outbound.write(ByteBuffer(bytes: bytes))
    }

    /// Writes one frame around `json`.
    public func send(_ json: String) async throws {
        try await channel.outbound.write(FrameBuilder.frame(payload: ByteBuffer(string: json)))
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
        let channel = self.channel.channel
        try await within(seconds, "connection closed") { try? await channel.closeFuture.get() }
    }

    deinit {
        channel.outbound.finish()
        channel.channel.close(promise: nil)
    }

    public func close() {
        channel.outbound.finish()
        channel.channel.close(promise: nil)
        reader.cancel()
    }
}

extension Envelope {
    /// The error object, decoded.
    public var rpcError: RPCError? {
        error.flatMap { try? JSONCoding.decode(RPCError.self, from: $0) }
    }
}
