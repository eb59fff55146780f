import NIOCore
import NIOPosix
import ServiceRuntime

/// Whether the HTTPGateway answers `GET /api` at `RNM_HTTP_ADDRESS`: what `rnmctl status`
/// shows on its `http` line. Raw HTTP/1.1 over NIO: rnmctl carries no HTTP client for one line.
enum HTTPFrontProbe {
    enum Result: Equatable {
        /// Answered with this status, in this many milliseconds.
        case answered(status: Int, milliseconds: Double)
        case unreachable(String)
    }

    /// `host:port` in force (the HTTPGateway's own setting).
    static var address: String { Setting.httpAddress.resolve(nil) }

    static func probe(address: String = address, timeout: Duration) async -> Result {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else {
            return .unreachable("\(Setting.httpAddress.rawValue)=\(address) is not host:port")
        }
        let host = String(address[..<colon])
        let started = ContinuousClock.now
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: Int.self)
        do {
            let channel = try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(timeout))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(StatusLineReader(promise: promise))
                    }
                }
                .connect(host: host == "0.0.0.0" ? "127.0.0.1" : host, port: port).get()
            let timer = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
                promise.fail(ChannelError.connectTimeout(TimeAmount(timeout)))
            }
            try await channel.writeAndFlush(
                ByteBuffer(string: "GET /api HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n")
            ).get()
            let status = try await promise.futureResult.get()
            timer.cancel()
            try? await channel.close().get()
            let elapsed = ContinuousClock.now - started
            return .answered(
                status: status,
                milliseconds: Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        } catch {
            promise.fail(error)
            return .unreachable("\(error)")
        }
    }

    /// Reads the status code from `HTTP/1.1 200 OK`.
    private final class StatusLineReader: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let promise: EventLoopPromise<Int>
        var received = ByteBuffer()

        init(promise: EventLoopPromise<Int>) { self.promise = promise }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            received.writeBuffer(&buffer)
            let text = String(buffer: received)
            guard let end = text.firstIndex(of: "\r\n") ?? (received.readableBytes > 512 ? text.endIndex : nil) else {
                return
            }
            let parts = text[..<end].split(separator: " ")
            if parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) {
                promise.succeed(status)
            } else {
                promise.fail(ChannelError.inappropriateOperationForState)
            }
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) { promise.fail(ChannelError.eof) }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }
    }
}
