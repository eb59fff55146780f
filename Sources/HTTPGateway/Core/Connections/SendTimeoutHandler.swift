import CoreMetrics
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
    /// Counts the connections it closed (`rnm_http_send_timeouts_total`).
    private let closed: Counter?

    init(timeout: TimeAmount, closed: Counter? = nil) {
        self.timeout = timeout
        self.closed = closed
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            timer?.cancel()
            timer = nil
        } else if timer == nil {
            arm(context.channel, on: context.eventLoop)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Closes `channel` after the timeout unless it has drained some of its answers by then
    /// (a slow reader is not a stopped one: it gets another period).
    private func arm(_ channel: any Channel, on eventLoop: any EventLoop) {
        let before = Self.buffered(channel)
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        timer = eventLoop.scheduleTask(in: timeout) {
            let handler = handler.value
            handler.timer = nil
            guard !channel.isWritable else { return }
            if let before, let now = Self.buffered(channel), now < before {
                handler.arm(channel, on: eventLoop)
            } else {
                handler.closed?.increment()
                channel.close(promise: nil)
            }
        }
    }

    /// Bytes of answers written but not yet sent.
    private static func buffered(_ channel: any Channel) -> Int? {
        try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}
