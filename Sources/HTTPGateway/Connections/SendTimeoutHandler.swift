import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client has read nothing of an answer for `timeout` (nginx's
/// `send_timeout`): while answers wait unsent (the channel unwritable: its buffer over the
/// high-water mark) a timer runs; any progress (writable again) stops it. The idle timeout
/// never fires while an answer is being written, so without this a client that pipelines
/// requests and never reads would keep its connection and several megabytes of buffer.
final class SendTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            timer?.cancel()
            timer = nil
        } else if timer == nil {
            let channel = context.channel
            timer = context.eventLoop.scheduleTask(in: timeout) {
                channel.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}
