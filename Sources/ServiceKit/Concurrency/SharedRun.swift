import Synchronization

/// Work that runs once however many ask for it at the same time (a sync): a caller arriving
/// while it runs joins it, is sent its progress from then on (so that its deadline, which
/// progress restarts, keeps running) and gets its result or its error. Two syncs at once
/// once downloaded the whole list twice. The run is cancelled when every caller has been.
public final class SharedRun<Value: Sendable>: Sendable {
    /// Progress as a sync reports it: done, total, message.
    public typealias Progress = @Sendable (Int, Int, String) async -> Void

    private struct Running {
        var id: UInt64
        var task: Task<Value, any Error>
        var listeners: [UInt64: Progress]
    }

    private struct State {
        var running: Running?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Runs `work`, or joins the run in flight; `progress` receives the run's progress.
    public func run(
        progress: @escaping Progress, _ work: @escaping @Sendable (@escaping Progress) async throws -> Value
    )
        async throws -> Value
    {
        let (task, listener) = state.withLock { state -> (Task<Value, any Error>, UInt64) in
            state.nextID += 1
            let listener = state.nextID
            if state.running != nil {
                state.running!.listeners[listener] = progress
                return (state.running!.task, listener)
            }
            state.nextID += 1
            let id = state.nextID
            let task = Task { [self] in
                // Cleared by the run itself as it ends: a caller arriving later starts anew.
                defer { self.state.withLock { if $0.running?.id == id { $0.running = nil } } }
                return try await work { done, total, message in
                    for listener in self.state.withLock({ Array(($0.running?.listeners ?? [:]).values) }) {
                        await listener(done, total, message)
                    }
                }
            }
            state.running = Running(id: id, task: task, listeners: [listener: progress])
            return (task, listener)
        }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            // This caller has gone: no more progress for it; the last one out stops the run.
            let last = state.withLock { state -> Bool in
                guard state.running?.task == task else { return false }
                state.running!.listeners[listener] = nil
                return state.running!.listeners.isEmpty
            }
            if last { task.cancel() }
        }
    }
}
