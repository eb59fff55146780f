import NIOCore
import Synchronization

/// The tasks serving one connection's requests: cancelled together when the connection's own
/// task is cancelled (a forced shutdown), each removed when done.
final class RequestTasks: Sendable {
    private struct State {
        var next = 0
        var running: [Int: Task<Void, Never>] = [:]
        /// Each running request's key by its id as the client wrote it (for `rpc.cancel`).
        var byID: [ByteBuffer: Int] = [:]
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Starts `body` in a new task, the request `id`'s (nil for a notification).
    func start(id: ByteBuffer? = nil, _ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let key = state.next
            state.next += 1
            // Created under the lock, so its own removal (which takes the lock) comes after.
            let task = Task {
                await body()
                self.state.withLock { state in
                    _ = state.running.removeValue(forKey: key)
                    if let id, state.byID[id] == key { state.byID[id] = nil }
                }
            }
            if state.cancelled { task.cancel() }
            state.running[key] = task
            if let id { state.byID[id] = key }
        }
    }

    /// Cancels the running request whose id is `id` (the bytes the client wrote), if any.
    func cancel(id: ByteBuffer) {
        let task = state.withLock { state in state.byID[id].flatMap { state.running[$0] } }
        task?.cancel()
    }

    /// Cancels every task running, and every one started from now on.
    func cancelAll() {
        let running = state.withLock { state in
            state.cancelled = true
            return Array(state.running.values)
        }
        for task in running { task.cancel() }
    }
}
