#if canImport(Glibc)
    import Glibc
#endif
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization
import Telemetry

/// Answers a `GET` or `HEAD` whose answer the micro-cache holds (``ResponseCache``) where the
/// request is read, on the connection's event loop: no task, no router, no middleware chain,
/// no copy of the body (issue 28, "a micro-cache hit should cost about what nginx's cache hit
/// costs"). Everything else goes on to Hummingbird, unchanged.
///
/// It sits after Hummingbird's connection state handler (installed there by
/// ``MicroCacheFastPathInstaller``), so that keep-alive, `Connection: close` and the idle
/// timeout see these requests and answers as their own. Pipelined requests keep their order:
/// a hit is answered here only when no request passed on is still unanswered.
///
/// What a hit gets is what the router gives it (``ResponseCacheMiddleware``): its stored type,
/// `Cache-Status: rnm; hit`, its `Age`, its `ETag` (and `304` for a matching `If-None-Match`),
/// `Access-Control-Allow-Origin: *`, a `traceparent` (the caller's continued, or new), and
/// its metrics (`rnm_http_requests_total` by the route it was stored from, its duration, the
/// micro-cache hit). Measured: BENCHMARKS.md "Session 10".
///
/// It keeps the guarantees of Hummingbird's path (issue 35): while the channel is not writable
/// (a client that pipelines and does not read) a hit is passed on to Hummingbird, whose
/// writer waits for writability and so stops reading, as nginx answers pipelined requests one
/// at a time; and a request that does not keep the connection alive (`Connection: close`,
/// HTTP/1.0 without keep-alive, see ``KeepAliveHandler``) is answered `Connection: close`
/// and the connection closed once the answer is written (RFC 9112 §9.6).
final class MicroCacheFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let cache: ResponseCache
    private let metrics: HTTPMetrics
    /// The rest of a request answered here (its end, any body): not passed on.
    private var swallowing = false
    /// Requests passed on to Hummingbird whose answers have not ended yet: while there are,
    /// a hit is passed on too (Hummingbird answers pipelined requests in order; one answered
    /// here meanwhile would overtake them).
    private var passedOn = 0
    /// An answer here ended the connection: nothing more is read.
    private var closing = false

    init(cache: ResponseCache, metrics: HTTPMetrics) {
        self.cache = cache
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closing { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOn == 0, context.channel.isWritable, answer(request, context: context) {
                swallowing = true
                return
            }
            passedOn += 1
            context.fireChannelRead(data)
        case .body, .end:
            if swallowing {
                if case .end = unwrapInboundIn(data) { swallowing = false }
                return
            }
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }

    /// Writes the cached answer to `request`, if the micro-cache has one; whether it did.
    private func answer(_ request: HTTPRequest, context: ChannelHandlerContext) -> Bool {
        guard cache.isEnabled, request.method == .get || request.method == .head, let target = request.path,
            !WebApp.owns(target)
        else { return false }
        let now = ContinuousClock.now
        guard let (entry, storedAt) = cache.lookup(target, now: now) else { return false }
        let trace = RequestTrace.continuing(traceparent: request.headerFields[.traceparent])
        var (status, headers, body) = entry.answer(
            request.method, headers: request.headerFields, storedAt: storedAt, now: now)
        headers[.accessControlAllowOrigin] = "*"
        headers[.traceparent] = trace.traceparent
        headers[.date] = HTTPDate.now()
        let close = request.headerFields[.connection] == "close"
        if close { headers[.connection] = "close" }
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        if close {
            closing = true
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        metrics.cacheHits.increment()
        metrics.answered(route: entry.route, status: status.code, after: ContinuousClock.now - now)
        return true
    }
}

/// Puts ``MicroCacheFastPath`` after Hummingbird's connection state handler, which is added
/// after the handlers a configuration may give: this one is among those, and puts it there at
/// the connection's first read (then only passes reads on).
final class MicroCacheFastPathInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let makeFastPath: () -> MicroCacheFastPath
    private let drain: Drain?

    init(drain: Drain? = nil, _ makeFastPath: @escaping () -> MicroCacheFastPath) {
        self.makeFastPath = makeFastPath
        self.drain = drain
    }

    private var installed = false

    /// Hummingbird's codec is in place when the configuration's handlers are added: the
    /// ``KeepAliveHandler`` goes before it, where the HTTP version is still known.
    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        if let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
            try? pipeline.addHandler(KeepAliveHandler(drain: drain), position: .before(codec))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !installed {
            installed = true
            let pipeline = context.pipeline.syncOperations
            if let state = try? pipeline.handler(type: HTTPConnectionStateHandler.self) {
                try? pipeline.addHandler(makeFastPath(), position: .after(state))
            }
        }
        context.fireChannelRead(data)
    }
}

