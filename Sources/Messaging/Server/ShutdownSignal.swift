import Synchronization

/// A one-shot "shut down gracefully" signal that parts of a server listen to while they run.
/// It keeps the wire library free of any lifecycle library: whoever runs the server (a
/// ServiceLifecycle service, a test) triggers it.
final class ShutdownSignal: Sendable {
    private struct State {
        var triggered = false
        var next = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    /// Runs every handler registered now, once; handlers registered later run at once.
    func trigger() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.triggered else { return [] }
            state.triggered = true
            defer { state.handlers.removeAll() }
            return Array(state.handlers.values)
        }
        for handler in handlers { handler() }
    }

    /// Runs `operation`; `handler` is called if the signal is triggered meanwhile (or was before).
    func whileRunning<T>(
        onShutdown handler: @escaping @Sendable () -> Void,
        _ operation: () async throws -> T
    ) async rethrows -> T {
        let key = state.withLock { state -> Int? in
            guard !state.triggered else { return nil }
            defer { state.next += 1 }
            state.handlers[state.next] = handler
            return state.next
        }
        if key == nil { handler() }
        defer {
            if let key { state.withLock { _ = $0.handlers.removeValue(forKey: key) } }
        }
        return try await operation()
    }
}
