import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Puts the micro-cache's two ways of answering a hit in their places: ``MicroCacheHitHandler``
/// first, on the connection's bytes (with its ``MicroCacheAnswerTap`` just past the HTTP codec),
/// and ``MicroCacheFastPath`` after Hummingbird's connection state handler, which is added after
/// the handlers a configuration may give: this one is among those, and puts it there at the
/// connection's first read (then only passes reads on). A connection over the caps (refused by
/// ``ConnectionLimitHandler``, added before this) gets no hit from either: its one answer is the
/// refusal. The caps decide as the connection becomes active, after this is added (Hummingbird
/// sets a connection's pipeline up before it is registered): ``MicroCacheHitHandler`` asks them
/// then (``MicroCacheHitHandler/admission``).
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
        let limit = try? pipeline.handler(type: ConnectionLimitHandler.self)
        guard let makeHits, limit?.isRefused != true else { return }
        let hits = makeHits()
        hits.admission = limit
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
