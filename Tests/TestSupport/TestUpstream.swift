import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import RnmAPI
import Synchronization

/// A request the test upstream received.
public struct UpstreamRequest: Sendable, Equatable {
    /// The path, percent-decoded, without the query.
    public var path: String
    /// The query, percent-decoded (`+` as space).
    public var query: [String: String]
    /// The query's keys in the order they came (each once).
    public var queryKeys: [String] = []
    /// The raw request target as sent.
    public var target: String
    /// The Host header.
    public var host: String
}

/// What a route answers.
public struct UpstreamResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// Extra headers (`Location` for a redirect).
    public var headers: [(String, String)]

    public init(status: Int = 200, contentType: String = "application/json", body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A redirect to `location`.
    public static func redirect(to location: String, status: Int = 302) -> UpstreamResponse {
        UpstreamResponse(status: status, contentType: "text/plain", body: Array("Found".utf8), headers: [("Location", location)])
    }

    /// A JSON response.
    public static func json(_ text: String, status: Int = 200) -> UpstreamResponse {
        UpstreamResponse(status: status, body: Array(text.utf8))
    }

    /// A JSON response from bytes.
    public static func json(_ data: Data, status: Int = 200) -> UpstreamResponse {
        UpstreamResponse(status: status, body: Array(data))
    }
}

/// Ways the test upstream can misbehave, switched on per test.
public enum UpstreamFault: Sendable, Equatable {
    /// Answer this HTTP status with an HTML error page (5xx, 429, ...).
    case status(Int)
    /// Accept the request and never answer.
    case hang
    /// 200 with a body that is not JSON.
    case garbage
    /// 200 announcing the whole body, sending half of it, then closing.
    case truncated
    /// 200 with an HTML page (a captive portal, a proxy's error page).
    case html
    /// Refuse connections (the server stops listening).
    case down
}

/// A local HTTP server on 127.0.0.1 (port 0) standing in for an upstream API: serves real
/// fixture data through `route`, records every request, and fails on demand.
public final class TestUpstream: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let baseURL: String
    private let channel: Mutex<(any Channel)?>
    private let state = Mutex(State())
    private let route: @Sendable (UpstreamRequest) -> UpstreamResponse

    private struct State {
        var latency: TimeAmount = .zero
        var fault: UpstreamFault?
        var requests: [UpstreamRequest] = []
    }

    private let box: Box

    private init(baseURL: String, channel: any Channel, box: Box, route: @escaping @Sendable (UpstreamRequest) -> UpstreamResponse) {
        self.baseURL = baseURL
        self.box = box
        self.channel = Mutex(channel)
        self.route = route
    }

    /// Starts a server answering with `route`, on `host` (any address of 127.0.0.0/8).
    public static func start(host: String = "127.0.0.1", route: @escaping @Sendable (UpstreamRequest) -> UpstreamResponse) async throws -> TestUpstream {
        let boxRef = Box()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                boxRef.connections.withLock { $0.append(channel) }
                return channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(UpstreamHandler(owner: boxRef))
                }
            }
            .bind(host: host, port: 0).get()
        let upstream = TestUpstream(baseURL: "http://\(host):\(channel.localAddress!.port!)", channel: channel, box: boxRef, route: route)
        boxRef.value.withLock { $0 = upstream }
        TestResources.register { await upstream.stop() }
        return upstream
    }

    /// The fault in force (nil: behave).
    public var fault: UpstreamFault? {
        get { state.withLock { $0.fault } }
        set { state.withLock { $0.fault = newValue } }
    }

    /// How long each answer is held back (to make concurrent requests overlap).
    public var latency: TimeAmount {
        get { state.withLock { $0.latency } }
        set { state.withLock { $0.latency = newValue } }
    }

    /// Every request received so far.
    public var requests: [UpstreamRequest] { state.withLock { $0.requests } }

    /// How many requests were received.
    public var requestCount: Int { state.withLock { $0.requests.count } }

    /// Forgets the requests received so far.
    public func resetRequests() { state.withLock { $0.requests.removeAll() } }

    /// Stops listening and drops open connections.
    public func stop() async {
        let channel = self.channel.withLock { $0 }
        try? await channel?.close()
        for connection in box.connections.withLock({ $0 }) {
            try? await connection.close()
        }
    }

    fileprivate func handle(_ request: UpstreamRequest) -> (UpstreamFault?, UpstreamResponse, TimeAmount) {
        let (fault, latency) = state.withLock { state -> (UpstreamFault?, TimeAmount) in
            state.requests.append(request)
            return (state.fault, state.latency)
        }
        return (fault, fault == nil ? route(request) : UpstreamResponse(body: []), latency)
    }
}

private final class Box: Sendable {
    let value = Mutex<TestUpstream?>(nil)
    let connections = Mutex<[any Channel]>([])
}

private final class UpstreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let owner: Box
    private var head: HTTPRequestHead?

    init(owner: Box) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head, let upstream = owner.value.withLock({ $0 }) else { return }
            let request = Self.parse(head)
            let (fault, response, latency) = upstream.handle(request)
            let keepAlive = head.isKeepAlive
            if latency == .zero {
                respond(context: context, fault: fault, response: response, keepAlive: keepAlive)
            } else {
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: latency) {
                    let (handler, context) = loopBound.value
                    handler.respond(context: context, fault: fault, response: response, keepAlive: keepAlive)
                }
            }
        }
    }

    private func respond(context: ChannelHandlerContext, fault: UpstreamFault?, response: UpstreamResponse, keepAlive: Bool) {
        switch fault {
        case .hang:
            return
        case .down:
            context.close(promise: nil)
        case .status(let code):
            write(context: context, status: code, contentType: "text/html",
                  body: Array("<!DOCTYPE html><html><body><h1>\(code) error</h1></body></html>".utf8), keepAlive: false)
        case .garbage:
            write(context: context, status: 200, contentType: "application/json", body: Array("Lorem ipsum {{{ not json".utf8), keepAlive: false)
        case .html:
            write(context: context, status: 200, contentType: "text/html",
                  body: Array("<!DOCTYPE html><html><head><title>Maintenance</title></head><body>Back soon</body></html>".utf8), keepAlive: false)
        case .truncated:
            let body = Array(#"[{"name":"Truncated University","country":"United Arab Emirates","domains":["x.ae"],"#.utf8)
            var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", String(body.count * 2))])
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.flush()
            context.close(promise: nil)
        case nil:
            write(context: context, status: response.status, contentType: response.contentType, body: response.body, keepAlive: keepAlive,
                  extraHeaders: response.headers)
        }
    }

    private func write(context: ChannelHandlerContext, status: Int, contentType: String, body: [UInt8], keepAlive: Bool,
                       extraHeaders: [(String, String)] = []) {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(body.count))] + extraHeaders)
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            done.whenComplete { _ in loopBound.value.close(promise: nil) }
        }
    }

    static func parse(_ head: HTTPRequestHead) -> UpstreamRequest {
        let target = head.uri
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        var query: [String: String] = [:]
        var keys: [String] = []
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ text: Substring) -> String {
                    String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
                }
                let key = decode(kv[0])
                if query[key] == nil { keys.append(key) }
                query[key] = kv.count > 1 ? decode(kv[1]) : ""
            }
        }
        return UpstreamRequest(path: path, query: query, queryKeys: keys, target: target, host: head.headers["Host"].first ?? "")
    }
}
