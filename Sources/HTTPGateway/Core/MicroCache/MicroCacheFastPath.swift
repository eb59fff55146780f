import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Telemetry

/// Answers a `GET` or `HEAD` whose answer the micro-cache holds (``ResponseCache``) where the
/// request is read, on the connection's event loop: no task, no router, no middleware chain,
/// no copy of the body (issue 28, "a micro-cache hit should cost about what nginx's cache hit
/// costs"). Everything else goes on to Hummingbird, unchanged. Most hits are answered before
/// this, from the request's bytes (``MicroCacheHitHandler``, issue 40); this one answers those
/// that one leaves to Hummingbird's side: with a `Connection` field other than `keep-alive`,
/// HTTP/1.0, pipelined behind a request still being answered, or while the channel is not
/// writable.
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
        PublicHeaders.stamp(&headers, publicPath: true, traceparent: trace.traceparent)
        headers[.date] = HTTPDate.now()
        // ``KeepAliveHandler`` marked the request, and says `Connection: close` on the answer.
        let close = request.headerFields[.connection] == "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        if close {
            closing = true
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        metrics.cacheHits.increment()
        metrics.answered(route: entry.route, status: status.code, after: ContinuousClock.now - now)
        return true
    }
}
