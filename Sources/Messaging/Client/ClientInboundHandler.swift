import NIOCore
import Synchronization

/// Lets the channel handler reach the client once it exists.
final class ClientBox: Sendable {
    let client = Mutex<RPCClient?>(nil)
}

final class ClientInboundHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let box: ClientBox

    init(box: ClientBox) {
        self.box = box
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        box.client.withLock { $0 }?.receive(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client = box.client.withLock({ $0 }) {
            client.failAll(reason: "connection to \(client.service) at \(client.socketPath) closed")
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let client = box.client.withLock({ $0 }) {
            client.failAll(reason: "protocol error from \(client.service): \(error)")
        }
        context.close(promise: nil)
    }
}
