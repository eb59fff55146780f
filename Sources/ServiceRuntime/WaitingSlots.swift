import Synchronization

/// A number of slots handed out first come, first served, each wait bounded: the connections
/// a service may have open to its upstream, the requests the HTTP front may have in flight on
/// its link to the Gateway.
///
/// - Upstream: libcurl's own per-host queue (URLSession allows 6 connections per host) counted
///   a request's wait in its deadline, so a burst of cold reads from one client made another
///   client's read time out on a healthy upstream. Here the wait is rnm's: bounded on its own,
///   and the transfer's deadline starts when it has a connection.
/// - HTTP front: past the Gateway's in-flight limit for one connection, requests were answered
///   503 (-32005); they wait for a slot instead, within their deadline.
public final class WaitingSlots: Sendable {
    private let state: Mutex<State>

    private struct State {
        var size: Int
        var inUse = 0
        var acquired = 0
        var nextWaiter: UInt64 = 0
        /// Callers waiting, oldest first, each resumed once: `true` with a connection, `false`
        /// when its wait ran out or it was cancelled.
        var waiters: [(id: UInt64, resume: CheckedContinuation<Bool, Never>)] = []
    }

    public init(size: Int) {
        state = Mutex(State(size: max(1, size)))
    }

    /// Slots at once.
    public var size: Int { state.withLock { $0.size } }

    /// Slots taken now, and slots handed out so far (a count that only grows).
    public var usage: (inUse: Int, acquired: Int) { state.withLock { ($0.inUse, $0.acquired) } }

    /// Changes the number of slots (what the other end said it takes); waiters get new ones.
    public func resize(to size: Int) {
        state.withLock { $0.size = max(1, size) }
        handOver()
    }

    /// Waits at most `timeout` for a slot; true when one is taken (give it back with
    /// ``release()``).
    public func acquire(within timeout: Duration) async -> Bool {
        let id: UInt64? = state.withLock { state in
            if state.inUse < state.size, state.waiters.isEmpty {
                state.inUse += 1
                state.acquired &+= 1
                return nil
            }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id else { return true }
        let deadline = ContinuousClock.now + timeout
        let expiry = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.giveUp(id)
        }
        defer { expiry.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                state.withLock { $0.waiters.append((id, continuation)) }
                // A connection freed between the count and here goes to the oldest waiter.
                handOver()
                // Cancelled, or out of time, before it was in the queue (onCancel or the expiry
                // found nothing to remove then).
                if Task.isCancelled || ContinuousClock.now >= deadline { giveUp(id) }
            }
        } onCancel: {
            giveUp(id)
        }
    }

    /// Gives a slot back: to the oldest waiter, if any.
    public func release() {
        state.withLock { $0.inUse -= 1 }
        handOver()
    }

    /// Free slots to the oldest waiters.
    private func handOver() {
        let resumed = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            var resumed: [CheckedContinuation<Bool, Never>] = []
            while state.inUse < state.size, !state.waiters.isEmpty {
                state.inUse += 1
                state.acquired &+= 1
                resumed.append(state.waiters.removeFirst().resume)
            }
            return resumed
        }
        for continuation in resumed { continuation.resume(returning: true) }
    }

    /// A waiter whose time ran out (or was cancelled) leaves the queue, if still in it.
    private func giveUp(_ id: UInt64) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index).resume
        }
        continuation?.resume(returning: false)
    }
}
