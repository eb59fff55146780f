import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 response, as a test reads it.
public struct HTTPProbeResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A minimal HTTP client for tests: one request per connection to 127.0.0.1, the whole
/// response collected (NIO's codec handles content length and chunked bodies).
public enum HTTPProbe {
    public static func request(
        port: Int, method: HTTPMethod = .GET, target: String, headers: [(String, String)] = [],
        body: [UInt8]? = nil, timeout: TimeAmount = .seconds(10), from source: String? = nil
    ) async throws -> HTTPProbeResponse {
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: HTTPProbeResponse.self)
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        // Another client address of 127.0.0.0/8 (the server sees a different client).
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel: any Channel
        do {
            channel =
                try await bootstrap
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(Collector(promise: promise))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
        } catch {
            // Nothing listens there (yet): the promise is answered, never dropped unanswered.
            promise.fail(error)
            throw error
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        // A Host given in `headers` replaces this one (a request under another name).
        if !headers.contains(where: { $0.0.lowercased() == "host" }) {
            head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
        }
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        let timer = channel.eventLoop.scheduleTask(in: timeout) {
            promise.fail(ChannelError.connectTimeout(timeout))
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        let response = try await promise.futureResult.get()
        try? await channel.close().get()
        return response
    }

    private final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPClientResponsePart
        let promise: EventLoopPromise<HTTPProbeResponse>
        var response = HTTPProbeResponse(status: 0, headers: [], body: [])

        init(promise: EventLoopPromise<HTTPProbeResponse>) { self.promise = promise }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                response.status = Int(head.status.code)
                response.headers = head.headers.map { ($0.name, $0.value) }
            case .body(var buffer):
                response.body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                promise.succeed(response)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ChannelError.eof)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }
    }
}
