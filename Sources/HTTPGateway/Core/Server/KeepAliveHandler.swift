import NIOCore
import NIOHTTP1

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
