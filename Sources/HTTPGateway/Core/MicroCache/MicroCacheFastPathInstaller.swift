import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

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
