import Dispatch
import Synchronization

/// Runs rnmctl's tasks on the thread that starts it, the process's main thread, instead of
/// Swift's pool: a command that makes a call and exits has no use for the pool's threads, and
/// starting them and handing the command over between them was a measurable part of its start
/// (BENCHMARKS.md, session 17). rnmctl's calls block this thread (``SerialRPCClient``), which has
/// nothing else to do meanwhile.
final class ThisThreadExecutor: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var finished = false
    }

    private let queue = Mutex(Queue())
    private let ready = DispatchSemaphore(value: 0)

    /// Runs `operation` to its end on the calling thread, with every task it starts.
    static func run(_ operation: @escaping @Sendable () async -> Void) {
        let executor = ThisThreadExecutor()
        Task(executorPreference: executor) {
            await operation()
            executor.queue.withLock { $0.finished = true }
            executor.ready.signal()
        }
        executor.runJobs()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        ready.signal()
    }

    private func runJobs() {
        while true {
            ready.wait()
            let (jobs, finished) = queue.withLock { queue in
                defer { queue.jobs.removeAll() }
                return (queue.jobs, queue.finished)
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if finished && jobs.isEmpty { return }
        }
    }
}
