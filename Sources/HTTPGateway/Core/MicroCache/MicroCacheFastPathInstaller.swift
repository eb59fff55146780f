import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Puts the micro-cache's two ways of answering a hit in their places: ``MicroCacheHitHandler``
/// first, on the connection's bytes (with its ``MicroCacheAnswerTap`` just past the HTTP codec),
/// and ``MicroCacheFastPath`` after Hummingbird's connection state handler, which is added after
/// the handlers a configuration may give: this one is among those, and puts it there at the
/// connection's first read (then only passes reads on). A connection over the caps (refused by
/// ``ConnectionLimitHandler``, added before this) gets neither: its one answer is the refusal.
final class MicroCacheFastPathInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let makeFastPath: () -> MicroCacheFastPath
    private let makeHits: (() -> MicroCacheHitHandler)?
    private let drain: Drain?

    init(
        drain: Drain? = nil, hits makeHits: (() -> MicroCacheHitHandler)? = nil,
        _ makeFastPath: @escaping () -> MicroCacheFastPath
    ) {
        self.makeFastPath = makeFastPath
        self.makeHits = makeHits
        self.drain = drain
    }

    private var installed = false

    /// Hummingbird's codec is in place when the configuration's handlers are added: the
    /// ``KeepAliveHandler`` goes before it, where the HTTP version is still known.
    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return }
        try? pipeline.addHandler(KeepAliveHandler(drain: drain), position: .before(codec))
        let refused = (try? pipeline.handler(type: ConnectionLimitHandler.self))?.isRefused ?? false
        guard let makeHits, !refused else { return }
        let hits = makeHits()
        try? pipeline.addHandler(MicroCacheAnswerTap(hits: hits), position: .after(codec))
        try? pipeline.addHandler(hits, position: .first)
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
