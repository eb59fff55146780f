import NIOCore
import Synchronization

/// When a connection's reader withheld reads itself (its budget full, a notification waiting
/// for a slot): a frame left half read meanwhile is the server's doing, not the peer's, so the
/// frame timer does not count that time (issue 29, row 4: a service once reset the Gateway's
/// link, failing every request on it, for a stall it had made).
public final class ReadPauses: Sendable {
    private struct State {
        var paused = false
        var resumedAt: NIODeadline = .distantPast
    }

    private let state = Mutex(State())

    public init() {}

    /// Reads are withheld from now on.
    public func pause() {
        state.withLock { $0.paused = true }
    }

    /// Reads go on from `now` (the event loop's clock).
    public func resume(now: NIODeadline) {
        state.withLock { state in
            if state.paused { state.resumedAt = now }
            state.paused = false
        }
    }

    /// A frame timer set for `deadline` has fired: when the peer has not yet had `timeout` of
    /// reading to finish its frame (reads are withheld now, or were until lately), the later
    /// deadline to check again at; nil when its time is up.
    func extended(_ deadline: NIODeadline, timeout: TimeAmount, now: NIODeadline) -> NIODeadline? {
        state.withLock { state in
            if state.paused { return now + timeout }
            let fromResume = state.resumedAt + timeout
            return fromResume > deadline ? fromResume : nil
        }
    }
}

/// The timer of one frame that has begun: armed when its first bytes arrive, cancelled when it
/// is complete; on expiry it raises ``FrameTimeoutError`` in the pipeline, unless reads were
/// withheld by this end meanwhile (``ReadPauses``): then it checks again later.
/// Touched only on its channel's event loop (the decoder and its scheduled tasks run there).
final class FrameTimer: @unchecked Sendable {
    private let timeout: TimeAmount
    private let pauses: ReadPauses?
    private var scheduled: Scheduled<Void>?

    init(timeout: TimeAmount, pauses: ReadPauses?) {
        self.timeout = timeout
        self.pauses = pauses
    }

    /// Arms the timer unless it already runs (or has fired).
    func start(context: ChannelHandlerContext) {
        guard scheduled == nil else { return }
        arm(at: context.eventLoop.now + timeout, context: NIOLoopBound(context, eventLoop: context.eventLoop))
    }

    /// The frame is complete (or the connection ends).
    func cancel() {
        scheduled?.cancel()
        scheduled = nil
    }

    private func arm(at deadline: NIODeadline, context: NIOLoopBound<ChannelHandlerContext>) {
        scheduled = context.value.eventLoop.scheduleTask(deadline: deadline) { [self] in
            if let later = pauses?.extended(deadline, timeout: timeout, now: context.value.eventLoop.now) {
                arm(at: later, context: context)
                return
            }
            context.value.fireErrorCaught(FrameTimeoutError(timeout: timeout))
        }
    }
}
