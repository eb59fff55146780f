import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Threads of their own for GraphQL's CPU work (parse, validate, execute, encode), apart from
/// the HTTP event loops. The HTTPGateway runs its Swift tasks on its event loops
/// (``EventLoopExecutor``: right for moving bytes); GraphQL's work is synchronous and grows with
/// the document, so on those loops one costly query stalled every connection of its loop,
/// micro-cache hits included (issue 35). Here a query runs with these threads as its task
/// executor preference (SE-0417): every step of it, its awaits on the Gateway included, comes
/// back to them, and the event loops only parse HTTP, answer hits and move bytes.
///
/// There are fewer of them than cores, so the event loops always have a core to answer hits on
/// (on one core, one thread: a query then shares the core with the event loop, as any work).
/// They run at the process's priority: at `nice` 10 (session 12) the event loops' bystanders
/// gained nothing measurable (`scripts/attack`: cached-read p99 1.2 against 1.3 ms beside a
/// heavy query), while beside other busy processes a query got a tenth of its share (19× its
/// idle time, `BusyMachineTests`). How much work there is at once is bounded by
/// ``GraphQLAdmission``, how long by ``GraphQLLimits/timeout``.
final class GraphQLWorkers: TaskExecutor, Service, @unchecked Sendable {
    // @unchecked: `group` is a Sendable NIO type and never reassigned.
    private let group: MultiThreadedEventLoopGroup

    /// Half the cores, at least one: the other half stays with the event loops.
    static var defaultThreads: Int { max(1, System.coreCount / 2) }

    init(threads: Int = GraphQLWorkers.defaultThreads) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
    }

    /// Set once the threads are stopping: a late step of a query still running then (one past
    /// its deadline) runs on the global executor instead of being dropped by a closed loop.
    private let closed = Atomic(false)

    func enqueue(_ job: consuming ExecutorJob) {
        guard !closed.load(ordering: .acquiring) else {
            globalConcurrentExecutor.enqueue(job)
            return
        }
        let job = UnownedJob(job)
        group.next().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// `work`'s result, run on these threads; nil if it has not ended within `deadline`. Then it
    /// is cancelled (its resolvers stop at their next record) and the caller answers at once,
    /// without waiting for it: the work still counts in ``GraphQLAdmission`` until it ends.
    /// The caller's cancellation (the server stopping) ends the wait and cancels the work too.
    func run<T: Sendable>(within deadline: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
        let first = FirstOf<T>()
        let running = Mutex<Task<Void, Never>?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                first.wait(continuation)
                let task = Task(executorPreference: self) {
                    let result = await work()
                    first.resolve(result)
                }
                running.withLock { $0 = task }
                // On an I/O event loop, not on these threads: a query's synchronous work holds
                // its thread, and a timer of that thread would fire only once it is done.
                let timer = NIOSingletons.posixEventLoopGroup.next().scheduleTask(in: TimeAmount(deadline)) {
                    if first.resolve(nil) { task.cancel() }
                }
                first.onResolve { timer.cancel() }
                if Task.isCancelled, first.resolve(nil) { task.cancel() }
            }
        } onCancel: {
            if first.resolve(nil) { running.withLock { $0 }?.cancel() }
        }
    }

    /// Runs until the graceful shutdown, then stops the threads; the HTTP server is shut down
    /// first, so no query is started on them after.
    func run() async throws {
        try? await gracefulShutdown()
        closed.store(true, ordering: .releasing)
        // Not awaited: a query's synchronous work holds its thread until it ends, and nobody
        // waits for its answer any more; the thread exits after it.
        group.shutdownGracefully { _ in }
    }
}

/// Whichever comes first of a result and a deadline, once.
private final class FirstOf<T: Sendable>: Sendable {
    private let state = Mutex<
        (continuation: CheckedContinuation<T?, Never>?, done: Bool, after: (@Sendable () -> Void)?)
    >(
        (nil, false, nil))

    func wait(_ continuation: CheckedContinuation<T?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Resumes the waiter with `value`; false if it was resumed already.
    @discardableResult
    func resolve(_ value: T?) -> Bool {
        let (continuation, after) = state.withLock {
            state -> (CheckedContinuation<T?, Never>?, (@Sendable () -> Void)?) in
            guard !state.done else { return (nil, nil) }
            state.done = true
            defer { state.continuation = nil }
            return (state.continuation, state.after)
        }
        guard let continuation else { return false }
        continuation.resume(returning: value)
        after?()
        return true
    }

    /// Runs `action` once resolved (at once if it is).
    func onResolve(_ action: @escaping @Sendable () -> Void) {
        let done = state.withLock { state -> Bool in
            if !state.done { state.after = action }
            return state.done
        }
        if done { action() }
    }
}
