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
    /// The `If-None-Match` header (a conditional request), if any.
    public var ifNoneMatch: String? = nil
    /// When it was received (its head read), by this process's clock.
    public var receivedAt = ContinuousClock.now
}

/// What a route answers.
public struct UpstreamResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// Extra headers (`Location` for a redirect).
    public var headers: [(String, String)]
    /// Time before this answer is sent (on top of the server's latency): a slow request while
    /// others are answered at once.
    public var delay: TimeAmount = .zero

    public init(
        status: Int = 200, contentType: String = "application/json", body: [UInt8], headers: [(String, String)] = []
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A redirect to `location`.
    public static func redirect(to location: String, status: Int = 302) -> UpstreamResponse {
        UpstreamResponse(
            status: status, contentType: "text/plain", body: Array("Found".utf8), headers: [("Location", location)])
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
    /// Accept the request and never answer, as a black hole does (a dead network, a firewall
    /// that drops packets); when the fault ends, the requests held are answered as the upstream
    /// then is: normally, as a network that comes back delivers what was sent, or with the fault
    /// that follows (a burst held, then failed together).
    case hang
    /// 429 with `Retry-After: <seconds>` (a rate limit).
    case throttle(seconds: Int)
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
        /// Answers `304 Not Modified` sent (no body).
        var notModified = 0
        /// Whether answers carry an ETag and conditional requests are honoured.
        var etags = true
        /// Requests held by a black hole, answered when it ends (with the fault then in force).
        var held: [@Sendable (UpstreamFault?) -> Void] = []
    }

    private let box: Box

    private init(
        baseURL: String, channel: any Channel, box: Box,
        route: @escaping @Sendable (UpstreamRequest) -> UpstreamResponse
    ) {
        self.baseURL = baseURL
        self.box = box
        self.channel = Mutex(channel)
        self.route = route
    }

    /// Starts a server answering with `route`, on `host` (any address of 127.0.0.0/8) and `port`
    /// (0: any free one).
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, route: @escaping @Sendable (UpstreamRequest) -> UpstreamResponse
    ) async throws -> TestUpstream {
        let boxRef = Box()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                boxRef.connections.withLock { $0.append(channel) }
                // A long-running stand-in (rnm-test-upstream) must not keep every closed one.
                channel.closeFuture.whenComplete { _ in
                    boxRef.connections.withLock { $0.removeAll { $0 === channel } }
                }
                return channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(UpstreamHandler(owner: boxRef))
                }
            }
            .bind(host: host, port: port).get()
        let upstream = TestUpstream(
            baseURL: "http://\(host):\(channel.localAddress!.port!)", channel: channel, box: boxRef, route: route)
        boxRef.value.withLock { $0 = upstream }
        TestResources.register { await upstream.stop() }
        return upstream
    }

    /// The fault in force (nil: behave).
    public var fault: UpstreamFault? {
        get { state.withLock { $0.fault } }
        set {
            let held = state.withLock { state -> [@Sendable (UpstreamFault?) -> Void] in
                state.fault = newValue
                guard newValue != .hang else { return [] }
                defer { state.held.removeAll() }
                return state.held
            }
            for answer in held { answer(newValue) }
        }
    }

    /// Whether answers carry an ETag and `If-None-Match` is honoured (true, as Express does; false
    /// makes every answer a whole one, as a server without validators would).
    public var sendsETags: Bool {
        get { state.withLock { $0.etags } }
        set { state.withLock { $0.etags = newValue } }
    }

    /// How many `304 Not Modified` answers were sent.
    public var notModifiedCount: Int { state.withLock { $0.notModified } }

    /// Holds a request in the black hole; false when the fault ended meanwhile (answer now).
    fileprivate func hold(_ answer: @escaping @Sendable (UpstreamFault?) -> Void) -> Bool {
        state.withLock { state in
            guard state.fault == .hang else { return false }
            state.held.append(answer)
            return true
        }
    }

    fileprivate func countNotModified() { state.withLock { $0.notModified += 1 } }

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
        let (fault, latency) = state.withLock { ($0.fault, $0.latency) }
        let response = fault == nil || fault == .hang ? route(request) : UpstreamResponse(body: [])
        // Recorded once its answer is made: a test that sees the request may change the data
        // without changing that answer.
        state.withLock { $0.requests.append(request) }
        return (fault, response, latency + response.delay)
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
            if fault == .hang {
                // Held until the black hole ends, then answered as the upstream then is.
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let eventLoop = context.eventLoop
                let answer: @Sendable (UpstreamFault?) -> Void = { fault in
                    eventLoop.execute {
                        let (handler, context) = loopBound.value
                        handler.respond(
                            context: context, fault: fault, response: response, keepAlive: keepAlive,
                            ifNoneMatch: request.ifNoneMatch)
                    }
                }
                if !upstream.hold(answer) { answer(upstream.fault) }
                return
            }
            if latency == .zero {
                respond(
                    context: context, fault: fault, response: response, keepAlive: keepAlive,
                    ifNoneMatch: request.ifNoneMatch)
            } else {
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: latency) {
                    let (handler, context) = loopBound.value
                    handler.respond(
                        context: context, fault: fault, response: response, keepAlive: keepAlive,
                        ifNoneMatch: request.ifNoneMatch)
                }
            }
        }
    }

    private func respond(
        context: ChannelHandlerContext, fault: UpstreamFault?, response: UpstreamResponse, keepAlive: Bool,
        ifNoneMatch: String?
    ) {
        switch fault {
        case .hang:
            return
        case .throttle(let seconds):
            write(
                context: context, status: 429, contentType: "application/json",
                body: Array(#"{"error":"Too many requests"}"#.utf8),
                keepAlive: keepAlive, extraHeaders: [("Retry-After", String(seconds))])
        case .down:
            context.close(promise: nil)
        case .status(let code):
            write(
                context: context, status: code, contentType: "text/html",
                body: Array("<!DOCTYPE html><html><body><h1>\(code) error</h1></body></html>".utf8), keepAlive: false)
        case .garbage:
            write(
                context: context, status: 200, contentType: "application/json",
                body: Array("Lorem ipsum {{{ not json".utf8), keepAlive: false)
        case .html:
            write(
                context: context, status: 200, contentType: "text/html",
                body: Array(
                    "<!DOCTYPE html><html><head><title>Maintenance</title></head><body>Back soon</body></html>".utf8),
                keepAlive: false)
        case .truncated:
            let body = Array(
                #"[{"name":"Truncated University","country":"United Arab Emirates","domains":["x.ae"],"#.utf8)
            var headers = HTTPHeaders([
                ("Content-Type", "application/json"), ("Content-Length", String(body.count * 2)),
            ])
            headers.add(name: "Connection", value: "close")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil
            )
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.flush()
            context.close(promise: nil)
        case nil:
            guard response.status == 200, owner.value.withLock({ $0 })?.sendsETags != false else {
                write(
                    context: context, status: response.status, contentType: response.contentType, body: response.body,
                    keepAlive: keepAlive, extraHeaders: response.headers)
                return
            }
            // As Express answers: a weak ETag on every answer, and 304 with no body when the
            // request's If-None-Match names it.
            let etag = Self.weakETag(response.body)
            if let ifNoneMatch,
                ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag })
            {
                owner.value.withLock { $0 }?.countNotModified()
                write(
                    context: context, status: 304, contentType: response.contentType, body: [], keepAlive: keepAlive,
                    extraHeaders: [("ETag", etag)])
                return
            }
            write(
                context: context, status: 200, contentType: response.contentType, body: response.body,
                keepAlive: keepAlive,
                extraHeaders: response.headers + [("ETag", etag)])
        }
    }

    /// `W/"<length in hex>-<hash>"`, the shape of Express's weak ETags (its hash is a SHA-1;
    /// any hash of the body serves a test).
    static func weakETag(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "W/\"\(String(body.count, radix: 16))-\(String(hash, radix: 36))\""
    }

    private func write(
        context: ChannelHandlerContext, status: Int, contentType: String, body: [UInt8], keepAlive: Bool,
        extraHeaders: [(String, String)] = []
    ) {
        var headers = HTTPHeaders(
            [("Content-Type", contentType), ("Content-Length", String(body.count))] + extraHeaders)
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
        return UpstreamRequest(
            path: path, query: query, queryKeys: keys, target: target, host: head.headers["Host"].first ?? "",
            ifNoneMatch: head.headers["If-None-Match"].first)
    }
}

extension String {
    /// Whether `other` occurs in this text code point for code point, as the real servers match
    /// (MongoDB's `$regex`, Python's `in`): Swift's own `contains` takes canonically equivalent
    /// text for the same, which neither server does.
    func containsScalars(_ other: String) -> Bool {
        let text = Array(unicodeScalars)
        let part = Array(other.unicodeScalars)
        guard !part.isEmpty else { return true }
        guard part.count <= text.count else { return false }
        return (0...(text.count - part.count)).contains { text[$0..<($0 + part.count)].elementsEqual(part) }
    }

    /// Whether this text starts with `other`, code point for code point.
    func hasScalarPrefix(_ other: String) -> Bool {
        unicodeScalars.starts(with: other.unicodeScalars)
    }

    /// Equal code point for code point (`==` on `String` is canonical equivalence).
    func equalsScalars(_ other: String) -> Bool {
        unicodeScalars.elementsEqual(other.unicodeScalars)
    }
}
