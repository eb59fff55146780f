import Synchronization

/// The connections a service may have open to its upstream, handed out first come, first
/// served. libcurl's own per-host queue (URLSession allows 6 connections per host) counted
/// a request's wait in its deadline, so a burst of cold reads from one client made another
/// client's read time out on a healthy upstream. Here the wait is rnm's: bounded on its own,
/// and the transfer's deadline starts when it has a connection.
final class UpstreamPool: Sendable {
    /// Connections at once (`RNM_UPSTREAM_MAX_CONNECTIONS`).
    let size: Int
    private let state = Mutex(State())

    private struct State {
        var inUse = 0
        var nextWaiter: UInt64 = 0
        /// Callers waiting, oldest first, each resumed once: `true` with a connection, `false`
        /// when its wait ran out or it was cancelled.
        var waiters: [(id: UInt64, resume: CheckedContinuation<Bool, Never>)] = []
    }

    init(size: Int) {
        self.size = max(1, size)
    }

    /// Waits at most `timeout` for a connection; true when one is taken (give it back with
    /// ``release()``).
    func acquire(within timeout: Duration) async -> Bool {
        let id: UInt64? = state.withLock { state in
            if state.inUse < size, state.waiters.isEmpty {
                state.inUse += 1
                return nil
            }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id else { return true }
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
                // Cancelled before it was in the queue (onCancel found nothing to remove).
                if Task.isCancelled { giveUp(id) }
            }
        } onCancel: {
            giveUp(id)
        }
    }

    /// Gives a connection back: to the oldest waiter, if any.
    func release() {
        state.withLock { $0.inUse -= 1 }
        handOver()
    }

    /// Free connections to the oldest waiters.
    private func handOver() {
        let resumed = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            var resumed: [CheckedContinuation<Bool, Never>] = []
            while state.inUse < size, !state.waiters.isEmpty {
                state.inUse += 1
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
