import Synchronization
import Telemetry

/// A number of slots handed out in turn between clients (round robin; each client's waits
/// first come, first served), each wait bounded: the connections
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

    private struct Waiter {
        let id: UInt64
        let resume: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var size: Int
        var inUse = 0
        var acquired = 0
        var nextWaiter: UInt64 = 0
        /// Callers waiting, by client, each client's oldest first; each resumed once: `true`
        /// with a slot, `false` when its wait ran out or it was cancelled.
        var waiting: [String: [Waiter]] = [:]
        /// The clients with callers waiting, in the order they are served: one slot each in
        /// turn (round robin), so that a client's first wait is not behind another's hundred.
        var turns: [String] = []
        var count = 0
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

    /// Waits at most `timeout` for a slot, in turn with other clients' waits (`client`: the
    /// current request's, ``RequestClient/current``); true when one is taken (give it back
    /// with ``release()``).
    public func acquire(within timeout: Duration, client: String? = RequestClient.current) async -> Bool {
        let client = client ?? ""
        let id: UInt64? = state.withLock { state in
            if state.inUse < state.size, state.count == 0 {
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
            self?.giveUp(id, client: client)
        }
        defer { expiry.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    if state.waiting[client] == nil { state.turns.append(client) }
                    state.waiting[client, default: []].append(Waiter(id: id, resume: continuation))
                    state.count += 1
                }
                // A slot freed between the count and here goes to the next waiter in turn.
                handOver()
                // Cancelled, or out of time, before it was in the queue (onCancel or the expiry
                // found nothing to remove then).
                if Task.isCancelled || ContinuousClock.now >= deadline { giveUp(id, client: client) }
            }
        } onCancel: {
            giveUp(id, client: client)
        }
    }

    /// Gives a slot back: to the next waiter in turn, if any.
    public func release() {
        state.withLock { $0.inUse -= 1 }
        handOver()
    }

    /// Free slots to the waiters, one client at a time in turn.
    private func handOver() {
        let resumed = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            var resumed: [CheckedContinuation<Bool, Never>] = []
            while state.inUse < state.size, state.count > 0, !state.turns.isEmpty {
                let client = state.turns.removeFirst()
                guard var queue = state.waiting[client], !queue.isEmpty else {
                    state.waiting[client] = nil
                    continue
                }
                let waiter = queue.removeFirst()
                if queue.isEmpty {
                    state.waiting[client] = nil
                } else {
                    state.waiting[client] = queue
                    state.turns.append(client)
                }
                state.count -= 1
                state.inUse += 1
                state.acquired &+= 1
                resumed.append(waiter.resume)
            }
            return resumed
        }
        for continuation in resumed { continuation.resume(returning: true) }
    }

    /// A waiter whose time ran out (or was cancelled) leaves the queue, if still in it.
    private func giveUp(_ id: UInt64, client: String) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard var queue = state.waiting[client], let index = queue.firstIndex(where: { $0.id == id }) else {
                return nil
            }
            let waiter = queue.remove(at: index)
            state.count -= 1
            if queue.isEmpty {
                state.waiting[client] = nil
                state.turns.removeAll { $0 == client }
            } else {
                state.waiting[client] = queue
            }
            return waiter.resume
        }
        continuation?.resume(returning: false)
    }
}
