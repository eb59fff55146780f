import NIOCore
import NIOHTTPTypes

/// Tells ``MicroCacheHitHandler`` what happens to the requests it passed on, seen where
/// Hummingbird's side reads and answers them (just past NIO's HTTP codec): each part read
/// (for the idle timeout) and each answer's end (for the order of pipelined answers).
final class MicroCacheAnswerTap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let hits: MicroCacheHitHandler

    init(hits: MicroCacheHitHandler) {
        self.hits = hits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: hits.partRead(isHead: true, isEnd: false)
        case .body: hits.partRead(isHead: false, isEnd: false)
        case .end: hits.partRead(isHead: false, isEnd: true)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if ended { hits.answerEnded() }
    }
}
