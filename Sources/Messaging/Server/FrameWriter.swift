import NIOCore

/// Writes frames to a connection from any thread, in the order they are written, and flushes
/// once per turn of its event loop rather than once per frame: replies written in one burst
/// (a reader answering several cached requests, a link delivering several replies) go out in
/// one system call.
final class FrameWriter: Sendable {
    private let channel: any Channel
    /// Whether a flush is scheduled; only touched on the event loop.
    private let flushScheduled: NIOLoopBoundBox<Bool>

    init(channel: any Channel) {
        self.channel = channel
        self.flushScheduled = .makeBoxSendingValue(false, eventLoop: channel.eventLoop)
    }

    /// Runs `body` with the channel on its event loop.
    func onLoop(_ body: @escaping @Sendable (any Channel) -> Void) {
        let channel = channel
        if channel.eventLoop.inEventLoop { body(channel) } else { channel.eventLoop.execute { body(channel) } }
    }

    /// Queues `frame`; `completion` runs once the socket has taken it, or with the write's error.
    func write(_ frame: ByteBuffer, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let eventLoop = channel.eventLoop
        if eventLoop.inEventLoop {
            writeOnLoop(frame, completion: completion)
        } else {
            eventLoop.execute { self.writeOnLoop(frame, completion: completion) }
        }
    }

    private func writeOnLoop(_ frame: ByteBuffer, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete(completion)
        channel.write(frame, promise: promise)
        guard !flushScheduled.value else { return }
        // Every write queued before this task runs is flushed by it; a write queued after it
        // schedules the next one.
        flushScheduled.value = true
        channel.eventLoop.execute {
            self.flushScheduled.value = false
            self.channel.flush()
        }
    }
}
