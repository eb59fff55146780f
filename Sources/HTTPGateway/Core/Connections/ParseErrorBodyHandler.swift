import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Gives the answer to a request that cannot be parsed the JSON body every other error has.
/// Hummingbird answers any parse error with an empty `400` and closes; this rewrites that
/// answer on its way out: `431` naming `RNM_HTTP_MAX_HEADER_BYTES` for headers over the limit,
/// `400` with the parser's reason otherwise (a client's log then says what to fix).
final class ParseErrorBodyHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let maxHeaderBytes: Int
    private var parseError: HTTPParserError?

    init(maxHeaderBytes: Int) {
        self.maxHeaderBytes = maxHeaderBytes
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError { parseError = error }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only Hummingbird's own answer to the parse error (empty, closing): a 400 of an earlier
        // pipelined request, written after the error was seen, goes out as it is.
        guard let error = parseError, case .head(var head) = unwrapOutboundIn(data), head.status == .badRequest,
            head.headerFields[.contentLength] == "0", head.headerFields[.connection] == "close"
        else {
            context.write(data, promise: promise)
            return
        }
        parseError = nil
        let (status, message) = describe(error)
        let body = PublicResponse.errorBody(message)
        head.status = status
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.contentLength] = String(body.readableBytes)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: promise)
    }

    private func describe(_ error: HTTPParserError) -> (HTTPResponse.Status, String) {
        switch error {
        case .headerOverflow:
            (
                .init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                "request headers over \(maxHeaderBytes) bytes (RNM_HTTP_MAX_HEADER_BYTES); send fewer or shorter ones"
            )
        default:
            (.badRequest, "the request is not valid HTTP/1.1: \(error)")
        }
    }
}
