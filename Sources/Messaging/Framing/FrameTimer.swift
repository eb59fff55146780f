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

/// The timer of the frame that has begun: started when its first bytes arrive, done when it is
/// complete; on expiry it raises ``FrameTimeoutError`` in the pipeline, unless reads were
/// withheld by this end meanwhile (``ReadPauses``): then it checks again later.
///
/// One scheduled task serves frame after frame: a frame done only forgets when it began, and a
/// task that fires with no frame begun ends quietly; one that fires before its frame's time is
/// up is set again for it. Scheduling and cancelling a task per frame put a heap insert and
/// removal on every request read in small turns (``ReadTurns``: most reads end inside a frame),
/// about 10% of the Gateway's CPU under a flood of pipelined requests (perf, session 15).
/// Touched only on its channel's event loop (the decoder and its scheduled tasks run there).
final class FrameTimer: @unchecked Sendable {
    private let timeout: TimeAmount
    private let pauses: ReadPauses?
    private var scheduled: Scheduled<Void>?
    /// When the frame under way began; nil between frames.
    private var began: NIODeadline?

    init(timeout: TimeAmount, pauses: ReadPauses?) {
        self.timeout = timeout
        self.pauses = pauses
    }

    /// A frame has begun (its first bytes are read); nothing if one already runs (or has fired).
    func start(context: ChannelHandlerContext) {
        guard began == nil else { return }
        let now = context.eventLoop.now
        began = now
        if scheduled == nil {
            arm(at: now + timeout, context: NIOLoopBound(context, eventLoop: context.eventLoop))
        }
    }

    /// The frame is complete: the task, if set, stays for the next frame.
    func done() {
        began = nil
    }

    /// The connection ends: no more frames.
    func stop() {
        began = nil
        scheduled?.cancel()
        scheduled = nil
    }

    private func arm(at deadline: NIODeadline, context: NIOLoopBound<ChannelHandlerContext>) {
        scheduled = context.value.eventLoop.scheduleTask(deadline: deadline) { [self] in
            scheduled = nil
            guard let began else { return }
            let now = context.value.eventLoop.now
            let due = began + timeout
            if due > now {
                arm(at: due, context: context)
            } else if let later = pauses?.extended(now, timeout: timeout, now: now) {
                // Later than now, always: a deadline already past would fire again at once.
                arm(at: later, context: context)
            } else {
                context.value.fireErrorCaught(FrameTimeoutError(timeout: timeout))
            }
        }
    }
}
