import Synchronization

/// Work that runs once however many ask for it at the same time (a sync): a caller arriving
/// while it runs joins it, is sent its progress from then on (so that its deadline, which
/// progress restarts, keeps running) and gets its result or its error. Two syncs at once
/// once downloaded the whole list twice.
public final class SharedRun<Value: Sendable>: Sendable {
    /// Progress as a sync reports it: done, total, message.
    public typealias Progress = @Sendable (Int, Int, String) async -> Void

    private struct Running {
        var task: Task<Value, any Error>
        var listeners: [Progress]
    }

    private let running = Mutex<Running?>(nil)

    public init() {}

    /// Runs `work`, or joins the run in flight; `progress` receives the run's progress.
    public func run(
        progress: @escaping Progress, _ work: @escaping @Sendable (@escaping Progress) async throws -> Value
    )
        async throws -> Value
    {
        let task = running.withLock { state -> Task<Value, any Error> in
            if state != nil {
                state!.listeners.append(progress)
                return state!.task
            }
            let task = Task {
                try await work { [self] done, total, message in
                    for listener in self.running.withLock({ $0?.listeners ?? [] }) {
                        await listener(done, total, message)
                    }
                }
            }
            state = Running(task: task, listeners: [progress])
            return task
        }
        defer { running.withLock { if $0?.task == task { $0 = nil } } }
        return try await task.value
    }
}
