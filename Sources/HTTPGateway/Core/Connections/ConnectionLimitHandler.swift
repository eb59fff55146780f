import NIOCore
import HTTPTypes
import NIOHTTPTypes

/// Admits each connection through the ``ConnectionGate``; one over a cap is answered `503`
/// with a JSON reason at its first request, then closed, without reaching the router (a fast
/// answer costs less than a refused connect that clients retry at once).
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let gate: ConnectionGate
    /// The address counted in, once admitted.
    private var admitted: String?
    /// Why this connection is refused, when it is.
    private var refusal: String?
    /// Whether this connection is refused (decided when it became active).
    var isRefused: Bool { refusal != nil }
    /// Whether the refusal was sent.
    private var answered = false
    private var decided = false
    /// How long a refused connection may take to send its first request and read the answer.
    static let refusedGrace = TimeAmount.seconds(5)

    init(gate: ConnectionGate) {
        self.gate = gate
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { decide(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        decide(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        releaseSlot()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseSlot()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let refusal else { return context.fireChannelRead(data) }
        // Nothing of a refused connection reaches the router: its first head is answered, the
        // rest (that request's body, requests pipelined after it) dropped.
        guard case .head = unwrapInboundIn(data), !answered else { return }
        answered = true
        let body = PublicResponse.errorBody(refusal)
        let headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes),
            .retryAfter: "1", .connection: "close",
        ]
        context.write(
            wrapOutboundOut(.head(HTTPResponse(status: .serviceUnavailable, headerFields: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func decide(context: ChannelHandlerContext) {
        guard !decided else { return }
        decided = true
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if let refusal = gate.admit(address) {
            self.refusal = refusal
            // Not counted, so not kept: one that sends no request is closed after a moment.
            let channel = context.channel
            context.eventLoop.scheduleTask(in: Self.refusedGrace) { channel.close(promise: nil) }
        } else {
            admitted = address
        }
    }

    private func releaseSlot() {
        guard let address = admitted else { return }
        admitted = nil
        gate.release(address)
    }
}
