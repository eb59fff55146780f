import NIOCore

/// Writes frames to a connection from any thread, in the order they are written, and flushes
/// once per turn of its event loop rather than once per frame: replies written in one burst
/// (a reader answering several cached requests, a link delivering several replies) go out in
/// one system call.
///
/// The frames of one turn are held here and written when it ends, with one write promise, on
/// the last: NIO completes it once every frame before it has been written too (or with the
/// error that stopped them), and then each frame's completion runs, in order. A promise per
/// frame cost the Gateway two of them per forward (a future, its callback, and NIO's cascade
/// from one frame's promise to the next in a `writev`); a frame's completion may now come
/// with its turn's last frame rather than with its own (a budget's bytes are released then: a
/// slow reader's partial writes hold a turn's bytes a little longer), and NIO sees the turn's
/// frames (its writability) when the turn ends. Everything written to the channel goes through
/// here (so nothing overtakes the frames held; the drain's empty write too).
final class FrameWriter: Sendable {
    /// What runs once a frame is written (or with the error that stopped it). The hot paths'
    /// completions are cases, not closures: a closure stored in the batch's array cost an
    /// allocation for its captures and another for the thunk that stores it (measured in the
    /// Gateway: four a forward).
    enum Completion: Sendable {
        case call(@Sendable (Result<Void, any Error>) -> Void)
        /// A reply's bytes, held in `budget` until written (``ConnectionBudget/releaseReply(bytes:)``).
        case releaseReply(ConnectionBudget, bytes: Int)
        /// An error frame counted as work: its bytes released, then the write counted done.
        case releaseCounted(ConnectionBudget, bytes: Int)
        /// Request `id` of `client`: failed when it could not be written.
        case request(RPCClient, id: Int64)
        /// Nothing.
        case none

        func run(_ result: Result<Void, any Error>) {
            switch self {
            case .call(let body): body(result)
            case .releaseReply(let budget, let bytes): budget.releaseReply(bytes: bytes)
            case .releaseCounted(let budget, let bytes):
                budget.releaseBytes(bytes)
                budget.finishWrite()
            case .request(let client, let id):
                if case .failure(let error) = result { client.writeFailed(id, error: error) }
            case .none: break
            }
        }
    }

    private let channel: any Channel
    /// The frames written since the last flush, and their completions; only touched on the
    /// event loop. A flush is scheduled while there are any.
    private let pending: NIOLoopBoundBox<Batch>
    /// The batch being flushed, kept empty between flushes: its arrays keep their room, so a
    /// turn of one frame (a client's reply) costs no allocation of its own, and the frames of
    /// a longer one none either (its completions are handed to its promise: one array a turn).
    private let spare: NIOLoopBoundBox<Batch>

    private struct Batch {
        var frames: [ByteBuffer] = []
        var completions: [Completion] = []
    }

    init(channel: any Channel) {
        self.channel = channel
        self.pending = .makeBoxSendingValue(Batch(), eventLoop: channel.eventLoop)
        self.spare = .makeBoxSendingValue(Batch(), eventLoop: channel.eventLoop)
    }

    /// Runs `body` with the channel on its event loop.
    func onLoop(_ body: @escaping @Sendable (any Channel) -> Void) {
        let channel = channel
        if channel.eventLoop.inEventLoop { body(channel) } else { channel.eventLoop.execute { body(channel) } }
    }

    /// Queues `frame`; `completion` runs once the socket has taken it and the rest of its turn's
    /// frames, or with the error that stopped any of them.
    func write(_ frame: ByteBuffer, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        write(frame, then: .call(completion))
    }

    /// ``write(_:completion:)`` with one of the hot paths' completions.
    func write(_ frame: ByteBuffer, then completion: Completion) {
        let eventLoop = channel.eventLoop
        if eventLoop.inEventLoop {
            writeOnLoop(frame, completion: completion)
        } else {
            eventLoop.execute { self.writeOnLoop(frame, completion: completion) }
        }
    }

    private func writeOnLoop(_ frame: ByteBuffer, completion: Completion) {
        pending.value.frames.append(frame)
        pending.value.completions.append(completion)
        guard pending.value.frames.count == 1 else { return }
        // Every frame written before this task runs is flushed by it; a frame written after it
        // schedules the next one.
        channel.eventLoop.execute { self.flush() }
    }

    private func flush() {
        // Taken out before anything is written: a write that fails at once completes (and may
        // write again) before `writeAndFlush` returns.
        var batch = Batch()
        swap(&batch, &spare.value)
        swap(&batch, &pending.value)
        guard let last = batch.frames.last else { return }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        if batch.completions.count == 1 {
            let completion = batch.completions[0]
            promise.futureResult.whenComplete { completion.run($0) }
        } else {
            let completions = batch.completions
            promise.futureResult.whenComplete { result in
                for completion in completions { completion.run(result) }
            }
        }
        for frame in batch.frames.dropLast() { channel.write(frame, promise: nil) }
        batch.frames.removeAll(keepingCapacity: true)
        batch.completions.removeAll(keepingCapacity: true)
        swap(&batch, &spare.value)
        channel.writeAndFlush(last, promise: promise)
    }
}