/// Says `Connection: close` on every request that does not keep its connection alive, before
/// the HTTP version is dropped: an HTTP/1.0 request without `keep-alive`, or a `close` token in
/// any case or list (NIO's `isKeepAlive`), and every request while the front drains
/// (``Drain``). Hummingbird closes after a request whose `Connection` is exactly `close`, and
/// so does ``MicroCacheFastPath``; the answer to such a request says `Connection: close` too
/// (RFC 9112 §9.6), whichever path gave it.
final class KeepAliveHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let drain: Drain?
    /// For each request read and not yet answered, in order: whether it ends the connection.
    private var closes = CircularBuffer<Bool>()

    init(drain: Drain? = nil) {
        self.drain = drain
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        let close = !head.isKeepAlive || drain?.isDraining == true
        closes.append(close)
        guard close else { return context.fireChannelRead(data) }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An informational answer (100 Continue) comes before the request's own.
        guard case .head(var head) = unwrapOutboundIn(data), head.status.code >= 200,
            let close = closes.popFirst(), close
        else { return context.write(data, promise: promise) }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}

/// An HTTP `Date` (RFC 9110, `Tue, 25 Nov 2026 16:00:00 GMT`), made once a second.
enum HTTPDate {
    private static let cached = Mutex<(second: Int, text: String)>((0, ""))

    static func now() -> String {
        var seconds = time(nil)
        let second = Int(seconds)
        if let text = cached.withLock({ $0.second == second ? $0.text : nil }) { return text }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 40)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        let text = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        cached.withLock { $0 = (second, text) }
        return text
    }
}

/// Entity tags of the micro-cache's answers (weak: the same bytes, not the same
/// representation's every header).
enum ETag {
    /// `W/"<FNV-1a of the body>"`.
    static func of(_ body: ByteBuffer) -> String {
        "W/\"\(String(hash(body), radix: 16))\""
    }

    /// FNV-1a (64 bits) of the buffers' readable bytes, one after the other.
    static func hash(_ buffers: ByteBuffer...) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for buffer in buffers {
            buffer.withUnsafeReadableBytes { bytes in
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
        }
        return hash
    }

    /// The tag of the gzipped copy of the body whose tag is `etag`.
    static func gzipped(_ etag: String) -> String {
        etag.hasSuffix("\"") ? String(etag.dropLast()) + "-gzip\"" : etag + "-gzip"
    }

    /// Whether an `If-None-Match` value names `etag` (or is `*`); weak comparison.
    static func matches(_ header: String, _ etag: String) -> Bool {
        let tag = opaque(etag)
        for part in header.split(separator: ",") {
            let candidate = String(part).trimmingWhitespace
            if candidate == "*" || opaque(candidate) == tag { return true }
        }
        return false
    }

    /// The tag without its weakness mark (`W/`).
    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]
    }
}

/// What `Accept-Encoding` says of gzip.
enum AcceptEncoding {
    /// Whether `header` takes gzip: `gzip` (or `*`) listed without `q=0`.
    static func takesGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.split(separator: ",") {
            let fields = part.split(separator: ";").map { String($0).trimmingWhitespace.lowercased() }
            guard let coding = fields.first, coding == "gzip" || coding == "*" else { continue }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            if quality != 0 { return true }
        }
        return false
    }
}
